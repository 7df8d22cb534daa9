import { createHash } from 'node:crypto';
import type { RecordedImage, RequestMessage } from './types';

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
