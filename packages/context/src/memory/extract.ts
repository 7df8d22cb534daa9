/**
 * Draft extraction: recent assistant and tool messages → drafts of goals, verified
 * actions, artifacts, invalid paths and open items. Deterministic; every draft is judged later by
 * `evaluateDraft`, so this stage may over-collect but never decides.
 */
import { MCP_TOOL_SEPARATOR, type ChatMessage } from '@threadline/protocol';
import {
  CLAIM_PATTERNS,
  EXPLICIT_GOAL_PATTERNS,
  ERROR_LINE_PATTERNS,
  FAILED_OUTPUT_PATTERNS,
  FAILURE_MARKERS,
  FINISHED_PATTERNS,
  GOAL_PATTERNS,
  INSTRUCTION_PATTERNS,
  LOG_LINE_PATTERNS,
  MISSING_PATH_PATTERNS,
  OPEN_ITEM_PATTERNS,
  STARTUP_NOISE_PATTERNS,
  STATUS_SENTENCE,
  SUCCESS_MARKERS,
  matchesAny,
} from './keywords';
import { findPaths, isUnhelpfulPath, normalizePath } from './paths';
import { isShellToolName } from './shellTool';
import type { MemoryDraft } from './types';
import { writtenPaths } from './shellWrites';
import { editorWrittenPaths } from './writes';
import { fromUser, isTemplateOrStatus } from './userDrafts';
import { rootedListing } from './listing';
import { sentences } from './sentences';
import { MAX_ARTIFACTS_PER_TOOL_OUTPUT } from './constants';

export { isTemplateOrStatus };

interface CallInfo {
  name: string;
  command: string | null;
  args: Record<string, unknown>;
  /** Paths the call names (its command, or a path argument): evidence once the call succeeded. */
  mentioned: string[];
  /** Index of the assistant message: a mention there and in the output are two pieces of evidence. */
  index: number;
  /** Lowercased text of the call, to tell a missing path it named from noise of other programs. */
  text: string;
  /** The folder the call ran in when it says (`cd dir && …`, a `cwd` argument): its relative paths are there. */
  cwd: string | null;
}

/** `cd dir && …` / `cd dir; …` at the start of a command, or a cwd-like argument. */
const CD_PREFIX = /^\s*(?:cd|pushd)\s+(?:"([^"]+)"|'([^']+)'|([^\s;&|]+))\s*(?:&&|;)/;
const CWD_KEYS = ['cwd', 'workdir', 'working_dir', 'workingDirectory', 'working_directory', 'dir', 'directory'];

export function callFolder(command: string | null, args: Record<string, unknown>): string | null {
  const m = command !== null ? CD_PREFIX.exec(command) : null;
  const raw = m ? (m[1] ?? m[2] ?? m[3]) : CWD_KEYS.map((k) => args[k]).find((v) => typeof v === 'string');
  if (typeof raw !== 'string') return null;
  const dir = raw.trim().replace(/[\\/]+$/, '');
  return dir === '' || dir === '.' || dir === '-' ? null : dir;
}

const ANCHORED = /^(?:[/~\\]|[A-Za-z]:[\\/]|\$)/;

/**
 * A path as it is from the session's folder: a relative path a call used inside another folder
 * (`cd process && cat tasks.md`) is that folder's (`process/tasks.md`). A path is missing (or
 * there) only in the folder it was used in.
 */
export function inFolder(path: string, cwd: string | null): string {
  if (cwd === null || ANCHORED.test(path)) return path;
  const sep = /\\/.test(cwd) && !cwd.includes('/') ? '\\' : '/';
  const rel = path.replace(/^\.[\\/]/, '');
  if (rel.startsWith(`${cwd}${sep}`)) return rel;
  return `${cwd}${sep}${rel}`;
}

/**
 * The assistant narrating what it does next ("Let me analyze the code…", "I'll look at…",
 * "Now I need to check…", "让我看看…"): its plan, not an open item of the work.
 */
export function isNarration(sentence: string): boolean {
  return /^(?:(?:ok(?:ay)?|alright|great|good|now|first|next|then|so|finally)[,:]?\s+)*(?:let me|let's|let us|i'll|i will|i'm going to|i am going to|i need to|i still need to|i should|i want to|i'd like to|i can|we'll|we will|we need to|we still need to|next steps?\s*(?:is|are|will be|:)\s*(?:to\s+)?(?:i|we|let)|让我|我来|我先|我将|我会|我需要|我还需要|接下来我|现在我|首先我)/i.test(
    sentence.trim(),
  );
}

