import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import type { DailyUsageRow, ModelPrice, PriceEntry, ProviderProfile } from '@threadline/protocol';
import { usageRoutes } from '../store/routes';
import { formatTokens } from '../i18n';
import { useAppStore } from '../store';
import { cacheRate, formatCost } from '../lib/cost';
import { callErrorText, fieldErrorText, type IssueKeys } from '../lib/formErrors';
import { PRICE_FIELDS, PriceFormSchema } from '../lib/settingsForm';
import { Field, FormBanner } from './form/Field';
import { SettingField, type SettingsPartProps } from './form/SettingField';
import { useApplySettings } from '../hooks/useApplySettings';

/** Totals per local day and model over the last 30 days. */
function DailyTable() {
  const { t } = useTranslation();
  const [rows, setRows] = useState<DailyUsageRow[] | null>(null);
  useEffect(() => {
    // The runtime groups by the renderer's local day.
    void usageRoutes
      .daily({ tzOffsetMinutes: -new Date().getTimezoneOffset(), days: 30 })
      .then((r) => setRows(r.rows))
      .catch(() => setRows([]));
  }, []);
  if (rows === null) return null;
  if (rows.length === 0) return <div className="muted">{t('cost.settings.none')}</div>;
  return (
    <table className="usage-table" data-testid="usage-daily">
      <thead>
        <tr>
          <th>{t('cost.settings.day')}</th>
          <th>{t('cost.settings.model')}</th>
          <th className="num">{t('cost.settings.calls')}</th>
          <th className="num">{t('cost.settings.in')}</th>
          <th className="num">{t('cost.settings.cached')}</th>
          <th className="num">{t('cost.settings.out')}</th>
          <th className="num">{t('cost.settings.cost')}</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={`${r.day}-${r.model}`}>
            <td>{r.day}</td>
            <td className="mono">{r.model}</td>
            <td className="num">{r.calls}</td>
            <td className="num">{formatTokens(r.promptTokens)}</td>
            <td className="num">{t('cost.settings.cachedValue', { percent: cacheRate(r) })}</td>
            <td className="num">{formatTokens(r.completionTokens)}</td>
            <td className="num">{formatCost(r.cost, t)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

type PriceText = Record<keyof ModelPrice, string>;

/** Any refusal of a price: the one sentence of its range. */
const PRICE_ISSUES: IssueKeys = Object.fromEntries(PRICE_FIELDS.map((k) => [k, { '*': 'cost.settings.priceInvalid' }]));

/**
 * The price of one model of a profile: its own, the shipped default, or none ("unknown"). Its
 * three fields are one form, checked by the protocol's `ModelPriceSchema` when saved.
 */
function PriceRow({
  profile,
  model,
  entry,
  onSaved,
}: {
  profile: ProviderProfile;
  model: string;
  entry: PriceEntry | undefined;
  onSaved: (list: PriceEntry[]) => void;
}) {
  const { t } = useTranslation();
  const form = useForm<PriceText, unknown, ModelPrice>({
    resolver: zodResolver(PriceFormSchema),
    defaultValues: {
      input: entry ? String(entry.price.input) : '',
      cachedInput: entry ? String(entry.price.cachedInput) : '',
      output: entry ? String(entry.price.output) : '',
    },
    reValidateMode: 'onSubmit',
  });
  const [error, setError] = useState<string | null>(null);
  const save = (price: ModelPrice | null) => {
    setError(null);
    void usageRoutes
      .setPrices({ profileId: profile.id, model, price })
      .then(onSaved)
      .catch((err: unknown) => setError(callErrorText(t, err)));
  };
  return (
    <form
      className="price-row"
      noValidate
      onSubmit={(e) => void form.handleSubmit(save, () => setError(null))(e)}
      data-testid={`price-${model}`}
    >
      <div className="price-model">
        <span className="mono">{model}</span>{' '}
        <span className="muted">
          {entry ? t(`cost.settings.source.${entry.source}`) : t('cost.settings.source.none')}
        </span>
      </div>
      <div className="price-fields">
        {PRICE_FIELDS.map((k) => (
          <Field
            key={k}
            className="price-field"
            label={t(`cost.settings.${k}`)}
            error={fieldErrorText(t, PRICE_ISSUES, k, form.formState.errors[k])}
            errorTestId={`price-${model}-${k}-error`}
          >
            {(c) => <input className="input" inputMode="decimal" {...c} {...form.register(k)} />}
          </Field>
        ))}
        <button type="submit" className="btn btn-small">
          {t('cost.settings.save')}
        </button>
        {entry?.source === 'profile' && (
          <button type="button" className="link-btn" onClick={() => save(null)}>
            {t('cost.settings.reset')}
          </button>
        )}
      </div>
      <FormBanner banner={error ? { tone: 'error', text: error } : null} />
    </form>
  );
}

/** Prices of the models the active profile uses (its model and its compaction model). */
function Prices() {
  const { t } = useTranslation();
  const profile = useAppStore((s) => s.providers.find((p) => p.active) ?? null);
  const [list, setList] = useState<PriceEntry[] | null>(null);
  useEffect(() => {
    if (!profile) return;
    void usageRoutes
      .prices({ profileId: profile.id })
      .then(setList)
      .catch(() => setList([]));
  }, [profile]);
  if (!profile || list === null) return null;
  const models = [...new Set([profile.model, ...(profile.compactionModel ? [profile.compactionModel] : [])])];
  return (
    <div className="prices" data-testid="usage-prices">
      <div className="muted small">{t('cost.settings.pricesHelp', { profile: profile.name })}</div>
      {models.map((m) => (
        <PriceRow
          key={`${m}-${list.find((e) => e.model === m)?.source ?? 'none'}`}
          profile={profile}
          model={m}
          entry={list.find((e) => e.model === m)}
          onSaved={setList}
        />
      ))}
    </div>
  );
}

/** Settings → Usage: the provider cache's lifetime, the resend warning, totals and prices. */
export function UsageSettings() {
  const { t } = useTranslation();
  const settings = useAppStore((s) => s.settings);
  const { apply, error, clear } = useApplySettings();
  if (!settings) return null;
  const part: SettingsPartProps = { settings, apply, onRefused: clear };
  return (
    <section className="settings-section" data-testid="usage-settings">
      <h3 className="settings-h">{t('cost.settings.dailyHeading')}</h3>
      <DailyTable />
      <h3 className="settings-h">{t('cost.settings.pricesHeading')}</h3>
      <Prices />
      <h3 className="settings-h">{t('cost.settings.cacheHeading')}</h3>
      <SettingField
        name="cacheTtlMinutes"
        {...part}
        label={t('cost.settings.ttl')}
        help={t('cost.settings.ttlHelp')}
        suffix={t('cost.settings.minutes')}
        testId="cache-ttl-input"
      />
      <SettingField
        name="cacheWarnAboveTokens"
        {...part}
        label={t('cost.settings.warnAbove')}
        help={t('cost.settings.warnAboveHelp')}
        suffix={t('settings.context.tokensSuffix')}
        testId="cache-warn-input"
      />
      <FormBanner banner={error ? { tone: 'error', text: error } : null} />
    </section>
  );
}
