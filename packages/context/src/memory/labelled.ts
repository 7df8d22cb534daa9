/**
 * Scoring CFPM memory against labelled sessions (fixtures/memory/labelled.json, issue 13): facts
 * that must and must not be active after one refresh over a session. Shared by the test and the
 * bench, which print precision and recall.
 */
import * as z from 'zod';
import { ChatMessageSchema, FactCategorySchema, type ChatMessage, type MemoryFact } from '@threadline/protocol';
import { isActiveFact } from './merge';
import { refreshMemory } from './refresh';

const LabelSchema = z.object({ category: FactCategorySchema, content: z.string().min(1) });
export const LabelledSessionSchema = z
  .object({
    name: z.string(),
    /** `tune`: read while the rules were written; `holdout`: labelled before, never read while tuning. */
    split: z.enum(['tune', 'holdout']).default('tune'),
    transcript: z.string().optional(),
    messages: z.array(ChatMessageSchema).optional(),
    must: z.array(LabelSchema),
    mustNot: z.array(LabelSchema),
  })
  .refine((s) => (s.transcript === undefined) !== (s.messages === undefined), 'either transcript or messages');
export const LabelledFileSchema = z.object({ description: z.string(), sessions: z.array(LabelledSessionSchema) });
export type LabelledSession = z.infer<typeof LabelledSessionSchema>;
type Label = z.infer<typeof LabelSchema>;

/** Paths match whole (case-insensitive); goals, open items and notes when the fact contains the label. */
export function labelMatches(label: Label, f: MemoryFact): boolean {
  if (f.category !== label.category) return false;
  const a = f.content.trim().toLowerCase();
  const b = label.content.trim().toLowerCase();
  return label.category === 'artifact' || label.category === 'invalid_path' ? a === b : a.includes(b);
}

export interface LabelledScore {
  name: string;
  found: Label[];
  missed: Label[];
  wrong: Label[];
  /** Rejected candidate rows recorded more than once (content + reason), should be 0. */
  repeatedCandidates: number;
}

export function scoreSession(s: LabelledSession, messages: readonly ChatMessage[]): LabelledScore {
  let n = 0;
  const r = refreshMemory({ sessionId: 'labelled', messages: [...messages], now: 0, newId: () => `l${++n}` });
  const active = r.facts.filter(isActiveFact);
  const has = (l: Label) => active.some((f) => labelMatches(l, f));
  const keys = r.candidates
    .filter((c) => c.decision === 'rejected')
    .map((c) => `${c.reason}|${c.category}|${c.content.toLowerCase()}`);
  return {
    name: s.name,
    found: s.must.filter(has),
    missed: s.must.filter((l) => !has(l)),
    wrong: s.mustNot.filter(has),
    repeatedCandidates: keys.length - new Set(keys).size,
  };
}

/** Precision = must found / (must found + must-not found); recall = must found / must. */
export function totals(scores: readonly LabelledScore[]): {
  precision: number;
  recall: number;
  tp: number;
  fp: number;
  must: number;
} {
  const tp = scores.reduce((n, s) => n + s.found.length, 0);
  const fp = scores.reduce((n, s) => n + s.wrong.length, 0);
  const must = scores.reduce((n, s) => n + s.found.length + s.missed.length, 0);
  return { tp, fp, must, precision: tp + fp === 0 ? 1 : tp / (tp + fp), recall: must === 0 ? 1 : tp / must };
}
