import { randomBytes } from 'node:crypto';
import { proxyEnv } from './wrap';

type Manager = (typeof import('@anthropic-ai/sandbox-runtime'))['SandboxManager'];
/** Loaded on first use: the package takes about a second to import, which no start should wait for. */
let manager: Promise<Manager> | null = null;
const loadManager = (): Promise<Manager> =>
  (manager ??= import('@anthropic-ai/sandbox-runtime').then((m) => m.SandboxManager));

/**
 * The network of sandboxed commands: none, or named domains through sandbox-runtime's proxy (an
 * HTTP CONNECT + SOCKS5 proxy on the host that allows a connection only to a listed domain, and
 * never to this machine's own or local addresses, whatever a listed name resolves to). A command
 * has no network namespace of its own but the loopback: its only way out is the proxy's unix
 * socket, bound into the sandbox and reached through a relay started before the seccomp filter
 * (wrap.ts commandArgs). The proxy serves the whole process; each command presents a random id of
 * its own (in its proxy URL's user name) under which its session's list is registered while it
 * runs, and the proxy's token (its password). A command can only read its own environment, so it
 * cannot borrow another session's list.
 */

/** The port of the relay inside the sandbox (its own network namespace: nothing else is there). */
export const PROXY_PORT_INSIDE = 3128;

/** What one command gets: the proxy's socket and variables, and what to call when it has ended. */
export interface CommandNetwork {
  socket: string;
  env: Record<string, string>;
  release: () => void;
}

let users = 0;
let starting: Promise<void> | null = null;

/**
 * The proxy of this process: started on first use (its host-side relay is socat, so it needs
 * `socat`, and sandbox-runtime checks for `rg` too), shared by every runtime, stopped by the last.
 */
export class NetworkProxy {
  private started = false;

  private async start(): Promise<Manager> {
    const SandboxManager = await loadManager();
    if (!this.started) {
      this.started = true;
      users++;
    }
    // A start that failed (no socat, no rg) is tried again by the next command.
    starting ??= SandboxManager.initialize({
      // Nothing allowed for everyone: each command's list is registered for it alone.
      network: { allowedDomains: [], deniedDomains: [] },
      // Its file system rules are not used: Threadline's own bwrap arguments are (wrap.ts).
      filesystem: { denyRead: [], allowWrite: [], denyWrite: [] },
    }).catch((err: unknown) => {
      starting = null;
      throw err;
    });
    await starting;
    return SandboxManager;
  }

  /** The network of one command allowed `domains`, or why the proxy could not start. */
  async forCommand(domains: readonly string[]): Promise<CommandNetwork | { error: string }> {
    let SandboxManager: Manager;
    try {
      SandboxManager = await this.start();
    } catch (err) {
      return { error: err instanceof Error ? err.message : String(err) };
    }
    const socket = SandboxManager.getLinuxHttpSocketPath();
    const token = SandboxManager.getProxyAuthToken();
    if (socket === undefined || token === undefined) return { error: 'the network proxy did not start' };
    // 128 random bits: what binds a connection to this list (sandbox-runtime's attribution id).
    const id = randomBytes(16).toString('base64url');
    SandboxManager.registerCommandNetworkLists(id, { allowedDomains: [...domains] });
    const user = `srt.${Buffer.from(id).toString('base64')}`;
    return {
      socket,
      env: proxyEnv(PROXY_PORT_INSIDE, user, token),
      release: () => SandboxManager.unregisterCommandNetworkLists(id),
    };
  }

  async dispose(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    users--;
    if (users > 0) return;
    const was = starting;
    starting = null;
    if (was) await was.catch(() => undefined);
    await (await loadManager()).reset();
  }
}
