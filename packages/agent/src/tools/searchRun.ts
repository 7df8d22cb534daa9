/**
 * The work of grep and glob, as it runs in a search worker (tools/searchWorker.ts; started by
 * tools/search.ts): the walk, the `.gitignore` rules, the glob, the reading of files and the
 * model's regular expression. Everything here may be slow or hostile (a pattern that backtracks
 * for ever, a `.gitignore` written to do the same, a FIFO), so none of it runs on the thread that
 * answers requests; the worker is ended when it stalls, runs out of time or the user stops.
 */
import { lstatSync } from 'node:fs';
import path from 'node:path';
import picomatch from 'picomatch';
import { readRegularFileSync } from '../workspace/fileAccess';
import { classifyPath, within, zoneOfResolved, type Reach } from '../workspace/reach';
import { emptyWalkStats, skipped, walkFiles, type Skip, type WalkEntry, type WalkStats } from './walk';

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
export const META_PATHS_MAX = 50;
const SNIFF_BYTES = 8000;

export interface SearchJob {
  kind: 'grep' | 'glob';
  /** The folder or file searched, resolved. */
  root: string;
  /** grep: a JavaScript regular expression; glob: the glob. */
  pattern: string;
  ignoreCase?: boolean;
  /** grep: only files matching this glob. */
  glob?: string;
  /** The session's reach (its folder is the working folder): what a search may read. */
  reach: Reach;
  /** Past this (ms) the search stops where it is and says its results are partial. */
  deadlineMs: number;
}

export interface GrepMatch {
  abs: string;
  line: number;
  text: string;
}

export interface SearchOutcome {
  stats: WalkStats;
  /** The pattern is no valid regular expression: why. */
  invalid?: string;
  /** grep: the matches shown, all matches, the files with one (abs, at most META_PATHS_MAX). */
  matches: GrepMatch[];
  total: number;
  paths: string[];
  binary: number;
  large: number;
  bytes: number;
  bytesCapped: boolean;
  /** glob: the newest files (at most GLOB_MAX_FILES) and how many matched. */
  found: { abs: string; mtimeMs: number }[];
  count: number;
  /** Stopped at the deadline: results are partial. */
  timedOut: boolean;
}

function matcher(glob: string | undefined): ((rel: string) => boolean) | undefined {
  if (!glob) return undefined;
  // A pattern without `/` matches the file's name anywhere ("*.ts"); with one, the path from the searched folder.
  return picomatch(glob, { dot: true, basename: !glob.includes('/') });
}

/**
 * What a search may read, with read_file's reach: an entry inside the searched tree that is not
 * the data folder or a credential place; a link only when it leads into the working folder or the
 * searched tree (a link out of them is what read_file would ask for), and then its target is read.
 */
function reachable(reach: Reach, root: string) {
  const protectedPlace: Skip = { skip: 'protected' };
  const outside: Skip = { skip: 'outside' };
  return (abs: string, link: boolean): string | Skip => {
    if (!link) {
      const zone = zoneOfResolved(abs, reach);
      return zone === 'data' || zone === 'credential' ? protectedPlace : abs;
    }
    let where;
    try {
      where = classifyPath(abs, reach);
    } catch {
      return outside; // a link loop (the walk's stat catches it first): nothing to read there
    }
    if (where.zone === 'data' || where.zone === 'credential') return protectedPlace;
    const inTree = within(where.path, reach.folder, reach.platform) || within(where.path, root, reach.platform);
    return inTree ? where.path : outside;
  };
}

/** A file's text, or why it is skipped. */
function readText(e: WalkEntry): string | 'binary' | 'large' | null {
  if (e.size > GREP_MAX_FILE_BYTES) return 'large';
  let bytes: Buffer;
  try {
    ({ bytes } = readRegularFileSync(e.real, GREP_MAX_FILE_BYTES));
  } catch {
    return null; // unreadable, or no longer a regular file: left out
  }
  // Git's test: a NUL in the first few kilobytes means binary.
  if (bytes.subarray(0, Math.min(bytes.length, SNIFF_BYTES)).includes(0)) return 'binary';
  return bytes.toString('utf8');
}

