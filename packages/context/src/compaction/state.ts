import {
  AGENT_ONLY,
  toChatMessage,
  type ChatMessage,
  type MessageKind,
  type StoredMessage,
} from '@threadline/protocol';
import { countMessageTokens, TOKENS_PER_REQUEST, type TokenCache } from '../tokens/count';
import { ABORTED_TOOL_OUTPUT } from '../normalize/normalize';
import { comparePos, type OrderedMessage, type ViewPos } from '../view/order';
import { storedTokens } from '../view/buildView';

/** A message of the working view and what it costs. */
export interface WorkEntry {
  msg: StoredMessage;
  pos: ViewPos;
  tokens: number;
  /** Inserted by the compaction being computed (hiding it again just drops the insert). */
  fresh: boolean;
}

export interface NewMessage {
  role: ChatMessage['role'];
  content: string;
  kind: MessageKind;
  tool_call_id?: string;
  name?: string;
  meta?: Record<string, unknown>;
}

/** Kinds a compaction inserts; a later compaction folds them instead of stacking them. */
export const COMPACTION_KINDS: ReadonlySet<MessageKind> = new Set(['summary', 'continuation', 'memory_snapshot']);

/**
 * The view while a compaction is being computed. Steps only hide units and insert messages;
 * the result (hidden ids + inserted messages) is read off at the end, history is never touched.
 */
export class WorkState {
  entries: WorkEntry[];
  readonly hidden = new Set<string>();
  readonly inserted: StoredMessage[] = [];
  /** Ids keep_head_tail chose for the next folding step (null: the step picks its own range). */
  selection: Set<string> | null = null;
  /** Text of the summaries written by this compaction (the last one is the result's summary). */
  summaries: string[] = [];
  /** View positions of the user's own messages when the compaction started (segment starts). */
  readonly segmentStarts: number[];
  private cachedTotal: number | null = null;
  private order = 0;

  constructor(
    ordered: readonly OrderedMessage[],
    readonly fixedTokens: number,
    private readonly model: string,
    private readonly cache: TokenCache | undefined,
    private readonly sessionId: string,
    private readonly compactionId: string,
    private readonly now: number,
    private readonly newId: () => string,
  ) {
    this.entries = ordered.map((o) => ({
      msg: o.msg,
      pos: o.pos,
      tokens: storedTokens(o.msg, model, cache),
      fresh: false,
    }));
    this.segmentStarts = this.entries
      .filter(
        (e) => e.msg.role === 'user' && e.msg.kind === 'normal' && typeof e.msg.meta?.['compactionId'] !== 'string',
      )
      .map((e) => e.pos[0]);
  }

  /**
   * Estimated prompt tokens of the view as it stands, counted as buildView counts it after
   * normalization (orphan results dropped, a synthetic result per unanswered call), without
   * building the normalized list: steps call this after every change.
   */
  total(): number {
    if (this.cachedTotal !== null) return this.cachedTotal;
    let sum = this.fixedTokens + TOKENS_PER_REQUEST;
    const called = new Set<string>();
    const answered = new Set<string>();
    for (const e of this.entries) {
      const m = e.msg;
      if (m.role === 'tool') {
        if (m.tool_call_id === undefined || !called.has(m.tool_call_id)) continue;
        answered.add(m.tool_call_id);
      } else if (m.role === 'assistant' && m.tool_calls) {
        for (const c of m.tool_calls) called.add(c.id);
      }
      sum += e.tokens;
    }
    for (const id of called) {
      if (!answered.has(id))
        sum += countMessageTokens(
          { role: 'tool', content: ABORTED_TOOL_OUTPUT, tool_call_id: id },
          this.model,
          this.cache,
        );
    }
    this.cachedTotal = sum;
    return sum;
  }

  count(): number {
    return this.entries.length;
  }

  /** Hides the given messages from the view (fresh inserts are simply withdrawn). */
  hide(ids: Iterable<string>): number {
    const set = new Set(ids);
    if (set.size === 0) return 0;
    let n = 0;
    this.entries = this.entries.filter((e) => {
      if (!set.has(e.msg.id)) return true;
      n++;
      if (e.fresh) {
        const i = this.inserted.findIndex((m) => m.id === e.msg.id);
        if (i >= 0) this.inserted.splice(i, 1);
      } else {
        this.hidden.add(e.msg.id);
      }
      return false;
    });
    if (n > 0) this.cachedTotal = null;
    return n;
  }

  /** Rewrites a message this compaction inserted (the ledger is appended to its summary). */
  setContent(id: string, content: string, meta?: Record<string, unknown>): void {
    const e = this.entries.find((x) => x.fresh && x.msg.id === id);
    if (!e) throw new Error(`setContent: ${id} is not a message of this compaction`);
    const msg: StoredMessage = { ...e.msg, content, tokens: null };
    if (meta !== undefined) msg.meta = meta;
    msg.tokens = countMessageTokens(toChatMessage(msg), this.model, this.cache);
    e.msg = msg;
    e.tokens = msg.tokens;
    const i = this.inserted.findIndex((m) => m.id === id);
    if (i >= 0) this.inserted[i] = msg;
    this.cachedTotal = null;
  }

  /** Where a message inserted now at `anchorSeq` would sit: the entry right after it (or undefined). */
  entryAfter(anchorSeq: number): WorkEntry | undefined {
    const pos: ViewPos = [anchorSeq + 0.5, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER];
    return this.entries.find((e) => comparePos(e.pos, pos) > 0);
  }

  /** Inserts agent-only messages right after the history message with seq `anchorSeq`. */
  insert(anchorSeq: number, messages: NewMessage[]): StoredMessage[] {
    const made: StoredMessage[] = [];
    for (const m of messages) {
      const anchorOrder = this.order++;
      const msg: StoredMessage = {
        id: this.newId(),
        sessionId: this.sessionId,
        seq: 0, // assigned when the result is built (the runtime appends them)
        createdAt: this.now,
        role: m.role,
        content: m.content,
        kind: m.kind,
        visibility: { ...AGENT_ONLY },
        tokens: null,
        meta: { ...m.meta, compactionId: this.compactionId, anchorSeq, anchorOrder },
      };
      if (m.tool_call_id !== undefined) msg.tool_call_id = m.tool_call_id;
      if (m.name !== undefined) msg.name = m.name;
      msg.tokens = countMessageTokens(toChatMessage(msg), this.model, this.cache);
      // A fresh compaction sorts after every earlier one at the same anchor.
      const pos: ViewPos = [anchorSeq + 0.5, Number.MAX_SAFE_INTEGER, anchorOrder];
      const entry: WorkEntry = { msg, pos, tokens: msg.tokens, fresh: true };
      let i = this.entries.length;
      while (i > 0 && comparePos(this.entries[i - 1]!.pos, pos) > 0) i--;
      this.entries.splice(i, 0, entry);
      this.inserted.push(msg);
      made.push(msg);
    }
    this.cachedTotal = null;
    return made;
  }
}

/** The history seq a position belongs to (inserted messages report their anchor). */
export function seqOfPos(pos: ViewPos): number {
  return Math.floor(pos[0]);
}
