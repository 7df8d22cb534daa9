import { describe, expect, it } from 'vitest';
import { compact } from '@threadline/context';
import { DEFAULT_SETTINGS, type StoredMessage } from '@threadline/protocol';
import { compactInput, type CompactionRequest } from '../compaction';
import type { TurnDeps } from '../deps';
import { Sessions } from '../../session/session';

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

/** A budget with no tool definitions and no calibration: the engine's units are the provider's. */
const budget = (w: number) => ({ engineWindow: w, toolTokens: 0, usage: (v: number) => v / w, ratio: 1 });

describe('compactInput', () => {
  it('passes the auto-compact threshold on: priority_chain stops as soon as it is 10 points under it', async () => {
    let n = 0;
    const session = new Sessions().get('s');
    const deps = {
      now: () => 0,
      newId: () => `n${++n}`,
      sessionState: () => session,
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
        listModels: async () => Promise.reject(new Error('unused')),
      },
      trigger: 'auto',
      instructions: null,
      targetTokens: null,
    });
    const probe = await compact(compactInput(req(0.8), view, budget(1_000_000)));
    const total = probe.tokensBefore;
    // A window where the session sits just over 80%: the chain aims at 70% (10 points under the
    // trigger, so that the next requests do not trigger it again at once) and stops there.
    const window = Math.round(total / 0.802);
    const at80 = await compact(compactInput(req(0.8), view, budget(window)));
    expect(at80.ok).toBe(true);
    expect(at80.target).toBe(Math.floor(window * 0.7));
    expect(at80.tokensAfter).toBeLessThanOrEqual(window * 0.7);
    const at50 = await compact(compactInput(req(0.5), view, budget(window)));
    expect(at50.target).toBe(Math.floor(window * 0.4));
    expect(at50.tokensAfter).toBeLessThanOrEqual(window * 0.4);
  });
});
