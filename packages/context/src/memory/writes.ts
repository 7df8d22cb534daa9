/**
 * What a tool call changes and opens: an editor's arguments (a path, a diff, a patch), a shell
 * command (shellWrites.ts), and each call parsed once for both. Used by draft extraction, the
 * compaction ledger, checkpoints and the recall measure.
 */
import { isPathLike, normalizePath } from './paths';
import { isShellToolName } from './shellTool';
import {
  normalizeTarget,
  parseShell,
  shellChanges,
  shellWords,
  type ChangeOp,
  type ParsedShell,
  type PathChange,
} from './shellWrites';

/** Content keys that only an edit carries (a `{text}` alone is a message, not an edit). */
const DIFF_KEYS = new Set([
  'diff',
  'patch',
  'unifieddiff',
  'oldstring',
  'newstring',
  'oldstr',
  'newstr',
  'old',
  'new',
  'oldtext',
  'newtext',
  'search',
  'replace',
  'replacement',
  'edits',
  'changes',
]);
/**
 * What makes a structured tool call an edit is the shape of its arguments, not its name: a path
 * argument together with content (whole text, a diff, old/new strings), or patch headers in any
 * string. The names below are argument keys, compared without case, `_` or `-`.
 */
const PATH_KEYS = new Set([
  'path',
  'filepath',
  'targetfile',
  'file',
  'filename',
  'relativepath',
  'absolutepath',
  'notebookpath',
  'uri',
]);
const DEST_KEYS = new Set(['newpath', 'destination', 'dest', 'to', 'target', 'destinationpath', 'targetpath']);
const CONTENT_KEYS = new Set([
  ...DIFF_KEYS,
  'content',
  'contents',
  'text',
  'body',
  'data',
  'filetext',
  'newcontent',
  'code',
  'source',
  'insert',
  'inserttext',
  'lines',
  'newsource',
]);
/** Sub-commands of multi-purpose tools (OpenHands `str_replace_editor`) that change the file. */
const EDIT_SUBCOMMANDS = new Set(['create', 'str_replace', 'insert', 'write', 'edit', 'undo_edit', 'append', 'delete']);
const SUB_KEYS = ['command', 'action', 'operation', 'op', 'mode', 'type'];
const EDIT_TOOL = /write|create|edit|replace|insert|patch|append|save|rename|move|delete|remove/i;
const DELETE_TOOL = /delete|remove|unlink/i;
/** Headers of unified, git and `apply_patch` patches: the files a patch text changes. */
const PATCH_HEADER =
  /^(?:\*\*\* (Add|Update|Delete) File: (.+)|\+\+\+ (?:b\/)?(.+)|\*\*\* Move to: (.+)|diff --git a\/\S+ b\/(\S+))$/gm;
/** A diff without headers: a hunk header, or a run of `-`/`+` lines. */
const HUNK = /^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@|^-[^-\n].*\n\+[^+\n]/m;

const keyOf = (k: string): string => k.toLowerCase().replace(/[_-]/g, '');

function stringAt(args: Record<string, unknown>, keys: ReadonlySet<string>): string | null {
  for (const [k, v] of Object.entries(args))
    if (keys.has(keyOf(k)) && typeof v === 'string' && v.trim() !== '') return v;
  return null;
}
const hasKey = (args: Record<string, unknown>, keys: ReadonlySet<string>): boolean =>
  Object.entries(args).some(([k, v]) => keys.has(keyOf(k)) && v !== null && v !== undefined && v !== '');

/** Every string inside a value (nested objects and arrays), for patch headers. */
function stringsIn(v: unknown, out: string[] = [], depth = 0): string[] {
  if (depth > 6) return out;
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) stringsIn(x, out, depth + 1);
  else if (v !== null && typeof v === 'object') for (const x of Object.values(v)) stringsIn(x, out, depth + 1);
  return out;
}

