// What a bridge (Electron's preload, the browser's event stream) needs to tell a route name, an
// event and a menu command from anything else: plain lists and type checks, no schema library, so
// the preload's bundle carries none. The runtime validates every call's input with the route's
// zod schema (router.ts); these checks only keep stray values out.
import type { AppEvent, AppEventType } from './events';
import type { RpcResult } from './errors';
import type { RouteName } from './routes';
import { ROUTE_NAMES } from './routeNames';

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

export function isRouteName(name: unknown): name is RouteName {
  return typeof name === 'string' && (ROUTE_NAMES as readonly string[]).includes(name);
}

/** Every event type, checked against `AppEvent` by the compiler both ways (as ROUTE_NAMES). */
export const APP_EVENT_TYPES = [
  'message.delta',
  'message.complete',
  'tool.requested',
  'tool.finished',
  'notice',
  'usage',
  'usage.recorded',
  'session.updated',
  'error',
  'compaction.started',
  'compaction.progress',
  'compaction.finished',
  'compaction.failed',
  'compaction.undone',
  'provider.retrying',
  'checkpoint.updated',
  'held.updated',
  'providers.changed',
  'memory.updated',
  'rules.changed',
  'project.updated',
  'helper.updated',
] as const satisfies readonly AppEventType[];

type Complete<Missing extends never> = Missing;
/** Compile-time check only: an error here names an event type missing from APP_EVENT_TYPES. */
export type AppEventTypesComplete = Complete<Exclude<AppEventType, (typeof APP_EVENT_TYPES)[number]>>;

/**
 * An event from the runtime, as both bridges accept it: an object (not an array) whose `type` is
 * one of APP_EVENT_TYPES. The runtime built it from these types; the bridges only keep anything
 * else (a stray message, another page's post) out.
 */
export function isAppEvent(value: unknown): value is AppEvent {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const type = (value as { type?: unknown }).type;
  return typeof type === 'string' && (APP_EVENT_TYPES as readonly string[]).includes(type);
}

export const IPC_CHANNELS = {
  invoke: 'threadline:invoke',
  event: 'threadline:event',
  command: 'threadline:command',
} as const;
