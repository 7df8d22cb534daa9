// The bench's message mix (shared by the store and runtime benches): one agent turn is a request,
// an assistant tool call, a tool result (truncated, with its 6 KB full output) and an answer.
import { statSync } from 'node:fs';
import { openStore, type NewMessage, type Store } from '../src/index';

/** Deterministic text of realistic length (prose-like, some CJK), so sizes are reproducible. */
export function text(i: number, chars: number): string {
  const words = [
    'the',
    'context',
    'engine',
    'keeps',
    'thread',
    'session',
    'file',
    'src/index.ts',
    'pnpm',
    'test',
    '上下文',
    '压缩',
    'ok',
    'result',
  ];
  let out = '';
  for (let k = 0; out.length < chars; k++) out += words[(i * 31 + k * 7) % words.length] + ' ';
  return out.slice(0, chars);
}

/** One agent turn: user asks, assistant calls a tool, the tool answers (truncated + full), assistant replies. */
export function turn(i: number): NewMessage[] {
  const callId = `call_${i}`;
  const full = text(i, 6000);
  return [
    { role: 'user', content: text(i, 200), tokens: 50 },
    {
      role: 'assistant',
      content: text(i + 1, 300),
      tool_calls: [
        {
          id: callId,
          type: 'function',
          function: { name: 'shell', arguments: JSON.stringify({ command: `ls -la src/${i}` }) },
        },
      ],
      tokens: 90,
    },
    {
      role: 'tool',
      content: full.slice(0, 2000),
      tool_call_id: callId,
      name: 'shell',
      fullOutput: full,
      tokens: 500,
      meta: { durationMs: 40, status: 'ok' },
    },
    { role: 'assistant', content: text(i + 2, 800), tokens: 200 },
  ];
}

/** Appends `count` messages of the mix (whole turns) to a session, in transactions of 1,000. */
export function appendMix(store: Store, sessionId: string, count: number, from = 0): number {
  let i = from;
  while ((i - from) * 4 < count) {
    const batch: NewMessage[] = [];
    for (let k = 0; k < 250 && (i - from) * 4 < count; k++, i++) batch.push(...turn(i));
    store.messages.append(sessionId, batch);
  }
  return i;
}

/** Size of a fresh database holding only `messages` messages of the mix, per 1,000 messages, in KiB. */
export function dbKiBPer1000(file: string, messages = 10_000): number {
  const store = openStore({ file, env: {} });
  try {
    appendMix(store, store.sessions.create('size').id, messages);
  } finally {
    store.close(); // checkpoints the WAL into the file
  }
  return statSync(file).size / 1024 / (messages / 1000);
}
