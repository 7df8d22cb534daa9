import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * Telling the model, under a command's output, that the sandbox (not the command) stopped
 * something, with the true rule and how to ask to run outside. Only a hint (the user decides on
 * the card), so a false positive costs one sentence; a miss costs a model that works around a
 * wall it cannot see. The output is read whatever the exit code: `curl … | head` fails in the
 * pipeline and exits 0.
 */
export type SandboxStop = 'write' | 'hidden' | 'socket' | 'network' | 'host';

const WRITE = /read-only file system|\bEROFS\b|device or resource busy|\bEBUSY\b/i;
const DENIED = /permission denied|operation not permitted|\bEACCES\b|\bEPERM\b/i;
const MISSING = /no such file or directory|\bENOENT\b|cannot access|not found/i;
const SOCKET =
  /could not open a connection to your authentication agent|error connecting to agent|cannot connect to the docker daemon|failed to connect to (the )?(socket|bus)|unable to autolaunch a dbus-daemon|cannot autolaunch d-bus|can't open display|cannot open display|AF_UNIX|unix socket|\bunix:\/\/|connect EPERM/i;
const HOST =
  /\b403\b.*(proxy|CONNECT)|(proxy|CONNECT).*\b403\b|blocked-by-sandbox-runtime|blocked by network allowlist|host is not on the allow list|connection not allowed by ruleset/i;
const NETWORK =
  /temporary failure in name resolution|could not resolve host|name or service not known|network is unreachable|\bENETUNREACH\b|\bEAI_AGAIN\b|\bENOTFOUND\b|getaddrinfo|connection refused|\bECONNREFUSED\b|couldn't connect to server|failed to connect/i;

