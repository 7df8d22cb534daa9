/**
 * The pre-tool command gate (SPEC §5, seed 000 §10): rewrite known-folder probes in a shell
 * command to the path memory already holds. Rewrite-and-run, never block: every guard that
 * fails returns the call unchanged with the reason.
 */
import type { MemoryFact, VisibilityLevel } from '@threadline/protocol';
import { isActiveFact } from '../memory/merge';
import { isShellToolName } from '../memory/shellTool';
import { formatGateNotice } from './notice';
import { FOLDER_ALIASES, findProbes, type KnownFolder, type ProbeMatch, type ProbeShell } from './probes';
import { asksToReverify } from './reverify';

export type GatePlatform = 'win32' | 'posix';

export interface ToolGateInput {
  toolName: string;
  /** The tool call's parsed arguments. */
  args: Record<string, unknown>;
  facts: readonly MemoryFact[];
  lastUserMessage?: string | null;
  strategy: string;
  /** `cfpm.preToolGate`. */
  enabled: boolean;
  /** `cfpm.toolGateVisibility`; null/undefined falls back to `runtimeVisibility`. */
  visibility?: VisibilityLevel | string | null;
  runtimeVisibility?: VisibilityLevel | string;
  /** Injected existence check (the engine does no I/O). */
  fileExists: (path: string) => boolean;
  /** The shell's platform; probes of the other family (a POSIX probe on win32…) are left alone. */
  platform?: GatePlatform;
}

export type GateSkipReason =
  | 'strategy_not_cfpm'
  | 'gate_disabled'
  | 'not_shell_tool'
  | 'no_command'
  | 'no_probe'
  | 'explicit_absolute_path'
  | 'reverify_requested'
  | 'no_known_path'
  | 'untrusted_fact'
  | 'path_known_invalid'
  | 'path_missing'
  | 'unsafe_path'
  | 'error';

export interface ToolGateResult {
  rewritten: boolean;
  args: Record<string, unknown>;
  command: string | null;
  notice: string | null;
  reason?: GateSkipReason | 'rewritten';
  target?: KnownFolder;
  path?: string;
}

const COMMAND_KEYS = ['command', 'cmd', 'script'] as const;
const WINDOWS_ABS = /^(?:[A-Za-z]:[\\/]|\\\\[^\\]+\\)/;

/** A fact is trusted when a person made or confirmed it, or evidence backs it (SPEC §5). */
export function isTrustedFact(f: MemoryFact): boolean {
  return f.source === 'user' || f.pinned || f.lastValidatedAt !== null || f.evidenceCount >= 2 || f.confidence >= 0.85;
}

function canon(p: string): string {
  return p.replace(/\\/g, '/').replace(/\/+$/, '').toLowerCase();
}

/** The folder path a fact names for `target` (the fact may be the folder or a file inside it). */
export function folderFromFact(content: string, target: KnownFolder): string | null {
  const p = content.trim();
  if (!WINDOWS_ABS.test(p) && !p.startsWith('/')) return null;
  const sep = WINDOWS_ABS.test(p) ? /[\\/]/ : /\//;
  const parts = p.split(sep);
  const aliases = FOLDER_ALIASES[target];
  for (let i = parts.length - 1; i > 0; i--) {
    if (aliases.includes(parts[i]!.toLowerCase())) {
      const joiner = WINDOWS_ABS.test(p) && p.includes('\\') ? '\\' : '/';
      return parts.slice(0, i + 1).join(joiner);
    }
  }
  return null;
}

