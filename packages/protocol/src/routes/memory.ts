import * as z from 'zod';
import { FactCategorySchema, FactStatusSchema, MemoryCandidateSchema, MemoryFactSchema } from '../memory';
import { id, sessionRef, type RouteMap } from './define';

/** CFPM session memory: facts and the candidates a refresh weighed. */
export const memoryRoutes = {
  // The active branch's facts (plus user-made and pinned); allBranches: every fact of the session.
  'memory.facts.list': {
    input: sessionRef.extend({ allBranches: z.boolean().optional() }),
    output: z.array(MemoryFactSchema),
  },
  'memory.facts.upsert': {
    input: z.object({
      sessionId: id,
      id: id.optional(),
      category: FactCategorySchema,
      content: z.string().trim().min(1).max(2000),
      pinned: z.boolean().optional(),
    }),
    output: MemoryFactSchema,
  },
  'memory.facts.setStatus': {
    input: z.object({ id, status: FactStatusSchema, pinned: z.boolean().optional() }),
    output: MemoryFactSchema,
  },
  'memory.candidates.list': { input: sessionRef, output: z.array(MemoryCandidateSchema) },
} satisfies RouteMap;
