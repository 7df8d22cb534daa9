import * as z from 'zod';
import { MODELS_LISTED_MAX, ProviderProfileSchema, ProviderUpsertSchema } from '../providers';
import { id, noInput, type RouteMap } from './define';

export const ProviderTestResultSchema = z.object({
  ok: z.boolean(),
  message: z.string(),
  latencyMs: z.number().nullable(),
  /** What to fix, beside which field (`missing_key`, `auth`: the key; `unreachable`: the address; `unknown_model`: the model). */
  problem: z.enum(['missing_key', 'auth', 'unreachable', 'unknown_model', 'other']).optional(),
  /** With `unknown_model`: some of the models the server does offer (at most 20). */
  offered: z.array(z.string()).max(20).optional(),
  /** Every model the server listed, sorted (at most MODELS_LISTED_MAX): the form offers them to pick. */
  models: z.array(z.string()).max(MODELS_LISTED_MAX).optional(),
});
export type ProviderTestResult = z.infer<typeof ProviderTestResultSchema>;

/** Provider profiles (the key never leaves the store: `hasKey` only). */
export const providerRoutes = {
  'providers.list': { input: noInput(), output: z.array(ProviderProfileSchema) },
  'providers.upsert': { input: ProviderUpsertSchema, output: ProviderProfileSchema },
  'providers.setActive': { input: z.object({ id }), output: ProviderProfileSchema },
  /**
   * The models the provider lists (`GET /v1/models`), cached per profile until `refresh`;
   * `error` when the provider could not be asked (the list is then empty: a typed model still works).
   */
  'providers.models': {
    input: z.object({ id, refresh: z.boolean().optional() }),
    output: z.object({ models: z.array(z.string()), error: z.string().nullable() }),
  },
  /** Deletes a profile and its key; the sessions that used it go back to the active profile. */
  'providers.delete': {
    input: z.object({ id }),
    output: z.object({ deleted: z.literal(true), sessions: z.number().int().nonnegative() }),
  },
  /**
   * Reads again the window the local server runs the profile's model with (it is read on every
   * save too), and when the profile's window is larger than Ollama's num_ctx has Ollama run it with
   * that one. The profile, with `serverWindow` (null: the server said nothing).
   */
  'providers.readWindow': { input: z.object({ id }), output: ProviderProfileSchema },
  /** A saved profile by id, or the form's unsaved draft (its key, or the stored one of `draft.id`). */
  'providers.test': {
    input: z.union([z.object({ id }), z.object({ draft: ProviderUpsertSchema })]),
    output: ProviderTestResultSchema,
  },
} satisfies RouteMap;
