import type { AppApi } from '@threadline/protocol';
import { helperSummaries } from '../helpers/summaries';
import { requireSession, type ApiContext } from './apiContext';

type HelperRoutes = Pick<AppApi, 'helpers.list'>;

/** A session's helpers (the delegate tool), for their rows in its chat. */
export function helperRoutes(ctx: ApiContext): HelperRoutes {
  return {
    'helpers.list': async ({ sessionId }) => {
      requireSession(ctx, sessionId);
      return helperSummaries(ctx.deps, sessionId);
    },
  };
}
