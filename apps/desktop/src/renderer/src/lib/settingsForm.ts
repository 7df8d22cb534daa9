import type { TFunction } from 'i18next';
import * as z from 'zod';
import {
  isAutoThreshold,
  ModelPriceSchema,
  SettingsPatchSchema,
  WorkingFolderSchema,
  type ModelPrice,
  type Settings,
  type SettingsPatch,
} from '@threadline/protocol';

/**
 * The settings the user types (numbers, a folder, names, instructions), each checked by the
 * protocol's own settings schema (`SettingsPatchSchema`, its part for that setting) through
 * react-hook-form's zod resolver, and applied as a settings patch. Nothing here re-states a
 * limit of the protocol: the field's text is made into the value the schema checks, no more.
 */
export interface TextSetting<T> {
  /** The setting as its field shows it. */
  text: (s: Settings) => string;
  /** The field's text as the setting's value, checked by the protocol's schema for it. */
  schema: z.ZodType<T, string>;
  /** The patch that applies the value. */
  patch: (v: T) => SettingsPatch;
  /** A list setting's entries as typed, in the order the schema checks them. */
  items?: (text: string) => string[];
  /** The field's sentence for a refusal; `item` is the refused entry of a list, when it is one. */
  sentence: (t: TFunction, code: string, item: string | undefined) => string;
}

const patch = SettingsPatchSchema.shape;
const compaction = patch.compaction.unwrap().shape;
const toolOutput = patch.toolOutput.unwrap().shape;
const agent = patch.agent.unwrap().shape;
const cache = patch.cache.unwrap().shape;
const sandbox = patch.sandbox.unwrap().shape;
const projectMemory = patch.projectMemory.unwrap().shape;

/** A number as typed; nothing typed is no number (the schema refuses it as one). */
const numberText = z
  .string()
  .trim()
  .transform((s) => (s === '' ? Number.NaN : Number(s)));

