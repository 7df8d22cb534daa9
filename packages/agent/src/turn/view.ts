import { buildMemoryBlock, buildView, countMessageTokens, type View } from '@threadline/context';
import type { CompactionRecord, MemoryFact, ProviderProfile, Settings, StoredMessage } from '@threadline/protocol';
import type { TurnDeps } from './deps';
import type { SessionSnapshot } from './snapshot';
import { systemPrompt } from './systemPrompt';

export interface SessionView {
  view: View;
  /** The whole active branch (the snapshot's; never changed by the caller). */
  history: readonly StoredMessage[];
  /** What the agent sees of it, before normalization. */
  inView: readonly StoredMessage[];
  /** Agent-visible messages of the branch, hidden ones included. */
  agentMessages: number;
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
 * The memory block of the requests (CFPM's `[CFPM_RUNTIME_MEMORY_V1]`, also the priority chain's),
 * built from the facts when the set of active compactions changes or the user edits memory, and
 * the same text in between. It sits before the conversation, so a block that followed every
 * refresh would break the provider's cached prefix on most calls; the facts a refresh learns
 * between two compactions come from messages the model still sees, and what the block is for —
 * what a compaction hid — changes only at a compaction.
 */
export function memoryBlockFor(snap: SessionSnapshot): string | null {
  const key = `${snap.compactions.map((c) => c.id).join(',')}\u0000${snap.memoryEpoch}`;
  if (snap.frozenMemory?.key !== key) snap.frozenMemory = { key, block: buildMemoryBlock(snap.facts) };
  return snap.frozenMemory.block;
}

/**
 * Counts the messages the store has no token count for yet, once, and persists the counts, so a
 * reopened session recounts nothing (SPEC §3.1). Only what was appended since the last call is
 * looked at.
 */
function countNew(deps: Pick<TurnDeps, 'store'>, snap: SessionSnapshot, model: string): void {
  const { history } = snap;
  if (snap.counted === history.length) return;
  const updates: { id: string; tokens: number }[] = [];
  for (let i = snap.counted; i < history.length; i++) {
    const m = history[i]!;
    if (m.tokens !== null && m.tokens !== undefined) continue;
    m.tokens = countMessageTokens(m, model);
    updates.push({ id: m.id, tokens: m.tokens });
  }
  if (updates.length > 0) deps.store.messages.setTokens(updates);
  snap.counted = history.length;
}

/**
 * build view: the session's snapshot (history in view + active compactions + memory block) →
 * normalize → count. Built once per change of the snapshot: a second call with nothing new (the
 * auto trigger, the usage event, context.usage) gets the same view.
 */
export function buildSessionView(
  deps: Pick<TurnDeps, 'store' | 'sessions' | 'workspace' | 'now'>,
  sessionId: string,
  settings: Settings,
  profile: ProviderProfile,
): SessionView {
  const snap = deps.sessions.get(sessionId);
  snap.model = profile.model;
  countNew(deps, snap, profile.model);
  const memoryBlock = usesMemoryBlock(settings) ? memoryBlockFor(snap) : null;
  const { cwd, platform } = deps.workspace;
  const prompt = systemPrompt({ cwd, platform, startedAt: snap.history[0]?.createdAt ?? deps.now() });
  const key = `${profile.model}\u0000${prompt}\u0000${memoryBlock ?? '\u0001'}`;
  let cached = snap.cachedView;
  if (!cached || cached.version !== snap.version || cached.key !== key) {
    const view = buildView({
      history: snap.inView,
      compactions: snap.compactions,
      memoryBlock,
      systemPrompt: prompt,
      model: profile.model,
    });
    cached = { version: snap.version, key, view, systemPrompt: prompt, memoryBlock };
    snap.cachedView = cached;
  }
  return {
    view: cached.view,
    history: snap.history,
    inView: snap.inView,
    agentMessages: snap.agentMessages,
    compactions: snap.compactions,
    facts: snap.facts,
    memoryBlock,
    systemPrompt: prompt,
  };
}