/** Objects inside the arguments (the arguments first): `{edits: [{path, old, new}…]}` edits several files. */
function objectsIn(v: unknown, out: Record<string, unknown>[] = [], depth = 0): Record<string, unknown>[] {
  if (depth > 4) return out;
  if (Array.isArray(v)) for (const x of v) objectsIn(x, out, depth + 1);
  else if (v !== null && typeof v === 'object') {
    out.push(v as Record<string, unknown>);
    for (const x of Object.values(v)) if (typeof x === 'object') objectsIn(x, out, depth + 1);
  }
  return out;
}

/** Files a patch text names in its headers. */
export function patchChanges(text: string): PathChange[] {
  const out: PathChange[] = [];
  for (const m of text.matchAll(PATCH_HEADER)) {
    const raw = (m[2] ?? m[3] ?? m[4] ?? m[5] ?? '').replace(/\t.*$/, '').trim();
    const p = normalizeTarget(raw);
    if (p === null || p === 'dev/null' || p === '/dev/null' || out.some((c) => c.path === p)) continue;
    out.push({ path: p, op: m[1] === 'Delete' ? 'delete' : m[1] === 'Add' ? 'create' : 'write' });
  }
  return out;
}

/** Whether a text is a diff without file headers (a hunk or -/+ lines). */
export function isHeaderlessDiff(text: string): boolean {
  return HUNK.test(text);
}

/** The file a read or search call opened: a path argument and no content (`read_file`, `view`, `grep {path}`). */
export function openedPath(args: Record<string, unknown>): string | null {
  if (hasKey(args, CONTENT_KEYS)) return null;
  const p = stringAt(args, PATH_KEYS);
  return p === null ? null : normalizeTarget(p);
}

/**
 * Files a structured (non-shell) tool call changes, by the shape of its arguments: a path
 * argument with content, a diff or old/new strings (or an edit sub-command, or an edit-like tool
 * name) is an edit of that path, a destination makes it a move; patch headers in any string name
 * their files; a diff or old/new strings with no path edit the path the assistant named for the
 * call (`named`, the last one) or else the file the preceding read or search opened (`opened`).
 */
export function editorChanges(
  toolName: string,
  args: Record<string, unknown>,
  named: readonly string[] = [],
  opened: string | null = null,
): PathChange[] {
  const subRaw = SUB_KEYS.map((k) => args[k]).find((v) => typeof v === 'string');
  const sub = typeof subRaw === 'string' ? subRaw.toLowerCase() : '';
  const subEdits = EDIT_SUBCOMMANDS.has(sub);
  const subReads = sub !== '' && /^(?:view|read|show|list|search|find|get|cat|open)$/.test(sub);
  const op: ChangeOp =
    DELETE_TOOL.test(toolName) || sub === 'delete'
      ? 'delete'
      : sub === 'create' || /create/i.test(toolName)
        ? 'create'
        : 'write';
  const out: PathChange[] = [];
  const add = (raw: string, o: ChangeOp): void => {
    const p = normalizeTarget(raw);
    if (p !== null && !out.some((c) => c.path === p)) out.push({ path: p, op: o });
  };
  if (!subReads) {
    for (const obj of objectsIn(args)) {
      const path = stringAt(obj, PATH_KEYS);
      const dest = stringAt(obj, DEST_KEYS);
      const isRoot = obj === args;
      // An edit by shape (path + content), by sub-command or, at the top, by the tool's name.
      const edits = hasKey(obj, CONTENT_KEYS) || (isRoot && (subEdits || EDIT_TOOL.test(toolName)));
      if (path !== null && dest !== null && (edits || (isRoot && /move|rename/i.test(toolName + sub)))) {
        add(path, 'delete');
        add(dest, 'move');
      } else if (path !== null && edits) add(path, isRoot ? op : 'write');
    }
  }
  if (out.length > 0) return out;
  for (const v of stringsIn(args)) if (/^(?:\*\*\*|\+\+\+|diff --git) /m.test(v)) out.push(...patchChanges(v));
  if (out.length > 0) return out;
  if (!isPathlessEdit(toolName, args)) return [];
  const target = named.at(-1) ?? opened;
  return target ? [{ path: target, op }] : [];
}

