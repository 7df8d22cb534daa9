import { open, stat } from 'node:fs/promises';
import path from 'node:path';
import picomatch from 'picomatch';
import * as z from 'zod';
import { toolParameters } from './schema';
import type { ToolContext, ToolDefinition, ToolResult } from './types';
import { walkFiles, type WalkStats } from './walk';
import { within } from '../workspace/reach';

/** Files a search looks at before it stops (the result says it is partial). */
export const SEARCH_MAX_FILES = 20_000;
/** Bytes grep reads in all before it stops. */
export const GREP_MAX_TOTAL_BYTES = 64 * 1024 * 1024;
/** Bigger files are skipped by grep (and said so). */
export const GREP_MAX_FILE_BYTES = 2 * 1024 * 1024;
/** Matching lines shown; the rest are counted in the marker. */
export const GREP_MAX_MATCHES = 100;
/** Files glob lists; the rest are counted in the marker. */
export const GLOB_MAX_FILES = 100;
/** A line is matched on its first this many characters and shown cut shorter still. */
const MATCH_LINE_MAX = 4000;
const SHOW_LINE_MAX = 240;
/** Found paths kept in the result's meta (memory takes them as evidence that the files exist). */
const META_PATHS_MAX = 50;
const SNIFF_BYTES = 8000;

function shownPath(abs: string, ctx: ToolContext): string {
  return within(abs, ctx.cwd, ctx.platform) && abs !== ctx.cwd ? path.relative(ctx.cwd, abs) : abs;
}

function matcher(glob: string | undefined): (rel: string) => boolean {
  if (!glob) return () => true;
  // A pattern without `/` matches the file's name anywhere ("*.ts"); with one, the path from the searched folder.
  return picomatch(glob, { dot: true, basename: !glob.includes('/') });
}

function home(): string {
  return process.env.HOME ?? path.parse(process.cwd()).root;
}

function walkNotes(stats: WalkStats, extra: string[] = []): string {
  const notes = [...extra];
  if (stats.protectedSkipped > 0)
    notes.push(
      `${stats.protectedSkipped} entr${stats.protectedSkipped === 1 ? 'y' : 'ies'} in credential places or Threadline's data folder skipped (never searched)`,
    );
  if (stats.capped) notes.push(`stopped after ${stats.files} files: results are partial; search a narrower path`);
  return notes.length > 0 ? `\n[${notes.join('; ')}]` : '';
}

/** A single file, or a folder to walk: what the resolved path argument names; only `wanted` files. */
async function filesOf(root: string, ctx: ToolContext, stats: WalkStats, wanted: (rel: string) => boolean) {
  const info = await stat(root);
  if (info.isFile()) {
    stats.files = 1;
    const rel = path.basename(root);
    if (!wanted(rel)) return (async function* () {})();
    if (ctx.mayRead && !ctx.mayRead(root, false)) {
      stats.protectedSkipped++;
      return (async function* () {})();
    }
    return (async function* () {
      yield { abs: root, rel, size: info.size, mtimeMs: info.mtimeMs };
    })();
  }
  return walkFiles(
    root,
    { mayRead: ctx.mayRead ?? (() => true), signal: ctx.signal, maxFiles: SEARCH_MAX_FILES, home: home(), wanted },
    stats,
  );
}

