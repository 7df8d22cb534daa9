import { useState } from 'react';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import {
  PROVIDER_PRESETS,
  PresetIdSchema,
  type PresetId,
  type ProviderProfile,
  type ProviderUpsert,
  type RouteOutput,
} from '@threadline/protocol';
import { call } from '../transport';
import { useAppStore } from '../store';

const PRESET_IDS = PresetIdSchema.options;

interface Props {
  profile?: ProviderProfile;
  /** Called with the saved (and activated) profile. */
  onSaved?: (p: ProviderProfile) => void;
  submitLabel: string;
}

/** scheme://host:port, or null when the text is not a URL (yet). */
function originOf(url: string): string | null {
  try {
    return new URL(url.trim()).origin;
  } catch {
    return null;
  }
}

type TestResult = RouteOutput<'providers.test'>;
type TestState = { state: 'idle' } | { state: 'running' } | ({ state: 'done' } & TestResult);
type Problem = NonNullable<TestResult['problem']>;

/** The field each problem is fixed in; 'other' is said below the form. */
const FIELD_OF: Record<Problem, 'apiKey' | 'baseUrl' | 'model' | null> = {
  missing_key: 'apiKey',
  auth: 'apiKey',
  unreachable: 'baseUrl',
  unknown_model: 'model',
  other: null,
};

/** A failed check in the user's language (the provider's own words only for `other`). */
function problemSentence(t: TFunction, r: TestResult): string {
  if (r.problem === 'unknown_model' && r.offered && r.offered.length > 0)
    return t('provider.problem.unknown_model_offered', { models: r.offered.join(', ') });
  if (!r.problem || r.problem === 'other') return t('provider.problem.other', { message: r.message });
  return t(`provider.problem.${r.problem}`);
}

/** The failed check of a save, one sentence beside the field to fix. */
function FieldProblem({ field, failed }: { field: 'apiKey' | 'baseUrl' | 'model'; failed: TestResult | null }) {
  const { t } = useTranslation();
  const problem = failed?.problem;
  if (!failed || !problem || FIELD_OF[problem] !== field) return null;
  return (
    <span className="field-error" role="alert" data-testid={`field-error-${field}`}>
      {problemSentence(t, failed)}
    </span>
  );
}

/**
 * A provider profile: preset, endpoint, model, window and key. The key is write-only: the form
 * never receives it, only whether one is stored ("key set"), and sends it only when typed.
 */
