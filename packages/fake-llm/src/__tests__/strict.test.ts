import OpenAI, { BadRequestError } from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeLlm, strictProblem, type FakeLlm } from '../index';

type Msg = OpenAI.Chat.Completions.ChatCompletionMessageParam;

let llm: FakeLlm;
let client: OpenAI;
beforeAll(async () => {
  llm = await startFakeLlm();
  client = new OpenAI({ baseURL: llm.url, apiKey: 'test', maxRetries: 0 });
});
afterAll(() => llm.close());
beforeEach(() => {
  llm.reset();
  llm.setStrict(true);
});

const call = (id: string, name = 'shell') => ({
  id,
  type: 'function' as const,
  function: { name, arguments: '{"command":"ls"}' },
});
const ask: Msg = { role: 'user', content: 'list the files' };

async function refusal(messages: Msg[]): Promise<BadRequestError> {
  const err = await client.chat.completions.create({ model: 'm', messages }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(BadRequestError);
  return err as BadRequestError;
}

describe('strict mode (on by default)', () => {
  it('refuses a tool call whose result does not follow it, with OpenAI’s sentence, and records it', async () => {
    const err = await refusal([
      { role: 'system', content: 'sys' },
      ask,
      { role: 'assistant', content: null, tool_calls: [call('c1')] },
      { role: 'user', content: 'write the note' },
    ]);
    expect(err.message).toContain(
      "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: c1",
    );
    expect((err.error as { param?: string }).param).toBe('messages.[2].role');
    expect(llm.rejectedRequests()).toHaveLength(1);
    expect(llm.rejectedRequests()[0]!.status).toBe(400);
  });

  it('refuses a request that ends with the call, and one whose result comes after another message', async () => {
    await refusal([ask, { role: 'assistant', content: null, tool_calls: [call('c1')] }]);
    await refusal([
      ask,
      { role: 'assistant', content: null, tool_calls: [call('c1'), call('c2')] },
      { role: 'tool', tool_call_id: 'c1', content: 'a' },
      { role: 'user', content: 'go on' },
      { role: 'tool', tool_call_id: 'c2', content: 'b' },
    ]);
  });

  it('refuses an orphan result, a result given twice, and a result without its id', async () => {
    const orphan = await refusal([ask, { role: 'tool', tool_call_id: 'gone', content: 'x' }]);
    expect(orphan.message).toContain("messages with role 'tool' must be a response to a preceeding message");
    await refusal([
      ask,
      { role: 'assistant', content: null, tool_calls: [call('c1')] },
      { role: 'tool', tool_call_id: 'c1', content: 'a' },
      { role: 'tool', tool_call_id: 'c1', content: 'a again' },
    ]);
    expect(
      strictProblem([
        ask,
        { role: 'assistant', content: null, tool_calls: [call('c1')] },
        { role: 'tool', content: 'a' },
      ])?.message,
    ).toContain('tool_call_id');
  });

  it('refuses the other shapes strict providers refuse', async () => {
    const cases: [string, Msg[]][] = [
      ['empty array', [ask, { role: 'assistant', content: 'x', tool_calls: [] }, ask]],
      ['non-empty content or tool_calls', [ask, { role: 'assistant', content: '' }, ask]],
      ['System message must be at the beginning', [ask, { role: 'system', content: 'late' }, ask]],
      ['Expected last role User or Tool', [ask, { role: 'assistant', content: 'the answer' }]],
      [
        'unique',
        [
          ask,
          { role: 'assistant', content: null, tool_calls: [call('c1')] },
          { role: 'tool', tool_call_id: 'c1', content: 'a' },
          { role: 'assistant', content: null, tool_calls: [call('c1')] },
          { role: 'tool', tool_call_id: 'c1', content: 'a' },
        ],
      ],
    ];
    for (const [words, messages] of cases) expect((await refusal(messages)).message, words).toContain(words);
    expect(llm.rejectedRequests()).toHaveLength(cases.length);
  });

  it('answers every valid shape: parallel calls answered in any order, then the answer, then the next ask', async () => {
    const ok = await client.chat.completions.create({
      model: 'm',
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'system', content: 'more sys' },
        ask,
        { role: 'assistant', content: 'looking', tool_calls: [call('c1'), call('c2')] },
        { role: 'tool', tool_call_id: 'c2', content: 'b' },
        { role: 'tool', tool_call_id: 'c1', content: 'a' },
        { role: 'assistant', content: 'two files' },
        { role: 'user', content: 'thanks' },
      ],
    });
    expect(ok.choices[0]!.message.content).toContain('thanks');
    expect(llm.rejectedRequests()).toEqual([]);
  });

  it('a lax server (strict: false, or /_fake/config) takes anything', async () => {
    llm.setStrict(false);
    const ok = await client.chat.completions.create({
      model: 'm',
      messages: [ask, { role: 'assistant', content: null, tool_calls: [call('c1')] }],
    });
    expect(ok.choices[0]).toBeDefined();
    const res = await fetch(`${llm.url.replace(/\/v1$/, '')}/_fake/config`, {
      method: 'POST',
      body: JSON.stringify({ strict: true }),
    });
    expect(((await res.json()) as { strict: boolean }).strict).toBe(true);
    await refusal([ask, { role: 'assistant', content: null, tool_calls: [call('c1')] }]);
  });
});
