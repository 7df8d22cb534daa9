// The runtime behind the desktop shell: the agent's shared start-up (openRuntime) over the data
// dir, keys through safeStorage, and its events pushed to the windows.
import { openRuntime } from '@threadline/agent';
import type { DesktopRuntime, DesktopRuntimeOptions } from './runtimeTypes';

/** Throws (with the store's human-readable message) when the database cannot be opened. */
export function openDesktopRuntime(opts: DesktopRuntimeOptions): DesktopRuntime {
  // No allowPlaintextKeys: without a usable keychain the store refuses to save a key.
  const { api, startupWarnings, close } = openRuntime({
    dataDir: opts.dataDir,
    encryptor: () => opts.encryptor,
    env: opts.env,
    emit: opts.emit,
    cwd: opts.cwd,
    how: 'start Threadline with a writable one (THREADLINE_DATA_DIR)',
    log: opts.log,
    // A damaged file is reported untouched (app.ts offers a fresh start), or kept as chosen.
    ...(opts.keepDamagedAs === undefined
      ? { onCorrupt: 'report' as const }
      : { onCorrupt: 'recreate' as const, keepDamagedAs: opts.keepDamagedAs }),
  });
  return { api, startupWarnings, close };
}
