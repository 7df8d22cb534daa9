import * as z from 'zod';
import { HeldFileSchema, HeldKeepFailureSchema } from '../held';
import { id, sessionRef, type RouteMap } from './define';

/** Files a sandboxed command left that make code run later, held for the user (issue 34). */
export const heldRoutes = {
  /** The session's held files, oldest first (what the card lists). */
  'held.list': { input: sessionRef, output: z.object({ files: z.array(HeldFileSchema) }) },
  /**
   * Keep (put each back where it was) or discard (delete) the session's held files, all of them
   * or those of `ids`. One that cannot be put back stays held and is named in `failed`.
   */
  'held.resolve': {
    input: z.object({
      sessionId: id,
      decision: z.enum(['keep', 'discard']),
      ids: z.array(id).max(10_000).optional(),
    }),
    output: z.object({
      done: z.array(HeldFileSchema),
      failed: z.array(HeldKeepFailureSchema),
      files: z.array(HeldFileSchema),
    }),
  },
} satisfies RouteMap;
