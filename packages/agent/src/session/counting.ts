import {
  countMessageTokens,
  countMessageTokensAsync,
  estimateMessageTokens,
  messageTextLength,
  yieldToEventLoop,
} from '@threadline/context';
import type { ChatMessage, StoredMessage } from '@threadline/protocol';
import type { Store } from '@threadline/store';

/**
 * Token counting without holding the thread that answers requests (issue 25). A message over
 * BIG_MESSAGE_CHARS is never counted in one go: it gets an estimate at once (kept in memory, not
 * stored) and its exact count is made in slices between which the event loop runs, then stored.
 * A turn and a compaction wait for the exact counts (settleCounts) before they decide anything;
 * chat.state and context.usage may show the estimate meanwhile.
 */

/** A message with more text than this is counted in slices, never in one go. */
export const BIG_MESSAGE_CHARS = 16_000;
/** Characters one synchronous pass (countNewMessages) counts at most; the rest waits its turn. */
const SYNC_PASS_CHARS = 256_000;

/** Whether a message is small enough to count in one go on the request thread. */
export function cheapToCount(m: ChatMessage): boolean {
  return messageTextLength(m) <= BIG_MESSAGE_CHARS;
}

/** What counting uses of an open session (a SessionSnapshot of session/snapshot.ts). */
interface CountedSnapshot {
  readonly history: StoredMessage[];
  /** history[0, counted) has token counts. */
  counted: number;
  /** Bumped when a count lands: a cached view built with the estimate is rebuilt. */
  version: number;
}

/** Per snapshot: messages that show an estimate, and the job counting them exactly. */
interface Pending {
  messages: Set<StoredMessage>;
  model: string;
  job: Promise<void> | null;
}
const pending = new WeakMap<CountedSnapshot, Pending>();

/**
 * Counts the history messages that have no count yet: small ones at once (up to a bound per
 * pass), the others estimated now and counted exactly in the background. Persisted as counted.
 */
export function countNewMessages(store: Pick<Store, 'messages'>, snap: CountedSnapshot, model: string): void {
  const { history } = snap;
  if (snap.counted === history.length) return;
  const updates: { id: string; tokens: number }[] = [];
  let budget = SYNC_PASS_CHARS;
  for (let i = snap.counted; i < history.length; i++) {
    const m = history[i]!;
    if (m.tokens !== null && m.tokens !== undefined) continue;
    const size = messageTextLength(m);
    if (size <= BIG_MESSAGE_CHARS && size <= budget) {
      budget -= size;
      m.tokens = countMessageTokens(m, model);
      updates.push({ id: m.id, tokens: m.tokens });
    } else {
      m.tokens = estimateMessageTokens(m);
      track(snap, model).messages.add(m);
    }
  }
  if (updates.length > 0) store.messages.setTokens(updates);
  snap.counted = history.length;
  const p = pending.get(snap);
  if (p && p.messages.size > 0 && !p.job) p.job = runJob(store, snap, p);
}

function track(snap: CountedSnapshot, model: string): Pending {
  let p = pending.get(snap);
  if (!p || p.model !== model) {
    p = { messages: p?.messages ?? new Set(), model, job: null };
    pending.set(snap, p);
  }
  return p;
}

/** Counts the pending messages of a snapshot exactly, in slices; stores each count as it lands. */
async function runJob(store: Pick<Store, 'messages'>, snap: CountedSnapshot, p: Pending): Promise<void> {
  try {
    while (p.messages.size > 0) {
      const m = p.messages.values().next().value!;
      p.messages.delete(m);
      const tokens = await countMessageTokensAsync(m, p.model);
      m.tokens = tokens;
      try {
        store.messages.setTokens([{ id: m.id, tokens }]);
      } catch {
        // The message or its session was deleted meanwhile: nothing to store.
      }
      // The cached view was built with the estimate.
      snap.version += 1;
      await yieldToEventLoop();
    }
  } finally {
    p.job = null;
  }
}

/** Resolves once every message of the snapshot has its exact count (a turn waits for this). */
export async function settleCounts(
  store: Pick<Store, 'messages'>,
  snap: CountedSnapshot,
  model: string,
): Promise<void> {
  countNewMessages(store, snap, model);
  for (;;) {
    const p = pending.get(snap);
    if (!p || (p.messages.size === 0 && !p.job)) return;
    if (!p.job) p.job = runJob(store, snap, p);
    await p.job;
  }
}

/**
 * The count a message is stored with when appended: exact when cheap, else null (counted in the
 * background by the next countNewMessages, with an estimate meanwhile).
 */
export function tokensAtAppend(m: ChatMessage, model: string): number | null {
  return cheapToCount(m) ? countMessageTokens(m, model) : null;
}
