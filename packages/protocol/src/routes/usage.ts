import * as z from 'zod';
import {
  DailyUsageRowSchema,
  ModelPriceSchema,
  PriceEntrySchema,
  ResendEstimateSchema,
  SessionCostSchema,
} from '../usage';
import { id, sessionRef, type RouteMap } from './define';

/** Tokens and cost of model calls (issue 24): per session, per day and model, prices per profile. */
export const usageRoutes = {
  'usage.session': { input: sessionRef, output: SessionCostSchema },
  'usage.daily': {
    input: z.object({
      /** Minutes to add to UTC for the caller's local day (e.g. 480 for UTC+8). */
      tzOffsetMinutes: z.number().int().min(-840).max(840).default(0),
      days: z.number().int().min(1).max(366).default(30),
    }),
    output: z.object({ rows: z.array(DailyUsageRowSchema) }),
  },
  'usage.prices.list': { input: z.object({ profileId: id }), output: z.array(PriceEntrySchema) },
  /** A profile's own price for a model; null goes back to the shipped default (or unknown). */
  'usage.prices.set': {
    input: z.object({ profileId: id, model: z.string().trim().min(1).max(200), price: ModelPriceSchema.nullable() }),
    output: z.array(PriceEntrySchema),
  },
  'usage.resendEstimate': { input: sessionRef, output: ResendEstimateSchema },
} satisfies RouteMap;
