import * as z from 'zod';
import { toolParameters } from './schema';
import type { TodoItem, ToolDefinition } from './types';

export const TODO_TOOL_NAME = 'manage_todo_list';

const TodoSchema = z.object({
  content: z.string().min(1).max(500),
  status: z.enum(['pending', 'in_progress', 'completed']),
});
const Args = z.object({ todos: z.array(TodoSchema).max(100).optional() });
type Args = z.infer<typeof Args>;

export function renderTodos(todos: TodoItem[]): string {
  if (todos.length === 0) return 'Todo list is empty.';
  const mark = { pending: '[ ]', in_progress: '[~]', completed: '[x]' } as const;
  return ['Todo list:', ...todos.map((t, i) => `${i + 1}. ${mark[t.status]} ${t.content}`)].join('\n');
}

/**
 * The session's task list. Its results are protected from compaction (the engine keeps them),
 * so the latest result is always the current list; no other state is kept.
 */
export const todoTool: ToolDefinition<Args> = {
  name: TODO_TOOL_NAME,
  description:
    'Read or replace the task list of this session. Pass todos to replace the whole list; omit it to read the current list.',
  parameters: toolParameters(Args),
  readOnly: true,
  args: Args,
  run: async (args, ctx) => {
    const todos = args.todos ?? ctx.latestTodos() ?? [];
    return { ok: true, content: renderTodos(todos), meta: { todos } };
  },
};
