// A route's input as the renderer's HTTP bridge sends it (protocol's binary.ts): JSON, or
// multipart/form-data when it holds bytes (an attachment), for tests and the bench that call
// the server over HTTP.
import { INPUT_PART, splitBinary } from '@threadline/protocol';

/** The body and its Content-Type header (none for FormData: fetch sets it, with the boundary). */
export function rpcBody(input: unknown): { body: string | FormData; headers: Record<string, string> } {
  const { json, parts } = splitBinary(input ?? {});
  if (parts.length === 0) return { body: JSON.stringify(input ?? {}), headers: { 'content-type': 'application/json' } };
  const form = new FormData();
  form.append(INPUT_PART, JSON.stringify(json));
  for (const p of parts) form.append(p.path, new Blob([p.bytes as Uint8Array<ArrayBuffer>]));
  return { body: form, headers: {} };
}
