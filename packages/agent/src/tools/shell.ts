import { spawn, type ChildProcess } from 'node:child_process';
import { homedir } from 'node:os';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import * as z from 'zod';
import { errorMessage } from '@threadline/protocol';
import { childEnv, withoutSocketEnv } from '../process/childEnv';
import { gitRefusalHint, guardCommand, hiddenSettingsNote, sandboxFailureNote, wrapCommand } from '../sandbox';
import { runInput } from '../sandbox/service';
import { PROXY_PORT_INSIDE, type CommandNetwork } from '../sandbox/network';
import { expandHome } from '../workspace/resolve';
import { redactCredentials } from '../workspace/redact';
import { toolParameters } from './schema';
import type { ToolContext, ToolDefinition, ToolResult } from './types';

/**
 * Capture cap in memory: beyond it the head is kept and the cut is marked. The stored full output
 * is capped again (1 MiB of UTF-8) by the engine.
 */
export const SHELL_CAPTURE_CAP = 2 * 1024 * 1024;

const ShellArgs = z.object({
  command: z.string().min(1).describe('The command line to run.'),
  cwd: z.string().optional().describe('Working directory (defaults to the session working directory).'),
  timeoutSec: z.number().positive().max(3600).optional().describe('Timeout in seconds (default 120).'),
  /** false: run outside the OS sandbox (asks the user first). */
  sandbox: z
    .boolean()
    .optional()
    .describe(
      'Set to false only to re-run a command that the OS sandbox stopped (a read-only file system, no network): it then runs outside the sandbox after the user approves.',
    ),
});
type ShellArgs = z.infer<typeof ShellArgs>;

/**
 * Never a login shell: the login environment was read once (process/loginEnv.ts), so a profile
 * costs nothing per command and prints nothing into its output.
 */
function shellCommand(platform: NodeJS.Platform, command: string): { file: string; args: string[] } {
  if (platform === 'win32')
    return { file: 'powershell.exe', args: ['-NoProfile', '-NonInteractive', '-Command', command] };
  return { file: 'bash', args: ['-c', command] };
}

