import { describe, expect, it } from 'vitest';
import type { StoredMessage } from '@threadline/protocol';
import { contextEngine } from '../contextEngine';

/** A session with some chit-chat ('ok') between real requests (chars/4 model: easy to reason about). */
function history(): StoredMessage[] {
  const out: StoredMessage[] = [];
  const add = (role: StoredMessage['role'], content: string) =>
    out.push({
      id: `m${out.length}`,
      sessionId: 's',
      seq: out.length,
      createdAt: 0,
      role,
      content,
      kind: 'normal',
      visibility: { user: true, agent: true },
      tokens: null,
    });
  for (let i = 0; i < 30; i++) {
    add('user', i % 2 === 0 ? 'ok' : `Please do step ${i} of the plan, carefully.`);
    add('assistant', `Step ${i} done. `.padEnd(400, '.'));
  }
  return out;
}

describe('contextEngine.compact', () => {
  it('passes the auto-compact threshold on: priority_chain stops as soon as it is under it, not at 60%', async () => {
    const h = history();
    const base = {
      history: h,
      compactions: [],
      memoryBlock: null,
      systemPrompt: 'sys',
      model: 'local-model',
      strategy: 'priority_chain' as const,
      trigger: 'auto' as const,
      instructions: null,
      targetTokens: null,
      facts: [],
      summarize: async () => 'summary',
      now: 0,
      newId: (() => {
        let n = 0;
        return () => `n${++n}`;
      })(),
    };
    const probe = await contextEngine.compact({ ...base, window: 1_000_000, threshold: 0.8 });
    const total = probe.tokensBefore;
    // A window where the session sits just over 80%: stripping the chit-chat (P1) gets it under
    // 80%, and the chain stops there; aiming at 60% would also drop monologues (P2).
    const window = Math.round(total / 0.802);
    const at80 = await contextEngine.compact({ ...base, window, threshold: 0.8 });
    expect(at80.ok).toBe(true);
    expect(at80.tokensAfter).toBeLessThanOrEqual(window * 0.8);
    expect(at80.tokensAfter).toBeGreaterThan(window * 0.6);
    const at50 = await contextEngine.compact({ ...base, window, threshold: 0.5 });
    expect(at50.tokensAfter).toBeLessThanOrEqual(window * 0.5);
  });
});
