import * as z from 'zod';
import { CompactionPreviewSchema, CompactionRecordSchema, ContextUsageSchema } from '../compaction';
import { CHAT_TEXT_MAX } from './chat';
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
  /**
   * What a draft would weigh if sent now, in the meter's units (the provider's tokens): `tokens`
   * the draft as a user message, `total` the meter's total with it, `percent` of the window. The
   * composer asks before sending a long draft, to say first when it would be over the window.
   */
  'context.measureDraft': {
    input: z.object({ sessionId: id, text: z.string().max(CHAT_TEXT_MAX) }),
    output: z.object({
      tokens: z.number().int().nonnegative(),
      total: z.number().int().nonnegative(),
      window: z.number().int(),
      percent: z.number(),
    }),
  },
  /**
   * A message over the model's window on its own (the message_too_large notice): `cut` gives the
   * model its head and tail (the whole text stays readable with read_tool_output), `remove` leaves
   * it out of what the model reads. Either is a compaction the user can undo.
   */
  'compaction.fitMessage': {
    input: z.object({ sessionId: id, messageId: id, action: z.enum(['cut', 'remove']) }),
    output: z.object({ compaction: CompactionRecordSchema }),
  },
} satisfies RouteMap;
