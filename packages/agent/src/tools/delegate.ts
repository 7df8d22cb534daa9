import * as z from 'zod';
import { HELPER_TASKS_MAX } from '@threadline/protocol';
import { toolParameters } from './schema';
import type { DelegateRequest, ToolDefinition } from './types';

export const DELEGATE_TOOL_NAME = 'delegate';

const TaskSchema = z.object({
  task: z
    .string()
    .trim()
    .min(1)
    .max(20_000)
    .describe('What to find or do, where, and what to report (the helper does not see this conversation).'),
  role: z
    .string()
    .trim()
    .min(1)
    .max(40)
    .optional()
    .describe('explore (default): reads, changes nothing. work: your tools. Or a role the system prompt lists.'),
  tools: z.array(z.string().trim().min(1).max(200)).max(50).optional().describe("Only these of the role's tools."),
  model: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .describe('A model the system prompt names (default: the role’s, else yours).'),
});

const DelegateArgs = z.object({
  tasks: z.array(TaskSchema).min(1).max(HELPER_TASKS_MAX),
}) satisfies z.ZodType<DelegateRequest>;
type DelegateArgs = z.infer<typeof DelegateArgs>;

/**
 * Hands tasks to helpers, each with a context of its own (helpers/runHelpers.ts); returns their
 * reports once every one has ended. The turn gives the tool its way to run them
 * (`ToolContext.delegate`); a helper has none (depth 1). It changes nothing itself: each helper's
 * own calls are checked and approved like the parent's, so the call runs without asking.
 */
export const delegateTool: ToolDefinition<DelegateArgs> = {
  name: DELEGATE_TOOL_NAME,
  description: [
    `Run 1–${HELPER_TASKS_MAX} tasks in helpers, each with a fresh context, and get their reports once all have ended.`,
    'Use it for exploration that would fill your context, and for independent pieces of work.',
    'A helper sees only its task, the project instructions and the session memory: give each task all it needs.',
  ].join(' '),
  parameters: toolParameters(DelegateArgs),
  readOnly: true,
  args: DelegateArgs,
  run: async (args, ctx) =>
    ctx.delegate
      ? ctx.delegate(args)
      : { ok: false, content: 'Error: a helper cannot start helpers of its own (delegate works one level deep).' },
};
