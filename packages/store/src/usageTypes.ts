// The model calls and prices part of @threadline/store's surface;
// types.ts re-exports it with the rest.
import type { CallKind, ModelPrice } from '@threadline/protocol';

export interface NewModelCall {
  sessionId: string | null;
  profileId: string | null;
  model: string;
  kind: CallKind;
  compactionId?: string | null;
  promptTokens: number;
  cachedTokens: number;
  completionTokens: number;
  /** When it was answered (ms); default the store's clock. */
  createdAt?: number;
}

/** Calls summed by what their price and place depend on. */
export interface ModelCallGroup {
  profileId: string | null;
  model: string;
  kind: CallKind;
  compactionId: string | null;
  calls: number;
  promptTokens: number;
  cachedTokens: number;
  completionTokens: number;
}

/** One stored call, as the store keeps it (token counts rounded, cached never above prompt). */
export interface ModelCall extends Required<Omit<NewModelCall, 'compactionId'>> {
  id: number;
  compactionId: string | null;
}

/** A session's model calls as its cost needs them (UsageRepo.calls). */
export interface SessionCalls {
  /** As sessionGroups lists them (in the order each group's first call was stored). */
  groups: ModelCallGroup[];
  /** Each profile's own prices by model, by profile id. */
  prices: Record<string, Record<string, ModelPrice>>;
  lastCallAt: number | null;
  /**
   * The session's helpers (the delegate tool), whose calls are their own sessions': how many,
   * their calls grouped alike (not in `groups`), their reports' tokens. Absent when it had none.
   */
  helpers?: { count: number; returnedTokens: number; groups: ModelCallGroup[] };
}

export interface UsageRepo {
  /** Stores one call (created_at default the store's clock): the row as stored. */
  record(call: NewModelCall): ModelCall;
  /** The summary calls of a compaction, once its record exists. */
  linkCompaction(callIds: readonly number[], compactionId: string): void;
  /** A session's calls, grouped by profile, model, kind and compaction. */
  sessionGroups(sessionId: string): ModelCallGroup[];
  /** When the session's last conversation or summary call was stored (ms; titles not), null before any. */
  lastCallAt(sessionId: string): number | null;
  /** What a session's cost is worked out from, in one read: its groups, the own prices of every profile they name, and lastCallAt. */
  calls(sessionId: string): SessionCalls;
  /** Calls since `sinceMs`, grouped by local day (UTC + tzOffsetMinutes), profile and model. */
  dailyGroups(
    sinceMs: number,
    tzOffsetMinutes: number,
  ): (Omit<ModelCallGroup, 'kind' | 'compactionId'> & { day: string })[];
  /** A profile's own prices by model. */
  prices(profileId: string): Record<string, ModelPrice>;
  /** Sets (or with null removes) a profile's own price of a model. */
  setPrice(profileId: string, model: string, price: ModelPrice | null): void;
}
