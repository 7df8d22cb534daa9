import * as z from 'zod';
import { toolParameters } from './schema';
import type { ToolDefinition } from './types';

const DEFAULT_LIMIT = 20_000;

const Args = z.object({
  id: z.string().min(1).describe('Tool call id of the earlier result, or an attachment id.'),
  offset: z.number().int().nonnegative().optional().describe('Character offset to start at (default 0).'),
  limit: z
    .number()
    .int()
    .positive()
    .max(200_000)
    .optional()
    .describe('Number of characters to return (default 20000).'),
});
type Args = z.infer<typeof Args>;

/** Pages through the full output kept beside a truncated tool result. */
export const readToolOutputTool: ToolDefinition<Args> = {
  name: 'read_tool_output',
  description:
    'Read the full output of an earlier, truncated tool result, or the whole text of an attached file. id is the tool call id (or message id, or the attachment id its marker names); offset and limit are in characters (default limit 20000).',
  parameters: toolParameters(Args),
  readOnly: true,
  args: Args,
  run: async (args, ctx) => {
    const full = ctx.lookupToolOutput(args.id);
    if (full === null) return { ok: false, content: `no stored tool output with id ${args.id}` };
    const offset = Math.min(args.offset ?? 0, full.length);
    const limit = args.limit ?? DEFAULT_LIMIT;
    // Never cut a surrogate pair in half at either end of the page.
    let start = offset;
    if (start > 0 && isLowSurrogate(full.charCodeAt(start))) start -= 1;
    let end = Math.min(full.length, start + limit);
    if (end < full.length && isLowSurrogate(full.charCodeAt(end))) end -= 1;
    const page = full.slice(start, end);
    const footer =
      end < full.length
        ? `\n[chars ${start}-${end} of ${full.length}; call again with offset ${end} for more]`
        : `\n[chars ${start}-${end} of ${full.length}; end of output]`;
    return { ok: true, content: page + footer, meta: { total: full.length, start, end } };
  },
};

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
