import {
  AttachmentRefSchema,
  type AttachmentRef,
  type ChatMessage,
  type CompactionRecord,
  type ImagePart,
  type StoredMessage,
} from '@threadline/protocol';
import { imagePlaceholder } from '../markers';
import { imageTokens } from '../tokens/images';

export { imagePlaceholder, imageTokens };

/** The attachments a message carries (`meta.attachments`, as chat.send stored them); invalid ones are skipped. */
export function attachmentsOf(m: { meta?: Record<string, unknown> }): AttachmentRef[] {
  const raw = m.meta?.['attachments'];
  if (!Array.isArray(raw)) return [];
  const out: AttachmentRef[] = [];
  for (const r of raw) {
    const p = AttachmentRefSchema.safeParse(r);
    if (p.success) out.push(p.data);
  }
  return out;
}

/** The image parts of a message's attachments. */
export function imagePartsOf(m: { meta?: Record<string, unknown> }): ImagePart[] {
  return attachmentsOf(m)
    .filter((a) => a.kind === 'image' && a.width !== undefined && a.height !== undefined)
    .map((a) => ({
      type: 'image',
      attachmentId: a.id,
      name: a.name,
      mime: a.mime,
      width: a.width!,
      height: a.height!,
    }));
}

/**
 * The seq up to which images are old: those of messages any active compaction saw. Every
 * compaction therefore turns the images before it into placeholders first, before the text it
 * hides (images are most of a screenshot conversation's tokens); -1 when nothing is old.
 */
export function imageHorizon(compactions: readonly CompactionRecord[]): number {
  let h = -1;
  for (const c of compactions) if (c.active) h = Math.max(h, c.afterSeq);
  return h;
}

/**
 * A history message as the view holds it with its images: image parts while it is newer than
 * the horizon, else its text followed by one placeholder per image. `extra`: the tokens the
 * images (or placeholders) add to the message's stored count, which is of its text only.
 */
export function withImages(
  m: StoredMessage,
  message: ChatMessage,
  horizon: number,
  countText: (text: string) => number,
): { message: ChatMessage; extra: number } {
  const images = imagePartsOf(m);
  if (images.length === 0) return { message, extra: 0 };
  if (m.seq > horizon)
    return { message: { ...message, images }, extra: images.reduce((n, i) => n + imageTokens(i.width, i.height), 0) };
  const marks = images.map((i) => imagePlaceholder(i.name)).join('\n');
  const content = message.content ? `${message.content}\n${marks}` : marks;
  return { message: { ...message, content }, extra: countText(`\n${marks}`) };
}
