import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SUMMARY_MARKER, isSummaryRequest, startFakeLlm, type FakeLlm } from '../index';

let llm: FakeLlm;
let client: OpenAI;
beforeAll(async () => {
  // Rules, not message shapes, are tested here: some requests are deliberately loose (strict.test.ts has the shapes).
  llm = await startFakeLlm({ strict: false });
  client = new OpenAI({ baseURL: llm.url, apiKey: 'test', maxRetries: 0 });
});
afterAll(() => llm.close());
beforeEach(() => llm.reset());

type Msg = OpenAI.Chat.ChatCompletionMessageParam;
const ask = async (messages: Msg[], tools?: OpenAI.Chat.ChatCompletionTool[]): Promise<string> => {
  const r = await client.chat.completions.create({ model: 'm', messages, ...(tools ? { tools } : {}) });
  return (
    r.choices[0]!.message.content ??
    `tools:${(r.choices[0]!.message.tool_calls ?? []).map((t) => (t.type === 'function' ? t.function.name : '')).join(',')}`
  );
};
const tool: OpenAI.Chat.ChatCompletionTool = {
  type: 'function',
  function: { name: 'shell', parameters: { type: 'object' } },
};

describe('rules', () => {
  it('echoes the last user message by default', async () => {
    expect(
      await ask([
        { role: 'user', content: 'first' },
        { role: 'assistant', content: 'x' },
        { role: 'user', content: 'second' },
      ]),
    ).toBe('You said: second');
  });

  it('takes the first matching rule, honouring each match field', async () => {
    llm.setRules([
      { match: { systemIncludes: 'pirate' }, reply: { content: 'arr' } },
      {
        match: { lastUserIncludes: 'files', hasTools: true },
        reply: { toolCalls: [{ name: 'shell', arguments: { command: 'ls' } }] },
      },
      { match: { lastToolResultIncludes: 'a.txt' }, reply: { content: 'I see a.txt' } },
    ]);
    expect(
      await ask(
        [
          { role: 'system', content: 'talk like a pirate' },
          { role: 'user', content: 'files?' },
        ],
        [tool],
      ),
    ).toBe('arr');
    expect(await ask([{ role: 'user', content: 'list files' }], [tool])).toBe('tools:shell');
    expect(await ask([{ role: 'user', content: 'list files' }])).toBe('You said: list files'); // hasTools: true not met
    const afterTool: Msg[] = [
      { role: 'user', content: 'list files' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'shell', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'a.txt\nb.txt' },
    ];
    expect(await ask(afterTool, [tool])).toBe('I see a.txt');
  });

  it('matches lastUserIncludes only while the user message is unanswered (no tool-call loops)', async () => {
    llm.setRules([
      { match: { lastUserIncludes: 'files' }, reply: { toolCalls: [{ name: 'shell', arguments: { command: 'ls' } }] } },
    ]);
    expect(
      await ask([
        { role: 'system', content: 's' },
        { role: 'user', content: 'list files' },
        { role: 'system', content: 'memory block' },
      ]),
    ).toBe('tools:shell');
    const afterTool: Msg[] = [
      { role: 'user', content: 'list files' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'shell', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'a.txt' },
    ];
    expect(await ask(afterTool)).toBe('Tool result received: a.txt');
  });

  it('spends a rule after `times` uses', async () => {
    llm.setRules([{ reply: { content: 'once' }, times: 1 }, { reply: { content: 'always' } }]);
    expect(await ask([{ role: 'user', content: 'a' }])).toBe('once');
    expect(await ask([{ role: 'user', content: 'a' }])).toBe('always');
  });

  it('lets a reply be a function of the request', async () => {
    llm.setRules([{ reply: (req) => ({ content: `#${req.index} ${req.messages.length} msgs` }) }]);
    expect(await ask([{ role: 'user', content: 'a' }])).toBe('#0 1 msgs');
  });
});

