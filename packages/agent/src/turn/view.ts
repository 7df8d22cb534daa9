import { buildMemoryBlock, buildView, countMessageTokens, type View } from '@threadline/context';
import type { CompactionRecord, MemoryFact, ProviderProfile, Settings, StoredMessage } from '@threadline/protocol';
import type { TurnDeps } from './deps';
import { systemPrompt } from './systemPrompt';

export interface SessionView {
  view: View;
  history: StoredMessage[];
  compactions: CompactionRecord[];
  facts: MemoryFact[];
  memoryBlock: string | null;
  systemPrompt: string;
}

/** Strategies that inject the CFPM memory block into every request (SPEC §3.4, §4). */
export function usesMemoryBlock(settings: Settings): boolean {
  return settings.compaction.strategy === 'cfpm_memory_v1' || settings.compaction.strategy === 'priority_chain';
}

/**
 * Counts the messages the store has no token count for yet and persists the counts, so a
 * reopened session recounts nothing (SPEC §3.1).
 */
export function cacheTokenCounts(deps: TurnDeps, history: StoredMessage[], model: string): StoredMessage[] {
  const updates: { id: string; tokens: number }[] = [];
  const out = history.map((m) => {
    if (m.tokens !== null && m.tokens !== undefined) return m;
    const tokens = countMessageTokens(m, model);
    updates.push({ id: m.id, tokens });
    return { ...m, tokens };
  });
  if (updates.length > 0) deps.store.messages.setTokens(updates);
  return out;
}

/** build view: history + active compactions + memory block → normalize → count. */
export function buildSessionView(
  deps: TurnDeps,
  sessionId: string,
  settings: Settings,
  profile: ProviderProfile,
): SessionView {
  const history = cacheTokenCounts(deps, deps.store.messages.list(sessionId, { fullOutput: false }), profile.model);
  const compactions = deps.store.compactions.active(sessionId);
  const facts = deps.store.memory.facts(sessionId);
  const memoryBlock = usesMemoryBlock(settings) ? buildMemoryBlock(facts) : null;
  const prompt = systemPrompt({ cwd: deps.workspace.cwd, platform: deps.workspace.platform, now: deps.now() });
  const view = buildView({ history, compactions, memoryBlock, systemPrompt: prompt, model: profile.model });
  return { view, history, compactions, facts, memoryBlock, systemPrompt: prompt };
}
