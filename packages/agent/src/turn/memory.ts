import { USER_ONLY } from '@threadline/protocol';
import type { TurnScope } from './deps';

/**
 * CFPM refresh: parse recent messages into facts/candidates, store them in one transaction, and
 * persist + push the runtime notice when the visibility rules allow it (SPEC §4).
 */
export function refreshSessionMemory(scope: Pick<TurnScope, 'deps' | 'sessionId' | 'settings'>): void {
  const { deps, sessionId, settings } = scope;
  if (settings.compaction.strategy !== 'cfpm_memory_v1') return;
  const history = deps.store.messages.list(sessionId, { fullOutput: false }).filter((m) => m.kind === 'normal');
  const outcome = deps.engine.refreshMemory({
    sessionId,
    messages: history,
    facts: deps.store.memory.facts(sessionId),
    now: deps.now(),
    newId: deps.newId,
    visibility: settings.cfpm.runtimeVisibility,
  });
  deps.store.memory.refresh(sessionId, {
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
  if (outcome.notice) {
    const [message] = deps.store.messages.append(sessionId, [
      { role: 'user', content: outcome.notice, kind: 'runtime_notice', visibility: USER_ONLY },
    ]);
    deps.emit({ type: 'notice', sessionId, message });
  }
}
