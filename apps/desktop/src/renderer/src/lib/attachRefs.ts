import { AttachmentRefSchema, type AttachmentRef, type StoredMessage } from '@threadline/protocol';

/** The attachments a message carries (`meta.attachments`); malformed entries are left out. */
export function attachmentRefs(m: StoredMessage): AttachmentRef[] {
  const raw = m.meta?.['attachments'];
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((r) => {
    const p = AttachmentRefSchema.safeParse(r);
    return p.success ? [p.data] : [];
  });
}
