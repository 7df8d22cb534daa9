import { lstat } from 'node:fs/promises';
import path, { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as z from 'zod';
import { kindOf, NotARegularFileError } from '../workspace/fileAccess';
import { within, type Reach } from '../workspace/reach';
import { findWorkerEntry, runInWorker, type JobEnd } from '../worker/run';
import { toolParameters } from './schema';
import { GREP_MAX_FILE_BYTES, META_PATHS_MAX, type SearchJob, type SearchOutcome } from './searchRun';
import type { ToolContext, ToolDefinition, ToolResult } from './types';
import type { WalkStats } from './walk';

export {
  GLOB_MAX_FILES,
  GREP_MAX_FILE_BYTES,
  GREP_MAX_MATCHES,
  GREP_MAX_TOTAL_BYTES,
  SEARCH_MAX_FILES,
} from './searchRun';

/**
 * grep and glob run in a search worker of their own (tools/searchRun.ts, worker/run.ts), never on
 * the thread that answers requests: the model's regular expression, the folder's `.gitignore`
 * rules and the glob are all patterns someone else wrote. Their limits:
 */
export const SEARCH_LIMITS = Object.freeze({
  /** The search stops where it is after this and says its results are partial. */
  deadlineMs: 30_000,
  /** One step (a file's lines against the pattern, a folder's rules) running this long is a runaway pattern. */
  stallMs: 10_000,
  /** Heap and buffers of the search worker. */
  memoryMb: 256,
});

const SEARCH_WORKER = findWorkerEntry(dirname(fileURLToPath(import.meta.url)), 'searchWorker');

function shownPath(abs: string, ctx: ToolContext): string {
  return within(abs, ctx.cwd, ctx.platform) && abs !== ctx.cwd ? path.relative(ctx.cwd, abs) : abs;
}

function home(): string {
  return process.env.HOME ?? path.parse(process.cwd()).root;
}

/** What the search may read: the session's reach (tools run alone in tests get their folder's). */
function reachOf(ctx: ToolContext): Reach {
  return (
    ctx.reach ?? {
      folder: ctx.cwd,
      home: home(),
      dataDir: path.join(home(), '.threadline-none'),
      dbFile: path.join(home(), '.threadline-none', 'db'),
      platform: ctx.platform,
    }
  );
}

function walkNotes(stats: WalkStats, extra: string[] = []): string {
  const notes = [...extra];
  if (stats.protectedSkipped > 0)
    notes.push(
      `${stats.protectedSkipped} entr${stats.protectedSkipped === 1 ? 'y' : 'ies'} in credential places or Threadline's data folder skipped (never searched)`,
    );
  if (stats.linksOut > 0)
    notes.push(
      `${stats.linksOut} link${stats.linksOut === 1 ? '' : 's'} out of the working folder not followed (read_file asks for them)`,
    );
  if (stats.unreadable > 0)
    notes.push(
      `${stats.unreadable} entr${stats.unreadable === 1 ? 'y' : 'ies'} that could not be read (no permission, a dangling link or a link loop) skipped`,
    );
  if (stats.capped) notes.push(`stopped after ${stats.files} files: results are partial; search a narrower path`);
  return notes.length > 0 ? `\n[${notes.join('; ')}]` : '';
}

/** The search root must be a folder or a regular file: a FIFO, socket or device is refused, never opened. */
async function checkRoot(root: string): Promise<string | null> {
  const kind = kindOf(await lstat(root));
  return kind === 'file' || kind === 'directory' ? null : new NotARegularFileError(root, kind).message;
}

/** Runs a search job in its worker; a limit or Stop becomes the tool's error the model reads. */
async function search(job: SearchJob, ctx: ToolContext): Promise<SearchOutcome | ToolResult> {
  const end: JobEnd<SearchOutcome> = await runInWorker<SearchOutcome>(SEARCH_WORKER, job, {
    // The job stops itself at its deadline; the worker's own limit is a backstop past it.
    limits: { timeMs: job.deadlineMs + 15_000, memoryMb: SEARCH_LIMITS.memoryMb, stallMs: SEARCH_LIMITS.stallMs },
    signal: ctx.signal,
  });
  if (end.ok) return end.result;
  const what = job.kind === 'grep' ? `grep /${job.pattern}/` : `glob ${job.pattern}`;
  switch (end.limit) {
    case 'aborted':
      return { ok: false, content: 'aborted: the user cancelled the search' };
    case 'stall':
      return {
        ok: false,
        content:
          job.kind === 'grep'
            ? `Error: ${what} was stopped: matching one file (${end.message}) took over ${SEARCH_LIMITS.stallMs / 1000} s. The pattern backtracks catastrophically (nested repetition such as (a+)+ or (a|a)* can take exponential time); write it without nested quantifiers or overlapping alternatives.`
            : `Error: ${what} was stopped: one step (${end.message}) took over ${SEARCH_LIMITS.stallMs / 1000} s. A pattern with many wildcards in a row can take exponential time; simplify it.`,
      };
    case 'memory':
      return { ok: false, content: `Error: ${what} was stopped: it needed more than ${SEARCH_LIMITS.memoryMb} MB.` };
    case 'time':
      return { ok: false, content: `Error: ${what} did not finish in time; search a narrower path.` };
    default:
      return { ok: false, content: `Error: ${what} failed: ${end.message}` };
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
  const root = path.resolve(ctx.cwd, args.path ?? '.');
  const special = await checkRoot(root);
  if (special) return { ok: false, content: `Error: ${special}` };
  const out = await search(
    {
      kind: 'grep',
      root,
      pattern: args.pattern,
      ...(args.ignore_case ? { ignoreCase: true } : {}),
      ...(args.glob ? { glob: args.glob } : {}),
      reach: reachOf(ctx),
      deadlineMs: SEARCH_LIMITS.deadlineMs,
    },
    ctx,
  );
  if ('ok' in out) return out;
  if (out.invalid !== undefined) return { ok: false, content: `Error: invalid regular expression: ${out.invalid}` };
  const extra: string[] = [];
  if (out.binary > 0) extra.push(`${out.binary} binary file${out.binary === 1 ? '' : 's'} skipped`);
  if (out.large > 0)
    extra.push(`${out.large} file${out.large === 1 ? '' : 's'} over ${GREP_MAX_FILE_BYTES} bytes skipped`);
  if (out.bytesCapped)
    extra.push(`stopped after reading ${out.bytes} bytes: results are partial; search a narrower path`);
  if (out.timedOut)
    extra.push(`stopped after ${SEARCH_LIMITS.deadlineMs / 1000} s: results are partial; search a narrower path`);
  const notes = walkNotes(out.stats, extra);
  const meta = { path: root, matches: out.total, files: out.stats.files, paths: out.paths };
  if (out.total === 0)
    return {
      ok: true,
      content: `no matches for /${args.pattern}/ in ${root} (${out.stats.files} files searched)${notes}`,
      meta,
    };
  const shown = out.matches.map((m) => `${shownPath(m.abs, ctx)}:${m.line}:${m.text}`);
  const more =
    out.total > shown.length
      ? `\n[… ${out.total - shown.length} more matches not shown; narrow the pattern, path or glob]`
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
  const special = await checkRoot(root);
  if (special) return { ok: false, content: `Error: ${special}` };
  const out = await search(
    { kind: 'glob', root, pattern: args.pattern, reach: reachOf(ctx), deadlineMs: SEARCH_LIMITS.deadlineMs },
    ctx,
  );
  if ('ok' in out) return out;
  const extra = out.timedOut
    ? [`stopped after ${SEARCH_LIMITS.deadlineMs / 1000} s: results are partial; search a narrower path`]
    : [];
  const notes = walkNotes(out.stats, extra);
  const meta = {
    path: root,
    matches: out.count,
    files: out.stats.files,
    paths: out.found.slice(0, META_PATHS_MAX).map((f) => f.abs),
  };
  if (out.count === 0)
    return {
      ok: true,
      content: `no files match ${args.pattern} in ${root} (${out.stats.files} files looked at)${notes}`,
      meta,
    };
  const more =
    out.count > out.found.length
      ? `\n[… ${out.count - out.found.length} more files not shown; narrow the pattern or path]`
      : '';
  return { ok: true, content: out.found.map((f) => shownPath(f.abs, ctx)).join('\n') + more + notes, meta };
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
