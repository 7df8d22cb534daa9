import { countMessageTokensAsync } from '@threadline/context';
import { AppError, type AppApi } from '@threadline/protocol';
import { compactOnRequest } from '../turn/manualCompaction';
import { planCompaction } from '../turn/compaction';
import { fitMessage } from '../turn/fitMessage';
import { persistCompactionNotice } from '../turn/notices';
import { tokenBudget } from '../turn/budget';
import { computeUsage } from '../turn/usage';
import { buildSessionView } from '../turn/view';
import { refreshUsage } from '../turn/modelCall';
import { requireSession, sessionWork, type ApiContext } from './apiContext';
import { runSessionWork } from './runSessionWork';

type CompactionRoutes = Pick<
  AppApi,
  | 'compaction.run'
  | 'compaction.preview'
  | 'compaction.undo'
  | 'compaction.list'
  | 'context.usage'
  | 'context.measureDraft'
  | 'compaction.fitMessage'
>;

export function compactionRoutes(ctx: ApiContext): CompactionRoutes {
  const { store } = ctx.deps;
  const notBusy = (sessionId: string): void => {
    if (ctx.sessions.get(sessionId).busy)
      throw new AppError('busy', 'A turn is running in this session; compact after it ends.');
  };
  return {
    'compaction.run': async ({ sessionId, instructions }) => {
      requireSession(ctx, sessionId);
      notBusy(sessionId);
      // Like a turn: chat.cancel aborts it, sessions.delete and dispose wait for it, and every
      // renderer sees the session busy while the summary runs.
      const outcome = await runSessionWork(ctx, sessionId, async (signal) => {
        const work = sessionWork(ctx, sessionId, signal);
        try {
          return await compactOnRequest(work, instructions?.trim() || null);
        } finally {
          try {
            refreshUsage(work);
          } catch {
            // The session may have been deleted meanwhile.
          }
        }
      });
      return { ok: outcome.ok, compaction: outcome.record, reason: outcome.reason };
    },
    'compaction.preview': async ({ sessionId }) => {
      requireSession(ctx, sessionId);
      // A dry run: no model call (the engine stands in for the summary) and no history writes.
      const work = sessionWork(ctx, sessionId, new AbortController().signal);
      const plan = await planCompaction(work, {
        trigger: 'manual',
        instructions: null,
        targetTokens: null,
        dryRun: true,
      });
      return {
        strategy: work.settings.compaction.strategy,
        ok: plan.ok && plan.tokensAfter < plan.tokensBefore,
        reason: plan.ok && plan.tokensAfter >= plan.tokensBefore ? 'did_not_reduce' : plan.reason,
        hiddenIds: plan.hiddenIds,
        inserted: plan.inserted.map((m) => ({ kind: m.kind, content: m.content ?? '' })),
        tokensBefore: plan.tokensBefore,
        tokensAfter: plan.tokensAfter,
        steps: plan.steps,
      };
    },
    'compaction.undo': async ({ sessionId }) => {
      requireSession(ctx, sessionId);
      notBusy(sessionId);
      const undone = ctx.deps.sessions.undoCompaction(sessionId);
      const work = sessionWork(ctx, sessionId, new AbortController().signal);
      if (undone) {
        persistCompactionNotice(ctx.deps, sessionId, {
          type: 'undone',
          trigger: undone.trigger,
          strategy: undone.strategy,
          compactionId: undone.id,
          tokensBefore: undone.tokensAfter,
          tokensAfter: undone.tokensBefore,
        });
        ctx.deps.emit({ type: 'compaction.undone', sessionId, compaction: undone });
        refreshUsage(work);
      }
      return { undone };
    },
    'compaction.list': async ({ sessionId }) => {
      requireSession(ctx, sessionId);
      return store.compactions.list(sessionId);
    },
    'compaction.fitMessage': async ({ sessionId, messageId, action }) => {
      requireSession(ctx, sessionId);
      notBusy(sessionId);
      // The session is busy while the message is counted and cut in slices: no turn starts meanwhile.
      const compaction = await runSessionWork(ctx, sessionId, async (signal) => {
        const work = sessionWork(ctx, sessionId, signal);
        const record = await fitMessage(work, messageId, action);
        refreshUsage(work);
        return record;
      });
      return { compaction };
    },
    'context.usage': async ({ sessionId }) => {
      requireSession(ctx, sessionId);
      // The system prompt says how commands run: the same sentence a turn will send.
      await ctx.deps.sandbox?.info();
      const work = sessionWork(ctx, sessionId, new AbortController().signal);
      return computeUsage(work, buildSessionView(work));
    },
    'context.measureDraft': async ({ sessionId, text }) => {
      requireSession(ctx, sessionId);
      await ctx.deps.sandbox?.info();
      const work = sessionWork(ctx, sessionId, new AbortController().signal);
      const budget = tokenBudget(work.deps, sessionId, work.profile);
      const sv = buildSessionView(work);
      const usage = computeUsage(work, sv, budget);
      // Counted like the message it would become (a long paste on the work pool, not here), and
      // added to the view the way the meter counts it (turn/budget.ts).
      const own = await countMessageTokensAsync({ role: 'user', content: text }, work.profile.model);
      const total = budget.providerTokens(sv.view.tokens + own);
      const tokens = Math.max(0, total - usage.total);
      const percent = usage.window > 0 ? Math.round((total / usage.window) * 1000) / 10 : 0;
      return { tokens, total, window: usage.window, percent };
    },
  };
}
