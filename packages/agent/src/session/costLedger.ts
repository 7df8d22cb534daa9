// A session's cost from its calls (turn/cost.ts sends it; Session keeps a CostLedger).
import {
  EMPTY_USAGE_TOTALS,
  callCost,
  priceFor,
  type ModelPrice,
  type SessionCost,
  type UsageTotals,
} from '@threadline/protocol';
import type { ModelCall, ModelCallGroup, SessionCalls, Store } from '@threadline/store';

/** Adds a group of calls to totals; an unknown price makes the cost unknown (null), never a guess. */
export function add(
  t: UsageTotals,
  g: Omit<ModelCallGroup, 'kind' | 'compactionId'>,
  price: ModelPrice | null,
): UsageTotals {
  const cost = callCost(g, price);
  return {
    calls: t.calls + g.calls,
    promptTokens: t.promptTokens + g.promptTokens,
    cachedTokens: t.cachedTokens + g.cachedTokens,
    completionTokens: t.completionTokens + g.completionTokens,
    cost: t.cost === null || cost === null ? null : t.cost + cost,
    unpricedCalls: t.unpricedCalls + (price ? 0 : g.calls),
  };
}

/** Each profile's own prices: those given, the others read once when first needed. */
export function pricing(
  deps: { store: Pick<Store, 'usage'> },
  known: Record<string, Record<string, ModelPrice>> = {},
): (profileId: string | null, model: string) => ModelPrice | null {
  const byProfile = new Map<string, Record<string, ModelPrice>>(Object.entries(known));
  return (profileId, model) => {
    if (profileId === null) return priceFor(model);
    let own = byProfile.get(profileId);
    if (!own) byProfile.set(profileId, (own = deps.store.usage.prices(profileId)));
    return priceFor(model, own);
  };
}

/** A session's calls: all, the summaries, each compaction's summaries; with their cost. */
export function costOf(
  sessionId: string,
  calls: SessionCalls,
  price: (profileId: string | null, model: string) => ModelPrice | null,
): SessionCost {
  let total = EMPTY_USAGE_TOTALS;
  let summaries = EMPTY_USAGE_TOTALS;
  const compactions: Record<string, UsageTotals> = {};
  for (const g of calls.groups) {
    const p = price(g.profileId, g.model);
    total = add(total, g, p);
    if (g.kind !== 'summary') continue;
    summaries = add(summaries, g, p);
    if (g.compactionId) compactions[g.compactionId] = add(compactions[g.compactionId] ?? EMPTY_USAGE_TOTALS, g, p);
  }
  const out: SessionCost = { sessionId, total, summaries, compactions, lastCallAt: calls.lastCallAt };
  // Its helpers' calls, apart (issue 39: "3 helpers: 96K tokens used, 2.1K returned").
  if (calls.helpers) {
    let helpers = EMPTY_USAGE_TOTALS;
    for (const g of calls.helpers.groups) helpers = add(helpers, g, price(g.profileId, g.model));
    out.helpers = { count: calls.helpers.count, total: helpers, returnedTokens: calls.helpers.returnedTokens };
  }
  return out;
}

/**
 * A session's calls kept in memory (Session.cost), so the cost event after each call needs
 * no read: filled by the session's first cost event (usage.calls), then kept across turns, each
 * stored call added as the store groups it. Whatever else changes the figures drops it (linking summaries to a compaction,
 * a price edit, a deleted profile): the next event reads the store again.
 */
export class CostLedger {
  private readonly groups: ModelCallGroup[];
  private lastCallAt: number | null;
  /** The helpers' part, as read: a helper's call drops the ledger (helpers/helperRun.ts). */
  private readonly helpers: SessionCalls['helpers'];
  private readonly price: (profileId: string | null, model: string) => ModelPrice | null;

  constructor(
    private readonly sessionId: string,
    calls: SessionCalls,
    deps: { store: Pick<Store, 'usage'> },
  ) {
    this.groups = calls.groups.map((g) => ({ ...g }));
    this.lastCallAt = calls.lastCallAt;
    this.helpers = calls.helpers;
    this.price = pricing(deps, calls.prices);
  }

  /** One stored call (UsageRepo.record's row): into its group, as sessionGroups would list it. */
  add(call: ModelCall): void {
    const g = this.groups.find(
      (x) =>
        x.profileId === call.profileId &&
        x.model === call.model &&
        x.kind === call.kind &&
        x.compactionId === call.compactionId,
    );
    if (g) {
      g.calls += 1;
      g.promptTokens += call.promptTokens;
      g.cachedTokens += call.cachedTokens;
      g.completionTokens += call.completionTokens;
    } else {
      const { profileId, model, kind, compactionId, promptTokens, cachedTokens, completionTokens } = call;
      this.groups.push({
        profileId,
        model,
        kind,
        compactionId,
        calls: 1,
        promptTokens,
        cachedTokens,
        completionTokens,
      });
    }
    // A title request shares no prefix with the conversation: it keeps no cache warm.
    if (call.kind !== 'title') this.lastCallAt = Math.max(this.lastCallAt ?? call.createdAt, call.createdAt);
  }

  cost(): SessionCost {
    const calls: SessionCalls = { groups: this.groups, prices: {}, lastCallAt: this.lastCallAt };
    if (this.helpers) calls.helpers = this.helpers;
    return costOf(this.sessionId, calls, this.price);
  }
}
