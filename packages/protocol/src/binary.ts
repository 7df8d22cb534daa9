import * as z from 'zod';

/**
 * Bytes in a route's input (an attachment's file, its thumbnail) travel as bytes, never as base64
 * in JSON: IPC carries a Uint8Array as it is (structured clone); HTTP sends a multipart/form-data
 * body whose part `input` is the JSON of the rest and whose other parts are the bytes, each named
 * by its path in the input (`data`, `thumb.data`). These functions are that rule's one home (the
 * HTTP bridge splits, the server joins); the route's schema checks the result as usual.
 */

/** A route input's field holding bytes, between `min` and `max` of them. */
export const bytes = (min: number, max: number) =>
  z
    .custom<Uint8Array>((v) => v instanceof Uint8Array, { message: 'Expected bytes' })
    .refine((b) => b.byteLength >= min && b.byteLength <= max, { message: `Expected ${min} to ${max} bytes` });

export interface BinaryPart {
  /** Dotted path of the field in the input (`thumb.data`). */
  path: string;
  bytes: Uint8Array;
}

/** The multipart part carrying the JSON of the input. */
export const INPUT_PART = 'input';
const MAX_DEPTH = 4;
/** A key a path may name: a plain identifier, never one that reaches a prototype. */
const KEY = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
const FORBIDDEN = new Set(['constructor', 'prototype']);

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/**
 * The input without its bytes (a copy: the caller's object is left as it is), and the bytes as
 * parts. Bytes are looked for in nested plain objects only (not in arrays).
 */
export function splitBinary(input: unknown): { json: unknown; parts: BinaryPart[] } {
  const parts: BinaryPart[] = [];
  const walk = (v: unknown, path: string[]): unknown => {
    if (!isPlainObject(v) || path.length >= MAX_DEPTH) return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      if (x instanceof Uint8Array) parts.push({ path: [...path, k].join('.'), bytes: x });
      else out[k] = walk(x, [...path, k]);
    }
    return out;
  };
  const json = walk(input, []);
  return { json: parts.length ? json : input, parts };
}

/**
 * Puts each part's bytes back at its path in `input` (parsed JSON, changed in place). Null when
 * done, else the one sentence saying which path is refused (not an identifier path, too deep, or
 * under a value that is not an object).
 */
export function joinBinary(input: Record<string, unknown>, parts: readonly BinaryPart[]): string | null {
  for (const { path, bytes } of parts) {
    const keys = path.split('.');
    if (keys.length > MAX_DEPTH || keys.some((k) => !KEY.test(k) || FORBIDDEN.has(k)))
      return `The part "${path.slice(0, 100)}" does not name a field of the input.`;
    let at: Record<string, unknown> = input;
    for (const k of keys.slice(0, -1)) {
      const next = Object.hasOwn(at, k) ? at[k] : (at[k] = {});
      if (!isPlainObject(next)) return `The part "${path}" is under a value that is not an object.`;
      at = next;
    }
    const last = keys[keys.length - 1]!;
    if (Object.hasOwn(at, last)) return `The part "${path}" is also in the JSON of the input.`;
    at[last] = bytes;
  }
  return null;
}
