// Every built-in tool tells the model the JSON schema of the zod schema its arguments are parsed
// with (z.toJSONSchema), so what the model is told and what is accepted cannot drift apart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { startHarness, type Harness } from '../../__tests__/harness';
import { BUILTIN_TOOLS } from '../index';

/**
 * The post-processing every tool's schema gets: `io: 'input'` (a field with a default is optional
 * to the model), without `$schema` and without the safe-integer bounds zod adds to a bare int.
 */
function expected(args: z.ZodType): unknown {
  return JSON.parse(
    JSON.stringify(z.toJSONSchema(args, { io: 'input' }), (k, v: unknown) =>
      k === '$schema' ||
      (k === 'maximum' && v === Number.MAX_SAFE_INTEGER) ||
      (k === 'minimum' && v === Number.MIN_SAFE_INTEGER)
        ? undefined
        : v,
    ),
  );
}

/** One call each tool accepts, and one it refuses (a required argument of the wrong type). */
const SAMPLES: Record<string, { ok: unknown; bad: unknown }> = {
  shell: { ok: { command: 'ls', timeoutSec: 5 }, bad: { command: 3 } },
  read_file: { ok: { path: 'a.txt', offset: 0, limit: 10 }, bad: { path: '' } },
  write_file: { ok: { path: 'a.txt', content: 'x' }, bad: { path: 'a.txt' } },
  edit_file: { ok: { path: 'a', old_string: 'x', new_string: 'y' }, bad: { path: 'a', old_string: '' } },
  list_dir: { ok: {}, bad: { path: 3 } },
  grep: { ok: { pattern: 'x', ignore_case: true }, bad: { pattern: '' } },
  glob: { ok: { pattern: '*.ts' }, bad: {} },
  read_tool_output: { ok: { id: 'call_1', limit: 100 }, bad: { id: 'call_1', limit: 0 } },
  manage_todo_list: { ok: { todos: [{ content: 'a', status: 'pending' }] }, bad: { todos: [{ content: 'a' }] } },
};

describe('built-in tool schemas', () => {
  it.each(BUILTIN_TOOLS.map((t) => [t.name, t] as const))('%s advertises z.toJSONSchema(args)', (_name, tool) => {
    expect(tool.parameters).toEqual(expected(tool.args));
    expect(tool.parameters.type).toBe('object');
  });

  it('every built-in tool has a sample here', () => {
    expect(Object.keys(SAMPLES).sort()).toEqual(BUILTIN_TOOLS.map((t) => t.name).sort());
  });
});

describe('the provider request carries those schemas (fake-llm)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ llm: { defaultReply: { content: 'Done.' } } });
    await h.turn('hello');
  });
  afterAll(() => h.close());

  it('each tool of the request is the tool’s schema, and the schema read back accepts what args accepts', () => {
    const body = h.llm.chatRequests()[0]!.body as {
      tools: { type: string; function: { name: string; parameters: Record<string, unknown> } }[];
    };
    const sent = new Map(body.tools.map((t) => [t.function.name, t.function.parameters]));
    for (const tool of BUILTIN_TOOLS) {
      const parameters = sent.get(tool.name);
      expect(parameters, tool.name).toEqual(expected(tool.args));
      // A valid JSON schema: zod reads it back, and it judges the samples as the tool's args do.
      const back = z.fromJSONSchema(parameters as Parameters<typeof z.fromJSONSchema>[0]);
      const { ok, bad } = SAMPLES[tool.name]!;
      expect([back.safeParse(ok).success, tool.args.safeParse(ok).success], `${tool.name} ok`).toEqual([true, true]);
      expect([back.safeParse(bad).success, tool.args.safeParse(bad).success], `${tool.name} bad`).toEqual([
        false,
        false,
      ]);
    }
  });
});
