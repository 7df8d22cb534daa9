import * as z from 'zod';
import type { ZodMiniType } from 'zod/mini';

/**
 * One route: what it takes (validated before the runtime sees it) and what it answers. A schema
 * of zod's full API or of zod/mini (messages.ts, attachments.ts): both parse alike.
 */
export interface RouteDef {
  input: z.ZodType | ZodMiniType;
  output: z.ZodType | ZodMiniType;
}
export type RouteMap = Record<string, RouteDef>;

export const id = z.string().min(1).max(200);
export const sessionRef = z.object({ sessionId: id });
/** Routes that take nothing accept `{}` or no body at all. */
export const noInput = () => z.object({}).default({});
