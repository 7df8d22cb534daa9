// The ONLY file that touches ipcMain. Every renderer → main call arrives through the single
// `threadline:invoke` handler below: sender check first, then protocol's dispatchRoute, which
// zod-validates the input and turns every outcome into an RpcResult (it never throws).
import {
  dispatchRoute,
  IPC_CHANNELS,
  type AppApi,
  type AppCommand,
  type AppEvent,
  type RpcResult,
} from '@threadline/protocol';
import { ipcMain } from 'electron';
import { isAppUrl, isTrustedSender, type RendererLocation } from './security';

/** The members of Electron's IpcMainInvokeEvent the handler reads. */
export interface InvokeEventLike {
  sender: { id: number };
  senderFrame: { url: string; parent: unknown } | null;
}

export interface IpcMainLike {
  handle(channel: string, listener: (event: InvokeEventLike, ...args: unknown[]) => Promise<unknown>): void;
  removeHandler(channel: string): void;
}

export interface InvokeHandlerOptions {
  api: AppApi;
  location: Pick<RendererLocation, 'origin'>;
  /** True for the webContents of a window this app created. */
  isAppWebContents: (id: number) => boolean;
  /** Refused calls are logged (never shown to the page that made them). */
  onRefused?: (reason: string) => void;
}

export const UNTRUSTED_SENDER: RpcResult<never> = {
  ok: false,
  error: { code: 'forbidden', message: 'This IPC call did not come from a Threadline window.' },
};

export async function handleInvoke(
  opts: InvokeHandlerOptions,
  event: InvokeEventLike,
  route: unknown,
  input: unknown,
): Promise<RpcResult<unknown>> {
  const frame = event.senderFrame;
  const trusted =
    opts.isAppWebContents(event.sender.id) &&
    isTrustedSender(frame ? { url: frame.url, isMainFrame: frame.parent === null } : null, opts.location);
  if (!trusted) {
    opts.onRefused?.(`refused ${String(route).slice(0, 60)} from ${frame?.url ?? 'a destroyed frame'}`);
    return UNTRUSTED_SENDER;
  }
  return dispatchRoute(opts.api, route, input);
}

/** Registers the one invoke handler on Electron's ipcMain; returns its removal. */
export function registerIpc(opts: InvokeHandlerOptions): () => void {
  const target: IpcMainLike = ipcMain;
  target.handle(IPC_CHANNELS.invoke, (event, route, input) => handleInvoke(opts, event, route, input));
  return () => target.removeHandler(IPC_CHANNELS.invoke);
}

// ─── main → renderer ────────────────────────────────────────────────────────────────────────

/** The members of Electron's WebContents used to push to a window. */
export interface WebContentsLike {
  isDestroyed(): boolean;
  getURL(): string;
  send(channel: string, payload: unknown): void;
}

/**
 * Runtime events go to the app's own windows only, and only while they show an app page
 * (a window that somehow ended up elsewhere gets nothing).
 */
export function createEventForwarder(
  targets: () => WebContentsLike[],
  location: Pick<RendererLocation, 'origin'>,
): (event: AppEvent) => void {
  return (event) => {
    for (const wc of targets()) {
      if (wc.isDestroyed() || !isAppUrl(wc.getURL(), location)) continue;
      wc.send(IPC_CHANNELS.event, event);
    }
  };
}

/** A menu command goes to one window: the focused one, else the first. */
export function sendCommand(
  target: WebContentsLike | null,
  command: AppCommand,
  location: Pick<RendererLocation, 'origin'>,
): boolean {
  if (!target || target.isDestroyed() || !isAppUrl(target.getURL(), location)) return false;
  target.send(IPC_CHANNELS.command, command);
  return true;
}
