import { mkdir, opendir, stat } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import path from 'node:path';
import * as z from 'zod';
import { isGitFile, redactCredentials } from '../workspace/redact';
import { kindOf, readRegularFile, writeRegularFile } from '../workspace/fileAccess';
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

/** The first `max` bytes of a regular file as UTF-8 (a character cut at the end is dropped, not mangled). */
async function readHead(
  file: string,
  max: number,
  signal: AbortSignal,
): Promise<{ text: string; size: number; capped: boolean }> {
  const { bytes, size, capped } = await readRegularFile(file, max, { signal });
  const decoder = new StringDecoder('utf8');
  // write() holds back an incomplete trailing character; end() would turn it into U+FFFD.
  const text = capped ? decoder.write(bytes) : decoder.end(bytes);
  return { text, size, capped };
}

/**
 * `cat -n` style, but cheap for the model: the number padded only to the widest number of the
 * page, then a tab (edit_file's old_string leaves the prefix out).
 */
export function numberLines(lines: readonly string[], first: number): string {
  const width = String(first + lines.length - 1).length;
  return lines.map((l, i) => `${String(first + i).padStart(width)}\t${l}`).join('\n');
}

/** The arguments of a read_file call for lines `first`..`last` (1-based) of `file`. */
export function readFileArgs(file: string, first: number, last: number): string {
  return JSON.stringify({ path: file, offset: first - 1, limit: last - first + 1 });
}

async function readFileImpl(args: ReadArgs, ctx: ToolContext): Promise<ToolResult> {
  const file = resolvePath(ctx, args.path);
  const head = await readHead(file, READ_FILE_MAX_BYTES, ctx.signal);
  // git's own files: a remote URL with a token reaches the model as `user:***@host`.
  const text = isGitFile(file) ? redactCredentials(head.text) : head.text;
  const lines = text.split('\n');
  const offset = args.offset ?? 0;
  const limit = args.limit ?? DEFAULT_READ_LINES;
  const shown = lines.slice(offset, offset + limit);
  // A page over the cap ends at the last whole line that fits, and says which lines it left out.
  let kept = shown.length;
  let chars = 0;
  for (let i = 0; i < shown.length; i++) {
    chars += shown[i]!.length + 8;
    if (chars > READ_CAP_CHARS) {
      kept = Math.max(1, i);
      break;
    }
  }
  let page = numberLines(shown.slice(0, kept), offset + 1);
  if (kept < shown.length) {
    const first = offset + kept + 1;
    const last = offset + shown.length;
    page += `\n[lines ${first}-${last} not shown: this page is over ${READ_CAP_CHARS} characters; read them with read_file ${readFileArgs(file, first, last)}]`;
  }
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

/** The marker write-time truncation puts where it cut a tool result (packages/context truncate.ts). */
const TRUNCATION_MARKER = /\n…(\d+) (tokens|chars) truncated… \([^\n]*\)\n/;
const NUMBERED = /^ *(\d+)\t/;

/**
 * A read_file page cut by write-time truncation: the cut moved to whole lines, and the marker
 * naming the lines left out and the read_file call that reads them (the generic marker points at
 * read_tool_output, while for a file the natural next step is a line range). Unchanged when the
 * page holds no numbered lines on both sides of the cut.
 */
export function namedLineCut(text: string, file: string): string {
  const m = TRUNCATION_MARKER.exec(text);
  if (!m) return text;
  const head = text.slice(0, m.index);
  const tail = text.slice(m.index + m[0].length);
  // The head's last line and the tail's first may be cut in the middle: both are left out too.
  const headLines = head.split('\n').slice(0, -1);
  const tailLines = tail.split('\n').slice(1);
  let lastHead = -1;
  for (let i = headLines.length - 1; i >= 0 && lastHead < 0; i--) {
    const n = NUMBERED.exec(headLines[i]!);
    if (n) {
      lastHead = Number(n[1]);
      headLines.length = i + 1;
    }
  }
  const firstTailAt = tailLines.findIndex((l) => NUMBERED.test(l));
  if (lastHead < 0 || firstTailAt < 0) return text;
  const firstTail = Number(NUMBERED.exec(tailLines[firstTailAt]!)![1]);
  if (firstTail <= lastHead + 1) return text;
  const [from, to] = [lastHead + 1, firstTail - 1];
  const marker = `[… lines ${from}-${to} left out here (${m[1]} ${m[2]}); read them with read_file ${readFileArgs(file, from, to)} …]`;
  return [...headLines, marker, ...tailLines.slice(firstTailAt)].join('\n');
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
  onTruncated: (text, a) => namedLineCut(text, a.path),
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
    await writeRegularFile(file, args.content);
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
    const { bytes, capped } = await readRegularFile(file, DIFF_SOURCE_MAX_BYTES);
    return capped ? undefined : bytes.toString('utf8');
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? null : undefined;
  }
}

const ListArgs = z.object({
  path: z.string().optional().describe('Directory (defaults to the working directory).'),
});
type ListArgs = z.infer<typeof ListArgs>;

/** Entries list_dir reads of one folder at most (a folder of a million files is not listed whole). */
export const LIST_DIR_MAX_ENTRIES = 5000;

/** `ls -F`'s marks: what an entry is, without opening it (a FIFO or socket is never read). */
const KIND_MARK: Partial<Record<ReturnType<typeof kindOf>, string>> = {
  directory: '/',
  symlink: '@',
  fifo: '|',
  socket: '=',
  char_device: ' (character device)',
  block_device: ' (block device)',
};

export const listDirTool: ToolDefinition<ListArgs> = {
  name: 'list_dir',
  description:
    'List the entries of a directory: folders end with /, symbolic links with @, named pipes with |, sockets with =.',
  parameters: toolParameters(ListArgs),
  readOnly: true,
  args: ListArgs,
  path: { get: (a) => a.path ?? '.', set: (a, p) => ({ ...a, path: p }) },
  run: async (args, ctx) => {
    const dir = resolvePath(ctx, args.path ?? '.');
    const info = await stat(dir);
    if (!info.isDirectory()) return { ok: false, content: `not a directory: ${dir}` };
    const names: string[] = [];
    let more = false;
    const handle = await opendir(dir, { bufferSize: 256 });
    try {
      for await (const e of handle) {
        if (ctx.signal.aborted) return { ok: false, content: 'aborted: the user cancelled the listing' };
        if (names.length >= LIST_DIR_MAX_ENTRIES) {
          more = true;
          break;
        }
        names.push(`${e.name}${KIND_MARK[kindOf(e)] ?? ''}`);
      }
    } finally {
      // Breaking out of the loop closes it; an early return or an error does too, once.
      await handle.close().catch(() => undefined);
    }
    names.sort();
    const note = more
      ? `\n[only the first ${LIST_DIR_MAX_ENTRIES} entries read are listed; use glob or the shell to find the others]`
      : '';
    return {
      ok: true,
      content: names.length > 0 ? names.join('\n') + note : '(empty directory)',
      meta: { path: dir },
    };
  },
};
