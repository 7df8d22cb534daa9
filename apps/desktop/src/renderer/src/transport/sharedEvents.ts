/**
 * One event stream per browser, shared by its tabs (issue 25). Chromium allows six HTTP/1.1
 * connections per host: with one EventSource per tab, a seventh tab never loaded and the others
 * stopped answering. Here the tabs of one server (one token) elect a leader with a Web Lock; only
 * the leader opens the EventSource and passes every event, and the state of its connection, to
 * the others over a BroadcastChannel. When the leader tab closes its lock is released, the next
 * tab in line takes it and opens the stream, and every tab reloads what it may have missed.
 * Without Web Locks or BroadcastChannel each tab opens its own stream, as before.
 */

/** What the renderer knows of its link to the runtime. */
export type ConnectionState = 'connecting' | 'open' | 'reconnecting' | 'stopped' | 'unauthorized';

export interface StreamHandlers {
  /** One SSE message's data. */
  event(data: string): void;
  state(s: ConnectionState): void;
  /** The stream came back (or a new leader opened it): events meanwhile may be lost. */
  reopened(): void;
}

export interface StreamOptions {
  /** The EventSource URL (token included). */
  url: string;
  /** Names the channel and the lock: tabs of one server and token share one stream. */
  key: string;
  /** Asks the runtime whether it is there: 'open' (it answers), 'unauthorized' (401) or 'stopped'. */
  probe(): Promise<'open' | 'unauthorized' | 'stopped'>;
}

type Wire =
  | { kind: 'event'; data: string }
  | { kind: 'state'; state: ConnectionState }
  | { kind: 'reopened' }
  | { kind: 'hello' };

/** Waits before opening a stream the browser gave up on (a non-200 answer closes an EventSource). */
const REOPEN_MS = 2000;

function openLeaderStream(
  opts: StreamOptions,
  h: StreamHandlers,
  send: (w: Wire) => void,
): { close(): void; state(): ConnectionState } {
  let source: EventSource | null = null;
  let state: ConnectionState = 'connecting';
  let openedOnce = false;
  let closed = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const setState = (s: ConnectionState): void => {
    if (s === state) return;
    state = s;
    h.state(s);
    send({ kind: 'state', state: s });
  };
  const open = (): void => {
    if (closed) return;
    source = new EventSource(opts.url);
    source.onopen = () => {
      setState('open');
      if (openedOnce) {
        h.reopened();
        send({ kind: 'reopened' });
      }
      openedOnce = true;
    };
    source.onmessage = (msg) => {
      const data = String(msg.data);
      h.event(data);
      send({ kind: 'event', data });
    };
    source.onerror = () => {
      const s = source;
      if (!s) return;
      // Reconnecting (the browser retries by itself) until the runtime says what happened.
      setState('reconnecting');
      void opts.probe().then((answer) => {
        if (closed || s !== source) return;
        if (answer === 'unauthorized') {
          // A runtime restarted with a new token: this address will never work again.
          s.close();
          source = null;
          setState('unauthorized');
          return;
        }
        if (answer === 'stopped') setState('stopped');
        if (s.readyState === EventSource.CLOSED) {
          source = null;
          timer = setTimeout(open, REOPEN_MS);
        }
      });
    };
  };
  open();
  return {
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      source?.close();
      source = null;
    },
    state: () => state,
  };
}

/** Joins (or leads) the browser's one stream for `opts.key`; returns the function that leaves. */
export function joinSharedStream(opts: StreamOptions, h: StreamHandlers): () => void {
  const canShare = typeof BroadcastChannel !== 'undefined' && typeof navigator !== 'undefined' && !!navigator.locks;
  if (!canShare) {
    const own = openLeaderStream(opts, h, () => undefined);
    return () => own.close();
  }
  const name = `threadline-events:${opts.key}`;
  const channel = new BroadcastChannel(name);
  let leader: ReturnType<typeof openLeaderStream> | null = null;
  let left = false;
  let heardFromLeader = false;
  const release = { resolve: (): void => undefined };
  channel.onmessage = (msg: MessageEvent<Wire>) => {
    const w = msg.data;
    if (leader) {
      // A tab that just joined asks for the state it cannot have seen.
      if (w.kind === 'hello') channel.postMessage({ kind: 'state', state: leader.state() } satisfies Wire);
      return;
    }
    if (w.kind === 'event') h.event(w.data);
    else if (w.kind === 'state') {
      heardFromLeader = true;
      h.state(w.state);
    } else if (w.kind === 'reopened') h.reopened();
  };
  channel.postMessage({ kind: 'hello' } satisfies Wire);
  void navigator.locks
    .request(name, () => {
      if (left) return undefined;
      // This tab leads now. If it followed another before, events between that tab's end and
      // this stream's start are lost: say so once the stream is open.
      const followed = heardFromLeader;
      let first = true;
      leader = openLeaderStream(
        opts,
        {
          event: h.event,
          state: (s) => {
            h.state(s);
            if (s === 'open' && first) {
              first = false;
              if (followed) {
                h.reopened();
                channel.postMessage({ kind: 'reopened' } satisfies Wire);
              }
            }
          },
          reopened: h.reopened,
        },
        (w) => channel.postMessage(w),
      );
      return new Promise<void>((resolve) => (release.resolve = resolve));
    })
    .catch(() => undefined);
  return () => {
    left = true;
    leader?.close();
    leader = null;
    channel.close();
    release.resolve();
  };
}
