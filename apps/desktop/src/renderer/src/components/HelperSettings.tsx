import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useForm, type FieldError } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import * as z from 'zod';
import { BUILTIN_HELPER_ROLES, HELPER_CONCURRENCY_MAX, HelperRoleSchema, type HelperRole } from '@threadline/protocol';
import { useAppStore } from '../store';
import { useApplySettings } from '../hooks/useApplySettings';
import { fieldErrorText, type IssueKeys } from '../lib/formErrors';
import { Field, FormBanner } from './form/Field';
import { Segmented, SettingRow } from './SettingsControls';
import { IconPencil, IconPlus, IconTrash } from './Icons';

/** The form's text fields: tools one list of names, model blank for the session's. */
interface RoleValues {
  name: string;
  description: string;
  tools: string;
  model: string;
}

/** The form's values as the protocol's role (the same schema the runtime checks settings with). */
const RoleFormSchema = z
  .object({ name: z.string(), description: z.string(), tools: z.string(), model: z.string() })
  .transform((v): z.input<typeof HelperRoleSchema> => ({
    name: v.name.trim(),
    description: v.description.trim(),
    tools: v.tools
      .split(/[\s,]+/)
      .map((n) => n.trim())
      .filter((n) => n !== ''),
    model: v.model.trim() === '' ? null : v.model.trim(),
  }))
  .pipe(HelperRoleSchema);

/** This form's sentences for what the schema refuses (the rest: `form.errors.<code>`). */
const ISSUE_KEYS: IssueKeys = {
  name: { '*': 'helpers.settings.errors.name', taken: 'helpers.settings.errors.taken' },
  description: { too_small: 'helpers.settings.errors.description' },
  tools: { too_small: 'helpers.settings.errors.tools' },
};

/** Add or edit one role; `others` are the names already taken. */
function RoleForm({
  role,
  others,
  onSave,
  onCancel,
}: {
  role: HelperRole | null;
  others: string[];
  onSave: (r: HelperRole) => Promise<string | null>;
  onCancel: () => void;
}) {
  const { t } = useTranslation();
  const form = useForm<RoleValues, unknown, HelperRole>({
    resolver: zodResolver(RoleFormSchema),
    defaultValues: {
      name: role?.name ?? '',
      description: role?.description ?? '',
      tools: role?.tools.join(', ') ?? '',
      model: role?.model ?? '',
    },
  });
  const [banner, setBanner] = useState<string | null>(null);
  const errorOf = (f: keyof RoleValues) =>
    fieldErrorText(t, ISSUE_KEYS, f, form.formState.errors[f] as FieldError | undefined);
  const save = async (r: HelperRole) => {
    if (others.includes(r.name)) return form.setError('name', { type: 'taken' }); // i18n-ignore: a code, worded by ISSUE_KEYS
    setBanner(await onSave(r));
  };
  return (
    <form
      className="helper-role-form"
      noValidate
      onSubmit={(e) => void form.handleSubmit(save)(e)}
      data-testid="helper-role-form"
    >
      <div className="form-grid">
        <Field label={t('helpers.settings.name')} error={errorOf('name')} errorTestId="helper-role-error-name">
          {(c) => (
            <input
              className="input mono"
              {...c}
              {...form.register('name')}
              placeholder={t('helpers.settings.namePlaceholder')}
              data-testid="helper-role-name"
              autoFocus
            />
          )}
        </Field>
        <Field label={t('helpers.settings.model')} hint={t('helpers.settings.modelHint')} error={errorOf('model')}>
          {(c) => <input className="input mono" {...c} {...form.register('model')} data-testid="helper-role-model" />}
        </Field>
        <Field
          wide
          label={t('helpers.settings.description')}
          hint={t('helpers.settings.descriptionHint')}
          error={errorOf('description')}
        >
          {(c) => (
            <input className="input" {...c} {...form.register('description')} data-testid="helper-role-description" />
          )}
        </Field>
        <Field wide label={t('helpers.settings.tools')} hint={t('helpers.settings.toolsHint')} error={errorOf('tools')}>
          {(c) => (
            <input
              className="input mono"
              {...c}
              {...form.register('tools')}
              placeholder="read_file, grep, glob" // i18n-ignore: tool names
              data-testid="helper-role-tools"
            />
          )}
        </Field>
      </div>
      <FormBanner banner={banner ? { tone: 'error', text: banner, testId: 'helper-role-banner' } : null} />
      <div className="form-actions">
        <button type="button" className="btn" onClick={onCancel}>
          {t('common.cancel')}
        </button>
        <button type="submit" className="btn btn-primary" data-testid="helper-role-save">
          {t('common.save')}
        </button>
      </div>
    </form>
  );
}

