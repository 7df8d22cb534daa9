/** Shared rendering of fact sections for the injection block and the checkpoint snapshot. */
import type { FactCategory, MemoryFact } from '@threadline/protocol';
import { isActiveFact } from './merge';
import { isDateOnly, isPathLike } from './paths';

export const SECTION_TITLES: ReadonlyArray<readonly [FactCategory, string]> = [
  ['artifact', 'Known artifacts/paths'],
  ['invalid_path', 'Known invalid paths (do not use)'],
  ['verified_action', 'Verified actions'],
  ['goal', 'Goals'],
  ['open_item', 'Open items'],
  ['note', 'Notes'],
];

/** Cut to `max` chars without splitting a surrogate pair; marks the cut with `…`. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}

/**
 * One line of data: no newlines, and no bracketed marker that could pass for the start of
 * another block or notice (a fact cannot forge `[CFPM_…]` framing).
 */
export function sanitizeItem(text: string, max: number): string {
  const flat = text
    .replace(/[\r\n\t]+/g, ' ')
    .replace(/\[(?=\/?(?:CFPM_|THREADLINE_))/gi, '(')
    .replace(/\s{2,}/g, ' ')
    .trim();
  return cutText(flat, max);
}

function rank(a: MemoryFact, b: MemoryFact): number {
  return (
    Number(b.pinned) - Number(a.pinned) ||
    Number(b.source === 'user') - Number(a.source === 'user') ||
    b.evidenceCount - a.evidenceCount ||
    b.updatedAt - a.updatedAt
  );
}

/** Injectable facts by section: active/pinned only; artifacts only path-like and not dates. */
export function sectionItems(
  facts: readonly MemoryFact[],
  category: FactCategory,
  prefer?: (f: MemoryFact) => boolean,
): MemoryFact[] {
  return facts
    .filter((f) => f.category === category && isActiveFact(f))
    .filter((f) => category !== 'artifact' || (isPathLike(f.content) && !isDateOnly(f.content)))
    .sort((a, b) => (prefer ? Number(prefer(b)) - Number(prefer(a)) : 0) || rank(a, b));
}

/** Artifacts the agent edited (an `edited <path>` verified action exists) come first. */
export function editedPreference(facts: readonly MemoryFact[]): (f: MemoryFact) => boolean {
  const edited = new Set(
    facts
      .filter((f) => f.category === 'verified_action' && isActiveFact(f) && f.content.startsWith('edited '))
      .map((f) => f.content.slice('edited '.length).trim().toLowerCase()),
  );
  return (f) => f.category === 'artifact' && edited.has(f.content.trim().toLowerCase());
}

/** At most `max` lines `- item`: when items are left out, the last line says how many (it counts as one). */
export function cappedList<T>(items: readonly T[], max: number, render: (item: T) => string): string[] {
  const shown = items.length > max ? items.slice(0, Math.max(0, max - 1)) : items;
  const lines = shown.map((x) => `- ${render(x)}`);
  if (shown.length < items.length) lines.push(`- (+${items.length - shown.length} more not shown)`);
  return lines;
}

/**
 * Caps, the same for the injection block (8 × 220) and the checkpoint (40 × 300):
 * - an item is the text after `- `, suffix included: `content (pinned)` is at most `maxChars`, the
 *   content being cut (with `…`) to leave room for the suffix;
 * - a section has at most `maxItems` item lines. When facts are left out, the last of those lines
 *   is `(+N more not shown)` in place of an item (so maxItems - 1 facts are shown), and it is itself
 *   under `maxChars`.
 */
export function renderSections(
  facts: readonly MemoryFact[],
  maxItems: number,
  maxChars: number,
  prefer: (f: MemoryFact) => boolean = editedPreference(facts),
): string[] {
  const lines: string[] = [];
  for (const [category, title] of SECTION_TITLES) {
    const items = sectionItems(facts, category, prefer);
    if (items.length === 0 || maxItems <= 0) continue;
    lines.push(`${title}:`);
    lines.push(...cappedList(items, maxItems, (f) => renderItem(f, maxChars)));
  }
  return lines;
}

export const PINNED_SUFFIX = ' (pinned)';

/** One fact as an item of at most `maxChars`, suffix included. */
export function renderItem(f: MemoryFact, maxChars: number): string {
  const suffix = f.pinned ? PINNED_SUFFIX : '';
  return `${sanitizeItem(f.content, Math.max(1, maxChars - suffix.length))}${suffix}`;
}