/** Kills the whole process group so a `sleep` started by bash dies with it. */
function killTree(child: ChildProcess, platform: NodeJS.Platform): void {
  if (child.pid === undefined || child.exitCode !== null) return;
  try {
    if (platform === 'win32')
      spawn('taskkill', ['/pid', String(child.pid), '/T', '/F'], { stdio: 'ignore', env: childEnv() });
    else process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

export async function runShell(args: ShellArgs, ctx: ToolContext): Promise<ToolResult> {
  const bare = shellCommand(ctx.platform, args.command);
  // A relative cwd is taken from the session's folder, not from the app's own directory.
  const cwd = args.cwd !== undefined ? path.resolve(ctx.cwd, expandHome(args.cwd, homedir())) : ctx.cwd;
  const base = ctx.loginShell !== false && ctx.loginEnv ? await ctx.loginEnv() : process.env;
  const sandbox = ctx.sandbox;
  // The folder's git surface and protected paths, at any depth, read-only; what the command
  // leaves that makes code run later is held after it (sandbox/commandGuard.ts).
  const guard = sandbox ? await guardCommand(ctx.cwd, ctx.platform, sandbox.leftovers ?? null) : null;
  // The session's named domains, through the proxy (registered for this command while it runs).
  let net: CommandNetwork | null = null;
  let netError: string | null = null;
  if (sandbox?.domains && sandbox.info.kind === 'bwrap') {
    if (!sandbox.info.socat) netError = 'socat, which relays commands to the proxy, is not installed';
    else {
      const got = await sandbox.connect();
      if ('error' in got) netError = got.error;
      else net = got;
    }
  }
  const wrapped = sandbox
    ? wrapCommand(sandbox.info, {
        command: bare.file,
        args: bare.args,
        cwd,
        folder: ctx.cwd,
        // An explore helper's command: the whole folder read-only too (mounted after, so it wins).
        readOnlyInside: [...(guard?.readOnly ?? []), ...(sandbox.readOnlyFolder ? [ctx.cwd] : [])],
        pinned: guard?.pinned ?? [],
        pathDirs: (base.PATH ?? '').split(path.delimiter),
        network: false,
        ...runInput(sandbox, ctx.cwd),
        ...(net && sandbox.info.socat
          ? { proxy: { socket: net.socket, socat: sandbox.info.socat, port: PROXY_PORT_INSIDE } }
          : {}),
      })
    : null;
  const env = sandbox
    ? { ...withoutSocketEnv(childEnv(base, ctx.envPassthrough ?? [])), ...sandbox.env, ...net?.env, ...wrapped?.env }
    : childEnv(base, ctx.envPassthrough ?? []);
  const file = wrapped?.command ?? bare.file;
  const argv = wrapped?.args ?? bare.args;
  const timeoutMs = args.timeoutSec !== undefined ? args.timeoutSec * 1000 : ctx.shellTimeoutMs;
  const started = Date.now();
  const result = await new Promise<ToolResult>((resolve) => {
    let out = '';
    let capped = false;
    // One decoder per stream: a multi-byte character split across two chunks is joined, not
    // turned into two replacement characters.
    const decoders = { out: new StringDecoder('utf8'), err: new StringDecoder('utf8') };
    const append = (text: string): void => {
      if (capped || text === '') return;
      out += text;
      if (out.length > SHELL_CAPTURE_CAP) {
        out = out.slice(0, SHELL_CAPTURE_CAP) + `\n…output capped at ${SHELL_CAPTURE_CAP} chars…`;
        capped = true;
      }
    };
    let child: ChildProcess;
    try {
      child = spawn(file, argv, {
        cwd,
        detached: ctx.platform !== 'win32',
        stdio: ['ignore', 'pipe', 'pipe'],
        env,
      });
    } catch (err) {
      net?.release();
      resolve({ ok: false, content: `failed to start shell: ${(err as Error).message}` });
      return;
    }
    // Recorded while it runs: after a crash the next start ends the whole group (crash hygiene).
    const forget =
      child.pid !== undefined
        ? (ctx.onSpawn?.({
            pid: child.pid,
            pgid: ctx.platform === 'win32' ? null : child.pid,
            command: args.command,
          }) ?? (() => {}))
        : () => {};
    let reason: 'timeout' | 'aborted' | null = null;
    const timer = setTimeout(() => {
      reason = 'timeout';
      killTree(child, ctx.platform);
    }, timeoutMs);
    const onAbort = (): void => {
      reason = 'aborted';
      killTree(child, ctx.platform);
    };
    if (ctx.signal.aborted) onAbort();
    else ctx.signal.addEventListener('abort', onAbort, { once: true });
    child.stdout?.on('data', (c: Buffer) => append(decoders.out.write(c)));
    child.stderr?.on('data', (c: Buffer) => append(decoders.err.write(c)));
    child.on('error', (err) => {
      net?.release();
      forget();
      clearTimeout(timer);
      ctx.signal.removeEventListener('abort', onAbort);
      resolve({ ok: false, content: `failed to run command: ${err.message}` });
    });
    child.on('close', (code, sig) => {
      net?.release();
      forget();
      clearTimeout(timer);
      ctx.signal.removeEventListener('abort', onAbort);
      append(decoders.out.end());
      append(decoders.err.end());
      const durationMs = Date.now() - started;
      let tail: string;
      if (reason === 'timeout') tail = `command timed out after ${Math.round(timeoutMs / 1000)} s and was killed`;
      else if (reason === 'aborted') tail = 'command aborted by the user';
      else tail = `exit code: ${code ?? sig ?? 'unknown'}`;
      let content = (out.endsWith('\n') || out === '' ? out : out + '\n') + tail;
      // The sandbox stopped it (as far as its messages tell): the model learns the rule and how to leave it.
      const note =
        sandbox && reason === null
          ? sandboxFailureNote(code, out, { domains: sandbox.domains, home: sandbox.home?.path ?? null, netError })
          : null;
      if (note) content += `\n${note}`;
      const settings = sandbox ? hiddenSettingsNote(args.command, sandbox.home?.path ?? null) : null;
      if (settings) content += `\n${settings}`;
      const meta: Record<string, unknown> = { exitCode: code, durationMs, killed: reason };
      if (sandbox) meta.sandboxed = sandbox.info.kind;
      // `git remote -v`, `git config -l`, `cat .git/config`: a token in a remote URL is not passed on.
      resolve({ ok: reason === null && code === 0, content: redactCredentials(content), meta });
    });
  });
  if (!guard) return result;
  // After the command (whatever its end): what it left that makes code run later is held.
  const left = await guard.finish().catch((err: unknown) => ({
    held: [],
    later: [],
    note: `[held] Looking at what the command left failed (${errorMessage(err)}): anything it created stays in the folder.`,
  }));
  const notes = [result.ok ? null : gitRefusalHint(result.content), left.note].filter((n) => n);
  if (notes.length === 0) return result;
  const meta = { ...result.meta };
  if (left.held.length > 0) meta.held = left.held.map((f) => f.path);
  if (left.later.length > 0) meta.heldAtTurnEnd = left.later.map((l) => l.path);
  return { ...result, content: `${result.content}\n${notes.join('\n')}`, meta };
}

export const shellTool: ToolDefinition<ShellArgs> = {
  name: 'shell',
  description:
    "Run a shell command (bash -c with the user's login environment on Linux/macOS, PowerShell on Windows) and return its combined stdout/stderr and exit code. Long outputs are truncated; use read_tool_output to page through the full text.",
  parameters: toolParameters(ShellArgs),
  readOnly: false,
  args: ShellArgs,
  run: runShell,
  sandbox: { outside: (a) => a.sandbox === false },
  command: (a) => ({ line: a.command, ...(a.cwd !== undefined ? { cwd: a.cwd } : {}) }),
};
