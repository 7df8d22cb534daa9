import { structuredPatch } from 'diff';
import type { ToolDiff } from '@threadline/protocol';

/** What a diff carried on a card or an event may hold at most; the rest is said by a marker. */
export const DIFF_MAX_LINES = 400;
export const DIFF_MAX_CHARS = 32 * 1024;
/** Past this many changed lines the line diff is not worked out (jsdiff's cost grows with it). */
const MAX_EDIT_LENGTH = 20_000;
/** Lines longer than this are cut in the diff shown (a minified file is one line). */
const LINE_MAX_CHARS = 400;

/**
 * A unified diff of a file's old and new text for the user's eyes (the tool card, the approval
 * card): hunk headers and `+`/`-`/` ` lines, capped with a marker line. `null` when the change
 * is too large to diff cheaply. Never sent to the model.
 */
export function fileDiff(file: string, before: string | null, after: string): ToolDiff | null {
  const patch = structuredPatch(file, file, before ?? '', after, '', '', {
    context: 3,
    maxEditLength: MAX_EDIT_LENGTH,
  });
  if (!patch) return null;
  let added = 0;
  let removed = 0;
  const lines: string[] = [];
  for (const h of patch.hunks) {
    lines.push(`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`);
    for (const l of h.lines) {
      if (l.startsWith('\\')) continue; // "\ No newline at end of file"
      if (l.startsWith('+')) added++;
      else if (l.startsWith('-')) removed++;
      lines.push(l.length > LINE_MAX_CHARS ? `${l.slice(0, LINE_MAX_CHARS)}…` : l);
    }
  }
  let chars = 0;
  let kept = 0;
  while (kept < lines.length && kept < DIFF_MAX_LINES && chars + lines[kept]!.length + 1 <= DIFF_MAX_CHARS) {
    chars += lines[kept]!.length + 1;
    kept++;
  }
  const truncated = kept < lines.length;
  return {
    path: file,
    created: before === null,
    added,
    removed,
    patch: lines.slice(0, kept).join('\n'),
    moreLines: truncated ? lines.length - kept : 0,
  };
}