/** Tool outputs are scanned at their head and tail only: a 1 MB log holds no more facts than its ends. */
const HEAD_LINES = 300;
const TAIL_LINES = 80;
const MAX_DRAFTS_PER_TOOL_OUTPUT = 16;

const MEANINGFUL_COMMAND =
  /\b(?:pytest|py\.test|tox|nox|runtests\.py|unittest|jest|vitest|mocha|ctest|make|cmake|ninja|mvn|gradle|go (?:test|build|run)|cargo (?:test|build|run)|(?:npm|pnpm|yarn) (?:run |)(?:test|build|install|add)|pip3? install|git (?:commit|apply|checkout|switch|merge|push)|mkdir|python[\d.]* [\w./-]+\.py)\b/;

/** Commands whose output is a list of paths. */
const LISTING_COMMAND =
  /^(?:cd\s+\S+\s*&&\s*)?(?:ls|dir|find|fd|tree|locate|du|Get-ChildItem|gci|git\s+(?:status|ls-files|diff\s+--name-only|diff\s+--stat)|rg\s+(?:-l|--files)|grep\s+-\w*l)\b/i;
const DIFF_HEADER_LINE = /^(?:diff --git |--- |\+\+\+ )/;
/** Structured search tools (the agent's grep and glob): their output lines name files found. */
const SEARCH_TOOL = /^(?:grep|glob)$/;
/** grep's `file:line:text`: the file is what was found, the text is content. */
const GREP_LINE = /^(.+?):\d+:/;
/** grep's context line `file-line-text` (with -C/-A/-B): the same file. */
const GREP_CONTEXT_LINE = /^(.+?\.[A-Za-z][A-Za-z0-9]{0,7})-\d+-/;

/** One simple command that only checks a path exists (no pipes or chains that could mask a failure). */
const PROBE_COMMAND = /^\s*(?:ls|dir|stat|test\s+-[edfr]|\[\s+-[edfr]|Test-Path|Get-Item|Get-ChildItem|gci)\b/i;

/** Parse a tool call's JSON arguments; the shell command is `command`, `cmd` or `script`. */
export function parseToolArgs(raw: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(raw);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export function commandOf(args: Record<string, unknown>): string | null {
  for (const k of ['command', 'cmd', 'script']) {
    const v = args[k];
    if (typeof v === 'string' && v.trim() !== '') return v;
  }
  return null;
}

/** `<server>__<tool>`: a tool of an MCP server (built-in tools have no separator). */
function isMcpTool(name: string): boolean {
  return name.includes(MCP_TOOL_SEPARATOR);
}

function isShellTool(name: string): boolean {
  // An MCP tool's name says little ("…__run_query"): only its `command` argument makes it a shell call.
  return !isMcpTool(name) && isShellToolName(name);
}

/** What an MCP call did, short: its name and its arguments as JSON, cut at 120 characters. */
function mcpCallLine(call: CallInfo): string {
  const args = JSON.stringify(call.args);
  const shown = args === '{}' ? '' : ` ${args.length > 120 ? `${args.slice(0, 120)}…` : args}`;
  return `called \`${call.name}\`${shown} (ok)`;
}

function firstLine(command: string): string {
  const line = command.split('\n').find((l) => l.trim() !== '') ?? '';
  return line.trim().length > 200 ? `${line.trim().slice(0, 200)}…` : line.trim();
}

function scannedLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.length <= HEAD_LINES + TAIL_LINES) return lines;
  return [...lines.slice(0, HEAD_LINES), ...lines.slice(-TAIL_LINES)];
}

