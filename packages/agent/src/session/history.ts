import type { View } from '@threadline/context';
import type { CompactionRecord, MemoryCandidate, MemoryFact, StoredMessage } from '@threadline/protocol';

/**
 * One open session in memory: what a step needs, read from SQLite once. The history is the active
 * branch without full outputs (those stay on disk: messages.fullOutput, read_tool_output). Its
 * session's `Session` holds it (session/session.ts); SessionSnapshots loads it, drops it, and
 * changes it in the same call that writes the store.
 */
export interface SessionSnapshot {
  readonly sessionId: string;
  /** The active branch, oldest first; token counts are filled in once (see turn/view.ts). */
  readonly history: StoredMessage[];
  /** The branch's active compactions. */
  compactions: CompactionRecord[];
  /** The branch's memory facts (any status), oldest first, as store.memory.facts lists them. */
  facts: MemoryFact[];
  /** The branch's memory candidates (store.memory.candidates), read on first use, then kept from each refresh's answer. */
  candidates: MemoryCandidate[] | null;
  /** The ids of `history`: the branch, for the store's memory statements (BranchHint). */
  readonly pathIds: Set<string>;
  /** The branch's last fork (store.memory.forkSeq), asked once: only a branch change moves it. */
  forkSeq: number | null;
  /** The branch leaf this snapshot shows; a store leaf that moved without us means a reload. */
  leafId: string | null;
  /**
   * The history messages the agent sees now (agent-visible, not hidden, inserted ones of active
   * compactions): what the view is built from, so a step's cost follows what is in view.
   */
  inView: StoredMessage[];
  /** Agent-visible messages of the whole branch, hidden or not (the meter's canCompact). */
  agentMessages: number;
  /** history[0, counted) has token counts. */
  counted: number;
  /** The model the last view was counted for: what an append counts its messages with. */
  model: string | null;
  /** A memory refresh stored candidates on this branch (or it has facts): see turn/memory.ts. */
  memorySeen: boolean | null;
  /** Bumped by the user's memory edits: the memory block is rebuilt (turn/view.ts memoryBlockFor). */
  memoryEpoch: number;
  /** The memory block the requests carry, and the compactions + epoch it was built for. */
  frozenMemory: { key: string; block: string | null } | null;
  /** Bumped by every change: a cached view is good while its version matches. */
  version: number;
  /** The view last built from this version (turn/view.ts), with what else it was built from. */
  cachedView: { version: number; key: string; view: View; systemPrompt: string; memoryBlock: string | null } | null;
  lastUsed: number;
  /** Its last use, counted over every session's: the least recently used is dropped first. */
  use: number;
}

export type CachedView = NonNullable<SessionSnapshot['cachedView']>;

/*
 * What a step keeps on the snapshot between calls, changed here only (the snapshot is the
 * Session's; a turn asks for what it needs and says what it built).
 */

/** The memory block for `key` (compactions + the user's edits): the same text until the key moves. */
export function frozenMemoryBlock(snap: SessionSnapshot, key: string, build: () => string | null): string | null {
  if (snap.frozenMemory?.key !== key) snap.frozenMemory = { key, block: build() };
  return snap.frozenMemory.block;
}

/** The view for `key` at the snapshot's version: built by `build` once per change of either. */
export function viewAtVersion(
  snap: SessionSnapshot,
  key: string,
  build: () => Omit<CachedView, 'version' | 'key'>,
): CachedView {
  const cached = snap.cachedView;
  if (cached && cached.version === snap.version && cached.key === key) return cached;
  snap.cachedView = { version: snap.version, key, ...build() };
  return snap.cachedView;
}

/** The model the snapshot's messages are counted for from now on (what an append counts with). */
export function countFor(snap: SessionSnapshot, model: string): void {
  snap.model = model;
}

/**
 * Whether a memory refresh already parsed this branch (`known` asks the store, once per snapshot);
 * from this call on, it has.
 */
export function memoryParsedBefore(snap: SessionSnapshot, known: () => boolean): boolean {
  snap.memorySeen ??= known();
  const before = snap.memorySeen;
  snap.memorySeen = true;
  return before;
}
