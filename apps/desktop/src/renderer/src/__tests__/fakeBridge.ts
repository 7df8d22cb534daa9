import type { AppEvent, RouteName, RpcResult, ThreadlineBridge } from '@threadline/protocol';

type Handler = (input: Record<string, unknown>) => unknown;

/**
 * A bridge with the real shape whose routes are plain functions: lets component tests drive the
 * store exactly as the runtime would (answers + pushed events), without a server.
 */
export function createFakeBridge(handlers: Partial<Record<RouteName, Handler>>) {
  const listeners = new Set<(e: AppEvent) => void>();
  const calls: { route: RouteName; input: Record<string, unknown> }[] = [];
  const bridge: ThreadlineBridge = {
    shell: 'browser',
    async invoke(route, input): Promise<RpcResult<unknown>> {
      const i = (input ?? {}) as Record<string, unknown>;
      calls.push({ route, input: i });
      const h = handlers[route];
      if (!h) return { ok: false, error: { code: 'not_found', message: `no handler for ${route}` } };
      try {
        return { ok: true, data: await h(i) };
      } catch (err) {
        const e = err as { code?: string; message?: string };
        return { ok: false, error: { code: (e.code ?? 'internal') as 'internal', message: e.message ?? String(err) } };
      }
    },
    onEvent(l) {
      listeners.add(l);
      return () => listeners.delete(l);
    },
  };
  return {
    bridge,
    calls,
    emit(e: AppEvent) {
      for (const l of listeners) l(e);
    },
  };
}
