import { buildMemoryBlock, buildView, type View } from '@threadline/context';
import type { CompactionRecord, MemoryFact, ProviderProfile, Settings, StoredMessage } from '@threadline/protocol';
import type { TurnDeps } from './deps';
import type { SessionSnapshot } from './snapshot';
import { countNewMessages } from './counting';
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
 * Counts the messages the store has no token count for yet, once, and persists the counts, so a
 * reopened session recounts nothing (SPEC §3.1). Only what was appended since the last call is
 * looked at; a large message shows an estimate until its exact count lands (turn/counting.ts).
 */
function countNew(deps: Pick<TurnDeps, 'store'>, snap: SessionSnapshot, model: string): void {
  countNewMessages(deps.store, snap, model);
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
  const memoryBlock = usesMemoryBlock(settings) ? buildMemoryBlock(snap.facts) : null;
  const { cwd, platform } = deps.workspace;
  const prompt = systemPrompt({ cwd, platform, now: deps.now() });
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