function fromAssistant(m: ChatMessage, calls: Map<string, CallInfo>, out: MemoryDraft[], index: number): void {
  const push = (d: Omit<MemoryDraft, 'source'>): void => void out.push({ source: 'cfpm_auto', ...d });
  for (const s of sentences(m.content ?? '', { thought: true })) {
    // A sentence ending in `:` introduces a list or code; alone it says nothing.
    const intro = /[:：]$/.test(s);
    if (intro) {
      // paths only
    } else if (matchesAny(EXPLICIT_GOAL_PATTERNS, s)) {
      // "The goal is now achieved" reports a state: evaluate refuses it (goal_status_sentence).
      if (!isTemplateOrStatus(s))
        push({ category: 'goal', content: s, origin: 'assistant', status: matchesAny(STATUS_SENTENCE, s) });
    }
    // A question is musing, not a commitment to do something; narration is the assistant's plan.
    else if (matchesAny(OPEN_ITEM_PATTERNS, s) && !/[?？]$/.test(s)) {
      if (!isNarration(s)) push({ category: 'open_item', content: s, origin: 'assistant' });
    } else if (matchesAny(CLAIM_PATTERNS, s))
      push({ category: 'verified_action', content: s, origin: 'assistant', confirmed: false });
    // Work reported done ("Added the favicon."): refused as an open item, it retires the open item
    // it finishes (supersede.ts reads it, and a claim of success, as work done).
    else if (matchesAny(FINISHED_PATTERNS, s)) push({ category: 'open_item', content: s, origin: 'assistant' });
    for (const p of findPaths(s)) push({ category: 'artifact', content: p, origin: 'assistant' });
  }
  for (const tc of m.tool_calls ?? []) {
    const args = parseToolArgs(tc.function.arguments);
    // An MCP tool with a command argument is a shell of its own: its command is read the same way.
    const shellLike = isShellTool(tc.function.name) || (isMcpTool(tc.function.name) && commandOf(args) !== null);
    const command = commandOf(args) ?? (shellLike ? tc.function.arguments : null);
    const shellCommand = shellLike ? command : null;
    const cwd = callFolder(shellCommand, args);
    // What it writes is a file once its result says the call succeeded (fromTool), not before.
    const written = (
      shellCommand !== null ? writtenPaths(shellCommand) : editorWrittenPaths(tc.function.name, args)
    ).map((p) => inFolder(p, cwd));
    const pathArg = ['path', 'file_path', 'filePath', 'target_file', 'file']
      .map((k) => args[k])
      .find((v) => typeof v === 'string');
    const mentioned = (
      shellCommand !== null ? findPaths(shellCommand) : typeof pathArg === 'string' ? findPaths(pathArg) : []
    )
      .filter((p) => p !== cwd)
      .map((p) => inFolder(p, cwd))
      .filter((p) => !written.includes(p));
    calls.set(tc.id, {
      name: tc.function.name,
      command: shellCommand,
      args,
      mentioned,
      index,
      text: (
        shellCommand ??
        Object.values(args)
          .filter((v) => typeof v === 'string')
          .join('\n')
      )
        .replace(/\\/g, '/')
        .toLowerCase(),
      cwd,
    });
  }
}

