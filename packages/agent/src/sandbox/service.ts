import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ApprovalPolicy } from '@threadline/protocol';
import type { LeftoverHooks } from './commandGuard';
import { detectSandbox, type DetectOptions, type SandboxInfo } from './detect';
import { homeReadOnlyMounts, sandboxCacheEnv } from './home';
import { NetworkProxy, type CommandNetwork } from './network';
import { envFilesIn, sandboxHiddenPaths, socketPlaces } from './paths';
import type { SandboxHome, WrapInput } from './wrap';

export interface SandboxServiceOptions {
  platform: NodeJS.Platform;
  homeDir: string;
  dataDir: string;
  dbFile: string;
  /** Detection options (a test's PATH, or the sandbox forced off). */
  detect?: DetectOptions;
  /** The git program (its identity is read once for the sandbox's ~/.gitconfig). */
  git?: string;
}

/** What one session's commands get besides their own arguments (Settings and the session's switch). */
export interface SandboxRunOptions {
  /** The domains the session's network allows (null: the network is off). */
  domains: readonly string[] | null;
  /** Folders of the home folder the user lets commands read (Settings). */
  homeFolders: readonly string[];
  /** The login PATH commands run with: its folders under the home folder are readable. */
  loginPath?: string;
}

/** What one sandboxed command needs besides its own arguments. */
export interface SandboxRun {
  info: SandboxInfo;
  /** The named domains it may reach through the proxy (null: no network). */
  domains: readonly string[] | null;
  tmpDir: string | null;
  hidden: string[];
  /** The home folder as commands see it (null: no session home could be made: the disk's, hidden places covered). */
  home: SandboxHome | null;
  /** Folders emptied inside (other programs' sockets). */
  socketPlaces: string[];
  blankFile: string | null;
  /** Variables for tools whose cache must be writable (in the session's home). */
  env: Record<string, string>;
  /** The proxy of this command's domains (call `release` when it ends). */
  connect: () => Promise<CommandNetwork | { error: string }>;
  /** A turn's: what a command leaves that makes code run later is held through it (commandGuard.ts). */
  leftovers?: LeftoverHooks;
  /** The working folder is mounted read-only too (an explore helper's commands: turn/readOnlyCommands.ts). */
  readOnlyFolder?: boolean;
}

/**
 * The sandbox of one runtime: the detection (once, started at once so the first turn has it),
 * what to hide, a private temp folder and home folder per session that live as long as the
 * runtime, and the network proxy (started on first use).
 */
export class SandboxService {
  private readonly found: Promise<SandboxInfo>;
  private known: SandboxInfo | null = null;
  private tmpRoot: string | null = null;
  private readonly gitConfig: Promise<string>;
  private readonly proxy = new NetworkProxy();
  private readonly sockets: { dirs: string[]; files: string[] };

  constructor(private readonly opts: SandboxServiceOptions) {
    this.found = detectSandbox(opts.platform, opts.detect).then((info) => {
      this.known = info;
      return info;
    });
    this.gitConfig = readGitIdentity(opts.homeDir, opts.git ?? 'git');
    this.sockets = socketPlaces(tmpdir(), process.env.XDG_RUNTIME_DIR);
  }

  info(): Promise<SandboxInfo> {
    return this.found;
  }

  /** The detection's answer once it is in (null before: the first few milliseconds). */
  current(): SandboxInfo | null {
    return this.known;
  }

  hidden(): string[] {
    return [
      ...sandboxHiddenPaths({ home: this.opts.homeDir, dataDir: this.opts.dataDir, dbFile: this.opts.dbFile }),
      ...this.sockets.files,
    ];
  }

  private root(): string {
    this.tmpRoot ??= mkdtempSync(path.join(tmpdir(), 'threadline-sandbox-'));
    return this.tmpRoot;
  }

  private dirFor(kind: 'tmp' | 'home', sessionId: string): string | null {
    try {
      const dir = path.join(this.root(), kind, sessionId.replace(/[^A-Za-z0-9_-]/g, '_'));
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      return dir;
    } catch {
      return null;
    }
  }

  /** The session's /tmp (bwrap) or TMPDIR (Seatbelt): kept between its commands, private to this user. */
  tmpDirFor(sessionId: string): string | null {
    return this.dirFor('tmp', sessionId);
  }

  /**
   * An MCP server's own package cache, ~/.cache/threadline/mcp/<id> (not the data folder, which
   * the sandbox hides): kept between starts, so npx does not download the server every time.
   */
  cacheDirFor(serverId: string): string | null {
    try {
      const dir = path.join(this.opts.homeDir, '.cache', 'threadline', 'mcp', serverId.replace(/[^A-Za-z0-9_-]/g, '_'));
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      return dir;
    } catch {
      return null;
    }
  }

  private blankFile: string | null = null;

