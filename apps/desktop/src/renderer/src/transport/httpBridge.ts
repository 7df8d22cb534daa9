import {
  errorMessage,
  INPUT_PART,
  isAppEvent,
  splitBinary,
  type AppEvent,
  type RouteName,
  type RpcResult,
  type ThreadlineBridge,
} from '@threadline/protocol';
import { joinSharedStream, type ConnectionState } from './sharedEvents';

export type { ConnectionState } from './sharedEvents';

const TOKEN_KEY = 'threadline.token';

/**
 * The start-up token arrives once in the page URL (`?token=`). Keep it for this tab only
 * (sessionStorage survives reloads, not new tabs) and take it out of the address bar so it does
 * not end up in history, screenshots or bookmarks.
 */
export function takeToken(loc: Location = window.location, storage: Storage = window.sessionStorage): string | null {
  const url = new URL(loc.href);
  const fromUrl = url.searchParams.get('token');
  if (fromUrl) {
    storage.setItem(TOKEN_KEY, fromUrl);
    url.searchParams.delete('token');
    window.history.replaceState(window.history.state, '', url.pathname + url.search + url.hash);
    return fromUrl;
  }
  return storage.getItem(TOKEN_KEY);
}

export function parseSseData(data: string): AppEvent | null {
  try {
    const v: unknown = JSON.parse(data);
    return isAppEvent(v) ? v : null;
  } catch {
    return null;
  }
}

/** The HTTP bridge also says when its event stream came back after a drop, and how the link is. */
export interface HttpBridge extends ThreadlineBridge {
  /** Called after the event stream reconnects: events sent meanwhile were lost, reload state. */
  onReconnect(listener: () => void): () => void;
  /** Called on every change of the connection to the runtime. */
  onConnection(listener: (s: ConnectionState) => void): () => void;
  connection(): ConnectionState;
}

/**
 * A call's body: JSON, or, when the input holds bytes (an attachment), multipart/form-data with
 * the JSON of the rest as the part `input` and each field's bytes as a part named by its path
 * (protocol's binary.ts), streamed by the browser as they are: no base64, no JSON of megabytes.
 */
function requestBody(input: unknown): { body: string | FormData; json: boolean } {
  const { json, parts } = splitBinary(input ?? {});
  if (parts.length === 0) return { body: JSON.stringify(input ?? {}), json: true };
  const form = new FormData();
  form.append(INPUT_PART, JSON.stringify(json));
  for (const p of parts) form.append(p.path, new Blob([p.bytes as Uint8Array<ArrayBuffer>]));
  return { body: form, json: false };
}

/** A short, stable name for a token (the shared stream's channel and lock are named after it). */
function keyOf(token: string | null): string {
  let h = 0x811c9dc5;
  for (const c of token ?? '') h = Math.imul(h ^ c.charCodeAt(0), 0x01000193);
  return (h >>> 0).toString(36);
}

/**
 * Browser mode: the same bridge as the Electron preload, over `POST /api/rpc/<route>` and one
 * SSE stream shared by the browser's tabs (sharedEvents.ts).
 */
export function createHttpBridge(token: string | null, base = ''): HttpBridge {
  const listeners = new Set<(e: AppEvent) => void>();
  const reconnectListeners = new Set<() => void>();
  const connectionListeners = new Set<(s: ConnectionState) => void>();
  let state: ConnectionState = 'connecting';
  let leave: (() => void) | null = null;
  const setState = (s: ConnectionState): void => {
    if (s === state) return;
    state = s;
    for (const l of connectionListeners) l(s);
  };
  const bearer = { Authorization: `Bearer ${token ?? ''}` };
  const auth = { 'Content-Type': 'application/json', ...bearer };
  /** Is the runtime there, and does it take this token? */
  const probe = async (): Promise<'open' | 'unauthorized' | 'stopped'> => {
    try {
      const res = await fetch(`${base}/api/rpc/settings.get`, { method: 'POST', headers: auth, body: '{}' });
      return res.status === 401 ? 'unauthorized' : 'open';
    } catch {
      return 'stopped';
    }
  };

  const open = () => {
    if (leave || typeof EventSource === 'undefined') return;
    leave = joinSharedStream(
      { url: `${base}/api/events?token=${encodeURIComponent(token ?? '')}`, key: keyOf(token), probe },
      {
        event: (data) => {
          const ev = parseSseData(data);
          if (!ev) return;
          for (const l of listeners) l(ev);
        },
        state: setState,
        reopened: () => {
          for (const l of reconnectListeners) l();
        },
      },
    );
  };

  return {
    shell: 'browser',
    async invoke(route: RouteName, input?: unknown): Promise<RpcResult<unknown>> {
      try {
        const { body, json } = requestBody(input);
        // A FormData body sets its own Content-Type (with the boundary).
        const res = await fetch(`${base}/api/rpc/${route}`, { method: 'POST', headers: json ? auth : bearer, body });
        if (res.status === 401) setState('unauthorized');
        const text = await res.text();
        try {
          const body = JSON.parse(text) as RpcResult<unknown>;
          if (body && typeof body === 'object' && 'ok' in body) return body;
        } catch {
          /* fall through: not JSON */
        }
        return {
          ok: false,
          error: { code: res.status === 401 ? 'unauthorized' : 'internal', message: `HTTP ${res.status}` },
        };
      } catch (err) {
        // No answer at all: the runtime is gone (or the network); the stream's state follows.
        void probe().then((answer) => {
          if (answer !== 'open') setState(answer);
        });
        return { ok: false, error: { code: 'internal', message: errorMessage(err) } };
      }
    },
    onReconnect(listener) {
      reconnectListeners.add(listener);
      return () => void reconnectListeners.delete(listener);
    },
    onConnection(listener) {
      connectionListeners.add(listener);
      return () => void connectionListeners.delete(listener);
    },
    connection: () => state,
    onEvent(listener) {
      listeners.add(listener);
      open();
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0 && leave) {
          leave();
          leave = null;
        }
      };
    },
  };
}
