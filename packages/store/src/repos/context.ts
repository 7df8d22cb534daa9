import type Database from 'better-sqlite3';
import type { z } from 'zod';
import { StoreError } from '../types';

/** What every repository gets: the connection and the injected clock and id generator. */
export interface RepoContext {
  db: Database.Database;
  now: () => number;
  newId: () => string;
}

/** zod-parses caller input, turning a failure into one readable StoreError. */
export function parseInput<S extends z.ZodType>(
  schema: S,
  value: unknown,
  what: string,
  code: 'invalid_input' | 'invalid_setting' = 'invalid_input',
): z.output<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issues = r.error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`).join('; ');
  throw new StoreError(code, `Invalid ${what}: ${issues}`);
}

export function json(value: unknown): string {
  return JSON.stringify(value);
}

export function parseJson<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}