export function ProviderForm({ profile, onSaved, submitLabel }: Props) {
  const { t } = useTranslation();
  const loadProviders = useAppStore((s) => s.loadProviders);
  const [preset, setPreset] = useState<PresetId>(profile?.preset ?? 'openai');
  const [name, setName] = useState(profile?.name ?? PROVIDER_PRESETS.openai.name);
  const [baseUrl, setBaseUrl] = useState(profile?.baseUrl ?? PROVIDER_PRESETS.openai.baseUrl);
  const [model, setModel] = useState(profile?.model ?? PROVIDER_PRESETS.openai.model);
  const [contextWindow, setContextWindow] = useState(
    String(profile?.contextWindow ?? PROVIDER_PRESETS.openai.contextWindow),
  );
  const [compactionModel, setCompactionModel] = useState(profile?.compactionModel ?? '');
  /** The smaller window the provider stated in an error; "undo" forgets it on the next save. */
  const [learned, setLearned] = useState<number | null>(profile?.learnedContextWindow ?? null);
  const [forgetLearned, setForgetLearned] = useState(false);
  const [apiKey, setApiKey] = useState('');
  const [savedId, setSavedId] = useState<string | undefined>(profile?.id);
  const [hasKey, setHasKey] = useState(profile?.hasKey ?? false);
  /** The address the stored key was saved for: the runtime drops the key when the origin changes. */
  const [keyUrl, setKeyUrl] = useState(profile?.baseUrl ?? '');
  /** The stored key goes on the next save (the key itself is never shown, so it cannot be edited). */
  const [removeKey, setRemoveKey] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [test, setTest] = useState<TestState>({ state: 'idle' });
  /** A save's connection check that failed: shown beside the field, with "Save anyway". */
  const [failed, setFailed] = useState<TestResult | null>(null);

  const pick = (id: PresetId) => {
    const p = PROVIDER_PRESETS[id];
    setPreset(id);
    setName(p.name);
    setBaseUrl(p.baseUrl);
    setModel(p.model);
    setContextWindow(String(p.contextWindow));
  };

  /** The form as a profile to save or test, or null (with the error shown) when it is invalid. */
  const draft = (): ProviderUpsert | null => {
    setError(null);
    const windowNum = Number(contextWindow);
    if (!Number.isInteger(windowNum) || windowNum <= 0) {
      setError(t('provider.errors.window'));
      return null;
    }
    const origin = originOf(baseUrl);
    if (origin === null || !/^https?:/.test(origin)) {
      setError(t('provider.errors.url'));
      return null;
    }
    return {
      id: savedId,
      preset,
      name: name.trim(),
      baseUrl: baseUrl.trim(),
      model: model.trim(),
      contextWindow: windowNum,
      compactionModel: compactionModel.trim() || null,
      ...(forgetLearned ? { learnedContextWindow: null } : {}),
      ...(removeKey ? { apiKey: null } : apiKey ? { apiKey } : {}),
    };
  };

  const save = async (): Promise<ProviderProfile | null> => {
    const d = draft();
    if (!d) return null;
    try {
      const saved = await call('providers.upsert', d);
      setSavedId(saved.id);
      setHasKey(saved.hasKey);
      setKeyUrl(saved.baseUrl);
      setRemoveKey(false);
      setApiKey('');
      setLearned(saved.learnedContextWindow ?? null);
      setForgetLearned(false);
      return saved;
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
      return null;
    }
  };

  /** Tests what the form holds without saving it (nothing is kept until "Save"). */
  const runTest = async () => {
    const d = draft();
    if (!d) return;
    setTest({ state: 'running' });
    try {
      const r = await call('providers.test', { draft: d });
      setTest({ state: 'done', ...r });
    } catch (err) {
      setTest({ state: 'done', ok: false, message: err instanceof Error ? err.message : String(err), latencyMs: null });
    }
  };

  /** Saving tests first: a profile that cannot answer is said so before the first message waits on it. */
  const submit = async (anyway = false) => {
    setFailed(null);
    setError(null);
    setTest({ state: 'idle' });
    setSaving(true);
    // A saved profile whose address, model and key are as stored was checked (or saved anyway)
    // already: renaming it or changing its window asks nothing again.
    const unchanged =
      profile !== undefined &&
      savedId === profile.id &&
      baseUrl.trim() === profile.baseUrl &&
      model.trim() === profile.model &&
      preset === profile.preset &&
      apiKey === '' &&
      !removeKey;
    if (!anyway && !unchanged) {
      const d = draft();
      if (!d) return setSaving(false);
      const r = await call('providers.test', { draft: d }).catch((err: unknown): TestResult => ({
        ok: false,
        message: err instanceof Error ? err.message : String(err),
        latencyMs: null,
        problem: 'other',
      }));
      if (!r.ok) {
        setFailed(r);
        setSaving(false);
        return;
      }
    }
    const saved = await save();
    if (saved) {
      try {
        const active = await call('providers.setActive', { id: saved.id });
        await loadProviders();
        onSaved?.(active);
      } catch (err) {
        setError(err instanceof Error ? err.message : String(err));
      }
    }
    setSaving(false);
  };

  const needsKey = PROVIDER_PRESETS[preset].needsKey;
  // Said before saving: a key never follows its profile to another host (the runtime drops it).
  const keyHost = originOf(keyUrl);
  const keyDropped = hasKey && !removeKey && apiKey === '' && keyHost !== null && originOf(baseUrl) !== keyHost;

  return (
    <form
      className="provider-form"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
      data-testid="provider-form"
    >
      <div className="preset-grid" role="radiogroup" aria-label={t('provider.preset')}>
        {PRESET_IDS.map((id) => (
          <button
            key={id}
            type="button"
            role="radio"
            aria-checked={preset === id}
            className={`preset ${preset === id ? 'selected' : ''}`}
            onClick={() => pick(id)}
            data-testid={`preset-${id}`}
          >
            <span className="preset-name">{t(`provider.presets.${id}.name`)}</span>
            <span className="preset-desc">{t(`provider.presets.${id}.desc`)}</span>
          </button>
        ))}
      </div>
      <div className="form-grid">
        <label className="field">
          <span className="field-label">{t('provider.name')}</span>
          <input
            className="input"
            value={name}
            onChange={(e) => setName(e.target.value)}
            required
            data-testid="provider-name"
          />
        </label>
        <label className="field">
          <span className="field-label">{t('provider.baseUrl')}</span>
          <input
            className="input"
            value={baseUrl}
            onChange={(e) => setBaseUrl(e.target.value)}
            required
            data-testid="provider-url"
          />
          <FieldProblem field="baseUrl" failed={failed} />
        </label>
        <label className="field">
          <span className="field-label">{t('provider.model')}</span>
          <input
            className="input"
            value={model}
            onChange={(e) => setModel(e.target.value)}
            required
            data-testid="provider-model"
          />
          <FieldProblem field="model" failed={failed} />
        </label>
        <label className="field">
          <span className="field-label">{t('provider.contextWindow')}</span>
          <input
            className="input"
            inputMode="numeric"
            value={contextWindow}
            onChange={(e) => setContextWindow(e.target.value.replace(/[^\d]/g, ''))}
            required
            data-testid="provider-window"
          />
          {learned !== null && (
            <span className="field-hint" data-testid="provider-learned-window">
              {forgetLearned
                ? t('provider.learnedWindow.forgotten')
                : t('provider.learnedWindow.inEffect', { window: learned.toLocaleString() })}{' '}
              <button
                type="button"
                className="link-btn"
                onClick={() => setForgetLearned(!forgetLearned)}
                data-testid="provider-learned-undo"
              >
                {forgetLearned ? t('provider.learnedWindow.keep') : t('provider.learnedWindow.undo')}
              </button>
            </span>
          )}
        </label>
        <label className="field field-wide">
          <span className="field-label">
            {t('provider.apiKey')}
            {hasKey && !removeKey && (
              <span className="key-set" data-testid="key-set">
                {t('provider.keySet')}
              </span>
            )}
            {hasKey && (
              <button
                type="button"
                className="link-btn"
                onClick={() => setRemoveKey(!removeKey)}
                data-testid="provider-remove-key"
              >
                {removeKey ? t('provider.keepKey') : t('provider.removeKey')}
              </button>
            )}
          </span>
          <input
            className="input"
            type="password"
            autoComplete="off"
            value={apiKey}
            placeholder={
              removeKey
                ? t('provider.keyWillBeRemoved')
                : keyDropped
                  ? t('provider.apiKeyNewHost')
                  : hasKey
                    ? t('provider.apiKeyKeep')
                    : needsKey
                      ? t('provider.apiKeyPlaceholder')
                      : t('provider.apiKeyOptional')
            }
            disabled={removeKey}
            onChange={(e) => setApiKey(e.target.value)}
            aria-describedby={keyDropped ? 'provider-key-moved' : undefined}
            data-testid="provider-key"
          />
          {keyDropped && (
            <span className="field-warning" id="provider-key-moved" role="status" data-testid="provider-key-moved">
              {t('provider.keyHostChanged', { host: keyHost })}
            </span>
          )}
          <FieldProblem field="apiKey" failed={failed} />
        </label>
        <label className="field field-wide">
          <span className="field-label">{t('provider.compactionModel')}</span>
          <input
            className="input"
            value={compactionModel}
            placeholder={t('provider.compactionModelPlaceholder')}
            onChange={(e) => setCompactionModel(e.target.value)}
          />
        </label>
      </div>
      {error && (
        <div className="form-error" role="alert">
          {error}
        </div>
      )}
      {failed && (
        <div className="form-warning" data-testid="save-check-failed">
          {failed.problem === 'other' || !failed.problem
            ? t('provider.problem.other', { message: failed.message })
            : t('provider.problem.saveAnywayHint')}
          <button
            type="button"
            className="btn btn-small"
            onClick={() => void submit(true)}
            disabled={saving}
            data-testid="provider-save-anyway"
          >
            {t('provider.saveAnyway')}
          </button>
        </div>
      )}
      <div className="form-actions">
        <button
          type="button"
          className="btn"
          onClick={() => void runTest()}
          disabled={test.state === 'running'}
          data-testid="provider-test"
        >
          {test.state === 'running' ? <span className="spinner" aria-hidden /> : null}
          {t('provider.test')}
        </button>
        {test.state === 'done' && (
          <span className={`test-result ${test.ok ? 'ok' : 'bad'}`} data-testid="provider-test-result" role="status">
            {test.ok
              ? t('provider.testOk', { ms: test.latencyMs ?? '?' })
              : test.problem && test.problem !== 'other'
                ? problemSentence(t, test)
                : t('provider.testFailed', { message: test.message })}
          </span>
        )}
        <span className="spacer" />
        <button type="submit" className="btn btn-primary" disabled={saving} data-testid="provider-save">
          {saving ? <span className="spinner" aria-hidden /> : null}
          {submitLabel}
        </button>
      </div>
    </form>
  );
}
