import { useEffect, useMemo, useRef, type FocusEvent, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useForm, type FieldError, type Resolver } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import * as z from 'zod';
import type { Settings, SettingsPatch } from '@threadline/protocol';
import { SETTINGS, type SettingName, type TextSetting } from '../../lib/settingsForm';
import { Field } from './Field';
import { REFUSED_SETTING } from '../../lib/refusedSetting';

type Values = { value: string };

/**
 * The refused part of the field's error: the field's own, or for a list the first refused entry
 * (the resolver nests an entry's issue under its index).
 */
function refusal(error: unknown): { code: string; index: number | undefined } | null {
  if (!error || typeof error !== 'object') return null;
  if ('type' in error) return { code: String((error as FieldError).type), index: undefined };
  for (const [key, entry] of Object.entries(error)) {
    if (entry && typeof entry === 'object' && 'type' in entry)
      return { code: String((entry as FieldError).type), index: Number(key) };
  }
  return null;
}

/** What a part of a settings section hands its fields: the settings, how to apply, a refusal heard. */
export interface SettingsPartProps {
  settings: Settings;
  apply: (patch: SettingsPatch) => void;
  /** A refusal here is the newest word: the section's older message goes. */
  onRefused?: () => void;
}

/**
 * One typed setting (Settings → General, Context, Usage): a react-hook-form field checked by the
 * protocol's schema for it (lib/settingsForm.ts), laid out by the one Field. It applies on blur
 * and on Enter (a text area: on blur); a refusal is said beside it in the user's language, and
 * the next check replaces it. What the runtime refuses is said by the section (`apply`).
 */
export function SettingField({
  name,
  settings,
  apply,
  onRefused,
  label,
  help,
  suffix,
  placeholder,
  multiline = false,
  maxLength,
  testId,
}: SettingsPartProps & {
  name: SettingName;
  label: string;
  help?: string;
  suffix?: string;
  placeholder?: string;
  /** A text area (long text) instead of a line. */
  multiline?: boolean;
  maxLength?: number;
  testId: string;
}) {
  const { t } = useTranslation();
  const setting = SETTINGS[name] as TextSetting<unknown>;
  const shown = setting.text(settings);
  const resolver = useMemo(
    () => zodResolver(z.object({ value: setting.schema })) as Resolver<Values, unknown, { value: unknown }>,
    [setting],
  );
  const form = useForm<Values, unknown, { value: unknown }>({
    resolver,
    defaultValues: { value: shown },
    // Checked when applied (blur, Enter), not while typing.
    mode: 'onSubmit',
    reValidateMode: 'onSubmit',
    // A refusal is said beside the field; focus goes where the user sends it (Tab, a click),
    // never back into the field.
    shouldFocusError: false,
  });
  const { register, reset, formState } = form;
  // The setting changed (applied here, or elsewhere): the field shows it.
  useEffect(() => reset({ value: shown }), [reset, shown]);

  /** The text last checked: a refused entry is named as it was then, not as typed since. */
  const checked = useRef(shown);
  const submit = form.handleSubmit(({ value }) => {
    const before = setting.schema.safeParse(shown);
    if (before.success && JSON.stringify(before.data) === JSON.stringify(value)) return;
    apply(setting.patch(value));
  }, onRefused);
  const commit = () => {
    checked.current = form.getValues('value');
    return submit();
  };

  const issue = refusal(formState.errors.value);
  const error = issue
    ? setting.sentence(
        t,
        issue.code,
        issue.index === undefined ? undefined : setting.items?.(checked.current)[issue.index],
      )
    : null;
  const field = register('value');
  const onBlur = (e: FocusEvent<HTMLInputElement | HTMLTextAreaElement>) => {
    void field.onBlur(e);
    void commit();
  };
  /** Esc in a field holding something else than the setting puts the setting back (and says nothing is lost). */
  const revert = (e: KeyboardEvent<HTMLInputElement | HTMLTextAreaElement>) => {
    if (e.key !== 'Escape' || form.getValues('value') === shown) return;
    e.preventDefault();
    reset({ value: shown });
  };
  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    revert(e);
    if (e.key !== 'Enter') return;
    e.preventDefault();
    void commit();
  };
  const numeric = suffix !== undefined;
  return (
    <Field layout="row" label={label} hint={help} error={error} errorTestId={`${testId}-error`}>
      {(control) =>
        multiline ? (
          <textarea
            className="input custom-instructions-input"
            rows={5}
            maxLength={maxLength}
            placeholder={placeholder}
            {...control}
            {...field}
            onBlur={onBlur}
            onKeyDown={revert}
            {...(error ? { [REFUSED_SETTING]: '' } : {})}
            data-testid={testId}
          />
        ) : (
          <div className={numeric ? 'number-row' : 'text-setting'}>
            <input
              className={`input ${numeric ? 'input-num' : 'mono'}`}
              inputMode={numeric ? 'decimal' : undefined}
              placeholder={placeholder}
              spellCheck={false}
              autoComplete="off"
              {...control}
              {...field}
              onBlur={onBlur}
              onKeyDown={onKeyDown}
              {...(error ? { [REFUSED_SETTING]: '' } : {})}
              data-testid={testId}
            />
            {numeric && <span className="suffix">{suffix}</span>}
          </div>
        )
      }
    </Field>
  );
}
