import * as z from 'zod';
import { HelperSummarySchema } from '../helpers';
import { sessionRef, type RouteMap } from './define';

/** Helpers (the delegate tool): a session's helpers, as their rows show them. */
export const helperRoutes = {
  /** Every helper a session's delegate calls started, oldest first (live ones as they are now). */
  'helpers.list': { input: sessionRef, output: z.array(HelperSummarySchema) },
} satisfies RouteMap;
