import type { ErrorDetails, RouteInput, RouteName, RouteOutput, ThreadlineBridge } from '@threadline/protocol';
import { createHttpBridge, takeToken, type ConnectionState } from './httpBridge';

export type { ConnectionState } from './httpBridge';

declare global {
  interface Window {
    threadline?: ThreadlineBridge;
  }
}

/**
 * An RPC failure with the server's code and message (shown to the user as is); for a refused
 * input, `details.issues` says which fields (their paths) and why.
 */
export class RpcError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details?: ErrorDetails,
    /** A stable word for why, when the route gives one (RpcErrorInfo.reason). */
    readonly reason?: string,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

let bridge: ThreadlineBridge | null = null;

/** Electron's preload bridge when present, otherwise HTTP + SSE to the browser-mode server. */
export function getBridge(): ThreadlineBridge {
  if (bridge) return bridge;
  bridge = window.threadline ?? createHttpBridge(takeToken());
  return bridge;
}

/** Runs `listener` whenever the event stream reconnects (browser mode; IPC never drops). */
export function onBridgeReconnect(listener: () => void): () => void {
  const b = getBridge() as ThreadlineBridge & { onReconnect?: (l: () => void) => () => void };
  return b.onReconnect?.(listener) ?? (() => undefined);
}

/** Runs `listener` on every change of the link to the runtime (browser mode; IPC never drops). */
export function onBridgeConnection(listener: (s: ConnectionState) => void): () => void {
  const b = getBridge() as ThreadlineBridge & { onConnection?: (l: (s: ConnectionState) => void) => () => void };
  return b.onConnection?.(listener) ?? (() => undefined);
}

/** The link's state now: the HTTP bridge's, or 'open' for a bridge that never drops (IPC). */
export function bridgeConnection(): ConnectionState {
  const b = getBridge() as ThreadlineBridge & { connection?: () => ConnectionState };
  return b.connection?.() ?? 'open';
}

/** For tests: use a fake bridge. */
export function setBridge(b: ThreadlineBridge | null): void {
  bridge = b;
}

/** Typed call: resolves with the route's data, rejects with an RpcError. */
export async function call<R extends RouteName>(route: R, input: RouteInput<R>): Promise<RouteOutput<R>> {
  const res = await getBridge().invoke(route, input);
  if (!res.ok) throw new RpcError(res.error.code, res.error.message, res.error.details, res.error.reason);
  return res.data as RouteOutput<R>;
}
