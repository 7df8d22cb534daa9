import { describe, expect, it } from 'vitest';
import { compact } from '@threadline/context';
import { DEFAULT_SETTINGS, type StoredMessage } from '@threadline/protocol';
import { compactInput, viewThreshold, type CompactionRequest } from '../compaction';
import type { TurnDeps } from '../deps';

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

describe('compactInput', () => {
  it('passes the auto-compact threshold on: priority_chain stops as soon as it is under it, not at 60%', async () => {
    let n = 0;
    const deps = {
      now: () => 0,
      newId: () => `n${++n}`,
      runtime: () => ({ compaction: null }),
      emit: () => {},
    } as unknown as TurnDeps;
    const view = { history: history(), compactions: [], memoryBlock: null, systemPrompt: 'sys', facts: [] };
    const req = (threshold: number): CompactionRequest => ({
      deps,
      sessionId: 's',
      settings: {
        ...DEFAULT_SETTINGS,
        compaction: { ...DEFAULT_SETTINGS.compaction, strategy: 'priority_chain', autoThreshold: threshold },
      },
      profile: {
        id: 'p',
        preset: 'custom',
        name: 'p',
        baseUrl: 'http://127.0.0.1:1/v1',
        model: 'local-model',
        contextWindow: 1_000_000,
        compactionModel: null,
        hasKey: false,
        active: true,
      },
      client: {
        streamChat: async () => Promise.reject(new Error('unused')),
        complete: async () => 'summary',
        testConnection: async () => Promise.reject(new Error('unused')),
      },
      trigger: 'auto',
      instructions: null,
      targetTokens: null,
    });
    const probe = await compact(compactInput(req(0.8), view, 1_000_000));
    const total = probe.tokensBefore;
    // A window where the session sits just over 80%: stripping the chit-chat (P1) gets it under
    // 80%, and the chain stops there; aiming at 60% would also drop monologues (P2).
    const window = Math.round(total / 0.802);
    const at80 = await compact(compactInput(req(0.8), view, window));
    expect(at80.ok).toBe(true);
    expect(at80.tokensAfter).toBeLessThanOrEqual(window * 0.8);
    expect(at80.tokensAfter).toBeGreaterThan(window * 0.6);
    const at50 = await compact(compactInput(req(0.5), view, window));
    expect(at50.tokensAfter).toBeLessThanOrEqual(window * 0.5);
  });

  it("puts the trigger's threshold in the engine's units: the tool definitions are outside its window", () => {
    // A view of 700 and tools of 300 in a window of 1200: 83 %, so the trigger fires. The engine
    // sees 700 of a 900 window (78 %), under a raw 0.8: it must not answer "below the threshold".
    const t = viewThreshold(0.8, 900, 300);
    expect(t).toBeCloseTo((0.8 * 1200 - 300) / 900, 6);
    expect(700 / 900).toBeLessThan(0.8);
    expect(700 / 900).toBeGreaterThanOrEqual(t);
    // Nothing to convert: no tools, or auto compaction off.
    expect(viewThreshold(0.8, 900, 0)).toBe(0.8);
    expect(viewThreshold(0, 900, 300)).toBe(0);
    expect(viewThreshold(1, 900, 300)).toBe(1);
  });
});