function hasExplicitAbsolutePath(command: string, probes: ProbeMatch[]): boolean {
  let rest = command;
  // The probe becomes a plain word, so `~/Desktop/x` leaves `PROBE/x`, not an absolute `/x`.
  for (const p of probes) rest = rest.split(p.text).join('PROBE');
  if (/(?<![\w$%:])[A-Za-z]:[\\/]/.test(rest) || /(?:^|[\s'"=(])\\\\\w/.test(rest)) return true;
  // `/x` is a flag in cmd and PowerShell; only POSIX probes make it an absolute path.
  if (probes.some((p) => p.shell === 'posix')) return /(?:^|[\s'"=(<>])\/(?!dev\/null\b)[\w.~-]/.test(rest);
  return false;
}

/**
 * The quote that is open at `index` in a command of `shell`. cmd has no single quotes (a `'` is a
 * literal there); POSIX escapes with `\\` and PowerShell with a backtick, except inside single
 * quotes, where nothing is special.
 */
export function quoteState(command: string, index: number, shell: ProbeShell = 'posix'): '"' | "'" | null {
  const escape = shell === 'posix' ? '\\' : shell === 'powershell' ? '`' : null;
  let q: '"' | "'" | null = null;
  for (let i = 0; i < index; i++) {
    const c = command[i];
    if (c === escape && q !== "'") i++;
    else if (q === null && (c === '"' || (c === "'" && shell !== 'cmd'))) q = c;
    else if (c === q) q = null;
  }
  return q;
}

/**
 * PowerShell and POSIX shells expand nothing inside single quotes: `echo '~/Desktop'` prints those
 * characters, so rewriting it would change what the command does. cmd expands %VAR% everywhere.
 */
export function isLiteralText(command: string, probe: ProbeMatch): boolean {
  if (probe.shell === 'cmd') return false;
  // An escaped `\$HOME` (POSIX) or `` `$HOME `` (PowerShell) is literal text too.
  if (command[probe.index - 1] === (probe.shell === 'posix' ? '\\' : '`')) return true;
  return quoteState(command, probe.index, probe.shell) === "'";
}

/** The replacement text for one probe, or null when it cannot be written safely. */
function replacementFor(command: string, probe: ProbeMatch, path: string): string | null {
  if (/["'`$%\r\n]/.test(path)) return null;
  const inQuotes = quoteState(command, probe.index, probe.shell);
  if (inQuotes !== null) return probe.expression ? null : path;
  const needsQuotes = probe.expression || /[\s&()<>|;^,]/.test(path);
  if (!needsQuotes) return path;
  const next = command[probe.index + probe.text.length];
  if (next === '\\' || next === '/') return null; // `'C:\A B\Desktop'\x` is not one word everywhere
  return probe.shell === 'cmd' ? `"${path}"` : `'${path}'`;
}

function unchanged(args: Record<string, unknown>, command: string | null, reason: GateSkipReason): ToolGateResult {
  return { rewritten: false, args, command, notice: null, reason };
}

export function applyToolGate(input: ToolGateInput): ToolGateResult {
  const key = COMMAND_KEYS.find((k) => typeof input.args[k] === 'string');
  const command = key !== undefined ? (input.args[key] as string) : null;
  try {
    if (input.strategy !== 'cfpm_memory_v1') return unchanged(input.args, command, 'strategy_not_cfpm');
    if (!input.enabled) return unchanged(input.args, command, 'gate_disabled');
    if (!isShellToolName(input.toolName)) return unchanged(input.args, command, 'not_shell_tool');
    if (key === undefined || command === null || command.trim() === '')
      return unchanged(input.args, command, 'no_command');
    const probes = findProbes(command).filter((p) => !isLiteralText(command, p));
    if (probes.length === 0) return unchanged(input.args, command, 'no_probe');
    if (hasExplicitAbsolutePath(command, probes)) return unchanged(input.args, command, 'explicit_absolute_path');
    if (asksToReverify(input.lastUserMessage)) return unchanged(input.args, command, 'reverify_requested');

    const invalid = input.facts
      .filter((f) => f.category === 'invalid_path' && isActiveFact(f))
      .map((f) => canon(f.content));
    const resolved = new Map<ProbeMatch, string>();
    let firstFailure: GateSkipReason | null = null;
    const fail = (r: GateSkipReason): void => void (firstFailure ??= r);
    for (const probe of probes) {
      // The replacement path has the probe shell's style; a platform hint that disagrees
      // (a POSIX probe on win32, a cmd probe on posix) means no path we know fits.
      const wantWindows = probe.shell !== 'posix';
      if (input.platform !== undefined && (input.platform === 'win32') !== wantWindows) {
        fail('no_known_path');
        continue;
      }
      const known = input.facts
        .filter((f) => f.category === 'artifact' && isActiveFact(f))
        .map((f) => ({ f, path: folderFromFact(f.content, probe.target) }))
        .filter(
          (x): x is { f: MemoryFact; path: string } => x.path !== null && WINDOWS_ABS.test(x.path) === wantWindows,
        );
      if (known.length === 0) {
        fail('no_known_path');
        continue;
      }
      const trusted = known.filter((x) => isTrustedFact(x.f));
      if (trusted.length === 0) {
        fail('untrusted_fact');
        continue;
      }
      trusted.sort(
        (a, b) =>
          Number(b.f.pinned) - Number(a.f.pinned) ||
          Number(b.f.source === 'user') - Number(a.f.source === 'user') ||
          b.f.evidenceCount - a.f.evidenceCount,
      );
      const valid = trusted.filter(
        (x) => !invalid.some((bad) => canon(x.path) === bad || canon(x.path).startsWith(`${bad}/`)),
      );
      if (valid.length === 0) {
        fail('path_known_invalid');
        continue;
      }
      const existing = valid.find((x) => input.fileExists(x.path));
      if (existing === undefined) {
        fail('path_missing');
        continue;
      }
      const text = replacementFor(command, probe, existing.path);
      if (text === null) {
        fail('unsafe_path');
        continue;
      }
      resolved.set(probe, text);
    }
    if (resolved.size === 0) return unchanged(input.args, command, firstFailure ?? 'no_known_path');

    let out = '';
    let at = 0;
    for (const probe of probes) {
      const text = resolved.get(probe);
      if (text === undefined || probe.index < at) continue;
      out += command.slice(at, probe.index) + text;
      at = probe.index + probe.text.length;
    }
    out += command.slice(at);
    const first = probes.find((p) => resolved.has(p))!;
    const path = resolved.get(first)!.replace(/^['"]|['"]$/g, '');
    const notice = formatGateNotice(
      { tool: input.toolName, target: first.target, path, originalCommand: command, rewrittenCommand: out },
      input.visibility,
      input.runtimeVisibility ?? 'brief',
    );
    return {
      rewritten: true,
      args: { ...input.args, [key]: out },
      command: out,
      notice,
      reason: 'rewritten',
      target: first.target,
      path,
    };
  } catch {
    return unchanged(input.args, command, 'error');
  }
}
