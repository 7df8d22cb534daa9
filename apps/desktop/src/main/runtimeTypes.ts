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
}

/** The runtime the shell serves over IPC: the AppApi, and how to shut it down cleanly. */
export interface DesktopRuntime {
  api: AppApi;
  /** What did not apply at start (e.g. an invalid THREADLINE_CONTEXT_WINDOW), shown to the user. */
  startupWarnings?: string[];
  close(): Promise<void>;
}

export type OpenRuntime = (opts: DesktopRuntimeOptions) => DesktopRuntime;
