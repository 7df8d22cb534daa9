import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ApprovalPolicy } from '@threadline/protocol';
import type { LeftoverHooks } from './commandGuard';
import { detectSandbox, type DetectOptions, type SandboxInfo } from './detect';
import { sandboxHiddenPaths } from './paths';

export interface SandboxServiceOptions {
  platform: NodeJS.Platform;
  homeDir: string;
  dataDir: string;
  dbFile: string;
  /** Detection options (a test's PATH, or the sandbox forced off). */
  detect?: DetectOptions;
}

/** What one sandboxed command needs besides its own arguments. */
export interface SandboxRun {
  info: SandboxInfo;
  network: boolean;
  tmpDir: string | null;
  hidden: string[];
  /** A turn's: what a command leaves that makes code run later is held through it (commandGuard.ts). */
  leftovers?: LeftoverHooks;
}

/**
 * The sandbox of one runtime: the detection (once, started at once so the first turn has it),
 * what to hide, and a private temp folder per session that lives as long as the runtime.
 */
export class SandboxService {
  private readonly found: Promise<SandboxInfo>;
  private known: SandboxInfo | null = null;
  private tmpRoot: string | null = null;

  constructor(private readonly opts: SandboxServiceOptions) {
    this.found = detectSandbox(opts.platform, opts.detect).then((info) => {
      this.known = info;
      return info;
    });
  }

  info(): Promise<SandboxInfo> {
    return this.found;
  }

  /** The detection's answer once it is in (null before: the first few milliseconds). */
  current(): SandboxInfo | null {
    return this.known;
  }

  hidden(): string[] {
    return sandboxHiddenPaths({ home: this.opts.homeDir, dataDir: this.opts.dataDir, dbFile: this.opts.dbFile });
  }

  /** The session's /tmp (bwrap) or TMPDIR (Seatbelt): kept between its commands, private to this user. */
  tmpDirFor(sessionId: string): string | null {
    try {
      this.tmpRoot ??= mkdtempSync(path.join(tmpdir(), 'threadline-sandbox-'));
      const dir = path.join(this.tmpRoot, sessionId.replace(/[^A-Za-z0-9_-]/g, '_'));
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      return dir;
    } catch {
      return null; // an empty /tmp of its own for each command instead
    }
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

  async run(network: boolean, sessionId: string): Promise<SandboxRun> {
    return { info: await this.found, network, tmpDir: this.tmpDirFor(sessionId), hidden: this.hidden() };
  }

  dispose(): void {
    if (this.tmpRoot !== null) rmSync(this.tmpRoot, { recursive: true, force: true });
    this.tmpRoot = null;
  }
}

/**
 * The system prompt's sentence about commands: whether they run sandboxed (and where they may
 * write), whether the network is on, and how to leave the sandbox.
 */
export function commandsSentence(
  policy: ApprovalPolicy,
  info: SandboxInfo | null,
  /** The session's network switch, asked only when the sentence names it. */
  network: () => boolean,
): string {
  if (policy === 'deny') return 'Commands (shell): not allowed in this session.';
  if (policy === 'auto') return 'Commands (shell) run without a sandbox and without asking the user.';
  if (policy === 'ask') return 'Commands (shell) run without a sandbox, each after the user approves it.';
  if (info === null || info.kind === 'none')
    return 'Commands (shell): no OS sandbox on this machine, so each command asks the user before it runs.';
  return [
    `Commands (shell) run without asking inside an OS sandbox (${info.kind === 'bwrap' ? 'bubblewrap' : 'Seatbelt'}):`,
    'they can write only the working folder and /tmp; .git/config, .git/hooks and other protected paths are read-only;',
    "the user's credentials and Threadline's data are not visible;",
    network() ? 'the network is ON for this session.' : 'the network is OFF for this session.',
    'If a command fails because of the sandbox, call shell again with "sandbox": false; the user is asked to approve running it outside.',
  ].join(' ');
}
