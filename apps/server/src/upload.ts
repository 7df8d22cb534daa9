// A route input with bytes (an attachment) arrives as multipart/form-data (protocol's binary.ts):
// the part `input` is the JSON of the rest, each other part the bytes of one field. The body is
// read as it streams, chunk by chunk (@fastify/busboy), so no step on the request thread handles
// more than a chunk or a slice: no JSON of megabytes to parse, no base64 to decode, and a body
// over its limit is refused as soon as it crosses it, never buffered past it.
import type { IncomingMessage } from 'node:http';
import Busboy from '@fastify/busboy';
import { errorMessage, INPUT_PART, joinBinary, type BinaryPart } from '@threadline/protocol';

export interface UploadLimits {
  /** The whole body. */
  bodyBytes: number;
  /** One part's bytes. */
  partBytes: number;
  /** The JSON of the input (the `input` part). */
  inputBytes: number;
  /** Byte parts. */
  parts: number;
}

export type UploadRead =
  { ok: true; input: Record<string, unknown> } | { ok: false; status: 400 | 413; message: string };

/** multipart/form-data (with its boundary parameter). */
export function isMultipart(header: string | undefined): boolean {
  return header?.split(';')[0]!.trim().toLowerCase() === 'multipart/form-data';
}

/** Copied into one buffer a megabyte at a time, the event loop free between two (the copy of 25 MB is no single step). */
const SLICE_BYTES = 1024 * 1024;
const nextTurn = () => new Promise<void>((ok) => setImmediate(ok));

async function joinInSlices(chunks: readonly Buffer[], total: number): Promise<Uint8Array> {
  const out = Buffer.allocUnsafe(total);
  let at = 0;
  let sinceYield = 0;
  for (const c of chunks) {
    c.copy(out, at);
    at += c.length;
    sinceYield += c.length;
    if (sinceYield >= SLICE_BYTES) {
      sinceYield = 0;
      await nextTurn();
    }
  }
  return out;
}

/** Reads a multipart body within `limits` into the route's input, the bytes set at their paths. */
export function readUpload(req: IncomingMessage, limits: UploadLimits): Promise<UploadRead> {
  let bb: ReturnType<typeof Busboy>;
  try {
    bb = Busboy({
      headers: req.headers as { 'content-type': string },
      limits: {
        fieldSize: limits.inputBytes,
        fields: 1,
        files: limits.parts,
        fileSize: limits.partBytes,
        parts: limits.parts + 1,
      },
      // Every part but the input is bytes, whatever its headers say.
      isPartAFile: (name) => name !== INPUT_PART,
    });
  } catch (err) {
    req.resume();
    return Promise.resolve({
      ok: false,
      status: 400,
      message: `The multipart body cannot be read (${errorMessage(err)}).`,
    });
  }
  return new Promise((settle) => {
    let done = false;
    let inputText: string | null = null;
    const files: { path: string; chunks: Buffer[]; size: number }[] = [];
    let received = 0;
    const finish = (r: UploadRead): void => {
      if (done) return;
      done = true;
      req.unpipe(bb);
      if (!r.ok) {
        files.length = 0;
        // The rest of a refused body is read and dropped (never kept), so the answer reaches the client.
        req.resume();
      }
      settle(r);
    };
    const refuse = (status: 400 | 413, message: string) => finish({ ok: false, status, message });
    const tooLarge = () => refuse(413, UPLOAD_TOO_LARGE(limits));
    req.on('data', (c: Buffer) => {
      received += c.length;
      if (received > limits.bodyBytes) tooLarge();
    });
    req.on('error', () => refuse(400, 'The upload was cut off.'));
    req.on('close', () => {
      if (!req.complete) refuse(400, 'The upload was cut off.');
    });
    bb.on('field', (name, value, _nameCut, valueCut) => {
      if (name !== INPUT_PART) return refuse(400, `Unexpected field "${name.slice(0, 100)}".`);
      if (valueCut) return tooLarge();
      inputText = value;
    });
    bb.on('file', (name, stream) => {
      const file = { path: name, chunks: [] as Buffer[], size: 0 };
      files.push(file);
      stream.on('data', (c: Buffer) => {
        if (done) return;
        file.chunks.push(c);
        file.size += c.length;
      });
      stream.on('limit', tooLarge);
    });
    bb.on('partsLimit', tooLarge);
    bb.on('filesLimit', tooLarge);
    bb.on('fieldsLimit', () => refuse(400, `Only one field, "${INPUT_PART}", is read.`));
    bb.on('error', (err: unknown) => refuse(400, `The multipart body cannot be read (${errorMessage(err)}).`));
    bb.on('finish', () => {
      if (done) return;
      void (async () => {
        if (inputText === null) return refuse(400, `The multipart body has no "${INPUT_PART}" part.`);
        let input: unknown;
        try {
          input = JSON.parse(inputText);
        } catch {
          return refuse(400, `The "${INPUT_PART}" part is not valid JSON.`);
        }
        if (input === null || typeof input !== 'object' || Array.isArray(input))
          return refuse(400, `The "${INPUT_PART}" part must be a JSON object.`);
        const parts: BinaryPart[] = [];
        for (const f of files) parts.push({ path: f.path, bytes: await joinInSlices(f.chunks, f.size) });
        const refused = joinBinary(input as Record<string, unknown>, parts);
        if (refused) return refuse(400, refused);
        finish({ ok: true, input: input as Record<string, unknown> });
      })();
    });
    req.pipe(bb);
  });
}

/** The one sentence for an upload over its limit (the renderer shows its own translation). */
export const UPLOAD_TOO_LARGE = (limits: UploadLimits): string =>
  `Too large to send whole: Threadline takes files of up to ${Math.floor(limits.partBytes / 1024 / 1024)} MB.`;
