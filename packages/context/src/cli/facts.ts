/**
 * Facts files as a person writes them: each entry needs only `category` and `content`
 * (`status` and `pinned` optional); the internal fields a stored fact carries get defaults. Plural
 * category names (`artifacts`, `goals`…) are read as the singular. A file that is still invalid
 * is reported in one line naming the entry and the field.
 */
import * as z from 'zod';
import {
  FactCategorySchema,
  FactSourceSchema,
  FactStatusSchema,
  MemoryFactSchema,
  type MemoryFact,
} from '@threadline/protocol';
import { CONFIDENCE_USER } from '../memory/constants';

const PLURALS: Record<string, string> = {
  artifacts: 'artifact',
  goals: 'goal',
  notes: 'note',
  open_items: 'open_item',
  invalid_paths: 'invalid_path',
  verified_actions: 'verified_action',
};

const category = z.preprocess(
  (v) => (typeof v === 'string' ? (PLURALS[v.trim().toLowerCase()] ?? v.trim().toLowerCase()) : v),
  FactCategorySchema,
);

/** One entry: what a person must write, and what a stored fact may add. */
const EntrySchema = z
  .object({
    category,
    content: z.string().trim().min(1, 'must not be empty'),
    status: FactStatusSchema.optional(),
    pinned: z.boolean().optional(),
    id: z.string().optional(),
    sessionId: z.string().optional(),
    source: FactSourceSchema.optional(),
    confidence: z.number().min(0).max(1).optional(),
    evidenceCount: z.number().int().nonnegative().optional(),
    lastValidatedAt: z.number().int().nullable().optional(),
    validationCommand: z.string().nullable().optional(),
    createdAt: z.number().int().optional(),
    updatedAt: z.number().int().optional(),
  })
  .strict();

const FileSchema = z.union([
  z.array(z.unknown()),
  z.object({ facts: z.array(z.unknown()) }).transform((o) => o.facts),
  z.object({ memory: z.object({ facts: z.array(z.unknown()) }) }).transform((o) => o.memory.facts),
]);

export class FactsFileError extends Error {}

/** Parsed JSON of a facts file → complete facts; throws FactsFileError with one line. */
export function parseFactsFile(raw: unknown, file: string): MemoryFact[] {
  const list = FileSchema.safeParse(raw);
  if (!list.success)
    throw new FactsFileError(`facts file ${file} is not an array of facts, { facts } or { memory: { facts } }`);
  return list.data.map((entry, i) => {
    const r = EntrySchema.safeParse(entry);
    if (!r.success) {
      const issue = r.error.issues[0]!;
      const field = issue.path.length > 0 ? issue.path.join('.') : null;
      const what =
        issue.code === 'unrecognized_keys'
          ? `unknown field ${issue.keys.map((k) => `"${k}"`).join(', ')}`
          : `${field ? `field "${field}"` : 'entry'}: ${issue.message}`;
      throw new FactsFileError(`facts file ${file}: entry ${i + 1}: ${what}`);
    }
    const e = r.data;
    const fact: MemoryFact = {
      id: e.id ?? `fact-${i + 1}`,
      sessionId: e.sessionId ?? 'cli',
      category: e.category,
      content: e.content,
      status: e.status ?? 'active',
      pinned: e.pinned ?? false,
      source: e.source ?? 'user',
      confidence: e.confidence ?? CONFIDENCE_USER,
      evidenceCount: e.evidenceCount ?? 1,
      lastValidatedAt: e.lastValidatedAt ?? null,
      validationCommand: e.validationCommand ?? null,
      createdAt: e.createdAt ?? 0,
      updatedAt: e.updatedAt ?? e.createdAt ?? 0,
    };
    return MemoryFactSchema.parse(fact);
  });
}