/** Runs a search job; `beat` names the step now running (the stall watch reads it). */
export function runSearch(job: SearchJob, beat: (label: string) => void): SearchOutcome {
  const out: SearchOutcome = {
    stats: emptyWalkStats(),
    matches: [],
    total: 0,
    paths: [],
    binary: 0,
    large: 0,
    bytes: 0,
    bytesCapped: false,
    found: [],
    count: 0,
    timedOut: false,
  };
  let re: RegExp | null = null;
  if (job.kind === 'grep') {
    try {
      re = new RegExp(job.pattern, job.ignoreCase ? 'i' : '');
    } catch (err) {
      out.invalid = (err as Error).message;
      return out;
    }
  }
  const wanted = matcher(job.kind === 'grep' ? job.glob : job.pattern);
  const started = Date.now();
  const home = job.reach.home;
  const reach = reachable(job.reach, job.root);
  const files =
    walkOne(job.root, wanted, reach, out.stats) ??
    walkFiles(
      job.root,
      { reachable: reach, onStep: beat, maxFiles: SEARCH_MAX_FILES, home, ...(wanted ? { wanted } : {}) },
      out.stats,
    );
  for (const f of files) {
    if (Date.now() - started > job.deadlineMs) {
      out.timedOut = true;
      break;
    }
    if (job.kind === 'glob') {
      out.count++;
      out.found.push({ abs: f.abs, mtimeMs: f.mtimeMs });
      // Kept to the newest few as it goes: a glob over 20,000 files holds no list of 20,000.
      if (out.found.length > GLOB_MAX_FILES * 2) trimNewest(out.found);
      continue;
    }
    if (out.bytes + f.size > GREP_MAX_TOTAL_BYTES) {
      out.bytesCapped = true;
      break;
    }
    beat(f.rel);
    const text = readText(f);
    if (text === null) {
      out.stats.unreadable++;
      continue;
    }
    if (text === 'large') {
      out.large++;
      continue;
    }
    out.bytes += f.size;
    if (text === 'binary') {
      out.binary++;
      continue;
    }
    const lines = text.split('\n');
    let found = false;
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!.endsWith('\r') ? lines[i]!.slice(0, -1) : lines[i]!;
      if (!re!.test(line.length > MATCH_LINE_MAX ? line.slice(0, MATCH_LINE_MAX) : line)) continue;
      out.total++;
      found = true;
      if (out.matches.length < GREP_MAX_MATCHES)
        out.matches.push({
          abs: f.abs,
          line: i + 1,
          text: line.length > SHOW_LINE_MAX ? `${line.slice(0, SHOW_LINE_MAX)}…` : line,
        });
    }
    if (found && out.paths.length < META_PATHS_MAX) out.paths.push(f.abs);
  }
  if (job.kind === 'glob') trimNewest(out.found);
  return out;
}

/** Newest first (what was worked on last is most likely what is looked for), the first GLOB_MAX_FILES. */
function trimNewest(found: { abs: string; mtimeMs: number }[]): void {
  found.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.abs < b.abs ? -1 : 1));
  found.length = Math.min(found.length, GLOB_MAX_FILES);
}

/** A single file searched (the path argument names one): it alone, when wanted; null for a folder. */
function walkOne(
  root: string,
  wanted: ((rel: string) => boolean) | undefined,
  reach: (abs: string, link: boolean) => string | Skip,
  stats: WalkStats,
): WalkEntry[] | null {
  let info;
  try {
    info = lstatSync(root);
  } catch {
    return null;
  }
  if (!info.isFile()) return null;
  stats.files = 1;
  const rel = path.basename(root);
  if (wanted && !wanted(rel)) return [];
  if (skipped(reach(root, false), stats)) return [];
  return [{ abs: root, rel, real: root, size: info.size, mtimeMs: info.mtimeMs }];
}
