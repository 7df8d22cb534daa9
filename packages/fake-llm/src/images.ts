import { createHash } from 'node:crypto';
import type { RequestMessage } from './types';

/** One image part a chat request carried, as a test checks it (the bytes by their hash). */
export interface RecordedImage {
  /** Index of the message that held it. */
  message: number;
  /** `data:` URL's media type, or 'url' for a remote address. */
  mime: string;
  bytes: number;
  sha256: string | null;
  /** The URL itself when it is not a data URL. */
  url?: string;
}

/** The `image_url` parts of a request's messages, decoded. */
export function imagePartsOf(messages: readonly RequestMessage[]): RecordedImage[] {
  const out: RecordedImage[] = [];
  messages.forEach((m, i) => {
    if (!Array.isArray(m.content)) return;
    for (const part of m.content as unknown[]) {
      if (!part || typeof part !== 'object' || (part as { type?: unknown }).type !== 'image_url') continue;
      const url = (part as { image_url?: { url?: unknown } }).image_url?.url;
      if (typeof url !== 'string') continue;
      const data = /^data:([^;,]+);base64,(.*)$/s.exec(url);
      if (!data) {
        out.push({ message: i, mime: 'url', bytes: 0, sha256: null, url });
        continue;
      }
      const bytes = Buffer.from(data[2]!, 'base64');
      out.push({
        message: i,
        mime: data[1]!,
        bytes: bytes.length,
        sha256: createHash('sha256').update(bytes).digest('hex'),
      });
    }
  });
  return out;
}
