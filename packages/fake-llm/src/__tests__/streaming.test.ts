import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { countPromptTokens, startFakeLlm, type FakeLlm } from '../index';

let llm: FakeLlm;
let client: OpenAI;
beforeAll(async () => {
  llm = await startFakeLlm();
  client = new OpenAI({ baseURL: llm.url, apiKey: 'test', maxRetries: 0 });
});
afterAll(() => llm.close());
beforeEach(() => llm.reset());

describe('streaming text', () => {
  it('frames role delta, content deltas, finish reason and a final usage chunk', async () => {
    llm.setRules([
      { match: { lastUserIncludes: 'weather' }, reply: { content: 'It is sunny in Paris today.', chunkSize: 5 } },
    ]);
    const messages = [{ role: 'user' as const, content: 'What is the weather?' }];
    const stream = await client.chat.completions.create({
      model: 'gpt-4o',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const c of stream) chunks.push(c);
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    const deltas = chunks.flatMap((c) => c.choices.map((ch) => ch.delta.content ?? '')).filter((s) => s.length > 0);
    expect(deltas.join('')).toBe('It is sunny in Paris today.');
    expect(deltas.every((d) => Array.from(d).length <= 5)).toBe(true);
    const finish = chunks.find((c) => c.choices[0]?.finish_reason);
    expect(finish!.choices[0]!.finish_reason).toBe('stop');
    const last = chunks[chunks.length - 1]!;
    expect(last.choices).toEqual([]);
    expect(last.usage!.prompt_tokens).toBe(countPromptTokens(messages, []));
    expect(last.usage!.completion_tokens).toBeGreaterThan(0);
    expect(last.usage!.total_tokens).toBe(last.usage!.prompt_tokens + last.usage!.completion_tokens);
  });

  it('sends no usage chunk without stream_options.include_usage', async () => {
    const stream = await client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'hello' }],
      stream: true,
    });
    const chunks = [];
    for await (const c of stream) chunks.push(c);
    expect(chunks.some((c) => c.usage)).toBe(false);
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('You said: hello');
  });

  it('writes SSE lines exactly as `data: {json}\\n\\n` and ends with data: [DONE]', async () => {
    const res = await fetch(`${llm.url}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const text = await res.text();
    const frames = text.split('\n\n').filter((f) => f.length > 0);
    expect(frames.every((f) => f.startsWith('data: '))).toBe(true);
    expect(frames[frames.length - 1]).toBe('data: [DONE]');
  });

  it('never splits a surrogate pair across chunks', async () => {
    llm.setRules([{ reply: { content: '😀😀😀 日本語', chunkSize: 1 } }]);
    const stream = await client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'emoji' }],
      stream: true,
    });
    const pieces: string[] = [];
    for await (const c of stream) if (c.choices[0]?.delta.content) pieces.push(c.choices[0].delta.content);
    expect(pieces.slice(0, 3)).toEqual(['😀', '😀', '😀']);
  });
});

describe('tool calls', () => {
  it('streams index/id/name first, then argument fragments that assemble to the arguments', async () => {
    llm.setRules([
      {
        match: { hasTools: true },
        reply: {
          toolCalls: [
            { name: 'shell', arguments: { command: 'ls -la /tmp' } },
            { name: 'read_file', arguments: '{"path":"a.txt"}' },
          ],
          chunkSize: 4,
        },
      },
    ]);
    const tools = [
      {
        type: 'function' as const,
        function: { name: 'shell', parameters: { type: 'object', properties: { command: { type: 'string' } } } },
      },
    ];
    const stream = await client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'list' }],
      tools,
      stream: true,
    });
    const calls = new Map<number, { id?: string; name?: string; args: string; fragments: number }>();
    let finish: string | null = null;
    for await (const c of stream) {
      const ch = c.choices[0];
      if (!ch) continue;
      if (ch.finish_reason) finish = ch.finish_reason;
      for (const tc of ch.delta.tool_calls ?? []) {
        const cur = calls.get(tc.index) ?? { args: '', fragments: 0 };
        if (tc.id) {
          expect(cur.id).toBeUndefined(); // the id arrives once, in the first delta of the call
          cur.id = tc.id;
          cur.name = tc.function?.name;
        }
        if (tc.function?.arguments) {
          cur.args += tc.function.arguments;
          cur.fragments++;
        }
        calls.set(tc.index, cur);
      }
    }
    expect(finish).toBe('tool_calls');
    expect(calls.get(0)!.name).toBe('shell');
    expect(JSON.parse(calls.get(0)!.args)).toEqual({ command: 'ls -la /tmp' });
    expect(calls.get(0)!.fragments).toBeGreaterThan(3);
    expect(calls.get(1)!.name).toBe('read_file');
    expect(calls.get(1)!.args).toBe('{"path":"a.txt"}');
    expect(calls.get(0)!.id).not.toBe(calls.get(1)!.id);
  });

  it('answers tool calls non-streaming with a chat.completion message', async () => {
    llm.setRules([{ reply: { toolCalls: [{ name: 'list_dir', arguments: '{"path":' }] } }]); // malformed on purpose
    const r = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'ls' }] });
    expect(r.choices[0]!.finish_reason).toBe('tool_calls');
    expect(r.choices[0]!.message.tool_calls![0]).toMatchObject({
      type: 'function',
      function: { name: 'list_dir', arguments: '{"path":' },
    });
    expect(r.usage!.prompt_tokens).toBe(llm.chatRequests()[0]!.promptTokens);
  });
});

describe('models and recording', () => {
  it('lists the model and records every request with its body', async () => {
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual(['fake-model']);
    await client.chat.completions.create({
      model: 'gpt-x',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hi' },
      ],
    });
    const chat = llm.chatRequests();
    expect(chat).toHaveLength(1);
    expect((chat[0]!.body as { model: string }).model).toBe('gpt-x');
    expect(chat[0]!.status).toBe(200);
    expect(llm.requests.map((r) => r.path)).toEqual(['/v1/models', '/v1/chat/completions']);
  });
});
