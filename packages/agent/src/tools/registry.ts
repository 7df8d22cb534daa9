import type { ToolCall } from '@threadline/protocol';
import { editFileTool } from './edit';
import { readFileTool, listDirTool, writeFileTool } from './files';
import { readToolOutputTool } from './readToolOutput';
import { globTool, grepTool } from './search';
import { shellTool } from './shell';
import { todoTool } from './todo';
import type { ToolContext, ToolDefinition, ToolResult, ToolSpec } from './types';

// Each definition is typed over its own args; the registry only passes parsed args back to it.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyTool = ToolDefinition<any>;

export const BUILTIN_TOOLS: readonly AnyTool[] = [
  shellTool,
  readFileTool,
  writeFileTool,
  editFileTool,
  listDirTool,
  grepTool,
  globTool,
  readToolOutputTool,
  todoTool,
];

export class ToolRegistry {
  private readonly byName: Map<string, AnyTool>;

  constructor(tools: readonly AnyTool[] = BUILTIN_TOOLS) {
    this.byName = new Map(tools.map((t) => [t.name, t]));
  }

  list(): AnyTool[] {
    return [...this.byName.values()];
  }

  get(name: string): AnyTool | undefined {
    return this.byName.get(name);
  }

  /** The `tools` array sent with every model call. */
  specs(): ToolSpec[] {
    return [...this.byName.values()].map((t) => ({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: t.parameters },
    }));
  }
}

export type ParsedCall = { ok: true; tool: AnyTool; args: unknown } | { ok: false; error: string };

/**
 * Malformed JSON, an unknown tool or arguments of the wrong shape become an error the model can
 * read and correct, never an exception in the turn.
 */
export function parseToolCall(registry: ToolRegistry, call: ToolCall): ParsedCall {
  const tool = registry.get(call.function.name);
  if (!tool) {
    return {
      ok: false,
      error: `Error: unknown tool "${call.function.name}". Available tools: ${registry
        .specs()
        .map((s) => s.function.name)
        .join(', ')}.`,
    };
  }
  let raw: unknown;
  try {
    raw = call.function.arguments.trim() === '' ? {} : JSON.parse(call.function.arguments);
  } catch (err) {
    return {
      ok: false,
      error: `Error: the arguments of ${tool.name} are not valid JSON (${(err as Error).message}). Send a JSON object matching the tool's schema.`,
    };
  }
  const parsed = tool.args.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    return { ok: false, error: `Error: invalid arguments for ${tool.name}: ${issues}` };
  }
  return { ok: true, tool, args: parsed.data };
}

/** Runs a parsed call; a thrown error becomes an error result. */
export async function runParsedTool(tool: AnyTool, args: unknown, ctx: ToolContext): Promise<ToolResult> {
  try {
    return await tool.run(args, ctx);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    return {
      ok: false,
      content: `Error: ${tool.name} failed: ${e.code ? `${e.code}: ` : ''}${e.message ?? String(err)}`,
    };
  }
}
