/**
 * Characters that change how text looks without being seen: bidi controls (an RLO, U+202E, draws
 * `hs | … lruc` for bytes that run something else), zero-width characters, and other invisible or
 * control characters. The approval card shows them as `\u202E` escapes and says so, so what the
 * user approves is what will run.
 */
const INVISIBLE =
  // C0 controls but tab and newline, DEL and C1, soft hyphen, Arabic letter mark, Mongolian vowel
  // separator, zero-width and directional marks, line/paragraph separators, bidi embeddings and
  // isolates, word joiner and invisible operators, BOM, interlinear annotations, tag characters.
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u00AD\u061C\u180E\u200B-\u200F\u2028-\u202E\u2060-\u206F\uFEFF\uFFF9-\uFFFB]|\uDB40[\uDC00-\uDC7F]/g;

function escape(ch: string): string {
  const cp = ch.codePointAt(0)!;
  return cp > 0xffff ? `\\u{${cp.toString(16).toUpperCase()}}` : `\\u${cp.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** The text with every invisible or control character escaped, and whether there was one. */
export function reveal(text: string): { text: string; flagged: boolean } {
  let flagged = false;
  const out = text.replace(INVISIBLE, (ch) => {
    flagged = true;
    return escape(ch);
  });
  return { text: out, flagged };
}

/** How many characters of a command the card's header shows before it says it was shortened. */
export const HEADLINE_CHARS = 120;

/**
 * The header's one-line summary of a command or path: runs of blanks collapsed (4,000 spaces do
 * not push the rest out of view), the first line only, at most HEADLINE_CHARS; `shortened` says
 * it is not the whole of it (the body shows it whole).
 */
export function headlineOf(value: string): { text: string; shortened: boolean } {
  const firstLine = value.split('\n')[0]!;
  const collapsed = firstLine.replace(/[ \t\u00A0\u2000-\u200A\u3000]{2,}/g, ' ');
  const text = collapsed.length > HEADLINE_CHARS ? `${collapsed.slice(0, HEADLINE_CHARS)}…` : collapsed;
  return { text, shortened: collapsed !== value };
}
