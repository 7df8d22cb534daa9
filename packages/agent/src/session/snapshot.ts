import { anchorOf } from '@threadline/context';
import type { CompactionRecord, FactStatus, MemoryCandidate, MemoryFact, StoredMessage } from '@threadline/protocol';
import type {
  BranchHint,
  FactEdit,
  NewCompaction,
  NewMessage,
  Store,
  TurnStep,
  TurnStepResult,
} from '@threadline/store';
import { tokensAtAppend } from './counting';
import type { SessionSnapshot } from './history';
import { Sessions } from './session';

export interface SnapshotOptions {
  /** Snapshots kept at most; the least recently used goes first (default 4). */
  max?: number;
  /** A snapshot unused this long is dropped (default 5 minutes). */
  idleMs?: number;
}

/** Drops the full output a store write hands back: the snapshot never holds one. */
function light(m: StoredMessage): StoredMessage {
  if (m.fullOutput === undefined) return m;
  const { fullOutput: _dropped, ...rest } = m;
  return rest;
}

/** Exactly the messages orderAgentMessages (context/view) keeps. */
function messagesInView(history: readonly StoredMessage[], compactions: readonly CompactionRecord[]): StoredMessage[] {
  const hidden = new Set<string>();
  const active = new Set<string>();
  for (const c of compactions) {
    if (!c.active) continue;
    active.add(c.id);
    for (const id of c.hiddenIds) hidden.add(id);
  }
  return history.filter((m) => {
    if (!m.visibility.agent || hidden.has(m.id)) return false;
    const anchor = anchorOf(m);
    return anchor === null || active.has(anchor.compactionId);
  });
}

/**
 * How the open sessions' snapshots are loaded and dropped, and the one way the turn path writes
 * messages, compactions and memory: each write goes to the store, then into the snapshot in
 * place. Each snapshot is held by its session's `Session` (one registry: `Sessions`). Life cycle:
 * loaded on first use (a route or a turn), updated by every write here, reloaded after a branch
 * change, dropped on delete, when more than `max` are loaded (least recently used) and when idle
 * for `idleMs` (an unref'd timer: it never keeps the process alive).
 */
export class SessionSnapshots {
  private readonly max: number;
  private readonly idleMs: number;
  private timer: NodeJS.Timeout | null = null;
  /** Counts uses: a snapshot's last use orders the least recently used first. */
  private uses = 0;

  constructor(
    private readonly store: Store,
    private readonly now: () => number,
    opts: SnapshotOptions = {},
    /** Told of every change of a session's memory: a write, or another branch shown (`memory.updated`). */
    private readonly memoryChanged: (sessionId: string) => void = () => undefined,
    /**
     * The registry whose sessions hold the snapshots; told of every write here that changes a
     * session's row (Sessions.rowChanged): with the row when the store answered it (a step,
     * turns.commit), else null (it must be read to be known).
     */
    private readonly sessions: Sessions = new Sessions(),
  ) {
    this.max = Math.max(1, opts.max ?? 4);
    this.idleMs = opts.idleMs ?? 5 * 60_000;
  }

  /**
   * The session's snapshot, loaded on first use. `leafId`: the store's leaf as the caller has
   * just read it (turns.load) or written it (the message it just stored), so it is not read again.
   */
  get(sessionId: string, leafId?: string | null): SessionSnapshot {
    const session = this.sessions.open.get(sessionId) ?? this.sessions.get(sessionId);
    let snap = session.snapshot ?? undefined;
    // One indexed row: a write that bypassed this module (a test, a tool on the database) moved
    // the leaf, and the snapshot is read again rather than trusted. A held session's writes all go
    // through here (its turn checked the leaf when it took the hold).
    if (snap && !session.held && snap.leafId !== (leafId === undefined ? this.store.messages.leaf(sessionId) : leafId))
      snap = undefined;
    if (!snap) snap = this.load(sessionId);
    else snap.use = this.uses += 1;
    snap.lastUsed = this.now();
    return snap;
  }