function fromTool(m: ChatMessage, calls: Map<string, CallInfo>, out: MemoryDraft[]): void {
  const text = m.content ?? '';
  const call = m.tool_call_id !== undefined ? calls.get(m.tool_call_id) : undefined;
  // A failed write's or command's own words fail it whatever its exit status (`touch x; echo ok`).
  const failed = matchesAny(FAILURE_MARKERS, text) || matchesAny(FAILED_OUTPUT_PATTERNS, text.slice(0, 4000));
  const succeeded = !failed && matchesAny(SUCCESS_MARKERS, text);
  if (call !== undefined) {
    const written = (call.command !== null ? writtenPaths(call.command) : editorWrittenPaths(call.name, call.args)).map(
      (p) => inFolder(p, call.cwd),
    );
    // Editor tools report no exit code: no error line in their reply counts as success.
    const editorOk =
      call.command === null &&
      written.length > 0 &&
      !failed &&
      !/\b(?:error|invalid|failed|no replacement)\b/i.test(text.slice(0, 400));
    // A probe that succeeded proves its paths exist: those facts count as validated.
    const probe = call.command;
    if (succeeded && probe !== null && PROBE_COMMAND.test(probe) && !/[|;&]|\n/.test(probe.trim())) {
      // Test-Path exits 0 either way; only its `True` says the path is there.
      const testPathOk = !/Test-Path/i.test(probe) || (/\bTrue\b/.test(text) && !/\bFalse\b/.test(text));
      for (const p of testPathOk ? findPaths(probe) : []) {
        if (!isUnhelpfulPath(p))
          out.push({
            category: 'artifact',
            content: p,
            source: 'cfpm_auto',
            origin: 'command',
            validatedBy: firstLine(probe),
          });
      }
    }
    // An MCP tool's result says nothing like "exit 0": a result the runtime did not mark as an
    // error (`Error: …`, denied, aborted, not run) is a call that succeeded, and memory keeps it
    // as shell commands are kept.
    if (isMcpTool(call.name) && call.command === null && !/^(?:Error\b|denied:|aborted:|not run:)/.test(text))
      out.push({
        category: 'verified_action',
        content: mcpCallLine(call),
        source: 'cfpm_auto',
        origin: 'tool_output',
        confirmed: true,
      });
    // What a call named is evidence once it succeeded: a shell command with a success marker, or
    // a structured tool (read/edit) whose reply is no error.
    const toolOk =
      call.command === null && !/\b(?:error|invalid|failed|not found|no such file)\b/i.test(text.slice(0, 400));
    if (succeeded || toolOk)
      for (const p of call.mentioned)
        out.push({
          category: 'artifact',
          content: p,
          source: 'cfpm_auto',
          origin: 'command',
          messageIndex: call.index,
        });
    // A write that printed nothing at all (`echo x > f`) wrote its file; it verified nothing more.
    const silent = call.command !== null && text.trim() === '';
    if (silent)
      for (const p of written)
        out.push({ category: 'artifact', content: p, source: 'cfpm_auto', origin: 'command', written: true });
    if (succeeded || editorOk) {
      for (const p of written) {
        out.push({ category: 'artifact', content: p, source: 'cfpm_auto', origin: 'command', written: true });
        out.push({
          category: 'verified_action',
          content: `edited ${p}`,
          source: 'cfpm_auto',
          origin: 'tool_output',
          confirmed: true,
        });
      }
      if (call.command !== null && written.length === 0 && MEANINGFUL_COMMAND.test(call.command))
        out.push({
          category: 'verified_action',
          content: `ran \`${firstLine(call.command)}\` (exit 0)`,
          source: 'cfpm_auto',
          origin: 'tool_output',
          confirmed: true,
        });
    }
  }
  const local: MemoryDraft[] = [];
  let artifacts = 0;
  // Paths in an output are evidence only when the command succeeded (or the tool reports no
  // error); a failed command's output is its own error, not a map of the disk.
  const outputIsEvidence = call === undefined ? succeeded : succeeded || (call.command === null && !failed);
  const listing = call?.command != null && LISTING_COMMAND.test(call.command.trim());
  const rooting = listing ? rootedListing(call!.command!, call!.cwd) : null;
  const search = call !== undefined && call.command === null && SEARCH_TOOL.test(call.name);
  for (const raw of scannedLines(text)) {
    if (local.length >= MAX_DRAFTS_PER_TOOL_OUTPUT) break;
    let line = raw.trim();
    if (rooting?.header(raw)) continue;
    if (search) {
      // A found file is evidence it exists; the tool's own notes (`[…]`, "no matches…") and the
      // matched text are not.
      if (line.startsWith('[') || /^no (?:matches|files match)\b/.test(line)) continue;
      line = GREP_LINE.exec(line)?.[1] ?? GREP_CONTEXT_LINE.exec(line)?.[1] ?? line;
    }
    if (line === '' || line.length > 600) continue;
    const base = { source: 'cfpm_auto', origin: 'tool_output' } as const;
    // A login shell's start-up chatter (a version manager's shims, a profile's warnings) says
    // nothing about the work; its paths are recorded as rejected noise.
    if (matchesAny(STARTUP_NOISE_PATTERNS, line)) {
      for (const p of findPaths(line).slice(0, 2))
        local.push({ ...base, category: 'artifact', content: p, startupNoise: true });
      continue;
    }
    if (matchesAny(MISSING_PATH_PATTERNS, line)) {
      // Only a path the call itself named is known to be missing; other programs' errors are noise.
      const paths = findPaths(line).filter(
        (p) => !isUnhelpfulPath(p) && (call === undefined || call.text.includes(p.replace(/\\/g, '/').toLowerCase())),
      );
      // Missing where the call looked: in the folder it ran in, not the session's.
      for (const p of paths.slice(0, 2))
        local.push({ ...base, category: 'invalid_path', content: inFolder(p, call?.cwd ?? null) });
      continue;
    }
    // Text in a tool output that addresses the model is data, never a goal (prompt injection).
    if (matchesAny(INSTRUCTION_PATTERNS, line) || matchesAny(GOAL_PATTERNS, line)) {
      if (!isTemplateOrStatus(line)) local.push({ ...base, category: 'goal', content: line });
      continue;
    }
    if (matchesAny(OPEN_ITEM_PATTERNS, line)) {
      local.push({ ...base, category: 'open_item', content: line });
      continue;
    }
    const errorLine = matchesAny(ERROR_LINE_PATTERNS, line);
    const logLine = !errorLine && matchesAny(LOG_LINE_PATTERNS, line);
    if (!outputIsEvidence && !errorLine && !logLine) continue;
    // A listing (ls, find, git status…) produces paths; any other output is content (code, logs),
    // where only a line that is one path by itself (`pwd`, `which`) says where something is.
    const paths = DIFF_HEADER_LINE.test(line) ? findPaths(line.replace(/(^|\s)[ab]\//g, '$1')) : findPaths(line);
    const candidates = (
      listing || search || errorLine || logLine
        ? paths
        : paths.filter((p) => p === normalizePath(line.replace(/^['"`]|['"`]$/g, '')))
    ).flatMap((p) => {
      // A listing's names are in the folder it listed (`ls src`, `cd web && ls`, an `ls -R` section).
      if (!listing || errorLine || logLine) return [p];
      const rooted = rooting!.place(p);
      return rooted === null ? [] : [rooted];
    });
    for (const p of candidates) {
      if (!errorLine && !logLine && artifacts >= MAX_ARTIFACTS_PER_TOOL_OUTPUT) break;
      if (!errorLine && !logLine) artifacts++;
      local.push({ ...base, category: 'artifact', content: p, errorLine, logLine });
    }
  }
  out.push(...local.slice(0, MAX_DRAFTS_PER_TOOL_OUTPUT));
}

/** Drafts of every message, in message order. System messages are never parsed. */
export function extractDrafts(messages: ChatMessage[]): MemoryDraft[] {
  const calls = new Map<string, CallInfo>();
  const out: MemoryDraft[] = [];
  messages.forEach((m, index) => {
    const from = out.length;
    if (m.role === 'assistant') fromAssistant(m, calls, out, index);
    else if (m.role === 'tool') fromTool(m, calls, out);
    else if (m.role === 'user') fromUser(m, out);
    for (let i = from; i < out.length; i++) out[i]!.messageIndex ??= index;
  });
  return withSeenPaths(out);
}

/**
 * A bare file name (`tasks.md`) is stored with the path it was seen at (`process/tasks.md`):
 * the one path in the same drafts whose last segment it is. Ambiguous or unseen names stay bare.
 */
function withSeenPaths(drafts: MemoryDraft[]): MemoryDraft[] {
  const byName = new Map<string, Set<string>>();
  for (const d of drafts) {
    if (d.category !== 'artifact' && d.category !== 'invalid_path') continue;
    const m = /[\\/]([^\\/]+)$/.exec(d.content);
    if (!m || d.startupNoise) continue;
    const name = m[1]!.toLowerCase();
    let set = byName.get(name);
    if (!set) byName.set(name, (set = new Set()));
    if (d.category === 'artifact') set.add(d.content);
  }
  for (const d of drafts) {
    if (d.category !== 'artifact' || /[\\/]/.test(d.content)) continue;
    const seen = onePlace(byName.get(d.content.toLowerCase()));
    if (seen !== null) d.content = seen;
  }
  return drafts;
}

/**
 * The one path a set of paths with the same name names: one path, or paths that are the same file
 * seen from two folders (`/testbed/src/a.py` and `src/a.py`, the shorter kept); null otherwise.
 */
function onePlace(seen: Set<string> | undefined): string | null {
  if (!seen || seen.size === 0) return null;
  const all = [...seen].sort((a, b) => a.length - b.length);
  const short = all[0]!;
  return all.every((p) => p === short || p.endsWith(`/${short}`) || p.endsWith(`\\${short}`)) ? short : null;
}
