import { DEFAULT_SETTINGS, type CompactionRecord, type ContextUsage, type StoredMessage } from '@threadline/protocol';

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