  /**
   * A turn's hold on its session: the snapshot is checked against the store once, then trusted
   * (every write of the turn goes through this module) and kept loaded until `release`.
   */
  hold(sessionId: string, leafId?: string | null): SessionSnapshot {
    const snap = this.get(sessionId, leafId);
    this.sessions.get(sessionId).hold();
    return snap;
  }

  release(sessionId: string): void {
    this.sessions.open.get(sessionId)?.release();
  }

  /** Loaded or not: for tests and the idle sweep. */
  has(sessionId: string): boolean {
    return this.loaded(sessionId) !== undefined;
  }

  drop(sessionId: string): void {
    this.sessions.open.get(sessionId)?.snapshotDropped();
  }

  /** The session's snapshot when it is loaded, without loading it. */
  private loaded(sessionId: string): SessionSnapshot | undefined {
    return this.sessions.open.get(sessionId)?.snapshot ?? undefined;
  }

  /** What the store's memory statements need of the branch, from memory (see BranchHint). */
  branch(sessionId: string): BranchHint {
    return this.hintOf(this.get(sessionId));
  }

  /** The branch's memory candidates, read once per snapshot (every refresh hands back the new list). */
  candidates(sessionId: string): MemoryCandidate[] {
    const snap = this.get(sessionId);
    return (snap.candidates ??= this.store.memory.candidates(sessionId, undefined, this.hintOf(snap)));
  }

  private hintOf(snap: SessionSnapshot): BranchHint {
    snap.forkSeq ??= this.store.memory.forkSeq(snap.sessionId);
    return { onPath: (id) => snap.pathIds.has(id), forkSeq: snap.forkSeq };
  }

  /** Drops the snapshots unused for `idleMs`; the timer calls it, tests may too. */
  sweep(): void {
    const cutoff = this.now() - this.idleMs;
    for (const session of this.sessions.all()) {
      const snap = session.snapshot;
      if (snap && snap.lastUsed <= cutoff && !session.held) session.snapshotDropped();
    }
  }

  dispose(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    for (const session of this.sessions.all()) session.snapshotDropped();
  }

  private load(sessionId: string): SessionSnapshot {
    const history = this.store.messages.list(sessionId, { fullOutput: false });
    const compactions = this.store.compactions.active(sessionId);
    const snap: SessionSnapshot = {
      sessionId,
      history,
      pathIds: new Set(history.map((m) => m.id)),
      forkSeq: null,
      compactions,
      facts: this.store.memory.facts(sessionId),
      candidates: null,
      leafId: this.store.messages.leaf(sessionId),
      inView: messagesInView(history, compactions),
      agentMessages: history.reduce((n, m) => n + (m.visibility.agent ? 1 : 0), 0),
      counted: 0,
      model: null,
      memorySeen: null,
      memoryEpoch: 0,
      frozenMemory: null,
      version: 0,
      cachedView: null,
      lastUsed: this.now(),
      use: (this.uses += 1),
    };
    this.sessions.get(sessionId).snapshotLoaded(snap);
    // Least recently used first; a held one stays (its turn keeps writing to it).
    const loaded = this.sessions
      .all()
      .filter((x) => x.snapshot !== null)
      .sort((a, b) => a.snapshot!.use - b.snapshot!.use);
    let open = loaded.length;
    for (const session of loaded) {
      if (open <= this.max) break;
      if (!session.held) {
        session.snapshotDropped();
        open -= 1;
      }
    }
    this.startTimer();
    return snap;
  }

