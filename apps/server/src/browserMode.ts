import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { createFileEncryptor, openRuntime } from '@threadline/agent';
import { EventHub } from './eventHub';
import type { Server } from 'node:http';
import { listenLoopback, startServer } from './server';
import { keepAddress, newToken, readKeptAddress } from './keptAddress';

export interface BrowserModeOptions {
  /** The port asked for (0: any free one); undefined: the one last used here if free, else any. */
  port?: number;
  /** The token asked for (--token); undefined: the one kept in the data folder, else a new one. */
  token?: string;
  dataDir?: string;
  staticDir: string | null;
  env: NodeJS.ProcessEnv;
  /**
   * A damaged database is renamed aside (kept, dated) and a new one opened, instead of stopping
   * the start with StoreError corrupt / not_sqlite (`--fresh-database`).
   */
  freshDatabase?: boolean;
}

/** Where browser mode keeps its database unless told otherwise. */
export function defaultDataDir(env: NodeJS.ProcessEnv): string {
  if (env.THREADLINE_DATA_DIR) return resolve(env.THREADLINE_DATA_DIR);
  const base = env.XDG_DATA_HOME || join(homedir(), '.local', 'share');
  return join(base, 'threadline');
}

/** Runtime + HTTP server, wired: store → AppApi → router; runtime events → SSE. */
export async function startBrowserMode(opts: BrowserModeOptions) {
  const dataDir = resolve(opts.dataDir ?? defaultDataDir(opts.env));
  const kept = readKeptAddress(dataDir);
  // The port first: a busy one asked for fails here (EADDRINUSE), before the data folder is
  // touched; the one last used is only a preference.
  const listener =
    opts.port === undefined && kept?.port !== undefined
      ? await listenLoopback(kept.port).catch(() => listenLoopback(0))
      : await listenLoopback(opts.port ?? 0);
  try {
    return await startOn(listener, dataDir, opts.token ?? kept?.token ?? newToken(), opts);
  } catch (err) {
    listener.close();
    throw err;
  }
}

async function startOn(listener: Server, dataDir: string, token: string, opts: BrowserModeOptions) {
  const hub = new EventHub();
  // The shared start-up: data folder checked and locked, store opened, the environment's provider
  // applied (one it cannot apply is a warning, as in the desktop app), the AppApi.
  const runtime = openRuntime({
    dataDir,
    encryptor: () => createFileEncryptor(dataDir),
    env: opts.env,
    emit: hub.publish,
    cwd: process.cwd(),
    how: 'start with a writable one (--data-dir DIR or THREADLINE_DATA_DIR)',
    // A damaged file is reported untouched, with the name a fresh start would keep it as.
    onCorrupt: opts.freshDatabase ? 'recreate' : 'report',
  });
  const server = await startServer({ api: runtime.api, hub, token, staticDir: opts.staticDir, server: listener }).catch(
    async (err: unknown) => {
      await runtime.close();
      throw err;
    },
  );
  // The data folder is ours now (locked): the next start here gets the same address and key. A
  // token given with --token is not kept (it is given each time); a port asked for is.
  try {
    const before = readKeptAddress(dataDir);
    keepAddress(dataDir, {
      token: opts.token === undefined ? token : (before?.token ?? newToken()),
      port: server.port,
    });
  } catch {
    // Not kept: the next start prints a new address, as before.
  }
  return {
    url: server.url,
    port: server.port,
    token,
    dataDir,
    /** What did not apply at start (e.g. an invalid THREADLINE_CONTEXT_WINDOW): the CLI prints it. */
    startupWarnings: runtime.startupWarnings,
    /** Where --fresh-database kept the damaged database, when it found one. */
    keptDamaged: runtime.store.recovered?.backupFile ?? null,
    async close() {
      await server.close();
      await runtime.close();
    },
  };
}
