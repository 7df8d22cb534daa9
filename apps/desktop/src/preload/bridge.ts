// Values from protocol's zod-free entry only; types are erased, so they may come from anywhere.
import { IPC_CHANNELS, isAppCommand, isAppEvent, isRouteName } from '@threadline/protocol/bridge';
import type { AppEvent, RpcResult, ThreadlineBridge } from '@threadline/protocol';

/** The members of Electron's ipcRenderer the bridge uses; the bridge never hands it out. */
export interface IpcRendererLike {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: (event: unknown, payload: unknown) => void): unknown;
  removeListener(channel: string, listener: (event: unknown, payload: unknown) => void): unknown;
}

/**
 * `window.threadline`: three functions and a flag. Adding a route never changes this file.
 * Listeners receive only the payload, never Electron's event object (whose `sender` is
 * ipcRenderer itself).
 */
export function createBridge(ipc: IpcRendererLike): ThreadlineBridge {
  function subscribe<T>(channel: string, accept: (v: unknown) => v is T, listener: (value: T) => void): () => void {
    const wrapped = (_event: unknown, payload: unknown): void => {
      if (accept(payload)) listener(payload);
    };
    ipc.on(channel, wrapped);
    return () => void ipc.removeListener(channel, wrapped);
  }
  return Object.freeze({
    shell: 'electron' as const,
    async invoke(route: unknown, input?: unknown): Promise<RpcResult<unknown>> {
      if (!isRouteName(route))
        return { ok: false, error: { code: 'not_found', message: `Unknown route: ${String(route).slice(0, 100)}` } };
      return (await ipc.invoke(IPC_CHANNELS.invoke, route, input)) as RpcResult<unknown>;
    },
    onEvent: (listener: (event: AppEvent) => void) => subscribe(IPC_CHANNELS.event, isAppEvent, listener),
    onCommand: (listener: Parameters<NonNullable<ThreadlineBridge['onCommand']>>[0]) =>
      subscribe(IPC_CHANNELS.command, isAppCommand, listener),
  });
}
