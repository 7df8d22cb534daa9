import {
  MAX_CANDIDATES,
  REFRESH_OFF_THREAD_CHARS,
  formatRuntimeNotice,
  messageTextLength,
  refreshMemory,
  refreshMemoryOffThread,
  type RefreshInput,
  type RefreshResult,
} from '@threadline/context';
import { USER_ONLY, type StoredMessage } from '@threadline/protocol';
import type { TurnScope } from './deps';
import type { SessionSnapshot } from './snapshot';
import { usesMemoryBlock } from './view';

/**
 * What a refresh parses. Every normal message is parsed once, because evidence must mean "seen
 * again", not "parsed again": a committed step (tool calls + results) or final answer is parsed
 * right after its commit; the turn start parses only what no such refresh saw.
 */
export type RefreshWindow = { at: 'turn_start' } | { at: 'committed'; messages: readonly StoredMessage[] };

/**
 * The turn start's share: the new user message, with the partial answers of a cancelled or
 * failed turn before it (never refreshed). A committed step or final answer ends the walk: its
 * own refresh parsed it. A session that was never refreshed (CFPM switched on later) is parsed
 * whole once per opening (its snapshot remembers it); re-parsing a history that gave no draft
 * cannot count anything twice.
 */
function turnStartWindow(scope: Pick<TurnScope, 'deps' | 'sessionId'>, snap: SessionSnapshot): StoredMessage[] {
  const { deps, sessionId } = scope;
  const normal = (m: StoredMessage): boolean => m.kind === 'normal';
  // Asked of the store once per snapshot; a refresh that stores something sets it (turn/snapshot.ts).
  snap.memorySeen ??=
    snap.facts.length > 0 || deps.store.memory.candidates(sessionId, 1, deps.sessions.branch(sessionId)).length > 0;
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

/**
 * CFPM refresh: parse the window into facts/candidates, store them in one transaction, and
 * persist + push the runtime notice (always: the renderer decides what the user sees of it).
 * A window of much text (a whole long history, parsed once) is parsed on the work pool
 * (refreshMemoryOffThread); a small one here and at once, so the returned promise is already
 * settled when nothing was left to wait for.
 */
export function refreshSessionMemory(
  scope: Pick<TurnScope, 'deps' | 'sessionId' | 'settings'>,
  window: RefreshWindow,
): Promise<void> {
  const { deps, sessionId, settings } = scope;
  // CFPM's lifecycle, and priority_chain's digest (SPEC §3.4: "always injected"): both read the
  // facts through the same memory block (turn/view.ts).
  if (!usesMemoryBlock(settings)) return Promise.resolve();
  const cfpm = settings.compaction.strategy === 'cfpm_memory_v1';
  const messages =
    window.at === 'committed'
      ? window.messages.filter((m) => m.kind === 'normal')
      : turnStartWindow(scope, deps.sessions.get(sessionId));
  const input: RefreshInput = {
    sessionId,
    messages,
    recent: messages.length,
    facts: deps.sessions.get(sessionId).facts,
    candidates: deps.store.memory.candidates(sessionId, MAX_CANDIDATES, deps.sessions.branch(sessionId)),
    now: deps.now(),
    newId: deps.newId,
  };
  const apply = (outcome: RefreshResult): void => {
    // Stored whole: visibility is a view the renderer applies at render time, to every notice. The
    // refresh notice is CFPM's; priority_chain only keeps the digest up to date.
    const notice = cfpm ? formatRuntimeNotice(outcome, 'debug') : null;
    deps.sessions.refreshMemory(sessionId, {
      facts: outcome.facts,
      candidates: outcome.candidates.map((c) => ({
        category: c.category,
        content: c.content,
        source: c.source,
        decision: c.decision,
        reason: c.reason,
        createdAt: c.createdAt,
      })),
    });
    if (notice) {
      const [message] = deps.sessions.append(sessionId, [
        { role: 'user', content: notice, kind: 'runtime_notice', visibility: USER_ONLY },
      ]);
      deps.emit({ type: 'notice', sessionId, message });
    }
  };
  let size = 0;
  for (const m of messages) size += messageTextLength(m);
  if (size < REFRESH_OFF_THREAD_CHARS) {
    apply(refreshMemory(input));
    return Promise.resolve();
  }
  return refreshMemoryOffThread(input, { force: true }).then(apply);
}
