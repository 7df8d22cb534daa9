import * as z from 'zod';

/** One route: what it takes (validated before the runtime sees it) and what it answers. */
export interface RouteDef {
  input: z.ZodType;
  output: z.ZodType;
}
export type RouteMap = Record<string, RouteDef>;

export const id = z.string().min(1).max(200);
export const sessionRef = z.object({ sessionId: id });
/** Routes that take nothing accept `{}` or no body at all. */
export const noInput = () => z.object({}).default({});
