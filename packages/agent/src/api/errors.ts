import { AppError, type ErrorCode } from '@threadline/protocol';
import { StoreError } from '@threadline/store';

const STORE_CODES: Record<string, ErrorCode> = {
  not_found: 'not_found',
  invalid_input: 'invalid_input',
  invalid_setting: 'invalid_input',
  invalid_env: 'invalid_input',
  no_encryptor: 'conflict',
};

/** Store failures become AppErrors the router can answer with a clear code. */
export function toAppError(err: unknown): unknown {
  if (err instanceof StoreError) return new AppError(STORE_CODES[err.code] ?? 'internal', err.message);
  return err;
}

/** Wraps every route so store errors never leak as `internal`. */
export function guardRoutes<T extends Record<string, (input: never) => Promise<unknown>>>(routes: T): T {
  const out: Record<string, (input: never) => Promise<unknown>> = {};
  for (const [name, fn] of Object.entries(routes)) {
    out[name] = async (input: never) => {
      try {
        return await fn(input);
      } catch (err) {
        throw toAppError(err);
      }
    };
  }
  return out as T;
}

export function notFound(what: string, id: string): AppError {
  return new AppError('not_found', `No ${what} with id ${id}.`);
}
