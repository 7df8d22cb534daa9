/**
 * A fast 53-bit string hash (cyrb53: two multiplicative 32-bit lanes) used as the token-cache key.
 * Not cryptographic; collisions at 2^-53 per pair are far below the cost of a wrong count.
 */
export function hashString(text: string, seed = 0): string {
  return hashParts([text], seed);
}

/**
 * hashString of the parts joined, without joining them: a message's fingerprint would otherwise
 * be a copy of its content (a megabyte for a pasted diff) made only to be hashed.
 */
export function hashParts(parts: readonly string[], seed = 0): string {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  let length = 0;
  for (const text of parts) {
    length += text.length;
    for (let i = 0; i < text.length; i++) {
      const ch = text.charCodeAt(i);
      h1 = Math.imul(h1 ^ ch, 2654435761);
      h2 = Math.imul(h2 ^ ch, 1597334677);
    }
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  const n = 4294967296 * (2097151 & h2) + (h1 >>> 0);
  return n.toString(36) + ':' + length.toString(36);
}
