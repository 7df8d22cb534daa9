// The runtime behind the desktop shell: the SQLite store in the data dir, keys through
// safeStorage, and the AppApi of @threadline/agent with its events pushed to the windows.
import {
  acquireDataLock,
  createAppApi,
  ensureDataFolder,
  ensureEnvProvider,
  onDataFolder,
  openStore,
} from '@threadline/agent';
import { dataFiles } from './paths';
import type { DesktopRuntime, DesktopRuntimeOptions } from './runtimeTypes';

/** Throws (with the store's human-readable message) when the database cannot be opened. */
export function openDesktopRuntime(opts: DesktopRuntimeOptions): DesktopRuntime {
  // A read-only, full or forbidden data folder stops the start with one sentence.
  const how = 'start Threadline with a writable one (THREADLINE_DATA_DIR)';
  ensureDataFolder(opts.dataDir, how);
  // One runtime per data folder (browser mode on the same folder included), before opening anything.
  const lock = onDataFolder(opts.dataDir, how, () => acquireDataLock(opts.dataDir));
  let store: ReturnType<typeof openStore>;
  try {
    // No allowPlaintextKeys: without a usable keychain the store refuses to save a key.
    store = onDataFolder(opts.dataDir, how, () =>
      openStore({
        file: dataFiles(opts.dataDir).database,
        encryptor: opts.encryptor,
        env: opts.env,
        // A damaged file is reported untouched (app.ts offers a fresh start), or kept as chosen.
        ...(opts.keepDamagedAs === undefined
          ? { onCorrupt: 'report' as const }
          : { onCorrupt: 'recreate' as const, keepDamagedAs: opts.keepDamagedAs }),
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
    // e.g. an invalid THREADLINE_CONTEXT_WINDOW, or OPENAI_API_KEY set but no keychain: start
    // anyway (the app works without it) and tell the user instead of only the log.
    const message = err instanceof Error ? err.message : String(err);
    opts.log(`environment provider not applied: ${message}`);
    startupWarnings.push(message);
  }
  const api = createAppApi({
    store,
    emit: opts.emit,
    dataDir: opts.dataDir,
    cwd: opts.cwd,
    platform: process.platform,
  });
  let closed = false;
  return {
    api,
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