  /** An empty file no one may read (mode 000), put over hidden files: reading one fails and says so. */
  private blank(): string | null {
    if (this.blankFile !== null) return this.blankFile;
    try {
      const file = path.join(this.root(), 'hidden');
      writeFileSync(file, '', { flag: 'wx' });
      chmodSync(file, 0o000);
      this.blankFile = file;
      return file;
    } catch {
      return null; // /dev/null instead: read as empty
    }
  }

  private async home(sessionId: string, o: SandboxRunOptions): Promise<SandboxHome | null> {
    const sessionHome = this.dirFor('home', sessionId);
    if (sessionHome === null) return null;
    let gitConfig: string | null = null;
    const identity = await this.gitConfig;
    if (identity !== '') {
      gitConfig = path.join(this.root(), 'gitconfig');
      writeFileSync(gitConfig, identity);
    }
    return {
      path: this.opts.homeDir,
      sessionHome,
      readOnly: homeReadOnlyMounts(this.opts.homeDir, o.homeFolders, o.loginPath),
      gitConfig,
    };
  }

  async run(sessionId: string, o: SandboxRunOptions): Promise<SandboxRun> {
    const info = await this.found;
    // Seatbelt's profile denies by path and has no mounts: the home folder stays as it is there.
    const home = info.kind === 'bwrap' ? await this.home(sessionId, o) : null;
    return {
      info,
      domains: o.domains,
      tmpDir: this.tmpDirFor(sessionId),
      hidden: this.hidden(),
      home,
      socketPlaces: this.sockets.dirs,
      blankFile: this.blank(),
      env: home ? sandboxCacheEnv(home.sessionHome) : {},
      connect: () => this.proxy.forCommand(o.domains ?? []),
    };
  }

  dispose(): void {
    if (this.tmpRoot !== null) rmSync(this.tmpRoot, { recursive: true, force: true });
    this.tmpRoot = null;
    this.blankFile = null;
    void this.proxy.dispose();
  }
}

function readGitIdentity(home: string, git: string): Promise<string> {
  const get = (key: string): Promise<string | null> =>
    new Promise((resolve) => {
      execFile(
        git,
        ['config', '--global', '--includes', '--get', key],
        { env: { PATH: process.env.PATH ?? '', HOME: home }, timeout: 5000 },
        (err, stdout) => {
          const v = err ? '' : stdout.trim();
          // Written back into a config file: one line, no quote or backslash to break out with.
          resolve(v !== '' && !/["\\\n\r]/.test(v) ? v : null);
        },
      );
    });
  return Promise.all([get('user.name'), get('user.email')]).then(([name, email]) => {
    const lines = ['[user]'];
    if (name !== null) lines.push(`\tname = "${name}"`);
    if (email !== null) lines.push(`\temail = "${email}"`);
    return lines.length > 1 ? lines.join('\n') + '\n' : '';
  });
}

/**
 * What a run adds to a command's WrapInput: the home, the socket places, the hidden places with
 * the working folder's `.env` files among them.
 */
export function runInput(
  run: SandboxRun,
  folder: string,
): Pick<WrapInput, 'tmpDir' | 'hidden' | 'socketPlaces' | 'blankFile'> & { home?: SandboxHome } {
  return {
    tmpDir: run.tmpDir,
    hidden: [...run.hidden, ...envFilesIn(folder)],
    socketPlaces: run.socketPlaces,
    blankFile: run.blankFile,
    ...(run.home ? { home: run.home } : {}),
  };
}

/**
 * The system prompt's sentence about commands: whether they run sandboxed (and where they may
 * write), what they cannot see, whether the network is on and to which domains, and how to leave
 * the sandbox.
 */
export function commandsSentence(
  policy: ApprovalPolicy,
  info: SandboxInfo | null,
  /** The session's network (null: off), asked only when the sentence names it. */
  network: () => readonly string[] | null,
): string {
  if (policy === 'deny') return 'Commands (shell): not allowed in this session.';
  if (policy === 'auto') return 'Commands (shell) run without a sandbox and without asking the user.';
  if (policy === 'ask') return 'Commands (shell) run without a sandbox, each after the user approves it.';
  if (info === null || info.kind === 'none')
    return 'Commands (shell): no OS sandbox on this machine, so each command asks the user before it runs.';
  const domains = network();
  return [
    `Commands (shell) run without asking inside an OS sandbox (${info.kind === 'bwrap' ? 'bubblewrap' : 'Seatbelt'}):`,
    'they can write only the working folder and $TMPDIR, which is kept between commands (not /tmp: it is empty and gone after each command); .git/config, .git/hooks and other protected paths are read-only;',
    info.kind === 'bwrap'
      ? "the home folder is hidden except toolchains (read-only); the user's credentials, shell histories, the folder's .env files and Threadline's data are not readable; no unix socket outside can be opened;"
      : "the user's credentials and Threadline's data are not readable;",
    domains === null
      ? 'the network is OFF for this session.'
      : `the network is ON for this session, through a proxy, only to: ${domains.join(', ')}.`,
    'If a command fails because of the sandbox, call shell again with "sandbox": false; the user is asked to approve running it outside.',
  ].join(' ');
}