/** Settings → Helpers: how many run at once, and the roles the user defined (the delegate tool). */
export function HelperSettings() {
  const { t } = useTranslation();
  const settings = useAppStore((s) => s.settings);
  const update = useAppStore((s) => s.updateSettings);
  const { apply, error } = useApplySettings();
  /** The role being edited: its index, `new`, or none. */
  const [editing, setEditing] = useState<number | 'new' | null>(null);
  if (!settings) return null;
  const { roles, concurrency } = settings.helpers;
  const setRoles = async (next: HelperRole[]): Promise<string | null> => {
    const refused = await update({ helpers: { roles: next } });
    if (refused === null) setEditing(null);
    return refused;
  };
  const counts = ['auto', ...Array.from({ length: HELPER_CONCURRENCY_MAX }, (_, i) => String(i + 1))];
  return (
    <section className="settings-section" data-testid="helper-settings">
      <p className="settings-intro">{t('helpers.settings.intro')}</p>
      <SettingRow label={t('helpers.settings.concurrency')} help={t('helpers.settings.concurrencyHelp')}>
        <Segmented
          label={t('helpers.settings.concurrency')}
          value={concurrency === null ? 'auto' : String(concurrency)}
          options={counts.map((v) => ({ value: v, label: v === 'auto' ? t('helpers.settings.auto') : v }))}
          onChange={(v) => apply({ helpers: { concurrency: v === 'auto' ? null : Number(v) } })}
          testId="helper-concurrency"
        />
      </SettingRow>
      <h3 className="settings-h">{t('helpers.settings.roles')}</h3>
      <ul className="helper-roles">
        {BUILTIN_HELPER_ROLES.map((name) => (
          <li key={name} className="helper-role builtin">
            <code>{name}</code>
            <span>{t(`helpers.settings.${name}`)}</span>
          </li>
        ))}
        {roles.map((r, i) =>
          editing === i ? (
            <li key={r.name}>
              <RoleForm
                role={r}
                others={roles.filter((_, j) => j !== i).map((x) => x.name)}
                onSave={(next) => setRoles(roles.map((x, j) => (j === i ? next : x)))}
                onCancel={() => setEditing(null)}
              />
            </li>
          ) : (
            <li key={r.name} className="helper-role" data-testid="helper-role">
              <code>{r.name}</code>
              <span className="helper-role-desc">
                {r.description}
                <span className="muted">
                  {' '}
                  {t('helpers.settings.roleLine', {
                    tools: r.tools.join(', '),
                    model: r.model ?? t('helpers.settings.sessionModel'),
                  })}
                </span>
              </span>
              <button
                type="button"
                className="icon-btn"
                aria-label={t('helpers.settings.edit', { name: r.name })}
                title={t('helpers.settings.edit', { name: r.name })}
                onClick={() => setEditing(i)}
              >
                <IconPencil />
              </button>
              <button
                type="button"
                className="icon-btn"
                aria-label={t('helpers.settings.remove', { name: r.name })}
                title={t('helpers.settings.remove', { name: r.name })}
                onClick={() => void setRoles(roles.filter((_, j) => j !== i))}
                data-testid="helper-role-remove"
              >
                <IconTrash />
              </button>
            </li>
          ),
        )}
      </ul>
      {editing === 'new' ? (
        <RoleForm
          role={null}
          others={roles.map((x) => x.name)}
          onSave={(r) => setRoles([...roles, r])}
          onCancel={() => setEditing(null)}
        />
      ) : (
        <button type="button" className="btn" onClick={() => setEditing('new')} data-testid="helper-role-add">
          <IconPlus />
          {t('helpers.settings.add')}
        </button>
      )}
      <FormBanner banner={error ? { tone: 'error', text: error, testId: 'helper-settings-error' } : null} />
    </section>
  );
}
