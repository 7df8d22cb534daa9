/**
 * What a newer message makes untrue in memory: an instruction the user took back ("Actually,
 * don't use axios; use fetch" supersedes "Use axios for the check"), and an open item the
 * assistant has since reported done ("Added the favicon" retires "Still need to add the
 * favicon"). Both mark the older fact `superseded` (shown as such in the Memory panel), never
 * delete it; facts the user made or pinned are the user's and are left alone.
 */
import type { MemoryFact } from '@threadline/protocol';
import { factKey } from './evaluate';
import { FINISHED_PATTERNS, matchesAny } from './keywords';
import type { MemoryDraft } from './types';
import { ruledOut } from './userDrafts';

const automatic = (f: MemoryFact): boolean => f.source === 'cfpm_auto' && !f.pinned && f.status === 'active';

/** Whether a text asks for `term` (names it, and does not itself rule it out). */
function asksFor(text: string, term: string): boolean {
  const escaped = term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const named =
    /^[\w]/.test(term) && /[\w]$/.test(term) ? new RegExp(`\\b${escaped}\\b`, 'i') : new RegExp(escaped, 'i');
  return named.test(text) && ruledOut(text) !== term;
}

/** Words that carry the meaning of a sentence (for matching an open item with the work that finished it). */
const STOP = new Set(
  'the a an and or of to in on for with from into this that these those is are was were be been have has had i we you it its still need needs also then now next add added'.split(
    ' ',
  ),
);
function keyWords(text: string): Set<string> {
  const words = text.toLowerCase().match(/[\p{L}\p{N}_./-]{3,}/gu) ?? [];
  return new Set(words.map((w) => w.replace(/(?:ed|es|s|ing)$/, '')).filter((w) => !STOP.has(w)));
}

/**
 * Marks superseded, in place, the active automatic facts a newer draft of this refresh contradicts
 * or finishes; returns their ids. `when`: the message index of the draft each fact of this refresh
 * came from (facts from earlier refreshes are older than every draft).
 */
export function supersedeByNewer(
  facts: MemoryFact[],
  drafts: readonly MemoryDraft[],
  accepted: readonly MemoryDraft[],
  now: number,
): string[] {
  const when = new Map<string, number>();
  for (const d of accepted) when.set(factKey(d.category, d.content), d.messageIndex ?? 0);
  const older = (f: MemoryFact, index: number): boolean => (when.get(factKey(f.category, f.content)) ?? -1) < index;
  const ids: string[] = [];
  const retire = (f: MemoryFact): void => {
    f.status = 'superseded';
    f.updatedAt = now;
    ids.push(f.id);
  };
  // A correction of the user's: what it rules out, older goals asking for it are superseded.
  for (const d of accepted) {
    if (d.category !== 'goal' || d.origin !== 'user') continue;
    const term = ruledOut(d.content);
    if (term === null) continue;
    for (const f of facts)
      if (f.category === 'goal' && automatic(f) && older(f, d.messageIndex ?? 0) && asksFor(f.content, term)) retire(f);
  }
  // Work reported done: the open items it finishes (most of their words) are no longer open.
  for (const d of drafts) {
    if (d.origin !== 'assistant' || !matchesAny(FINISHED_PATTERNS, d.content)) continue;
    const done = keyWords(d.content);
    for (const f of facts) {
      if (f.category !== 'open_item' || !automatic(f) || !older(f, d.messageIndex ?? 0)) continue;
      const open = [...keyWords(f.content)];
      const shared = open.filter((w) => done.has(w)).length;
      if (shared >= 2 && shared * 2 >= open.length) retire(f);
    }
  }
  return ids;
}
