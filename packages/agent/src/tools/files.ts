import { mkdir, open, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import path from 'node:path';
import * as z from 'zod';
import { isGitFile, redactCredentials } from '../workspace/redact';
import { fileDiff } from './diff';
import { toolParameters } from './schema';
import type { ToolContext, ToolDefinition, ToolResult } from './types';

/** Files larger than this are read in line pages only; the model is told so. */
const READ_CAP_CHARS = 512 * 1024;
/**
 * What read_file reads of a file at most: a multi-gigabyte log must not be loaded whole into the
 * host's memory. The result says so and points at the shell for the rest.
 */
export const READ_FILE_MAX_BYTES = 2 * 1024 * 1024;
const DEFAULT_READ_LINES = 2000;

function resolvePath(ctx: Pick<ToolContext, 'cwd'>, p: string): string {
  const expanded = p.startsWith('~/') ? path.join(process.env.HOME ?? '~', p.slice(2)) : p;
  return path.resolve(ctx.cwd, expanded);
}

const ReadArgs = z.object({
  path: z.string().min(1).describe('File path, absolute or relative to the working directory.'),
  offset: z.number().int().nonnegative().optional().describe('First line to read (0-based).'),
  limit: z.number().int().positive().optional().describe('Number of lines to read (default 2000).'),
});
type ReadArgs = z.infer<typeof ReadArgs>;

/** The first `max` bytes of a file as UTF-8 (a character cut at the end is dropped, not mangled). */
async function readHead(file: string, max: number): Promise<{ text: string; size: number; capped: boolean }> {
  const fh = await open(file, 'r');
  try {
    const { size } = await fh.stat();
    const buf = Buffer.alloc(Math.min(size, max));
    let filled = 0;
    while (filled < buf.length) {
      const { bytesRead } = await fh.read(buf, filled, buf.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    const capped = size > max;
    const decoder = new StringDecoder('utf8');
    // write() holds back an incomplete trailing character; end() would turn it into U+FFFD.
    const text = capped ? decoder.write(buf.subarray(0, filled)) : decoder.end(buf.subarray(0, filled));
    return { text, size, capped };
  } finally {
    await fh.close();
  }
}

/**
 * `cat -n` style, but cheap for the model: the number padded only to the widest number of the
 * page, then a tab (edit_file's old_string leaves the prefix out).
 */
export function numberLines(lines: readonly string[], first: number): string {
  const width = String(first + lines.length - 1).length;
  return lines.map((l, i) => `${String(first + i).padStart(width)}\t${l}`).join('\n');
}

async function readFileImpl(args: ReadArgs, ctx: ToolContext): Promise<ToolResult> {
  const file = resolvePath(ctx, args.path);
  const head = await readHead(file, READ_FILE_MAX_BYTES);
  // git's own files: a remote URL with a token reaches the model as `user:***@host`.
  const text = isGitFile(file) ? redactCredentials(head.text) : head.text;
  const lines = text.split('\n');
  const offset = args.offset ?? 0;
  const limit = args.limit ?? DEFAULT_READ_LINES;
  let page = numberLines(lines.slice(offset, offset + limit), offset + 1);
  if (page.length > READ_CAP_CHARS) page = page.slice(0, READ_CAP_CHARS) + '\n…cut: read a smaller line range…';
  const more =
    offset + limit < lines.length
      ? `\n[lines ${offset + 1}-${offset + limit} of ${lines.length}; pass offset to read more]`
      : '';
  const cap = head.capped
    ? `\n[the file is ${head.size} bytes; only its first ${READ_FILE_MAX_BYTES} bytes (${lines.length} lines) were read; use the shell (e.g. tail, sed -n) for the rest]`
    : '';
  return {
    ok: true,
    content: page + more + cap,
    meta: { path: file, lines: lines.length, bytes: head.size, capped: head.capped },
  };
}

export const readFileTool: ToolDefinition<ReadArgs> = {
  name: 'read_file',
  description:
    'Read a text file; each line comes prefixed with its number and a tab. Optional offset (0-based line) and limit (lines, default 2000).',
  parameters: toolParameters(ReadArgs),
  readOnly: true,
  args: ReadArgs,
  run: readFileImpl,
  path: { get: (a) => a.path, set: (a, p) => ({ ...a, path: p }) },
};

const WriteArgs = z.object({
  path: z.string().min(1).describe('File path, absolute or relative to the working directory.'),
  content: z.string().describe('The full new content of the file.'),
});
type WriteArgs = z.infer<typeof WriteArgs>;

export const writeFileTool: ToolDefinition<WriteArgs> = {
  name: 'write_file',
  description:
    'Create or overwrite a text file with the given content (parent folders are created). To change part of an existing file use edit_file.',
  parameters: toolParameters(WriteArgs),
  readOnly: false,
  args: WriteArgs,
  path: { get: (a) => a.path, set: (a, p) => ({ ...a, path: p }) },
  run: async (args, ctx) => {
    const file = resolvePath(ctx, args.path);
    const before = await previousText(file);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, args.content, 'utf8');
    // The card shows what changed in a file that was there; a new file is its content.
    const diff = typeof before === 'string' ? fileDiff(file, before, args.content) : null;
    return {
      ok: true,
      content: `wrote ${Buffer.byteLength(args.content, 'utf8')} bytes to ${file}`,
      meta: { path: file, ...(diff ? { diff } : {}) },
    };
  },
  preview: async (args, ctx) => {
    const file = resolvePath(ctx, args.path);
    const before = await previousText(file);
    return typeof before === 'string' ? fileDiff(file, before, args.content) : null;
  },
};

/** Past this size an overwritten file gets no diff (reading and diffing it would cost more than it shows). */
const DIFF_SOURCE_MAX_BYTES = 1024 * 1024;

/** The text a write replaces: null when the file is new, undefined when there is no diff to show. */
async function previousText(file: string): Promise<string | null | undefined> {
  try {
    const info = await stat(file);
    if (!info.isFile() || info.size > DIFF_SOURCE_MAX_BYTES) return undefined;
  } catch {
    return null;
  }
  return readFile(file, 'utf8').catch(() => undefined);
}

const ListArgs = z.object({
  path: z.string().optional().describe('Directory (defaults to the working directory).'),
});
type ListArgs = z.infer<typeof ListArgs>;

export const listDirTool: ToolDefinition<ListArgs> = {
  name: 'list_dir',
  description: 'List the entries of a directory (folders end with /).',
  parameters: toolParameters(ListArgs),
  readOnly: true,
  args: ListArgs,
  path: { get: (a) => a.path ?? '.', set: (a, p) => ({ ...a, path: p }) },
  run: async (args, ctx) => {
    const dir = resolvePath(ctx, args.path ?? '.');
    const info = await stat(dir);
    if (!info.isDirectory()) return { ok: false, content: `not a directory: ${dir}` };
    const entries = await readdir(dir, { withFileTypes: true });
    const names = entries.map((e) => (e.isDirectory() ? `${e.name}/` : e.name)).sort();
    return { ok: true, content: names.length > 0 ? names.join('\n') : '(empty directory)', meta: { path: dir } };
  },
};
