import * as z from 'zod';
import { CallKindSchema, ModelPriceSchema, type CallKind, type ModelPrice } from '@threadline/protocol';
import type { ModelCall, ModelCallGroup, UsageRepo } from '../types';
import { parseInput, type RepoContext } from './context';

interface GroupRow {
  profile_id: string | null;
  model: string;
  kind: CallKind;
  compaction_id: string | null;
  calls: number;
  prompt: number;
  cached: number;
  completion: number;
}

const toGroup = (r: GroupRow): ModelCallGroup => ({
  profileId: r.profile_id,
  model: r.model,
  kind: r.kind,
  compactionId: r.compaction_id,
  calls: r.calls,
  promptTokens: r.prompt,
  cachedTokens: r.cached,
  completionTokens: r.completion,
});

const count = (n: number): number => (Number.isFinite(n) && n > 0 ? Math.round(n) : 0);

const NewModelCallSchema = z.object({
  sessionId: z.string().min(1).nullable(),
  profileId: z.string().min(1).nullable(),
  model: z.string(),
  kind: CallKindSchema,
  compactionId: z.string().min(1).nullable().optional(),
  promptTokens: z.number(),
  cachedTokens: z.number(),
  completionTokens: z.number(),
  createdAt: z.number().int().optional(),
});

/** The tokens of every model call and each profile's own prices (migration 17). */
export function createUsageRepo(ctx: RepoContext): UsageRepo {
  const { db } = ctx;
  const insert = db.prepare(
    `INSERT INTO model_calls (session_id, profile_id, model, kind, compaction_id, prompt_tokens, cached_tokens,
       completion_tokens, created_at)
     VALUES (@session_id, @profile_id, @model, @kind, @compaction_id, @prompt, @cached, @completion, @created_at)`,
  );
  const link = db.prepare<[string, number]>('UPDATE model_calls SET compaction_id = ? WHERE id = ?');
  const sums = `COUNT(*) AS calls, SUM(prompt_tokens) AS prompt, SUM(cached_tokens) AS cached,
    SUM(completion_tokens) AS completion`;
  const bySession = db.prepare<[string], GroupRow>(
    `SELECT profile_id, model, kind, compaction_id, ${sums} FROM model_calls WHERE session_id = ?
     GROUP BY profile_id, model, kind, compaction_id ORDER BY MIN(id)`,
  );
  // The calls of the session's helpers (each a session of its own, under this one).
  const byHelpers = db.prepare<[string], GroupRow>(
    `SELECT profile_id, model, kind, compaction_id, ${sums} FROM model_calls
     WHERE session_id IN (SELECT session_id FROM helpers WHERE parent_session_id = ?)
     GROUP BY profile_id, model, kind, compaction_id ORDER BY MIN(id)`,
  );
  const helperCount = db.prepare<[string], { n: number; returned: number }>(
    'SELECT COUNT(*) AS n, COALESCE(SUM(returned_tokens), 0) AS returned FROM helpers WHERE parent_session_id = ?',
  );
  const last = db.prepare<[string], { at: number | null }>(
    // A title request shares no prefix with the conversation: it keeps no cache warm.
    "SELECT MAX(created_at) AS at FROM model_calls WHERE session_id = ? AND kind != 'title'",
  );
  const daily = db.prepare<[number, number], Omit<GroupRow, 'kind' | 'compaction_id'> & { day: string }>(
    `SELECT date((created_at + ?) / 1000, 'unixepoch') AS day, profile_id, model, ${sums}
     FROM model_calls WHERE created_at >= ?
     GROUP BY day, profile_id, model ORDER BY day DESC, model`,
  );
  const pricesOf = db.prepare<[string], { model: string; input: number; cached_input: number; output: number }>(
    'SELECT model, input, cached_input, output FROM model_prices WHERE profile_id = ? ORDER BY model',
  );
  const upsertPrice = db.prepare(
    `INSERT INTO model_prices (profile_id, model, input, cached_input, output)
     VALUES (@profile_id, @model, @input, @cached_input, @output)
     ON CONFLICT (profile_id, model) DO UPDATE SET input = excluded.input, cached_input = excluded.cached_input,
       output = excluded.output`,
  );
  const removePrice = db.prepare<[string, string]>('DELETE FROM model_prices WHERE profile_id = ? AND model = ?');
  const sessionGroups = (sessionId: string): ModelCallGroup[] => bySession.all(sessionId).map(toGroup);
  const lastCallAt = (sessionId: string): number | null => last.get(sessionId)?.at ?? null;
  const profilePrices = (profileId: string): Record<string, ModelPrice> => {
    const out: Record<string, ModelPrice> = {};
    for (const r of pricesOf.all(profileId))
      out[r.model] = { input: r.input, cachedInput: r.cached_input, output: r.output };
    return out;
  };
  return {
    record(input) {
      const call = parseInput(NewModelCallSchema, input, 'model call');
      const promptTokens = count(call.promptTokens);
      const row = {
        sessionId: call.sessionId,
        profileId: call.profileId,
        model: call.model,
        kind: call.kind,
        compactionId: call.compactionId ?? null,
        promptTokens,
        // A provider never reads more from its cache than it was sent.
        cachedTokens: Math.min(promptTokens, count(call.cachedTokens)),
        completionTokens: count(call.completionTokens),
        createdAt: call.createdAt ?? ctx.now(),
      };
      const info = insert.run({
        session_id: row.sessionId,
        profile_id: row.profileId,
        model: row.model,
        kind: row.kind,
        compaction_id: row.compactionId,
        prompt: row.promptTokens,
        cached: row.cachedTokens,
        completion: row.completionTokens,
        created_at: row.createdAt,
      });
      return { id: Number(info.lastInsertRowid), ...row } satisfies ModelCall;
    },
    linkCompaction(callIds, compactionId) {
      db.transaction(() => {
        for (const id of callIds) link.run(compactionId, id);
      })();
    },
    sessionGroups,
    calls(sessionId) {
      const groups = sessionGroups(sessionId);
      const helpers = helperCount.get(sessionId);
      const helperGroups = helpers && helpers.n > 0 ? byHelpers.all(sessionId).map(toGroup) : [];
      const prices: Record<string, Record<string, ModelPrice>> = {};
      for (const id of [...groups, ...helperGroups].map((g) => g.profileId))
        if (id !== null && !prices[id]) prices[id] = profilePrices(id);
      return {
        groups,
        prices,
        lastCallAt: lastCallAt(sessionId),
        ...(helpers && helpers.n > 0
          ? { helpers: { count: helpers.n, returnedTokens: helpers.returned, groups: helperGroups } }
          : {}),
      };
    },
    lastCallAt,
    dailyGroups(sinceMs, tzOffsetMinutes) {
      const offset = Math.round(tzOffsetMinutes) * 60_000;
      return daily.all(offset, sinceMs).map((r) => ({
        day: r.day,
        profileId: r.profile_id,
        model: r.model,
        calls: r.calls,
        promptTokens: r.prompt,
        cachedTokens: r.cached,
        completionTokens: r.completion,
      }));
    },
    prices: profilePrices,
    setPrice(profileId, model, price) {
      if (price === null) return void removePrice.run(profileId, model);
      const p = parseInput(ModelPriceSchema, price, 'price');
      upsertPrice.run({ profile_id: profileId, model, input: p.input, cached_input: p.cachedInput, output: p.output });
    },
  };
}
