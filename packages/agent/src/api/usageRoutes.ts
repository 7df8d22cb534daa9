import { DEFAULT_MODEL_PRICES, type AppApi, type PriceEntry } from '@threadline/protocol';
import { requireSession, sessionWork, type ApiContext } from './apiContext';
import { notFound } from './errors';
import { dailyUsage, resendEstimate, sessionCost } from '../turn/cost';
import { computeUsage } from '../turn/usage';
import { buildSessionView } from '../turn/view';

type UsageRoutes = Pick<
  AppApi,
  'usage.session' | 'usage.daily' | 'usage.prices.list' | 'usage.prices.set' | 'usage.resendEstimate'
>;

/** Tokens and cost of model calls (turn/cost.ts), and each profile's prices. */
export function usageRoutes(ctx: ApiContext): UsageRoutes {
  const { store } = ctx.deps;
  const prices = (profileId: string): PriceEntry[] => {
    if (!store.providers.get(profileId)) throw notFound('provider profile', profileId);
    const own = store.usage.prices(profileId);
    const out: PriceEntry[] = Object.entries(own).map(([model, price]) => ({ model, price, source: 'profile' }));
    for (const [model, price] of Object.entries(DEFAULT_MODEL_PRICES))
      if (!own[model]) out.push({ model, price, source: 'default' });
    return out;
  };
  return {
    'usage.session': async ({ sessionId }) => {
      requireSession(ctx, sessionId);
      return sessionCost(ctx.deps, sessionId);
    },
    'usage.daily': async ({ tzOffsetMinutes, days }) => ({ rows: dailyUsage(ctx.deps, tzOffsetMinutes, days) }),
    'usage.prices.list': async ({ profileId }) => prices(profileId),
    'usage.prices.set': async ({ profileId, model, price }) => {
      if (!store.providers.get(profileId)) throw notFound('provider profile', profileId);
      store.usage.setPrice(profileId, model, price);
      ctx.sessions.pricesChanged();
      return prices(profileId);
    },
    'usage.resendEstimate': async ({ sessionId }) => {
      requireSession(ctx, sessionId);
      const work = sessionWork(ctx, sessionId, new AbortController().signal);
      const sv = buildSessionView(work);
      const { total } = computeUsage(work, sv);
      return resendEstimate(ctx.deps, sessionId, work.profile, work.settings, total);
    },
  };
}