/** Absolute or ~ paths a line names (quoted or bare), as candidates for "a hidden path". */
function pathsIn(line: string, home: string | null): string[] {
  const out: string[] = [];
  for (const m of line.matchAll(/(?:^|[\s'"`‘’(=:])((?:~|\/)[^\s'"`‘’():,]+)/g)) {
    const raw = m[1]!;
    out.push(raw.startsWith('~') ? (home !== null ? path.join(home, raw.slice(1)) : raw) : raw);
  }
  return out;
}

export interface FailureContext {
  /** The session's named domains (null: no network). */
  domains: readonly string[] | null;
  /** The home folder commands cannot see (null: not hidden). */
  home: string | null;
  /** Why the proxy could not be reached for this command, if it could not. */
  netError?: string | null;
}

/** Words around a refused socket: the call (python's traceback, socat's log), the services behind one. */
const SOCKET_CONTEXT = /\bsocket\b|AF_UNIX|unix:|connecting to agent|d-?bus|display/i;
/** A `.env` file named in a line (relative or not): the sandbox hides them in the working folder. */
const ENV_FILE = /(^|[\s'"`‘/(:])\.env[\w.-]*/;

/** What stopped the command, as far as its output tells (null: nothing the sandbox did). */
export function sandboxFailure(exitCode: number | null, output: string, ctx: FailureContext): SandboxStop | null {
  const lines = output.split('\n');
  const failed = exitCode !== 0;
  // seccomp refuses socket(AF_UNIX) with EPERM: the error and the socket are often on different lines.
  const refusedSocket = lines.some((l) => DENIED.test(l)) && SOCKET_CONTEXT.test(output);
  for (const line of lines) {
    if (HOST.test(line)) return 'host';
    if (WRITE.test(line)) return 'write';
    if (SOCKET.test(line) && (failed || DENIED.test(line))) return 'socket';
    if (DENIED.test(line) && ENV_FILE.test(line)) return 'hidden';
    // A path the command could not find or open that exists outside: hidden by the sandbox.
    if ((MISSING.test(line) || DENIED.test(line)) && ctx.home !== null) {
      const hidden = pathsIn(line, ctx.home).some((p) => p.startsWith(ctx.home! + path.sep) && existsSync(p));
      if (hidden) return 'hidden';
    }
  }
  if (refusedSocket) return 'socket';
  // A network error is the sandbox's whatever the exit code (the last command of a pipeline decides it).
  if (lines.some((l) => NETWORK.test(l))) return 'network';
  if (failed && lines.some((l) => DENIED.test(l))) return 'write';
  return null;
}

const ASK =
  'If the task needs it, call shell again with the same command and "sandbox": false; the user is then asked to approve running it outside the sandbox.';

/** The sentence the model reads under the output for one kind of stop. */
export function sandboxFailureHint(what: SandboxStop, ctx: FailureContext): string {
  const net =
    ctx.domains === null
      ? 'the network is off for this session'
      : `the network is on only through a proxy to: ${ctx.domains.join(', ')}`;
  const cause: Record<SandboxStop, string> = {
    write:
      'a write the sandbox refused: commands may write only the working folder and $TMPDIR, kept between commands (/tmp is an empty folder of each command\'s own, gone after it; the rest of the disk is read-only); .git/config, .git/hooks, the other protected paths and ~/.gitconfig are read-only ("Read-only file system" or "Device or resource busy")',
    hidden:
      "a path the sandbox hides: the home folder is not shared except toolchains (read-only) and the folders the user added in Settings, and credentials, shell histories, browser profiles, other agents' files and the folder's .env files are never readable",
    socket:
      'a unix socket outside the sandbox (ssh-agent, the session bus, X11, docker): none can be opened from inside',
    host: `a host the proxy refused: ${net}; the user can add a domain to the session's network list`,
    network: `a network error: ${net}${ctx.netError ? ` (the proxy could not start: ${ctx.netError})` : ''}`,
  };
  return `[sandbox] This command ran in Threadline's OS sandbox and hit ${cause[what]}. ${ASK}`;
}

/** The hint for a command's output, or null when nothing in it points at the sandbox. */
export function sandboxFailureNote(exitCode: number | null, output: string, ctx: FailureContext): string | null {
  const what = sandboxFailure(exitCode, output, ctx);
  return what === null ? null : sandboxFailureHint(what, ctx);
}

/**
 * Tools' settings files the sandbox hides (they can hold credentials), with the tool that reads
 * them: a command that uses the tool is told it runs with its defaults, rather than finding out
 * from a different index or registry.
 */
const HIDDEN_SETTINGS: { re: RegExp; tool: string; files: string[] }[] = [
  { re: /\b(pip3?|uv|pipx|poetry)\b/, tool: 'pip', files: ['.config/pip/pip.conf', '.pip/pip.conf', '.pypirc'] },
  { re: /\b(npm|npx|pnpm|yarn)\b/, tool: 'npm', files: ['.npmrc', '.yarnrc.yml'] },
  { re: /\b(mvn|gradle|gradlew)\b/, tool: 'maven/gradle', files: ['.m2/settings.xml', '.gradle/gradle.properties'] },
  { re: /\bdocker\b/, tool: 'docker', files: ['.docker/config.json'] },
  { re: /\bcargo\b/, tool: 'cargo', files: ['.cargo/credentials.toml', '.cargo/credentials'] },
];

/** Said under a command that uses a tool whose settings the sandbox hides (null: none apply). */
export function hiddenSettingsNote(command: string, home: string | null): string | null {
  if (home === null) return null;
  const hits = HIDDEN_SETTINGS.filter((h) => h.re.test(command)).flatMap((h) =>
    h.files.filter((f) => existsSync(path.join(home, f))).map((f) => `~/${f} (${h.tool})`),
  );
  if (hits.length === 0) return null;
  return `[sandbox] Hidden from this sandboxed command because they can hold credentials: ${hits.join(', ')}; the tool ran with its defaults (another index or registry, no login). To use them, run the command with "sandbox": false (the user is asked).`;
}
