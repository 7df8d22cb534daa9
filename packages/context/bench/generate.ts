import type { StoredMessage } from '@threadline/protocol';

/** Deterministic PRNG (mulberry32): the generated session is the same on every run. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'the parser config build test module function error value return import export const async await file path ' +
  'request response cache token window context summary commit branch merge review docs index schema query ' +
  'update delete create insert select table column migration version release deploy server client socket'
).split(' ');

function text(r: () => number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) {
    out.push(WORDS[Math.floor(r() * WORDS.length)]!);
    if (i % 12 === 11) out.push(r() < 0.5 ? '\n' : '.');
  }
  return out.join(' ');
}

/**
 * A long agent session: segments of a user request, tool round trips (a shell command and an
 * output of a few hundred tokens) and a final answer. About 200 tokens per message on average,
 * i.e. ~400K tokens for 2,000 messages.
 */
export function generateSession(messages = 2000, seed = 42): StoredMessage[] {
  const r = rng(seed);
  const out: StoredMessage[] = [];
  let call = 0;
  const push = (p: Partial<StoredMessage> & Pick<StoredMessage, 'role'>) => {
    const seq = out.length;
    out.push({
      id: `g${seq}`,
      sessionId: 'bench',
      seq,
      createdAt: seq,
      content: null,
      kind: 'normal',
      visibility: { user: true, agent: true },
      tokens: null,
      ...p,
    });
  };
  push({ role: 'system', content: `You are a coding agent. ${text(r, 120)}` });
  while (out.length < messages) {
    push({ role: 'user', content: r() < 0.15 ? 'ok' : `Please ${text(r, 40)} in src/mod${out.length}.ts` });
    const trips = 2 + Math.floor(r() * 6);
    for (let i = 0; i < trips && out.length < messages - 2; i++) {
      const id = `call_${++call}`;
      const name = r() < 0.05 ? 'manage_todo_list' : 'shell';
      push({
        role: 'assistant',
        content: text(r, 25),
        tool_calls: [
          {
            id,
            type: 'function',
            function: { name, arguments: JSON.stringify({ command: `grep -rn ${WORDS[call % WORDS.length]} src/` }) },
          },
        ],
      });
      push({ role: 'tool', content: text(r, 250 + Math.floor(r() * 200)), tool_call_id: id, name });
    }
    if (out.length < messages) push({ role: 'assistant', content: text(r, 90) });
  }
  return out.slice(0, messages);
}