describe('summary requests', () => {
  const transcript: Msg[] = [
    { role: 'user', content: 'Fix the bug in src/app.ts' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"src/app.ts"}' } }],
    },
    { role: 'tool', tool_call_id: 'c1', content: 'x'.repeat(2000) },
    { role: 'assistant', content: 'Fixed.' },
  ];

  it('detects the marker in a system message and plain wording in the last user message', () => {
    expect(
      isSummaryRequest([
        { role: 'system', content: `You write summaries. ${SUMMARY_MARKER}` },
        { role: 'user', content: 'x' },
      ]),
    ).toBe(true);
    expect(isSummaryRequest([{ role: 'user', content: 'Please summarize the conversation above.' }])).toBe(true);
    expect(isSummaryRequest([{ role: 'user', content: 'Write a summary of this session for later.' }])).toBe(true);
    expect(
      isSummaryRequest([{ role: 'system', content: 'The conversation below is being\ncompacted: write a note.' }]),
    ).toBe(true);
    expect(isSummaryRequest([{ role: 'user', content: 'Write the handoff note for the conversation above.' }])).toBe(
      true,
    );
    expect(isSummaryRequest([{ role: 'user', content: 'Summarize this file for me' }])).toBe(false);
    expect(isSummaryRequest([{ role: 'user', content: 'Compact the code. Our conversation is fine.' }])).toBe(false);
    expect(
      isSummaryRequest([
        { role: 'user', content: 'summarize the conversation' },
        { role: 'user', content: 'thanks' },
      ]),
    ).toBe(false);
  });

  it('answers a deterministic, short summary naming the requests and tools, never a rule reply', async () => {
    llm.setRules([{ match: { lastUserIncludes: 'bug' }, reply: { content: 'rule reply' } }]);
    const req: Msg[] = [
      ...transcript,
      { role: 'user', content: 'Summarize the conversation so far (mention the bug).' },
    ];
    const a = await ask(req);
    const b = await ask(req);
    expect(a).toBe(b);
    expect(a).toContain('Fix the bug in src/app.ts');
    expect(a).toContain('read_file x1');
    expect(a.length).toBeLessThan(400);
    expect(llm.chatRequests()[0]!.isSummaryRequest).toBe(true);
  });

  it('lets a rule target summary requests explicitly', async () => {
    llm.setRules([{ match: { summaryRequest: true }, reply: { error: { status: 500 } }, times: 1 }]);
    const req: Msg[] = [{ role: 'system', content: SUMMARY_MARKER }, ...transcript];
    await expect(ask(req)).rejects.toMatchObject({ status: 500 });
    expect(await ask(req)).toMatch(/^Summary of the conversation/);
  });
});

describe('control routes', () => {
  it('replaces rules, queues faults, sets the window and lists requests over HTTP', async () => {
    const post = (path: string, body: unknown): Promise<Response> =>
      fetch(`http://127.0.0.1:${llm.port}/_fake/${path}`, { method: 'POST', body: JSON.stringify(body) });
    expect((await post('rules', { rules: [{ reply: { content: 'from control' } }] })).status).toBe(200);
    expect(await ask([{ role: 'user', content: 'a' }])).toBe('from control');
    expect((await post('enqueue', [{ error: { status: 429, retryAfter: 1 } }])).status).toBe(200);
    await expect(ask([{ role: 'user', content: 'a' }])).rejects.toMatchObject({ status: 429 });
    expect((await post('config', { contextWindow: 5 })).status).toBe(200);
    await expect(ask([{ role: 'user', content: 'a much longer message than five tokens' }])).rejects.toMatchObject({
      status: 400,
    });
    expect((await post('rules', [{ reply: { nonsense: true, content: 5 } }])).status).toBe(400);
    const listed = (await (await fetch(`http://127.0.0.1:${llm.port}/_fake/requests`)).json()) as { path: string }[];
    expect(listed.filter((r) => r.path === '/v1/chat/completions')).toHaveLength(3);
    await post('config', { contextWindow: null });
  });
});
