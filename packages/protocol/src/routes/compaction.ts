import { z } from 'zod';
import { CompactionPreviewSchema, CompactionRecordSchema, ContextUsageSchema } from '../compaction';
import { id, sessionRef, type RouteMap } from './define';

/** Compaction and the context meter. */
export const compactionRoutes = {
  'compaction.run': {
    input: z.object({ sessionId: id, instructions: z.string().max(4000).optional() }),
    output: z.object({ ok: z.boolean(), compaction: CompactionRecordSchema.nullable(), reason: z.string().nullable() }),
  },
  'compaction.preview': { input: sessionRef, output: CompactionPreviewSchema },
  'compaction.undo': { input: sessionRef, output: z.object({ undone: CompactionRecordSchema.nullable() }) },
  'compaction.list': { input: sessionRef, output: z.array(CompactionRecordSchema) },
  'context.usage': { input: sessionRef, output: ContextUsageSchema },
} satisfies RouteMap;
