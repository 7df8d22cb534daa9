// Attachments: a file's bytes stored once (by content hash), referenced by id from messages.
import { createHash } from 'node:crypto';
import * as z from 'zod';
import { AttachmentKindSchema, type AttachmentRef } from '@threadline/protocol';
import type { AttachmentsRepo, NewAttachment, StoredAttachment } from '../types';
import { parseInput, type RepoContext } from './context';
import { packOutput, packOutputAsync, unpackOutput } from '../db/outputCodec';

interface AttachmentRow {
  id: string;
  kind: AttachmentRef['kind'];
  name: string;
  mime: string;
  size: number;
  width: number | null;
  height: number | null;
  pages: number | null;
  chars: number | null;
}

const NewAttachmentSchema = z.object({
  kind: AttachmentKindSchema,
  name: z.string().min(1).max(300),
  mime: z.string().max(100),
  bytes: z.instanceof(Uint8Array),
  width: z.number().int().positive().optional(),
  height: z.number().int().positive().optional(),
  pages: z.number().int().nonnegative().optional(),
  text: z.string().optional(),
  thumb: z.object({ bytes: z.instanceof(Uint8Array), mime: z.string().max(100) }).optional(),
});

/** True when some message refers to the attachment (meta.attachments[].id); the LIKE skips the JSON of the others. */
const REFERENCED = `EXISTS (
  SELECT 1 FROM messages m, json_each(m.meta, '$.attachments') a
   WHERE m.meta LIKE '%' || attachments.id || '%' AND json_valid(m.meta)
     AND json_extract(a.value, '$.id') = attachments.id)`;

const REF_COLUMNS = 'id, kind, name, mime, size, width, height, pages, chars';

function toRef(r: AttachmentRow): AttachmentRef {
  const ref: AttachmentRef = { id: r.id, kind: r.kind, name: r.name, mime: r.mime, size: r.size };
  if (r.width !== null) ref.width = r.width;
  if (r.height !== null) ref.height = r.height;
  if (r.pages !== null) ref.pages = r.pages;
  if (r.chars !== null) ref.chars = r.chars;
  return ref;
}

/** The bytes as a Buffer for SQLite, the same memory (no copy of megabytes). */
const asBuffer = (b: Uint8Array): Buffer => Buffer.from(b.buffer, b.byteOffset, b.byteLength);

/** Hashed a megabyte at a time, the event loop free between two (25 MB is no single step). */
const HASH_SLICE_BYTES = 1024 * 1024;

/** The row's content key: its kind and bytes (SHA-256, hex). */
async function contentHash(kind: AttachmentRef['kind'], bytes: Uint8Array): Promise<string> {
  const hash = createHash('sha256').update(kind).update('\0');
  for (let at = 0; at < bytes.byteLength; at += HASH_SLICE_BYTES) {
    if (at > 0) await new Promise<void>((ok) => setImmediate(ok));
    hash.update(bytes.subarray(at, at + HASH_SLICE_BYTES));
  }
  return hash.digest('hex');
}

export function createAttachmentsRepo(ctx: RepoContext): AttachmentsRepo {
  const { db } = ctx;
  const byHash = db.prepare<[string], AttachmentRow>(`SELECT ${REF_COLUMNS} FROM attachments WHERE hash = ?`);
  const byId = db.prepare<[string], AttachmentRow>(`SELECT ${REF_COLUMNS} FROM attachments WHERE id = ?`);
  const dataOf = db.prepare<[string], { data: Buffer | null }>('SELECT data FROM attachments WHERE id = ?');
  const textOf = db.prepare<[string], { text: Buffer | null }>('SELECT text FROM attachments WHERE id = ?');
  const thumbOf = db.prepare<[string], { thumb: Buffer | null; thumb_mime: string | null }>(
    'SELECT thumb, thumb_mime FROM attachments WHERE id = ?',
  );
  const insert = db.prepare(
    `INSERT INTO attachments (id, hash, kind, name, mime, size, width, height, pages, chars, data, text, thumb, thumb_mime, created_at)
     VALUES (@id, @hash, @kind, @name, @mime, @size, @width, @height, @pages, @chars, @data, @text, @thumb, @thumb_mime, @created_at)`,
  );
  // Uploaded again: its age restarts (the start-up sweep counts from the last upload), and a row
  // stored before thumbnails gets this one.
  const touch = db.prepare<[number, Buffer | null, string | null, string]>(
    `UPDATE attachments SET created_at = ?, thumb = coalesce(thumb, ?), thumb_mime = coalesce(thumb_mime, ?) WHERE id = ?`,
  );
  const discardStmt = db.prepare<[string]>(`DELETE FROM attachments WHERE id = ? AND NOT ${REFERENCED}`);
  const sweepStmt = db.prepare<[number]>(`DELETE FROM attachments WHERE created_at < ? AND NOT ${REFERENCED}`);
  const addTx = db.transaction((p: NewAttachment, hash: string, packedText: Buffer | null): AttachmentRef => {
    const existing = byHash.get(hash);
    const thumb = p.kind === 'image' && p.thumb ? asBuffer(p.thumb.bytes) : null;
    const thumbMime = thumb ? p.thumb!.mime : null;
    // The same bytes are one row; the caller's name is the one its message shows.
    if (existing) {
      touch.run(ctx.now(), thumb, thumbMime, existing.id);
      return { ...toRef(existing), name: p.name };
    }
    const id = ctx.newId();
    insert.run({
      id,
      hash,
      kind: p.kind,
      name: p.name,
      mime: p.mime,
      size: p.bytes.byteLength,
      width: p.width ?? null,
      height: p.height ?? null,
      pages: p.pages ?? null,
      chars: p.text !== undefined ? p.text.length : null,
      data: p.kind === 'image' ? asBuffer(p.bytes) : null,
      // Packed before the transaction; here only when the row it was found in went meanwhile.
      text: p.text !== undefined ? (packedText ?? packOutput(p.text)) : null,
      thumb,
      thumb_mime: thumbMime,
      created_at: ctx.now(),
    });
    return toRef(byId.get(id)!);
  });
  return {
    async add(a) {
      const p = parseInput(NewAttachmentSchema, a, 'attachment');
      const hash = await contentHash(p.kind, p.bytes);
      // The same content stored already: nothing to compress.
      const packed = p.text !== undefined && !byHash.get(hash) ? await packOutputAsync(p.text) : null;
      return addTx.immediate(p, hash, packed);
    },
    get(id): StoredAttachment | null {
      const r = byId.get(id);
      return r ? toRef(r) : null;
    },
    bytes(id) {
      return dataOf.get(id)?.data ?? null;
    },
    text(id) {
      const t = textOf.get(id)?.text;
      return t == null ? null : unpackOutput(t);
    },
    thumb(id) {
      const r = thumbOf.get(id);
      return r?.thumb && r.thumb_mime ? { bytes: r.thumb, mime: r.thumb_mime } : null;
    },
    discard: (id) => discardStmt.run(id).changes > 0,
    dropUnreferenced: (before) => sweepStmt.run(before).changes,
  };
}
