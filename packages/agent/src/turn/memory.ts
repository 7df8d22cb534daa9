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
import type { ProjectPromotion } from '@threadline/context';
import type { Turn } from './turn';
import { memoryParsedBefore, type SessionSnapshot } from '../session/history';

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
function turnStartWindow(
  turn: Pick<Turn, 'deps' | 'sessionId'>,
  snap: SessionSnapshot,
): { messages: StoredMessage[]; previous: StoredMessage | null } {
  const { deps, sessionId } = turn;
  const normal = (m: StoredMessage): boolean => m.kind === 'normal';
  // Asked of the store once per snapshot (the candidates are kept with it); a refresh that stores
  // something sets it (session/snapshot.ts).
  const parsed = memoryParsedBefore(
    snap,
    () => snap.facts.length > 0 || deps.sessions.candidates(sessionId).length > 0,
  );
  // Once per open session: after this parse every message is seen, by this refresh or a later one.
  if (!parsed) return { messages: snap.history.filter(normal), previous: null };
  // From the end: only the messages after the last refreshed one, notices skipped.
  const { history } = snap;
  let i = history.length;
  while (i > 0) {
    const m = history[i - 1]!;
    if (!normal(m) || m.role === 'user' || (m.role === 'assistant' && m.meta?.partial === true)) i--;
    else break;
  }
  // The message before the window: the answer whose closing question the user may reply to.
  let p = i - 1;
  while (p >= 0 && !normal(history[p]!)) p--;
  return { messages: history.slice(i).filter(normal), previous: p >= 0 ? history[p]! : null };
}

/**
 * What one refresh stores (store.turns.commit's `memory`): the facts and candidates, and CFPM's
 * notice; and what it found for the project's memory (proposed after the store call, turn/project.ts).
 */
export interface MemoryWrite {
  /** null: nothing to store (a refresh that found nothing, outside CFPM, whose notice is not kept). */
  refresh: MemoryRefresh | null;
  notice?: NewMessage;
  promotions: ProjectPromotion[];
}

/** A write with something for the store (turns.commit's `memory`), or undefined. */
export function storedPart(
  memory: MemoryWrite | undefined,
): { refresh: MemoryRefresh; notice?: NewMessage } | undefined {
  if (!memory?.refresh) return undefined;
  return { refresh: memory.refresh, ...(memory.notice ? { notice: memory.notice } : {}) };
}

/**
 * A refresh's outcome, worked out: at once for a small window (`now`, so the step's commit can
 * store it in the same transaction), on the work pool for a window of much text (`later`: a whole
 * long history, parsed once). Session memory is collected in every strategy (the project's memory
 * is fed from it); what a strategy injects of it into its own view is its choice (turn/view.ts).
 */
export function planMemoryRefresh(
  turn: Pick<Turn, 'deps' | 'sessionId' | 'settings'>,
  window: RefreshWindow,
): { now: MemoryWrite } | { later: Promise<MemoryWrite> } {
  const { deps, sessionId, settings } = turn;
  const cfpm = settings.compaction.strategy === 'cfpm_memory_v1';
  const parsed =
    window.at === 'committed'
      ? { messages: window.messages.filter((m) => (m.kind ?? 'normal') === 'normal'), previous: null }
      : turnStartWindow(turn, deps.sessions.get(sessionId));
  const messages: ChatMessage[] = parsed.messages;
  const input: RefreshInput = {
    sessionId,
    messages,
    recent: messages.length,
    facts: deps.sessions.get(sessionId).facts,
    candidates: deps.sessions.candidates(sessionId),
    now: deps.now(),
    newId: deps.newId,
    ...(settings.projectMemory.enabled ? { promote: { previous: parsed.previous } } : {}),
  };
  const write = (outcome: RefreshResult): MemoryWrite => {
    // Stored whole: visibility is a view the renderer applies at render time, to every notice. The
    // refresh notice is CFPM's; priority_chain only keeps the digest up to date.
    const notice = cfpm ? formatRuntimeNotice(outcome, 'debug') : null;
    const nothing = notice === null && outcome.mode === 'noop' && outcome.candidates.length === 0;
    return {
      refresh: nothing
        ? null
        : {
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
      promotions: outcome.promotions,
    };
  };
  let size = 0;
  for (const m of messages) size += messageTextLength(m);
  if (size < REFRESH_OFF_THREAD_CHARS) return { now: write(refreshMemory(input)) };
  return { later: refreshMemoryOffThread(input, { force: true }).then(write) };
}

/**
 * Stores a refresh's outcome (one transaction: facts, candidates and the notice), pushes the
 * notice, and keeps its promotions for the turn's project memory.
 */
export function storeMemory(turn: Pick<Turn, 'deps' | 'sessionId' | 'promotions'>, memory: MemoryWrite): void {
  const { deps, sessionId } = turn;
  turn.promotions.push(...memory.promotions);
  const stored = storedPart(memory);
  if (!stored) return;
  const { notice } = deps.sessions.commit(sessionId, { memory: stored });
  if (notice) deps.emit({ type: 'notice', sessionId, message: notice });
}

/**
 * CFPM refresh on its own (the turn start; a step whose window went to the work pool): parse the
 * window into facts/candidates, store them with the runtime notice in one transaction, and push
 * the notice (always: the renderer decides what the user sees of it). The returned promise is
 * already settled when nothing was left to wait for.
 */
export function refreshSessionMemory(
  turn: Pick<Turn, 'deps' | 'sessionId' | 'settings' | 'promotions'>,
  window: RefreshWindow,
): Promise<void> {
  const plan = planMemoryRefresh(turn, window);
  if ('now' in plan) {
    storeMemory(turn, plan.now);
    return Promise.resolve();
  }
  return plan.later.then((memory) => storeMemory(turn, memory));
}
