import type { TFunction } from 'i18next';
import type { FieldError, FieldValues, Path, UseFormSetError } from 'react-hook-form';
import { RpcError } from '../transport';
import { errorMessage } from '@threadline/protocol';

/**
 * The i18n key of a field's sentence for each zod issue code (`too_small`, `invalid_format`…);
 * `'*'` for any code. zod's own text (English, and naming the input's path) is never shown.
 */
export type IssueKeys = Record<string, Partial<Record<string, string>>>;

/** Codes zod reports, each with a sentence in `form.errors` (anything else: `form.errors.invalid`). */
const GENERIC = new Set(['invalid_type', 'invalid_format', 'too_small', 'too_big', 'invalid_value']);

/** A field's error as a sentence in the user's language: the form's own key, else the code's. */
export function fieldErrorText(
  t: TFunction,
  keys: IssueKeys,
  field: string,
  error: Pick<FieldError, 'type' | 'message'> | undefined,
): string | null {
  if (!error) return null;
  const code = String(error.type);
  // Messages the form set itself (a failed connection check) are sentences already.
  if (code === 'sentence') return error.message ?? null;
  const own = keys[field]?.[code] ?? keys[field]?.['*'];
  return t(own ?? (GENERIC.has(code) ? `form.errors.${code}` : 'form.errors.invalid'));
}

/**
 * A refusal of the runtime's input check (`invalid_input`, with the issues' paths) put on the
 * fields it names (`draft.baseUrl` → `baseUrl`, with `prefix` `draft`). Returns false when the
 * error is not one, or names no field the form has: the caller shows it in the form's banner.
 */
export function setServerIssues<T extends FieldValues>(
  err: unknown,
  fields: readonly Path<T>[],
  setError: UseFormSetError<T>,
  prefix: readonly (string | number)[] = [],
): boolean {
  if (!(err instanceof RpcError) || err.code !== 'invalid_input' || !err.details) return false;
  let placed = false;
  for (const issue of err.details.issues) {
    const path = issue.path.slice(prefix.length);
    const name = String(path[0] ?? '') as Path<T>;
    if (!fields.includes(name)) continue;
    setError(name, { type: issue.code });
    placed = true;
  }
  return placed;
}

/** The banner's text for a failed call: the runtime's sentence, or for a refused input the generic one. */
export function callErrorText(t: TFunction, err: unknown): string {
  if (err instanceof RpcError && err.code === 'invalid_input') return t('form.errors.invalid');
  return errorMessage(err);
}
