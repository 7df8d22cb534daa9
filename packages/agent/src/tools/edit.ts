import path from 'node:path';
import * as z from 'zod';
import { NotARegularFileError, readRegularFile, writeRegularFile } from '../workspace/fileAccess';
import { fileDiff } from './diff';
import { toolParameters } from './schema';
import type { ToolContext, ToolDefinition, ToolResult } from './types';

/** edit_file works on text files up to this size; bigger ones are for the shell. */
export const EDIT_MAX_BYTES = 4 * 1024 * 1024;

const EditArgs = z.object({
  path: z.string().min(1).describe('File path, absolute or relative to the working directory.'),
  old_string: z
    .string()
    .min(1)
    .describe(
      'The exact text to replace, as it is in the file (whitespace and indentation included; without the line-number prefix read_file shows).',
    ),
  new_string: z.string().describe('The text to put in its place.'),
  replace_all: z
    .boolean()
    .optional()
    .describe('Replace every occurrence; without it old_string must occur exactly once.'),
});
type EditArgs = z.infer<typeof EditArgs>;

/** 1-based line numbers where each occurrence starts. */
function occurrences(text: string, needle: string): number[] {
  const at: number[] = [];
  let line = 1;
  let scanned = 0;
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) {
    for (let j = scanned; j < i; j++) if (text.charCodeAt(j) === 10) line++;
    scanned = i;
    at.push(line);
  }
  return at;
}

function listLines(lines: number[]): string {
  const shown = lines.slice(0, 20).join(', ');
  return lines.length > 20 ? `${shown} and ${lines.length - 20} more` : shown;
}

export interface PlannedEdit {
  file: string;
  before: string;
  after: string;
  lines: number[];
}

/**
 * The edit a call asks for, worked out without writing: the new text, or why it cannot be made
 * (the file is left as it is). A file written with CRLF line ends matches an old_string with LF.
 */
export async function planEdit(args: EditArgs, ctx: Pick<ToolContext, 'cwd'>): Promise<PlannedEdit | string> {
  const file = path.resolve(ctx.cwd, args.path);
  let read;
  try {
    read = await readRegularFile(file, EDIT_MAX_BYTES);
  } catch (err) {
    if (err instanceof NotARegularFileError) return `Error: ${err.message}. Nothing changed.`;
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      return `Error: ${file} does not exist; edit_file changes existing files (create one with write_file). File unchanged.`;
    throw err;
  }
  if (read.capped)
    return `Error: ${file} is ${read.size} bytes, more than edit_file handles (${EDIT_MAX_BYTES}); use the shell. File unchanged.`;
  const before = read.bytes.toString('utf8');
  if (args.old_string === args.new_string) return 'Error: old_string and new_string are the same; nothing to change.';
  let oldString = args.old_string;
  let newString = args.new_string;
  let lines = occurrences(before, oldString);
  if (lines.length === 0 && before.includes('\r\n') && !oldString.includes('\r\n')) {
    oldString = oldString.replace(/\n/g, '\r\n');
    newString = newString.replace(/\r?\n/g, '\r\n');
    lines = occurrences(before, oldString);
  }
  if (lines.length === 0)
    return `Error: old_string was not found in ${file}; the file is unchanged. It must match the file exactly (whitespace, indentation, line ends); read the file again and copy the text without read_file's line numbers.`;
  if (lines.length > 1 && args.replace_all !== true)
    return `Error: old_string occurs ${lines.length} times in ${file} (at lines ${listLines(lines)}); the file is unchanged. Add surrounding lines to old_string so it matches once, or pass replace_all: true to change every occurrence.`;
  // split/join, not String.replace: `$&` and friends in new_string must stay literal.
  const after = before.split(oldString).join(newString);
  return { file, before, after, lines };
}

async function editFileImpl(args: EditArgs, ctx: ToolContext): Promise<ToolResult> {
  const plan = await planEdit(args, ctx);
  if (typeof plan === 'string') return { ok: false, content: plan };
  await writeRegularFile(plan.file, plan.after);
  const n = plan.lines.length;
  const diff = fileDiff(plan.file, plan.before, plan.after);
  return {
    ok: true,
    content: `edited ${plan.file}: replaced ${n} occurrence${n === 1 ? '' : 's'} (at line${n === 1 ? '' : 's'} ${listLines(plan.lines)}).`,
    meta: { path: plan.file, replacements: n, ...(diff ? { diff } : {}) },
  };
}

export const editFileTool: ToolDefinition<EditArgs> = {
  name: 'edit_file',
  description:
    'Replace exact text in an existing file: old_string must occur exactly once (or pass replace_all). Prefer this to rewriting a whole file with write_file.',
  parameters: toolParameters(EditArgs),
  readOnly: false,
  args: EditArgs,
  run: editFileImpl,
  path: { get: (a) => a.path, set: (a, p) => ({ ...a, path: p }) },
  preview: async (args, ctx) => {
    const plan = await planEdit(args, ctx);
    return typeof plan === 'string' ? null : fileDiff(plan.file, plan.before, plan.after);
  },
};