/**
 * An edit call that names no file: a diff or old/new strings, an edit sub-command or an edit-like
 * tool name, and no path argument. It edits the file the call is about (see editorChanges).
 */
export function isPathlessEdit(toolName: string, args: Record<string, unknown>): boolean {
  const subRaw = SUB_KEYS.map((k) => args[k]).find((v) => typeof v === 'string');
  const sub = typeof subRaw === 'string' ? subRaw.toLowerCase() : '';
  if (/^(?:view|read|show|list|search|find|get|cat|open)$/.test(sub)) return false;
  if (objectsIn(args).some((o) => stringAt(o, PATH_KEYS) !== null)) return false;
  return (
    hasKey(args, DIFF_KEYS) ||
    EDIT_SUBCOMMANDS.has(sub) ||
    EDIT_TOOL.test(toolName) ||
    stringsIn(args).some((v) => isHeaderlessDiff(v))
  );
}

/** Files written by a structured editor tool call (OpenHands `str_replace_editor`, `write_file`…). */
export function editorWrittenPaths(toolName: string, args: Record<string, unknown>): string[] {
  return editorChanges(toolName, args)
    .filter((c) => c.op !== 'delete')
    .map((c) => normalizePath(c.path))
    .filter((p) => isPathLike(p));
}

/** Shell commands that open a file for reading: the file a later header-less diff is about. */
const READER = /^(?:cat|head|tail|nl|less|more|bat|view|grep|rg|ag|sed|awk|wc|vim?|nano|code)$/;

type ToolCallLike = { function: { name: string; arguments: string } };

/** The arguments of a tool call as an object (a raw shell line becomes `{command}`). */
export function callArgs(tc: ToolCallLike): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(tc.function.arguments);
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // Not JSON: a shell tool may take the raw command line.
    if (isShellToolName(tc.function.name)) return { command: tc.function.arguments };
  }
  return {};
}

/** A shell command, when the call is one (a `command` string and no path + content shape). */
export function shellCommandOf(name: string, args: Record<string, unknown>): string | null {
  const cmd = ['command', 'cmd', 'script'].map((k) => args[k]).find((v) => typeof v === 'string' && v.trim() !== '');
  if (typeof cmd !== 'string') return null;
  if (/editor|edit_file|write_file|apply_patch/i.test(name)) return null;
  // `{command: "create", path, file_text}` is an editor's sub-command, not a shell line.
  if (stringAt(args, PATH_KEYS) !== null && (hasKey(args, CONTENT_KEYS) || EDIT_SUBCOMMANDS.has(cmd))) return null;
  return cmd;
}

/** The file a call opened for reading, if any (read/view/search calls and shell readers). */
export function callOpened(tc: ToolCallLike): string | null {
  return parsedCall(tc).opened;
}

/** The file a structured (non-shell) call opened: a path argument and no content, and no edit sub-command. */
function openedByArgs(args: Record<string, unknown>): string | null {
  const sub = SUB_KEYS.map((k) => args[k]).find((v) => typeof v === 'string');
  if (typeof sub === 'string' && EDIT_SUBCOMMANDS.has(sub.toLowerCase())) return null;
  return openedPath(args);
}

