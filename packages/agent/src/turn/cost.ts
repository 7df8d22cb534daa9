import {
  EMPTY_USAGE_TOTALS,
  callCost,
  priceFor,
  type CallKind,
  type DailyUsageRow,
  type ProviderProfile,
  type ResendEstimate,
  type SessionCost,
  type Settings,
} from '@threadline/protocol';
import type { ModelCall } from '@threadline/store';
import type { CallUsage } from '../provider/types';
import { add, CostLedger, costOf, pricing } from '../session/costLedger';
import type { TurnDeps } from './deps';

type CostDeps = Pick<TurnDeps, 'store' | 'emit' | 'now' | 'sessionState'>;

/** A session's cost as the store has it now (the usage.session route). */
export function sessionCost(deps: Pick<TurnDeps, 'store'>, sessionId: string): SessionCost {
  const calls = deps.store.usage.calls(sessionId);
  return costOf(sessionId, calls, pricing(deps, calls.prices));
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
export function callRecorded(deps: Pick<TurnDeps, 'store' | 'emit' | 'sessionState'>, row: ModelCall): void {
  if (row.sessionId === null) return;
  deps.sessionState(row.sessionId).callRecorded((ledger) => ledger.add(row));
  emitCost(deps, row.sessionId);
}

export function emitCost(deps: Pick<TurnDeps, 'store' | 'emit' | 'sessionState'>, sessionId: string): void {
  const rt = deps.sessionState(sessionId);
  const ledger = rt.costLedger(() => new CostLedger(sessionId, deps.store.usage.calls(sessionId), deps));
  deps.emit({ type: 'usage.recorded', sessionId, cost: ledger.cost() });
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