/** Names as typed: separated by commas, spaces or lines. */
export function splitNames(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** Paths as typed: separated by commas or lines (a path may hold a space). */
export function splitPaths(text: string): string[] {
  return text
    .split(/[,\n]+/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** One sentence for any refusal of the field. */
const always =
  (key: string) =>
  (t: TFunction): string =>
    t(key);

function setting<T>(s: TextSetting<T>): TextSetting<T> {
  return s;
}

export const SETTINGS = {
  /** Shown in whole percent (0: off); the protocol's threshold is the fraction. */
  autoThreshold: setting({
    text: (s) => String(isAutoThreshold(s.compaction.autoThreshold) ? Math.round(s.compaction.autoThreshold * 100) : 0),
    schema: numberText
      .pipe(z.number().int().min(0).max(99))
      .transform((n) => n / 100)
      .pipe(compaction.autoThreshold.unwrap()),
    patch: (autoThreshold) => ({ compaction: { autoThreshold } }),
    sentence: always('settings.context.thresholdInvalid'),
  }),
  toolOutputMaxTokens: setting({
    text: (s) => String(s.toolOutput.maxTokens),
    schema: numberText.pipe(toolOutput.maxTokens.unwrap()),
    patch: (maxTokens) => ({ toolOutput: { maxTokens } }),
    sentence: always('settings.context.toolOutputInvalid'),
  }),
  cacheTtlMinutes: setting({
    text: (s) => String(s.cache.ttlMinutes),
    schema: numberText.pipe(cache.ttlMinutes.unwrap()),
    patch: (ttlMinutes) => ({ cache: { ttlMinutes } }),
    sentence: always('cost.settings.ttlInvalid'),
  }),
  cacheWarnAboveTokens: setting({
    text: (s) => String(s.cache.warnAboveTokens),
    schema: numberText.pipe(cache.warnAboveTokens.unwrap()),
    patch: (warnAboveTokens) => ({ cache: { warnAboveTokens } }),
    sentence: always('cost.settings.warnAboveInvalid'),
  }),
  projectCommandTtlDays: setting({
    text: (s) => String(s.projectMemory.commandTtlDays),
    schema: numberText.pipe(projectMemory.commandTtlDays.unwrap()),
    patch: (commandTtlDays) => ({ projectMemory: { commandTtlDays } }),
    sentence: always('settings.context.project.ttlInvalid'),
  }),
  projectMaxTokens: setting({
    text: (s) => String(s.projectMemory.maxTokens),
    schema: numberText.pipe(projectMemory.maxTokens.unwrap()),
    patch: (maxTokens) => ({ projectMemory: { maxTokens } }),
    sentence: always('settings.context.project.budgetInvalid'),
  }),
  /** Nothing typed: the default folder (null). */
  defaultWorkingFolder: setting({
    text: (s) => s.agent.defaultWorkingFolder ?? '',
    schema: z
      .string()
      .trim()
      .transform((v) => (v === '' ? null : v))
      .pipe(agent.defaultWorkingFolder.unwrap()),
    patch: (defaultWorkingFolder) => ({ agent: { defaultWorkingFolder } }),
    sentence: (t, code) => t(code === 'too_big' ? 'form.errors.too_big' : 'folder.errors.absolute'),
  }),
  envPassthrough: setting({
    text: (s) => s.agent.envPassthrough.join(', '),
    items: splitNames,
    schema: z.string().transform(splitNames).pipe(agent.envPassthrough.unwrap()),
    patch: (envPassthrough) => ({ agent: { envPassthrough } }),
    sentence: (t, _code, item) =>
      item === undefined ? t('settings.general.envTooMany') : t('settings.general.envNameError', { name: item }),
  }),
  sandboxHomeFolders: setting({
    text: (s) => s.sandbox.homeFolders.join(', '),
    items: splitPaths,
    schema: z.string().transform(splitPaths).pipe(sandbox.homeFolders.unwrap()),
    patch: (homeFolders) => ({ sandbox: { homeFolders } }),
    sentence: (t, _code, item) =>
      item === undefined ? t('settings.sandbox.tooMany') : t('settings.sandbox.folderError', { name: item }),
  }),
  sandboxNetworkDomains: setting({
    text: (s) => s.sandbox.networkDomains.join('\n'),
    items: splitNames,
    schema: z.string().transform(splitNames).pipe(sandbox.networkDomains.unwrap()),
    patch: (networkDomains) => ({ sandbox: { networkDomains } }),
    sentence: (t, _code, item) =>
      item === undefined ? t('settings.sandbox.tooMany') : t('settings.sandbox.domainError', { name: item }),
  }),
  customInstructions: setting({
    text: (s) => s.agent.customInstructions,
    schema: agent.customInstructions.unwrap(),
    patch: (customInstructions) => ({ agent: { customInstructions } }),
    sentence: always('form.errors.too_big'),
  }),
};

export type SettingName = keyof typeof SETTINGS;

/** A model's price as typed in Settings → Usage, checked by the protocol's `ModelPriceSchema`. */
export const PriceFormSchema = z.object({
  input: numberText.pipe(ModelPriceSchema.shape.input),
  cachedInput: numberText.pipe(ModelPriceSchema.shape.cachedInput),
  output: numberText.pipe(ModelPriceSchema.shape.output),
}) satisfies z.ZodType<ModelPrice, Record<keyof ModelPrice, string>>;
export const PRICE_FIELDS = ['input', 'cachedInput', 'output'] as const;

/**
 * A session's working folder as typed (the header's folder field), checked by the protocol's
 * `WorkingFolderSchema` before it is sent: the sentence of its refusal, or null. The runtime
 * resolves and checks the rest (a folder that does not exist, the whole home folder).
 */
export function folderSentence(t: TFunction, typed: string): string | null {
  const r = WorkingFolderSchema.safeParse(typed);
  if (r.success) return null;
  const code = r.error.issues[0]?.code;
  return t(
    code === 'too_small'
      ? 'folder.errors.empty'
      : code === 'too_big'
        ? 'form.errors.too_big'
        : 'folder.errors.absolute',
  );
}
