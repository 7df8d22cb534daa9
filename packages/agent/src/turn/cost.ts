import {
  EMPTY_USAGE_TOTALS,
  callCost,
  priceFor,
  type CallKind,
  type DailyUsageRow,
  type ModelPrice,
  type ProviderProfile,
  type ResendEstimate,
  type SessionCost,
  type Settings,
  type UsageTotals,
} from '@threadline/protocol';
import type { ModelCall, ModelCallGroup, SessionCalls } from '@threadline/store';
import type { CallUsage } from '../provider/types';
import type { TurnDeps } from './deps';

type CostDeps = Pick<TurnDeps, 'store' | 'emit' | 'now' | 'runtime'>;

/** Adds a group of calls to totals; an unknown price makes the cost unknown (null), never a guess. */
function add(t: UsageTotals, g: Omit<ModelCallGroup, 'kind' | 'compactionId'>, price: ModelPrice | null): UsageTotals {
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
function pricing(
  deps: Pick<TurnDeps, 'store'>,
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
function costOf(
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
  return { sessionId, total, summaries, compactions, lastCallAt: calls.lastCallAt };
}

/** A session's cost as the store has it now (the usage.session route). */
export function sessionCost(deps: Pick<TurnDeps, 'store'>, sessionId: string): SessionCost {
  const calls = deps.store.usage.calls(sessionId);
  return costOf(sessionId, calls, pricing(deps, calls.prices));
}

/**
 * A session's calls kept in memory (SessionRuntime.cost), so the cost event after each call needs
 * no read: filled by turns.load (or the first cost event), each stored call added as the store
 * groups it. Whatever else changes the figures drops it (linking summaries to a compaction,
 * a price edit, a deleted profile): the next event reads the store again.
 */
export class CostLedger {
  private readonly groups: ModelCallGroup[];
  private lastCallAt: number | null;
  private readonly price: (profileId: string | null, model: string) => ModelPrice | null;

  constructor(
    private readonly sessionId: string,
    calls: SessionCalls,
    deps: Pick<TurnDeps, 'store'>,
  ) {
    this.groups = calls.groups.map((g) => ({ ...g }));
    this.lastCallAt = calls.lastCallAt;
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
    return costOf(this.sessionId, { groups: this.groups, prices: {}, lastCallAt: this.lastCallAt }, this.price);
  }
}

/**
 * Stores what the provider reported for one call and tells the renderers the session's totals.
 * Returns the call's row id (a compaction links its summary calls once its record exists).
 */
export function recordCall(
  deps: CostDeps,
  call: { sessionId: string; profile: ProviderProfile; model: string; kind: CallKind; usage: CallUsage },
): number {
  const row = deps.store.usage.record(newCall(deps, call));
  callRecorded(deps, row);
  return row.id;
}

/** The store's row of a call (usage.record, or turns.commit with a step). */
export function newCall(
  deps: Pick<TurnDeps, 'now'>,
  call: { sessionId: string; profile: ProviderProfile; model: string; kind: CallKind; usage: CallUsage },
) {
  return {
    sessionId: call.sessionId,
    profileId: call.profile.id,
    model: call.model,
    kind: call.kind,
    promptTokens: call.usage.promptTokens,
    cachedTokens: call.usage.cachedTokens,
    completionTokens: call.usage.completionTokens,
    createdAt: deps.now(),
  };
}

/** A call the store has just stored: added to the session's figures, and the cost event sent. */
export function callRecorded(deps: Pick<TurnDeps, 'store' | 'emit' | 'runtime'>, row: ModelCall): void {
  if (row.sessionId === null) return;
  deps.runtime(row.sessionId).cost?.add(row);
  emitCost(deps, row.sessionId);
}

export function emitCost(deps: Pick<TurnDeps, 'store' | 'emit' | 'runtime'>, sessionId: string): void {
  const rt = deps.runtime(sessionId);
  rt.cost ??= new CostLedger(sessionId, deps.store.usage.calls(sessionId), deps);
  deps.emit({ type: 'usage.recorded', sessionId, cost: rt.cost.cost() });
}

const DAY_MS = 86_400_000;

/** Totals per local day and model over the last `days` days (today included). */
export function dailyUsage(
  deps: Pick<TurnDeps, 'store' | 'now'>,
  tzOffsetMinutes: number,
  days: number,
): DailyUsageRow[] {
  const offset = tzOffsetMinutes * 60_000;
  const startOfToday = Math.floor((deps.now() + offset) / DAY_MS) * DAY_MS - offset;
  const since = startOfToday - (days - 1) * DAY_MS;
  const price = pricing(deps);
  const rows = new Map<string, DailyUsageRow>();
  for (const g of deps.store.usage.dailyGroups(since, tzOffsetMinutes)) {
    const key = `${g.day}\u0000${g.model}`;
    const prev = rows.get(key) ?? { ...EMPTY_USAGE_TOTALS, day: g.day, model: g.model };
    rows.set(key, { ...add(prev, g, price(g.profileId, g.model)), day: g.day, model: g.model });
  }
  return [...rows.values()];
}

/**
 * What sending the session's next request costs when the provider's cache has likely expired
 * (idle past the TTL): the whole prompt at the fresh input price. `promptTokens` is the meter's
 * figure (the view in the provider's tokens).
 */
export function resendEstimate(
  deps: Pick<TurnDeps, 'store' | 'now'>,
  sessionId: string,
  profile: ProviderProfile,
  settings: Settings,
  promptTokens: number,
): ResendEstimate {
  const last = deps.store.usage.lastCallAt(sessionId);
  const ttlMs = Math.round(settings.cache.ttlMinutes * 60_000);
  const idleMs = last === null ? null : Math.max(0, deps.now() - last);
  const expired = idleMs !== null && idleMs > ttlMs;
  const price = priceFor(profile.model, deps.store.usage.prices(profile.id));
  const tokens = { promptTokens, completionTokens: 0 };
  return {
    sessionId,
    idleMs,
    ttlMs,
    expired,
    promptTokens,
    cost: callCost({ ...tokens, cachedTokens: 0 }, price),
    cachedCost: callCost({ ...tokens, cachedTokens: promptTokens }, price),
    warn: expired && promptTokens >= settings.cache.warnAboveTokens,
  };
}