  private startTimer(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.sweep(), Math.min(this.idleMs, 60_000));
    this.timer.unref();
  }

  // ─── writes: the store first, then the snapshot (when it is loaded) ─────────────────────────

  /**
   * Appends to the active branch; with `parentId` (an edit) a new branch starts: reloaded on next
   * use. The messages are counted before they are stored (with `model`, else the model of the
   * session's last view), so no second write stores their counts.
   */
  append(
    sessionId: string,
    msgs: NewMessage[],
    opts: { parentId?: string | null; model?: string } = {},
  ): StoredMessage[] {
    const snap = this.loaded(sessionId);
    const counted = this.counted(snap, msgs, opts.model);
    const stored = this.store.messages.append(
      sessionId,
      counted,
      opts.parentId === undefined ? {} : { parentId: opts.parentId },
    );
    this.sessions.rowChanged(sessionId, null);
    if (!snap) return stored;
    if (opts.parentId !== undefined) this.drop(sessionId);
    else this.pushMessages(snap, stored);
    return stored;
  }

  /** Messages with their token counts, counted before they are stored (with `model`, else the last view's). */
  private counted(
    snap: SessionSnapshot | undefined,
    msgs: NewMessage[],
    model = snap?.model ?? undefined,
  ): NewMessage[] {
    if (model === undefined || model === null) return msgs;
    return msgs.map((m) =>
      m.tokens === null || m.tokens === undefined ? { ...m, tokens: tokensAtAppend(m, model) } : m,
    );
  }

  /**
   * One step of a turn in one store transaction (store.turns.commit): its messages (appended as
   * `append` does), its model call, the memory refresh of what they say and its notice. The
   * snapshot follows, and the store's answer says the session's row after it.
   */
  commit(sessionId: string, step: TurnStep, opts: { model?: string } = {}): TurnStepResult {
    const snap = this.loaded(sessionId);
    const memory = step.memory && {
      ...step.memory,
      // The branch before the step's messages; the store adds the new leaf itself.
      ...(snap && !step.memory.branch ? { branch: this.hintOf(snap) } : {}),
      ...(step.memory.notice ? { notice: this.counted(snap, [step.memory.notice], opts.model)[0] } : {}),
    };
    const result = this.store.turns.commit(sessionId, {
      ...step,
      ...(step.messages ? { messages: this.counted(snap, step.messages, opts.model) } : {}),
      ...(memory ? { memory } : {}),
    });
    if (snap) {
      if (step.parentId !== undefined) this.drop(sessionId);
      else if (this.pushMessages(snap, result.messages)) {
        if (result.memory) {
          snap.facts = result.memory.facts;
          snap.candidates = result.memory.candidates;
          if (result.memory.candidates.length > 0 || result.memory.facts.length > 0) snap.memorySeen = true;
          snap.version += 1;
        }
        if (result.notice) this.pushMessages(snap, [result.notice]);
      }
    }
    if (result.memory) this.memoryChanged(sessionId);
    this.sessions.rowChanged(sessionId, result.session);
    return result;
  }

  /** false (and dropped) when the store's branch had moved on without us: read again on next use. */
  private pushMessages(snap: SessionSnapshot, stored: readonly StoredMessage[]): boolean {
    if (stored.length === 0) return true;
    if (stored[0]!.parentId !== snap.leafId) {
      this.drop(snap.sessionId);
      return false;
    }
    for (const m of stored) {
      const l = light(m);
      snap.history.push(l);
      snap.pathIds.add(l.id);
      if (l.visibility.agent) {
        snap.agentMessages += 1;
        // A new message is never hidden yet; an inserted one comes with its compaction (below).
        if (anchorOf(l) === null) snap.inView.push(l);
      }
    }
    snap.leafId = stored[stored.length - 1]!.id;
    snap.version += 1;
    return true;
  }

  /**
   * A compaction: its record, its inserted messages and (with a memory checkpoint) the memory
   * snapshot row, in one transaction.
   */
  applyCompaction(
    sessionId: string,
    record: NewCompaction,
    inserted: NewMessage[],
  ): { record: CompactionRecord; inserted: StoredMessage[] } {
    const loaded = this.loaded(sessionId);
    // The branch before the inserted messages; the store adds the new leaf itself.
    const hint = loaded ? this.hintOf(loaded) : undefined;
    const applied = this.store.transaction(() => {
      const out = this.store.compactions.apply(sessionId, record, inserted);
      const checkpoint = out.inserted.find((m) => m.kind === 'memory_snapshot');
      if (!checkpoint) return { ...out, facts: null, candidates: null };
      // Keep the checkpoint in memory_snapshots too, so the memory panel can show it.
      const facts = loaded?.facts ?? this.store.memory.facts(sessionId);
      const refreshed = this.store.memory.refresh(
        sessionId,
        {
          facts,
          candidates: [],
          snapshot: {
            compactionId: out.record.id,
            content: checkpoint.content ?? '',
            factCount: facts.filter((f) => f.status === 'active').length,
          },
        },
        hint,
      );
      return { ...out, facts: refreshed.facts, candidates: refreshed.candidates };
    });
    const snap = this.loaded(sessionId);
    if (snap && this.pushMessages(snap, applied.inserted)) {
      snap.compactions = [...snap.compactions, applied.record];
      if (applied.facts) snap.facts = applied.facts;
      if (applied.candidates) snap.candidates = applied.candidates;
      snap.inView = messagesInView(snap.history, snap.compactions);
      // What the model reads changed even when nothing was inserted (a compaction that only
      // hides): the cached view, the meter and context.usage must not answer the old one.
      snap.version += 1;
    }
    if (applied.facts) this.memoryChanged(sessionId);
    this.sessions.rowChanged(sessionId, null);
    return { record: applied.record, inserted: applied.inserted };
  }

  /** Undoes the branch's newest active compaction: its hidden messages are in view again. */
  undoCompaction(sessionId: string): CompactionRecord | null {
    const undone = this.store.compactions.undoLast(sessionId);
    if (undone) this.sessions.rowChanged(sessionId, null);
    const snap = this.loaded(sessionId);
    if (undone && snap) {
      snap.compactions = snap.compactions.filter((c) => c.id !== undone.id);
      snap.inView = messagesInView(snap.history, snap.compactions);
      snap.version += 1;
    }
    return undone;
  }

  /** The user's new or edited fact: user facts belong to every branch. */
  upsertFact(sessionId: string, edit: FactEdit): MemoryFact {
    const fact = this.store.memory.upsertFact(sessionId, edit);
    const snap = this.loaded(sessionId);
    if (snap) {
      const at = snap.facts.findIndex((f) => f.id === fact.id);
      snap.facts = at >= 0 ? snap.facts.map((f, i) => (i === at ? fact : f)) : [...snap.facts, fact];
      snap.memoryEpoch += 1;
      snap.version += 1;
    }
    this.memoryChanged(sessionId);
    return fact;
  }

  /** Forget / restore / pin. A pin changes which branches see the fact: those facts are read again. */
  setFactStatus(id: string, status: FactStatus, pinned?: boolean): MemoryFact {
    const fact = this.store.memory.setStatus(id, status, pinned);
    const snap = this.loaded(fact.sessionId);
    if (snap) {
      const at = snap.facts.findIndex((f) => f.id === fact.id);
      if (at >= 0 && snap.facts[at]!.pinned === fact.pinned)
        snap.facts = snap.facts.map((f, i) => (i === at ? fact : f));
      else snap.facts = this.store.memory.facts(fact.sessionId);
      snap.memoryEpoch += 1;
      snap.version += 1;
    }
    this.memoryChanged(fact.sessionId);
    return fact;
  }

  /** Another branch shown: reloaded on next use. */
  switchBranch(sessionId: string, id: string, opts: { exact?: boolean } = {}): string {
    const leaf = this.store.messages.switchTo(sessionId, id, opts);
    this.sessions.rowChanged(sessionId, null);
    this.drop(sessionId);
    // The branch shown has its own facts.
    this.memoryChanged(sessionId);
    return leaf;
  }

  deleteSession(sessionId: string): void {
    this.store.sessions.delete(sessionId);
    this.drop(sessionId);
  }
}