/** The file a shell command opened: the last file argument of its last reader (`cat`, `grep`, `sed`…). */
function openedByShell(segs: ParsedShell['segs']): string | null {
  let last: string | null = null;
  for (const { seg } of segs) {
    const words = shellWords(seg);
    if (!READER.test(words[0]?.replace(/^.*\//, '') ?? '')) continue;
    const file = words
      .slice(1)
      .filter((w) => !w.startsWith('-'))
      .at(-1);
    if (file !== undefined && /[./]/.test(file)) last = normalizeTarget(file) ?? last;
  }
  return last;
}

/**
 * Files one assistant message's tool calls change: shell commands through `changedPaths`, other
 * tools through `editorChanges` (a path-less edit takes the last path the message named, else the
 * last one the assistant's text just before it named — `namedBefore`: an export that puts the
 * words and the call in two messages — else the file the preceding read or search opened:
 * `opened`). `findNamed` is injected (paths.findPaths) to keep this module free of the prose parser.
 */
export function messageChanges(
  m: { content?: string | null; tool_calls?: readonly { function: { name: string; arguments: string } }[] },
  findNamed: (text: string) => string[],
  opened: string | null = null,
  namedBefore: string | null = null,
): PathChange[] {
  const out: PathChange[] = [];
  let named: string[] | null = null;
  const calls = m.tool_calls ?? [];
  // The file opened before a call: only an editor call reads it, so it is looked up then (the
  // latest call before it that opened one, else `opened`), not parsed for every shell command.
  let lastOpened = opened;
  let seen = 0;
  for (let i = 0; i < calls.length; i++) {
    const tc = calls[i]!;
    const call = parsedCall(tc);
    let changes: readonly PathChange[];
    if (call.shell !== null) changes = call.shell;
    else {
      for (let j = i - 1; j >= seen; j--) {
        const o = parsedCall(calls[j]!).opened;
        if (o !== null) {
          lastOpened = o;
          break;
        }
      }
      seen = i;
      if (named === null) {
        named = findNamed((m.content ?? '').slice(0, 20_000));
        if (named.length === 0 && namedBefore !== null) named = [namedBefore];
      }
      changes = editorChanges(tc.function.name, callArgs(tc), named, lastOpened);
    }
    for (const c of changes) if (!out.some((o) => o.path === c.path)) out.push({ path: c.path, op: c.op });
  }
  return out;
}

/**
 * What messageChanges, callOpened and the ledger read of one tool call: whether it is a shell
 * command (then what the command changes) and the file it opened. Each is parsed once per call
 * object: a compaction's ledger asks for the same calls on every pass. The entry is checked
 * against the call's current name and arguments (compared by value), so a call changed in place
 * is parsed again. The parsed arguments are not kept (an edit's arguments can hold a whole file).
 */
export interface ParsedCall {
  /** The paths the call's shell command changes (changedPaths), or null when it is no shell command (shellCommandOf). */
  readonly shell: readonly PathChange[] | null;
  /** The file the call opened for reading (callOpened); of a shell command, found when first read. */
  readonly opened: string | null;
}
/** A shell command's opened file is found from its simple commands when first asked for (few callers need it). */
class ParsedShellCall implements ParsedCall {
  #segs: ParsedShell['segs'] | null;
  #opened: string | null = null;
  constructor(
    readonly shell: readonly PathChange[],
    segs: ParsedShell['segs'],
  ) {
    this.#segs = segs;
  }
  get opened(): string | null {
    if (this.#segs !== null) {
      this.#opened = openedByShell(this.#segs);
      this.#segs = null;
    }
    return this.#opened;
  }
}
const parsedCalls = new WeakMap<object, { name: string; args: string; parsed: ParsedCall }>();
export function parsedCall(tc: ToolCallLike): ParsedCall {
  const { name, arguments: raw } = tc.function;
  const hit = parsedCalls.get(tc);
  if (hit !== undefined && hit.name === name && hit.args === raw) return hit.parsed;
  const args = callArgs(tc);
  const cmd = shellCommandOf(name, args);
  let parsed: ParsedCall;
  if (cmd === null) parsed = { shell: null, opened: openedByArgs(args) };
  else {
    const shell = parseShell(cmd);
    parsed = new ParsedShellCall(shellChanges(shell), shell.segs);
  }
  parsedCalls.set(tc, { name, args: raw, parsed });
  return parsed;
}
