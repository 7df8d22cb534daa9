// Attachments: a file's bytes stored once (by content hash), referenced by id from messages.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { AttachmentKindSchema, type AttachmentRef } from '@threadline/protocol';
import type { AttachmentsRepo, NewAttachment, StoredAttachment } from '../types';
import { parseInput, type RepoContext } from './context';
import { packOutput, unpackOutput } from '../db/outputCodec';

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
});

const REF_COLUMNS = 'id, kind, name, mime, size, width, height, pages, chars';

function toRef(r: AttachmentRow): AttachmentRef {
  const ref: AttachmentRef = { id: r.id, kind: r.kind, name: r.name, mime: r.mime, size: r.size };
  if (r.width !== null) ref.width = r.width;
  if (r.height !== null) ref.height = r.height;
  if (r.pages !== null) ref.pages = r.pages;
  if (r.chars !== null) ref.chars = r.chars;
  return ref;
}

export function createAttachmentsRepo(ctx: RepoContext): AttachmentsRepo {
  const { db } = ctx;
  const byHash = db.prepare<[string], AttachmentRow>(`SELECT ${REF_COLUMNS} FROM attachments WHERE hash = ?`);
  const byId = db.prepare<[string], AttachmentRow>(`SELECT ${REF_COLUMNS} FROM attachments WHERE id = ?`);
  const dataOf = db.prepare<[string], { data: Buffer | null }>('SELECT data FROM attachments WHERE id = ?');
  const textOf = db.prepare<[string], { text: Buffer | null }>('SELECT text FROM attachments WHERE id = ?');
  const insert = db.prepare(
    `INSERT INTO attachments (id, hash, kind, name, mime, size, width, height, pages, chars, data, text, created_at)
     VALUES (@id, @hash, @kind, @name, @mime, @size, @width, @height, @pages, @chars, @data, @text, @created_at)`,
  );
  const addTx = db.transaction((a: NewAttachment): AttachmentRef => {
    const p = parseInput(NewAttachmentSchema, a, 'attachment');
    const hash = createHash('sha256').update(p.kind).update('\0').update(p.bytes).digest('hex');
    const existing = byHash.get(hash);
    // The same bytes are one row; the caller's name is the one its message shows.
    if (existing) return { ...toRef(existing), name: p.name };
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
      data: p.kind === 'image' ? Buffer.from(p.bytes) : null,
      text: p.text !== undefined ? packOutput(p.text) : null,
      created_at: ctx.now(),
    });
    return toRef(byId.get(id)!);
  });
  return {
    add: (a) => addTx.immediate(a),
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
  };
}
