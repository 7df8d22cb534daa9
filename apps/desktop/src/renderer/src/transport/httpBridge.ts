import {
  APP_EVENT_TYPES,
  type AppEvent,
  type RouteName,
  type RpcResult,
  type ThreadlineBridge,
} from '@threadline/protocol';

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

function isAppEvent(v: unknown): v is AppEvent {
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof (v as { type?: unknown }).type === 'string' &&
    (APP_EVENT_TYPES as readonly string[]).includes((v as { type: string }).type)
  );
}

export function parseSseData(data: string): AppEvent | null {
  try {
    const v: unknown = JSON.parse(data);
    return isAppEvent(v) ? v : null;
  } catch {
    return null;
  }
}

/** The HTTP bridge also says when its event stream came back after a drop. */
export interface HttpBridge extends ThreadlineBridge {
  /** Called after the event stream reconnects: events sent meanwhile were lost, reload state. */
  onReconnect(listener: () => void): () => void;
}

/** Browser mode: the same bridge as the Electron preload, over `POST /api/rpc/<route>` and SSE. */
export function createHttpBridge(token: string | null, base = ''): HttpBridge {
  const listeners = new Set<(e: AppEvent) => void>();
  const reconnectListeners = new Set<() => void>();
  let source: EventSource | null = null;
  let openedOnce = false;

  const open = () => {
    if (source || typeof EventSource === 'undefined') return;
    source = new EventSource(`${base}/api/events?token=${encodeURIComponent(token ?? '')}`);
    source.onopen = () => {
      if (openedOnce) for (const l of reconnectListeners) l();
      openedOnce = true;
    };
    source.onmessage = (msg) => {
      const ev = parseSseData(String(msg.data));
      if (!ev) return;
      for (const l of listeners) l(ev);
    };
    // EventSource reconnects on its own; nothing else to do on error.
  };

  return {
    shell: 'browser',
    async invoke(route: RouteName, input?: unknown): Promise<RpcResult<unknown>> {
      try {
        const res = await fetch(`${base}/api/rpc/${route}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token ?? ''}` },
          body: JSON.stringify(input ?? {}),
        });
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
        return { ok: false, error: { code: 'internal', message: err instanceof Error ? err.message : String(err) } };
      }
    },
    onReconnect(listener) {
      reconnectListeners.add(listener);
      return () => void reconnectListeners.delete(listener);
    },
    onEvent(listener) {
      listeners.add(listener);
      open();
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0 && source) {
          source.close();
          source = null;
        }
      };
    },
  };
}
