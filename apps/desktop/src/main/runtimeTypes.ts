import type { AppApi, AppEvent } from '@threadline/protocol';
import type { Encryptor } from '@threadline/agent';

export interface DesktopRuntimeOptions {
  dataDir: string;
  encryptor: Encryptor;
  emit: (event: AppEvent) => void;
  env: Record<string, string | undefined>;
  /** Working directory of the agent's tools. */
  cwd: string;
  log: (message: string) => void;
  /**
   * Set after the user chose to start fresh on a damaged database: the damaged file is renamed to
   * this name beside it (its -wal/-shm too) and a new database is opened. Without it a damaged
   * database throws the store's StoreError (corrupt / not_sqlite) with the name to offer (`keepAs`).
   */
  keepDamagedAs?: string;
}

/** The runtime the shell serves over IPC: the AppApi, and how to shut it down cleanly. */
export interface DesktopRuntime {
  api: AppApi;
  /** What did not apply at start (e.g. an invalid THREADLINE_CONTEXT_WINDOW), shown to the user. */
  startupWarnings?: string[];
  close(): Promise<void>;
}

export type OpenRuntime = (opts: DesktopRuntimeOptions) => DesktopRuntime;
