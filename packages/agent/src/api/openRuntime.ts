// The runtime both shells start (Electron's main process, browser mode's server): the data folder
// checked and locked, the SQLite store opened with the shell's encryptor, the environment's
// provider applied, and the AppApi over it. One start-up, so both shells behave the same.
import { join } from 'node:path';
import { errorMessage, type AppEvent } from '@threadline/protocol';
import { openStore, type Encryptor, type OpenStoreOptions, type Store } from '@threadline/store';
import { onDataFolder, ensureDataFolder } from '../process/dataFolderErrors';
import { acquireDataLock } from '../process/dataLock';
import { createAppApi, type AppRuntime } from './createAppApi';
import { ensureEnvProvider, type Env } from './envProvider';

/** The database's file in the data folder. */
export const DATABASE_FILE = 'threadline.sqlite';

export interface OpenRuntimeOptions {
  /** Absolute. */
  dataDir: string;
  /** The shell's encryptor, made once the folder is known to be usable (it may write a key file there). */
  encryptor: () => Encryptor;
  env: Env;
  emit: (event: AppEvent) => void;
  cwd: string;
  platform?: NodeJS.Platform;
  /** How the user picks another data folder, ending the sentence of an unusable one. */
  how: string;
  /** A line for the shell's log. */
  log?: (line: string) => void;
  /**
   * A damaged database: `report` throws the store's StoreError (corrupt / not_sqlite) with the name
   * a fresh start would keep it as, untouched; `recreate` keeps it aside (as `keepDamagedAs`, when
   * given) and opens a new one (`store.recovered` says where it went).
   */
  onCorrupt?: OpenStoreOptions['onCorrupt'];
  keepDamagedAs?: string;
}

export interface OpenedRuntime {
  api: AppRuntime;
  store: Store;
  /** What did not apply at start (e.g. an invalid THREADLINE_CONTEXT_WINDOW): the shell tells the user. */
  startupWarnings: string[];
  /** Disposes the AppApi, closes the store and releases the lock; a second call does nothing. */
  close(): Promise<void>;
}

/**
 * Throws, with one sentence, when the data folder is unusable (read-only, full, forbidden), taken
 * by another runtime, or its database cannot be opened; nothing stays open or locked then. An
 * environment provider that cannot be applied does not stop the start: the app works without it,
 * and its reason is in `startupWarnings` for the shell to show.
 */
export function openRuntime(opts: OpenRuntimeOptions): OpenedRuntime {
  const { dataDir, how } = opts;
  ensureDataFolder(dataDir, how);
  // One runtime per data folder (either shell), taken before anything in it is opened.
  const lock = onDataFolder(dataDir, how, () => acquireDataLock(dataDir));
  let store: Store;
  try {
    store = onDataFolder(dataDir, how, () =>
      openStore({
        file: join(dataDir, DATABASE_FILE),
        encryptor: opts.encryptor(),
        env: opts.env,
        onCorrupt: opts.onCorrupt,
        keepDamagedAs: opts.keepDamagedAs,
      }),
    );
  } catch (err) {
    lock.release();
    throw err;
  }
  const startupWarnings: string[] = [];
  try {
    ensureEnvProvider(store, opts.env);
  } catch (err) {
    // e.g. an invalid THREADLINE_CONTEXT_WINDOW, or OPENAI_API_KEY set but no keychain.
    const message = errorMessage(err);
    opts.log?.(`environment provider not applied: ${message}`);
    startupWarnings.push(message);
  }
  const api = createAppApi({
    store,
    emit: opts.emit,
    dataDir,
    cwd: opts.cwd,
    platform: opts.platform ?? process.platform,
  });
  let closed = false;
  return {
    api,
    store,
    startupWarnings,
    async close() {
      if (closed) return;
      closed = true;
      await api.dispose();
      store.close();
      lock.release();
    },
  };
}
