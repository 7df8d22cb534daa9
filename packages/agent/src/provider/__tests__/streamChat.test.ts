import { startFakeLlm, type FakeLlm } from '@threadline/fake-llm';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createProviderClient, type ProviderClient, type ToolCallDelta } from '../index';

let llm: FakeLlm;
let client: ProviderClient;
beforeAll(async () => {
  llm = await startFakeLlm();
  client = createProviderClient({ baseUrl: llm.url, model: 'gpt-4o' }, null);
});
afterAll(() => llm.close());
beforeEach(() => llm.reset());

const user = (content: string) => [{ role: 'user' as const, content }];
const shellTool = {
  type: 'function' as const,
  function: {
    name: 'shell',
    description: 'run',
    parameters: { type: 'object', properties: { command: { type: 'string' } } },
  },
};

describe('streamChat', () => {
  it('streams text through onDelta and returns it with usage and finish reason', async () => {
    llm.setRules([{ reply: { content: 'Hello there, how can I help?', chunkSize: 4 } }]);
    const deltas: string[] = [];
    const r = await client.streamChat({ messages: user('hi'), onDelta: (t) => deltas.push(t) });
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.join('')).toBe('Hello there, how can I help?');
    expect(r).toMatchObject({
      content: 'Hello there, how can I help?',
      finishReason: 'stop',
      aborted: false,
      attempts: 1,
      toolCalls: [],
    });
    const sent = llm.chatRequests()[0]!;
    expect(r.usage).toEqual({
      promptTokens: sent.promptTokens,
      completionTokens: expect.any(Number),
      cachedTokens: sent.usage!.cached_tokens,
    });
    expect(r.usage!.completionTokens).toBeGreaterThan(0);
    expect(sent.body).toMatchObject({ model: 'gpt-4o', stream: true, stream_options: { include_usage: true } });
    expect(sent.headers.authorization).toBe('Bearer not-needed');
  });

  it("reads a reasoning model's thinking apart from its answer, in either field", async () => {
    for (const field of ['reasoning_content', 'reasoning'] as const) {
      llm.setRules([
        {
          reply: {
            reasoning: 'The user greets me; answer briefly.',
            reasoningField: field,
            content: 'Hi!',
            chunkSize: 5,
          },
        },
      ]);
      const thoughts: string[] = [];
      const deltas: string[] = [];
      const r = await client.streamChat({
        messages: user('hi'),
        onDelta: (t) => deltas.push(t),
        onReasoningDelta: (t) => thoughts.push(t),
      });
      expect(thoughts.length).toBeGreaterThan(1);
      expect(thoughts.join('')).toBe('The user greets me; answer briefly.');
      expect(deltas.join('')).toBe('Hi!');
      expect(r).toMatchObject({ content: 'Hi!', reasoning: 'The user greets me; answer briefly.' });
    }
  });

  it('assembles tool calls from fragmented arguments and reports each fragment', async () => {
    llm.setRules([
      {
        match: { hasTools: true },
        reply: {
          content: 'Let me look.',
          toolCalls: [
            { name: 'shell', arguments: { command: 'ls -la "/tmp/a b"' } },
            { name: 'read_file', arguments: '{"path":"x' },
          ],
          chunkSize: 3,
        },
      },
    ]);
    const fragments: ToolCallDelta[] = [];
    const r = await client.streamChat({
      messages: user('list'),
      tools: [shellTool],
      onToolCallDelta: (d) => fragments.push(d),
    });
    expect(r.finishReason).toBe('tool_calls');
    expect(r.content).toBe('Let me look.');
    expect(r.toolCalls).toHaveLength(2);
    expect(r.toolCalls[0]!.function.name).toBe('shell');
    expect(JSON.parse(r.toolCalls[0]!.function.arguments)).toEqual({ command: 'ls -la "/tmp/a b"' });
    expect(r.toolCalls[1]!.function.arguments).toBe('{"path":"x'); // malformed stays verbatim for the loop to report
    expect(r.toolCalls[0]!.id).toBe(fragments.find((f) => f.index === 0 && f.id)!.id);
    expect(fragments.filter((f) => f.index === 0 && f.argumentsDelta.length > 0).length).toBeGreaterThan(5);
    expect((llm.chatRequests()[0]!.body as { tools: unknown[] }).tools).toHaveLength(1);
  });

  it('sends the conversation with tool calls and results in the SDK shape', async () => {
    await client.streamChat({
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'shell', arguments: '{}' } }],
        },
        { role: 'tool', content: 'out', tool_call_id: 'c1', name: 'shell' },
      ],
    });
    const body = llm.chatRequests()[0]!.body as { messages: Record<string, unknown>[] };
    expect(body.messages[2]).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'shell', arguments: '{}' } }],
    });
    expect(body.messages[3]).toEqual({ role: 'tool', content: 'out', tool_call_id: 'c1' });
  });

  it('resolves with the partial answer and aborted: true when the signal fires mid-stream', async () => {
    llm.setRules([
      { reply: { content: 'one two three four five six seven eight', chunkSize: 4, delayMsPerChunk: 30 } },
    ]);
    const ac = new AbortController();
    const deltas: string[] = [];
    const r = await client.streamChat({
      messages: user('long'),
      signal: ac.signal,
      onDelta: (t) => {
        deltas.push(t);
        if (deltas.length === 2) ac.abort();
      },
    });
    expect(r.aborted).toBe(true);
    expect(r.content).toBe('one two ');
    expect(r.toolCalls).toEqual([]);
    await vi.waitFor(() => expect(llm.chatRequests()[0]!.clientClosed).toBe(true), { timeout: 20_000 });
    expect(llm.chatRequests()).toHaveLength(1); // no retry after an abort
  });

  it('returns aborted at once for a signal that already fired', async () => {
    const ac = new AbortController();
    ac.abort();
    const r = await client.streamChat({ messages: user('x'), signal: ac.signal });
    expect(r).toMatchObject({ aborted: true, content: '' });
  });
});
