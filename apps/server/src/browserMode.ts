import { randomBytes } from 'node:crypto';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { createFileEncryptor, openRuntime } from '@threadline/agent';
import { EventHub } from './eventHub';
import type { Server } from 'node:http';
import { listenLoopback, startServer } from './server';

export interface BrowserModeOptions {
  port: number;
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
  // The port first: a busy one fails here (EADDRINUSE), before the data folder is touched.
  const listener = await listenLoopback(opts.port);
  try {
    return await startOn(listener, opts);
  } catch (err) {
    listener.close();
    throw err;
  }
}

async function startOn(listener: Server, opts: BrowserModeOptions) {
  const dataDir = resolve(opts.dataDir ?? defaultDataDir(opts.env));
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
  const token = randomBytes(24).toString('base64url');
  const server = await startServer({ api: runtime.api, hub, token, staticDir: opts.staticDir, server: listener }).catch(
    async (err: unknown) => {
      await runtime.close();
      throw err;
    },
  );
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
