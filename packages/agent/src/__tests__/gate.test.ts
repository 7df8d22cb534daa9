import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeReply } from '@threadline/fake-llm';
import { parseNotice } from '@threadline/protocol';
import { lastIsTool, startHarness, type Harness } from './harness';

let h: Harness;
afterEach(async () => h?.close());

async function cfpmSession(): Promise<string> {
  h = await startHarness({
    settings: {
      approvalPolicy: 'auto',
      compaction: { strategy: 'cfpm_memory_v1' },
      cfpm: { runtimeVisibility: 'debug' },
    },
    llm: {
      defaultReply: (req): FakeReply =>
        lastIsTool(req)
          ? { content: 'listed the desktop' }
          : { toolCalls: [{ name: 'shell', arguments: { command: 'ls ~/Desktop' } }] },
    },
  });
  const desktop = path.join(h.dir, 'home', 'Desktop');
  mkdirSync(desktop, { recursive: true });
  writeFileSync(path.join(desktop, 'marker-file.txt'), 'x');
  return desktop;
}

describe('CFPM memory and the pre-tool gate in a turn', () => {
  it('rewrites a Desktop probe to the known path, with its notice', async () => {
    const desktop = await cfpmSession();
    // A user-made fact is trusted (SPEC §5).
    const fact = await h.api['memory.facts.upsert']({ sessionId: h.sessionId, category: 'artifact', content: desktop });
    expect(fact.source).toBe('user');
    await h.turn('what is on my desktop?');
    const history = h.history();
    const gate = history.find((m) => m.kind === 'gate_notice')!;
    expect(gate.visibility).toEqual({ user: true, agent: false });
    const parsed = parseNotice(gate.content);
    expect(parsed?.type).toBe('gate');
    if (parsed?.type !== 'gate') throw new Error('not a gate notice');
    expect(parsed.payload.target).toBe('Desktop');
    expect(parsed.payload.originalCommand).toBe('ls ~/Desktop');
    expect(parsed.payload.rewrittenCommand).toContain(desktop);
    // The rewritten command is what ran.
    const tool = history.find((m) => m.role === 'tool')!;
    expect(tool.content).toContain('marker-file.txt');
    const requested = h.events.find((e) => e.type === 'tool.requested');
    expect(requested?.type === 'tool.requested' && requested.toolCall.function.arguments).toContain(desktop);
    // History keeps the model's call; the result records what actually ran, for "ran: …".
    expect(JSON.parse(history.find((m) => m.role === 'assistant')!.tool_calls![0].function.arguments)).toEqual({
      command: 'ls ~/Desktop',
    });
    expect(typeof tool.meta?.ranArguments).toBe('string');
    expect(JSON.parse(tool.meta!.ranArguments as string).command).toBe(parsed.payload.rewrittenCommand);
    expect(h.events.some((e) => e.type === 'notice' && e.message.kind === 'gate_notice')).toBe(true);
    // The memory block went to the model; the notices did not.
    const body = JSON.stringify(h.llm.chatRequests()[0].body);
    expect(body).toContain('[CFPM_RUNTIME_MEMORY_V1]');
    expect(body).not.toContain('[CFPM_TOOL_GATE_V1]');
    // The runtime notice of the refresh (debug: always shown) is persisted user-only.
    const runtime = history.filter((m) => m.kind === 'runtime_notice' && parseNotice(m.content)?.type === 'runtime');
    expect(runtime.length).toBeGreaterThan(0);
    expect(runtime[0].visibility.agent).toBe(false);
  });

  it('a forgotten fact is not used: the command runs unchanged', async () => {
    const desktop = await cfpmSession();
    const fact = await h.api['memory.facts.upsert']({ sessionId: h.sessionId, category: 'artifact', content: desktop });
    const forgotten = await h.api['memory.facts.setStatus']({ id: fact.id, status: 'forgotten' });
    expect(forgotten.status).toBe('forgotten');
    await h.turn('what is on my desktop?');
    expect(h.history().some((m) => m.kind === 'gate_notice')).toBe(false);
    expect(h.history().find((m) => m.role === 'tool')?.content).not.toContain('marker-file.txt');
    expect(h.history().find((m) => m.role === 'tool')?.meta?.ranArguments).toBeUndefined();
  });

  it('refresh turns tool outputs into facts and candidates', async () => {
    const desktop = await cfpmSession();
    h.llm.setRules([], (req): FakeReply =>
      lastIsTool(req)
        ? { content: `Created ${desktop}/report.md successfully.` }
        : { toolCalls: [{ name: 'write_file', arguments: { path: `${desktop}/report.md`, content: '# r' } }] },
    );
    await h.turn('write the report');
    await h.turn('thanks');
    const candidates = await h.api['memory.candidates.list']({ sessionId: h.sessionId });
    expect(candidates.length).toBeGreaterThan(0);
    const facts = await h.api['memory.facts.list']({ sessionId: h.sessionId });
    expect(facts.some((f) => f.content.includes('report.md'))).toBe(true);
  });
});
