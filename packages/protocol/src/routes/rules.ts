import * as z from 'zod';
import { RuleDraftSchema, RuleSchema } from '../rules';
import { id, type RouteMap } from './define';

/** Permission rules (docs/api.md "Rules"): stored by the app, applied by the runtime's one decision. */
export const rulesRoutes = {
  /** Every rule; with `sessionId`, the rules in force for that session (its own, its folder's, everywhere). */
  'rules.list': { input: z.object({ sessionId: id.optional() }).default({}), output: z.array(RuleSchema) },
  /** Adds a rule (no `id`) or changes one; answers it as stored. */
  'rules.save': { input: RuleDraftSchema, output: RuleSchema },
  /** Revokes a rule: from the next tool call on it decides nothing. */
  'rules.remove': { input: z.object({ id }), output: z.object({ removed: z.boolean() }) },
} satisfies RouteMap;
