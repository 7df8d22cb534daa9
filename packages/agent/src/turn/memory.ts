import {
  REFRESH_OFF_THREAD_CHARS,
  formatRuntimeNotice,
  messageTextLength,
  refreshMemory,
  refreshMemoryOffThread,
  type RefreshInput,
  type RefreshResult,
} from '@threadline/context';
import { USER_ONLY, type ChatMessage, type StoredMessage } from '@threadline/protocol';
import type { MemoryRefresh, NewMessage } from '@threadline/store';
import type { Turn } from './turn';
import type { SessionSnapshot } from './snapshot';
import { usesMemoryBlock } from './view';

/**
 * What a refresh parses. Every normal message is parsed once, because evidence must mean "seen
 * again", not "parsed again": a committed step (tool calls + results) or final answer is parsed
 * with its commit; the turn start parses only what no such refresh saw.
 */
export type RefreshWindow =
  { at: 'turn_start' } | { at: 'committed'; messages: readonly (StoredMessage | NewMessage)[] };

/**
 * The turn start's share: the new user message, with the partial answers of a cancelled or
 * failed turn before it (never refreshed). A committed step or final answer ends the walk: its
 * own refresh parsed it. A session that was never refreshed (CFPM switched on later) is parsed
 * whole once per opening (its snapshot remembers it); re-parsing a history that gave no draft
 * cannot count anything twice.
 */
function turnStartWindow(scope: Pick<Turn, 'deps' | 'sessionId'>, snap: SessionSnapshot): StoredMessage[] {
  const { deps, sessionId } = scope;
  const normal = (m: StoredMessage): boolean => m.kind === 'normal';
  // Asked of the store once per snapshot (the candidates are kept with it); a refresh that stores
  // something sets it (turn/snapshot.ts).
  snap.memorySeen ??= snap.facts.length > 0 || deps.sessions.candidates(sessionId).length > 0;
  if (!snap.memorySeen) {
    // Once per open session: after this parse every message is seen, by this refresh or a later one.
    snap.memorySeen = true;
    return snap.history.filter(normal);
  }
  // From the end: only the messages after the last refreshed one, notices skipped.
  const { history } = snap;
  let i = history.length;
  while (i > 0) {
    const m = history[i - 1]!;
    if (!normal(m) || m.role === 'user' || (m.role === 'assistant' && m.meta?.partial === true)) i--;
    else break;
  }
  return history.slice(i).filter(normal);
}

/** What one refresh stores (store.turns.commit's `memory`): the facts and candidates, and CFPM's notice. */
export interface MemoryWrite {
  refresh: MemoryRefresh;
  notice?: NewMessage;
}

/**
 * A refresh's outcome, worked out: at once for a small window (`now`, so the step's commit can
 * store it in the same transaction), on the work pool for a window of much text (`later`: a whole
 * long history, parsed once). null: no memory in this strategy.
 */
export function planMemoryRefresh(
  scope: Pick<Turn, 'deps' | 'sessionId' | 'settings'>,
  window: RefreshWindow,
  /** `always`: whatever the strategy (what helpers verified is merged into their parent's memory). */
  opts: { always?: boolean } = {},
): { now: MemoryWrite } | { later: Promise<MemoryWrite> } | null {
  const { deps, sessionId, settings } = scope;
  // CFPM's lifecycle, and priority_chain's digest ("always injected"): both read the
  // facts through the same memory block (turn/view.ts).
  if (!opts.always && !usesMemoryBlock(settings)) return null;
  const cfpm = settings.compaction.strategy === 'cfpm_memory_v1';
  const messages: ChatMessage[] =
    window.at === 'committed'
      ? window.messages.filter((m) => (m.kind ?? 'normal') === 'normal')
      : turnStartWindow(scope, deps.sessions.get(sessionId));
  const input: RefreshInput = {
    sessionId,
    messages,
    recent: messages.length,
    facts: deps.sessions.get(sessionId).facts,
    candidates: deps.sessions.candidates(sessionId),
    now: deps.now(),
    newId: deps.newId,
  };
  const write = (outcome: RefreshResult): MemoryWrite => {
    // Stored whole: visibility is a view the renderer applies at render time, to every notice. The
    // refresh notice is CFPM's; priority_chain only keeps the digest up to date.
    const notice = cfpm ? formatRuntimeNotice(outcome, 'debug') : null;
    return {
      refresh: {
        facts: outcome.facts,
        candidates: outcome.candidates.map((c) => ({
          category: c.category,
          content: c.content,
          source: c.source,
          decision: c.decision,
          reason: c.reason,
          createdAt: c.createdAt,
        })),
      },
      ...(notice ? { notice: { role: 'user', content: notice, kind: 'runtime_notice', visibility: USER_ONLY } } : {}),
    };
  };
  let size = 0;
  for (const m of messages) size += messageTextLength(m);
  if (size < REFRESH_OFF_THREAD_CHARS) return { now: write(refreshMemory(input)) };
  return { later: refreshMemoryOffThread(input, { force: true }).then(write) };
}

/** Stores a refresh's outcome (one transaction: facts, candidates and the notice) and pushes the notice. */
export function storeMemory(scope: Pick<Turn, 'deps' | 'sessionId'>, memory: MemoryWrite): void {
  const { deps, sessionId } = scope;
  const { notice } = deps.sessions.commit(sessionId, { memory });
  if (notice) deps.emit({ type: 'notice', sessionId, message: notice });
}

/**
 * CFPM refresh on its own (the turn start; a step whose window went to the work pool): parse the
 * window into facts/candidates, store them with the runtime notice in one transaction, and push
 * the notice (always: the renderer decides what the user sees of it). The returned promise is
 * already settled when nothing was left to wait for.
 */
export function refreshSessionMemory(
  scope: Pick<Turn, 'deps' | 'sessionId' | 'settings'>,
  window: RefreshWindow,
  opts: { always?: boolean } = {},
): Promise<void> {
  const plan = planMemoryRefresh(scope, window, opts);
  if (!plan) return Promise.resolve();
  if ('now' in plan) {
    storeMemory(scope, plan.now);
    return Promise.resolve();
  }
  return plan.later.then((memory) => storeMemory(scope, memory));
}
