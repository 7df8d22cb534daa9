import type { AppEvent } from './events';
import type { RouteName, RpcResult } from './routes';

/**
 * What the Electron preload exposes as `window.threadline` (and nothing else). Browser mode
 * provides the same shape over HTTP + SSE, so the renderer has one transport interface.
 */
export interface ThreadlineBridge {
  invoke(route: RouteName, input?: unknown): Promise<RpcResult<unknown>>;
  onEvent(listener: (event: AppEvent) => void): () => void;
  readonly shell: 'electron' | 'browser';
}

export const IPC_CHANNELS = { invoke: 'threadline:invoke', event: 'threadline:event' } as const;
