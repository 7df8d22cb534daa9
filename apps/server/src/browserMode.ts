import { randomBytes } from 'node:crypto';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  acquireDataLock,
  createAppApi,
  ensureDataFolder,
  ensureEnvProvider,
  onDataFolder,
  openStore,
} from '@threadline/agent';
import { EventHub } from './eventHub';
import { createFileEncryptor } from './fileEncryptor';
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
  // A read-only, full or forbidden data folder stops the start with one sentence.
  const how = 'start with a writable one (--data-dir DIR or THREADLINE_DATA_DIR)';
  ensureDataFolder(dataDir, how);
  // One runtime per data folder, taken before anything in it is opened (a second start opens nothing).
  const lock = onDataFolder(dataDir, how, () => acquireDataLock(dataDir));
  let store: ReturnType<typeof openStore>;
  try {
    store = onDataFolder(dataDir, how, () =>
      openStore({
        file: join(dataDir, 'threadline.sqlite'),
        encryptor: createFileEncryptor(dataDir),
        env: opts.env,
        // A damaged file is reported untouched, with the name a fresh start would keep it as.
        onCorrupt: opts.freshDatabase ? 'recreate' : 'report',
      }),
    );
  } catch (err) {
    lock.release();
    throw err;
  }
  try {
    // A refused environment (e.g. an invalid THREADLINE_CONTEXT_WINDOW) stops the start with its
    // message; the database is closed cleanly first.
    ensureEnvProvider(store, opts.env);
  } catch (err) {
    store.close();
    lock.release();
    throw err;
  }
  const hub = new EventHub();
  const api = createAppApi({ store, emit: hub.publish, dataDir, cwd: process.cwd(), platform: process.platform });
  const token = randomBytes(24).toString('base64url');
  const server = await startServer({ api, hub, token, staticDir: opts.staticDir, server: listener }).catch(
    async (err: unknown) => {
      await api.dispose();
      store.close();
      lock.release();
      throw err;
    },
  );
  return {
    url: server.url,
    port: server.port,
    token,
    dataDir,
    /** Where --fresh-database kept the damaged database, when it found one. */
    keptDamaged: store.recovered?.backupFile ?? null,
    async close() {
      await server.close();
      await api.dispose?.();
      store.close();
      lock.release();
    },
  };
}
