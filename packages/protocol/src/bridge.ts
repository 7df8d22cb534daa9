import type { AppEvent } from './events';
import type { RpcResult } from './errors';
import type { RouteName } from './routes';

/**
 * What the Electron preload exposes as `window.threadline` (and nothing else). Browser mode
 * provides the same shape over HTTP + SSE, so the renderer has one transport interface.
 */
export interface ThreadlineBridge {
  invoke(route: RouteName, input?: unknown): Promise<RpcResult<unknown>>;
  onEvent(listener: (event: AppEvent) => void): () => void;
  readonly shell: 'electron' | 'browser';
  /**
   * Desktop only: commands from the app menu and its accelerators (new session, focus the
   * input, open settings). Browser mode has no app menu and leaves this undefined.
   */
  onCommand?(listener: (command: AppCommand) => void): () => void;
}

/** Commands the Electron app menu sends to the renderer. */
export const APP_COMMANDS = ['new-session', 'focus-input', 'open-settings'] as const;
export type AppCommand = (typeof APP_COMMANDS)[number];

export function isAppCommand(value: unknown): value is AppCommand {
  return typeof value === 'string' && (APP_COMMANDS as readonly string[]).includes(value);
}

export const IPC_CHANNELS = {
  invoke: 'threadline:invoke',
  event: 'threadline:event',
  command: 'threadline:command',
} as const;
