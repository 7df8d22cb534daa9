// The provider profile form's fields, its schema and the sentences of a failed connection check
// (components/ProviderForm.tsx and its parts).
import type { TFunction } from 'i18next';
import * as z from 'zod';
import { PresetIdSchema, ProviderUpsertSchema, type ProviderProfile, type RouteOutput } from '@threadline/protocol';
import type { IssueKeys } from './formErrors';

export const PRESET_IDS = PresetIdSchema.options;

/** scheme://host:port, or null when the text is not a URL (yet). */
export function originOf(url: string): string | null {
  try {
    return new URL(url.trim()).origin;
  } catch {
    return null;
  }
}

export type TestResult = RouteOutput<'providers.test'>;
export type TestState = { state: 'idle' } | { state: 'running' } | ({ state: 'done' } & TestResult);
export type Problem = NonNullable<TestResult['problem']>;

/** The field each problem is fixed in; 'other' is said below the form. */
export const FIELD_OF: Record<Problem, 'apiKey' | 'baseUrl' | 'model' | null> = {
  missing_key: 'apiKey',
  auth: 'apiKey',
  unreachable: 'baseUrl',
  unknown_model: 'model',
  other: null,
};

/** A failed check in the user's language (the provider's own words only for `other`). */
export function problemSentence(t: TFunction, r: TestResult): string {
  if (r.problem === 'unknown_model' && r.offered && r.offered.length > 0)
    return t('provider.problem.unknown_model_offered', { models: r.offered.join(', ') });
  if (!r.problem || r.problem === 'other') return t('provider.problem.other', { message: r.message });
  return t(`provider.problem.${r.problem}`);
}

/** The form's fields, checked by the protocol's own schema for a profile (numbers typed as text). */
export const ProviderFormSchema = z.object({
  preset: ProviderUpsertSchema.shape.preset,
  name: ProviderUpsertSchema.shape.name,
  baseUrl: z.string().trim().pipe(ProviderUpsertSchema.shape.baseUrl),
  model: ProviderUpsertSchema.shape.model,
  // Empty is not a number (Number('') would be 0, "too small").
  contextWindow: z
    .string()
    .transform((text) => (text.trim() === '' ? Number.NaN : Number(text)))
    .pipe(ProviderUpsertSchema.shape.contextWindow),
  compactionModel: z.string().trim().max(200),
  apiKey: z.string().max(4096),
});
export type FormInput = z.input<typeof ProviderFormSchema>;
export type FormOutput = z.output<typeof ProviderFormSchema>;
export const FIELDS = ['name', 'baseUrl', 'model', 'contextWindow', 'compactionModel', 'apiKey'] as const;

/** This form's sentences for what its schema refuses (the rest: `form.errors.<code>`). */
export const ISSUE_KEYS: IssueKeys = {
  baseUrl: { '*': 'provider.errors.url' },
  contextWindow: {
    too_small: 'provider.errors.windowTooSmall',
    too_big: 'provider.errors.windowTooBig',
    '*': 'provider.errors.window',
  },
  name: { too_small: 'form.errors.required', duplicate: 'provider.errors.nameTaken' },
  model: { too_small: 'form.errors.required' },
};

/**
 * A saved profile whose address, model and key are as stored was checked (or saved anyway)
 * already: renaming it or changing its window asks nothing again. Saving it with no change at all
 * checks it again (the user is asking whether it works now).
 */
export function onlyDetailsEdited(
  profile: ProviderProfile | undefined,
  savedId: string | undefined,
  v: FormOutput,
  removeKey: boolean,
): boolean {
  if (profile === undefined) return false;
  const sameConnection =
    savedId === profile.id &&
    v.baseUrl === profile.baseUrl &&
    v.model === profile.model &&
    v.preset === profile.preset &&
    v.apiKey === '' &&
    !removeKey;
  const otherEdits =
    v.name !== profile.name ||
    v.contextWindow !== profile.contextWindow ||
    (v.compactionModel || null) !== profile.compactionModel;
  return sameConnection && otherEdits;
}
