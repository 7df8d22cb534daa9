import type { z } from 'zod';
import { AppError, MAX_INPUT_ISSUES, type InputIssue, type RpcResult } from './errors';
import { errorMessage } from './values';
import { ROUTE_NAMES, ROUTES, type AppApi, type RouteName } from './routes';

export function isRouteName(name: unknown): name is RouteName {
  return typeof name === 'string' && (ROUTE_NAMES as string[]).includes(name);
}

export interface DispatchOptions {
  /**
   * Also check the implementation's answer against the route's output schema (tests and
   * development): an answer that does not fit becomes an `internal` error naming the route.
   */
  checkOutput?: boolean;
}

/**
 * The one router both transports use (IPC in Electron, HTTP in browser mode): validate the input
 * with the route's zod schema, call the AppApi, and turn every outcome into an RpcResult.
 * Never throws.
 */
export async function dispatchRoute(
  api: AppApi,
  route: unknown,
  rawInput: unknown,
  opts: DispatchOptions = {},
): Promise<RpcResult<unknown>> {
  if (!isRouteName(route)) {
    return { ok: false, error: { code: 'not_found', message: `Unknown route: ${String(route).slice(0, 100)}` } };
  }
  const schemas = ROUTES[route] as { input: z.ZodType; output: z.ZodType };
  const parsed = schemas.input.safeParse(rawInput ?? {});
  if (!parsed.success) {
    const error = parsed.error;
    return {
      ok: false,
      error: { code: 'invalid_input', message: formatZodError(error), details: { issues: zodIssues(error) } },
    };
  }
  try {
    const handler = api[route] as (input: unknown) => Promise<unknown>;
    const data = await handler.call(api, parsed.data);
    if (opts.checkOutput) {
      const out = schemas.output.safeParse(data);
      if (!out.success) {
        const message = `The answer of ${route} does not match its schema: ${formatZodError(out.error)}`;
        return { ok: false, error: { code: 'internal', message, details: { issues: zodIssues(out.error) } } };
      }
    }
    return { ok: true, data };
  } catch (err) {
    if (err instanceof AppError)
      return {
        ok: false,
        error: { code: err.code, message: err.message, ...(err.reason !== undefined ? { reason: err.reason } : {}) },
      };
    const message = errorMessage(err);
    return { ok: false, error: { code: 'internal', message } };
  }
}

/** The first few issues in one line, for people (`title: Too small: expected string to have >=1 characters`). */
export function formatZodError(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.join('.') : 'input'}: ${i.message}`)
    .join('; ');
}

/** The issues as data for programs (capped; symbol keys, which JSON cannot carry, as strings). */
export function zodIssues(error: z.ZodError): InputIssue[] {
  return error.issues.slice(0, MAX_INPUT_ISSUES).map((i) => ({
    path: i.path.map((p) => (typeof p === 'symbol' ? String(p) : p)),
    code: i.code,
    message: i.message,
  }));
}