/** A file's text, or why it is skipped. */
async function readText(abs: string, size: number): Promise<string | 'binary' | 'large'> {
  if (size > GREP_MAX_FILE_BYTES) return 'large';
  const fh = await open(abs, 'r');
  try {
    const buf = Buffer.alloc(size);
    let filled = 0;
    while (filled < size) {
      const { bytesRead } = await fh.read(buf, filled, size - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    // Git's test: a NUL in the first few kilobytes means binary.
    if (buf.subarray(0, Math.min(filled, SNIFF_BYTES)).includes(0)) return 'binary';
    return buf.subarray(0, filled).toString('utf8');
  } finally {
    await fh.close();
  }
}

const GrepArgs = z.object({
  pattern: z.string().min(1).describe('A JavaScript regular expression, matched against each line of each file.'),
  path: z.string().optional().describe('File or folder to search (default: the working directory).'),
  glob: z
    .string()
    .optional()
    .describe('Only files matching this glob: "*.ts" matches names anywhere, "src/**/*.tsx" paths from the folder.'),
  ignore_case: z.boolean().optional().describe('Match regardless of case.'),
});
type GrepArgs = z.infer<typeof GrepArgs>;

async function grepImpl(args: GrepArgs, ctx: ToolContext): Promise<ToolResult> {
  let re: RegExp;
  try {
    re = new RegExp(args.pattern, args.ignore_case ? 'i' : '');
  } catch (err) {
    return { ok: false, content: `Error: invalid regular expression: ${(err as Error).message}` };
  }
  const root = path.resolve(ctx.cwd, args.path ?? '.');
  const stats: WalkStats = { files: 0, protectedSkipped: 0, capped: false };
  const wanted = matcher(args.glob);
  const shown: string[] = [];
  const paths: string[] = [];
  let total = 0;
  let binary = 0;
  let large = 0;
  let bytes = 0;
  let bytesCapped = false;
  for await (const f of await filesOf(root, ctx, stats, wanted)) {
    if (ctx.signal.aborted) return { ok: false, content: 'aborted: the user cancelled the search' };
    if (bytes + f.size > GREP_MAX_TOTAL_BYTES) {
      bytesCapped = true;
      break;
    }
    let text;
    try {
      text = await readText(f.abs, f.size);
    } catch {
      continue; // unreadable: left out
    }
    if (text === 'large') {
      large++;
      continue;
    }
    bytes += f.size;
    if (text === 'binary') {
      binary++;
      continue;
    }
    const lines = text.split('\n');
    let found = false;
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!.endsWith('\r') ? lines[i]!.slice(0, -1) : lines[i]!;
      if (!re.test(line.length > MATCH_LINE_MAX ? line.slice(0, MATCH_LINE_MAX) : line)) continue;
      total++;
      found = true;
      if (shown.length < GREP_MAX_MATCHES) {
        const t = line.length > SHOW_LINE_MAX ? `${line.slice(0, SHOW_LINE_MAX)}…` : line;
        shown.push(`${shownPath(f.abs, ctx)}:${i + 1}:${t}`);
      }
    }
    if (found && paths.length < META_PATHS_MAX) paths.push(f.abs);
  }
  const extra: string[] = [];
  if (binary > 0) extra.push(`${binary} binary file${binary === 1 ? '' : 's'} skipped`);
  if (large > 0) extra.push(`${large} file${large === 1 ? '' : 's'} over ${GREP_MAX_FILE_BYTES} bytes skipped`);
  if (bytesCapped) extra.push(`stopped after reading ${bytes} bytes: results are partial; search a narrower path`);
  const notes = walkNotes(stats, extra);
  const meta = { path: root, matches: total, files: stats.files, paths };
  if (total === 0)
    return {
      ok: true,
      content: `no matches for /${args.pattern}/ in ${root} (${stats.files} files searched)${notes}`,
      meta,
    };
  const more =
    total > shown.length
      ? `\n[… ${total - shown.length} more matches not shown; narrow the pattern, path or glob]`
      : '';
  return { ok: true, content: shown.join('\n') + more + notes, meta };
}

export const grepTool: ToolDefinition<GrepArgs> = {
  name: 'grep',
  description:
    'Search file contents with a regular expression; prints file:line:text. Respects .gitignore, skips binary files; results are capped.',
  parameters: toolParameters(GrepArgs),
  readOnly: true,
  args: GrepArgs,
  run: grepImpl,
  path: { get: (a) => a.path ?? '.', set: (a, p) => ({ ...a, path: p }) },
};

const GlobArgs = z.object({
  pattern: z
    .string()
    .min(1)
    .describe('Glob over file paths: "*.md" matches names anywhere, "src/**/*.ts" paths from the folder.'),
  path: z.string().optional().describe('Folder to search (default: the working directory).'),
});
type GlobArgs = z.infer<typeof GlobArgs>;

async function globImpl(args: GlobArgs, ctx: ToolContext): Promise<ToolResult> {
  const root = path.resolve(ctx.cwd, args.path ?? '.');
  const stats: WalkStats = { files: 0, protectedSkipped: 0, capped: false };
  const wanted = matcher(args.pattern);
  const found: { abs: string; mtimeMs: number }[] = [];
  for await (const f of await filesOf(root, ctx, stats, wanted)) {
    if (ctx.signal.aborted) return { ok: false, content: 'aborted: the user cancelled the search' };
    found.push({ abs: f.abs, mtimeMs: f.mtimeMs });
  }
  // Newest first: what was worked on last is most likely what is looked for.
  found.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.abs < b.abs ? -1 : 1));
  const notes = walkNotes(stats);
  const listed = found.slice(0, GLOB_MAX_FILES);
  const meta = {
    path: root,
    matches: found.length,
    files: stats.files,
    paths: listed.slice(0, META_PATHS_MAX).map((f) => f.abs),
  };
  if (found.length === 0)
    return {
      ok: true,
      content: `no files match ${args.pattern} in ${root} (${stats.files} files looked at)${notes}`,
      meta,
    };
  const more =
    found.length > listed.length
      ? `\n[… ${found.length - listed.length} more files not shown; narrow the pattern or path]`
      : '';
  return { ok: true, content: listed.map((f) => shownPath(f.abs, ctx)).join('\n') + more + notes, meta };
}

export const globTool: ToolDefinition<GlobArgs> = {
  name: 'glob',
  description: 'Find files by name or path pattern, newest first. Respects .gitignore; results are capped.',
  parameters: toolParameters(GlobArgs),
  readOnly: true,
  args: GlobArgs,
  run: globImpl,
  path: { get: (a) => a.path ?? '.', set: (a, p) => ({ ...a, path: p }) },
};
