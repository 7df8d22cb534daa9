import { z } from 'zod';
import { AppError, ROUTE_NAMES, RouteInputs, type AppApi, type RouteName, type RpcResult } from './routes';

export function isRouteName(name: unknown): name is RouteName {
  return typeof name === 'string' && (ROUTE_NAMES as string[]).includes(name);
}

/**
 * The one router both transports use (IPC in Electron, HTTP in browser mode): validate the input
 * with the route's zod schema, call the AppApi, and turn every outcome into an RpcResult.
 * Never throws.
 */
export async function dispatchRoute(api: AppApi, route: unknown, rawInput: unknown): Promise<RpcResult<unknown>> {
  if (!isRouteName(route)) {
    return { ok: false, error: { code: 'not_found', message: `Unknown route: ${String(route).slice(0, 100)}` } };
  }
  const parsed = (RouteInputs[route] as z.ZodType).safeParse(rawInput ?? {});
  if (!parsed.success) {
    return { ok: false, error: { code: 'invalid_input', message: formatZodError(parsed.error) } };
  }
  try {
    const handler = api[route] as (input: unknown) => Promise<unknown>;
    const data = await handler.call(api, parsed.data);
    return { ok: true, data };
  } catch (err) {
    if (err instanceof AppError) return { ok: false, error: { code: err.code, message: err.message } };
    const message = err instanceof Error ? err.message : String(err);
    return { ok: false, error: { code: 'internal', message } };
  }
}

export function formatZodError(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.join('.') : 'input'}: ${i.message}`)
    .join('; ');
}
