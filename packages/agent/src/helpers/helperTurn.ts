import type { ProviderProfile, Rule, SessionSummary } from '@threadline/protocol';
import type { ProviderClient } from '../provider/client';
import type { TurnDeps } from '../turn/deps';
import type { HelperScope } from '../turn/helperScope';
import { Turn } from '../turn/turn';

/**
 * A helper's turn: its own session, snapshot, runtime and budget, run by the same loop as a chat
 * turn (runTurn), inside its parent's boundary. Where it works, which tool policies and network
 * switch apply, whose instructions it follows: always the parent turn's (read live, so a change
 * the user makes during the turn applies to the helpers too). Its file changes go into the
 * parent turn's checkpoint, and what its commands leave that runs code later is held with the
 * parent's (on the parent chat's card).
 */
export class HelperTurn extends Turn {
  override readonly helper: HelperScope;

  constructor(
    private readonly parent: Turn,
    init: {
      deps: TurnDeps;
      session: SessionSummary;
      profile: ProviderProfile;
      client: ProviderClient;
      signal: AbortSignal;
      scope: HelperScope;
    },
  ) {
    super({
      deps: init.deps,
      // Its own small rows are never read: the parent's answer for them (below).
      rows: {
        session: init.session,
        rows: { rules: [], systemPrompt: null, sandboxNetwork: false },
        mcpServers: [],
      },
      settings: parent.settings,
      profile: init.profile,
      client: init.client,
      signal: init.signal,
    });
    this.helper = init.scope;
    if (parent.checkpoint) this.checkpoint = parent.checkpoint;
    if (parent.leftovers) this.leftovers = parent.leftovers;
  }

  override folder(): { folder: string } | { error: string } {
    return this.parent.folder();
  }

  override storedRules(): readonly Rule[] {
    return this.parent.storedRules();
  }

  override sandboxNetwork(): readonly string[] | null {
    return this.parent.sandboxNetwork();
  }

  override sessionPrompt(): string | null {
    return this.parent.sessionPrompt();
  }
}
