import {
  DEFAULT_SETTINGS,
  type CompactionRecord,
  type ContextUsage,
  type ProviderProfile,
  type StoredMessage,
} from '@threadline/protocol';
import { onTestFinished } from 'vitest';
import { EMPTY_SESSION } from '../store/sessionState';
import type { AppState, SessionState } from '../store/types';

let seq = 0;
export function msg(partial: Partial<StoredMessage> & Pick<StoredMessage, 'role'>): StoredMessage {
  const s = partial.seq ?? seq++;
  return {
    id: partial.id ?? `m${s}`,
    sessionId: 's1',
    seq: s,
    createdAt: 1_700_000_000_000 + s,
    kind: 'normal',
    visibility: { user: true, agent: true },
    tokens: null,
    content: null,
    ...partial,
  };
}

export function compaction(partial: Partial<CompactionRecord>): CompactionRecord {
  return {
    id: 'c1',
    sessionId: 's1',
    strategy: 'legacy_segmented',
    trigger: 'auto',
    steps: [],
    hiddenIds: [],
    insertedIds: [],
    tokensBefore: 10_000,
    tokensAfter: 2_000,
    summary: 'The summary',
    instructions: null,
    afterSeq: 0,
    active: true,
    createdAt: 1,
    undoneAt: null,
    ...partial,
  };
}

export const usage = (p: Partial<ContextUsage> = {}): ContextUsage => ({
  total: 5000,
  window: 10_000,
  percent: 50,
  threshold: 0.8,
  breakdown: { system: 100, memory: 100, summaries: 0, messages: 4000, toolOutputs: 800, tools: 0 },
  providerPromptTokens: null,
  calibration: 1,
  canCompact: true,
  autoPaused: false,
  ...p,
});

export const settings = (cfpm: Partial<typeof DEFAULT_SETTINGS.cfpm> = {}) => ({
  ...DEFAULT_SETTINGS,
  cfpm: { ...DEFAULT_SETTINGS.cfpm, ...cfpm },
});

export const session = (id = 's1', title = 'First') => ({
  id,
  title,
  createdAt: 1,
  updatedAt: 2,
  messageCount: 0,
  workingFolder: '/home/u/Threadline',
});

/** A session's fields given per field, by session id (`{ busy: { s1: true } }`), as a store may be seeded. */
export type PerField = { [K in keyof SessionState]?: Record<string, SessionState[K] | null> } & {
  errors?: Record<string, SessionState['error']>;
};

/**
 * A store patch with sessions' state: the per-session fields (`busy`, `messages`, `errors`…) given
 * by field and id become `bySession` (every other session forgotten); the rest is passed through.
 */
export function seed(patch: PerField & Partial<AppState>): Partial<AppState> {
  const bySession: Record<string, SessionState> = {};
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(patch)) {
    const field = key === 'errors' ? 'error' : key;
    if (!(field in EMPTY_SESSION)) {
      rest[key] = value;
      continue;
    }
    for (const [id, v] of Object.entries(value as Record<string, unknown>)) {
      const s = (bySession[id] ??= { ...EMPTY_SESSION });
      (s as unknown as Record<string, unknown>)[field] = v ?? (EMPTY_SESSION as Record<string, unknown>)[field];
    }
  }
  return { ...(rest as Partial<AppState>), bySession };
}

/** A local provider profile (the forms' and Settings' tests). */
export const profile: ProviderProfile = {
  id: 'p1',
  preset: 'custom',
  name: 'Local',
  baseUrl: 'http://127.0.0.1:8000/v1',
  model: 'local-model',
  contextWindow: 8192,
  compactionModel: null,
  hasKey: false,
  active: true,
};

/**
 * jsdom has no layout: elements get a real viewport height for this test (the transcript's
 * virtualizer reads clientHeight and measures rows by offsetHeight), put back when it ends.
 */
export function giveLayout(): void {
  const proto = HTMLElement.prototype;
  for (const [prop, value] of [
    ['clientHeight', 800],
    ['offsetHeight', 60],
  ] as const) {
    const saved = Object.getOwnPropertyDescriptor(proto, prop);
    Object.defineProperty(proto, prop, { configurable: true, get: () => value });
    onTestFinished(() => {
      if (saved) Object.defineProperty(proto, prop, saved);
      else delete (proto as unknown as Record<string, unknown>)[prop];
    });
  }
}
