import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import {
  distinctProfileName,
  PROVIDER_PRESETS,
  type PresetId,
  type ProviderProfile,
  type ProviderUpsert,
} from '@threadline/protocol';
import { providerRoutes } from '../store/routes';
import { useAppStore } from '../store';
import { callErrorText, fieldErrorText, setServerIssues } from '../lib/formErrors';
import { Field, FormBanner, type Banner } from './form/Field';
import { KeyState, ModelPick, PresetGrid, TestResultText, WindowHints } from './ProviderFormParts';
import {
  FIELD_OF,
  FIELDS,
  ISSUE_KEYS,
  onlyDetailsEdited,
  originOf,
  problemSentence,
  ProviderFormSchema,
  type FormInput,
  type FormOutput,
  type TestResult,
  type TestState,
} from '../lib/providerForm';

interface Props {
  profile?: ProviderProfile;
  /** Called with the saved (and activated) profile. */
  onSaved?: (p: ProviderProfile) => void;
  submitLabel: string;
}

/**
 * A provider profile: preset, endpoint, model, window and key. The key is write-only: the form
 * never receives it, only whether one is stored ("key set"), and sends it only when typed.
 */
export function ProviderForm({ profile, onSaved, submitLabel }: Props) {
  const { t } = useTranslation();
  const loadProviders = useAppStore((s) => s.loadProviders);
  const loadSessions = useAppStore((s) => s.loadSessions);
  // The other profiles' names: a new profile is offered one of its own ("Custom 2").
  const others = useAppStore((s) => s.providers)
    .filter((p) => p.id !== profile?.id)
    .map((p) => p.name);
  const nameFor = (id: PresetId): string => distinctProfileName(PROVIDER_PRESETS[id].name, others);
  const form = useForm<FormInput, unknown, FormOutput>({
    resolver: zodResolver(ProviderFormSchema),
    defaultValues: {
      preset: profile?.preset ?? 'openai',
      name: profile?.name ?? nameFor('openai'),
      baseUrl: profile?.baseUrl ?? PROVIDER_PRESETS.openai.baseUrl,
      model: profile?.model ?? PROVIDER_PRESETS.openai.model,
      contextWindow: String(profile?.contextWindow ?? PROVIDER_PRESETS.openai.contextWindow),
      compactionModel: profile?.compactionModel ?? '',
      apiKey: '',
    },
  });
  const { register, setValue, formState } = form;
  const values = form.watch();
  const { preset, baseUrl, apiKey } = values;
  /** The smaller window the provider stated in an error; "undo" forgets it on the next save. */
  const [learned, setLearned] = useState<number | null>(profile?.learnedContextWindow ?? null);
  /** What the local server said about its window (read on every save, or on request). */
  const [server, setServer] = useState(profile?.serverWindow ?? null);
  const [forgetLearned, setForgetLearned] = useState(false);
  const [savedId, setSavedId] = useState<string | undefined>(profile?.id);
  const [hasKey, setHasKey] = useState(profile?.hasKey ?? false);
  /** The address the stored key was saved for: the runtime drops the key when the origin changes. */
  const [keyUrl, setKeyUrl] = useState(profile?.baseUrl ?? '');
  /** The stored key goes on the next save (the key itself is never shown, so it cannot be edited). */
  const [removeKey, setRemoveKey] = useState(false);
  /** The form's one banner: a newer message replaces the older one. */
  const [banner, setBanner] = useState<Banner | null>(null);
  const [saving, setSaving] = useState(false);
  const [test, setTest] = useState<TestState>({ state: 'idle' });
  /** A save's connection check that failed: shown beside the field, with "Save anyway". */
  const [failed, setFailed] = useState<TestResult | null>(null);
  /** The models the provider listed in the last check of this address: offered to pick. */
  const [models, setModels] = useState<string[] | null>(null);

  /** A newer error: it replaces the banner and a failed check's sentences. */
  const showError = (text: string) => {
    setFailed(null);
    setBanner({ tone: 'error', text });
  };
  const clearMessages = () => {
    setFailed(null);
    setBanner(null);
  };

  /**
   * Where the form connects to changed: an older check's verdict (a missing key, an unknown model)
   * and the models it listed no longer describe it.
   */
  const connectionEdited = () => {
    setFailed(null);
    setBanner(null);
    setTest({ state: 'idle' });
  };

  const pick = (id: PresetId) => {
    const p = PROVIDER_PRESETS[id];
    connectionEdited();
    setModels(null);
    setValue('preset', id);
    setValue('name', nameFor(id));
    setValue('baseUrl', p.baseUrl);
    setValue('model', p.model);
    setValue('contextWindow', String(p.contextWindow));
  };

  /** The checked form as a profile to save or test. */
  const draft = (v: FormOutput): ProviderUpsert => ({
    id: savedId,
    preset: v.preset,
    name: v.name,
    baseUrl: v.baseUrl,
    model: v.model,
    contextWindow: v.contextWindow,
    compactionModel: v.compactionModel || null,
    ...(forgetLearned ? { learnedContextWindow: null } : {}),
    ...(removeKey ? { apiKey: null } : v.apiKey ? { apiKey: v.apiKey } : {}),
  });

  /** A refusal the fields can show goes beside them; anything else is the banner. */
  const refused = (err: unknown, prefix: string[] = []) => {
    if (setServerIssues(err, FIELDS, form.setError, prefix)) clearMessages();
    else showError(callErrorText(t, err));
  };

  const save = async (v: FormOutput): Promise<ProviderProfile | null> => {
    try {
      const saved = await providerRoutes.upsert(draft(v));
      setSavedId(saved.id);
      setHasKey(saved.hasKey);
      setKeyUrl(saved.baseUrl);
      setRemoveKey(false);
      setValue('apiKey', '');
      setLearned(saved.learnedContextWindow ?? null);
      setForgetLearned(false);
      setServer(saved.serverWindow ?? null);
      return saved;
    } catch (err) {
      refused(err);
      return null;
    }
  };

  /** Tests what the form holds without saving it (nothing is kept until "Save"). */
  const runTest = async (v: FormOutput) => {
    // The test's result is the newest word on the form.
    clearMessages();
    setTest({ state: 'running' });
    try {
      const r = await providerRoutes.test({ draft: draft(v) });
      setTest({ state: 'done', ...r });
      setModels(r.models && r.models.length > 0 ? r.models : null);
    } catch (err) {
      if (setServerIssues(err, FIELDS, form.setError, ['draft'])) setTest({ state: 'idle' });
      else setTest({ state: 'done', ok: false, message: callErrorText(t, err), latencyMs: null });
    }
  };

  /** Saving tests first: a profile that cannot answer is said so before the first message waits on it. */
  const submit = async (v: FormOutput, anyway = false) => {
    clearMessages();
    // Said before any connection check: the runtime refuses it too.
    if (distinctProfileName(v.name, others) !== v.name) {
      form.setError('name', { type: 'duplicate' }); // i18n-ignore: a field name; the sentence is ISSUE_KEYS'
      return;
    }
    setTest({ state: 'idle' });
    setSaving(true);
    const unchanged = onlyDetailsEdited(profile, savedId, v, removeKey);
    if (!anyway && !unchanged) {
      const r = await providerRoutes.test({ draft: draft(v) }).catch((err: unknown): TestResult => ({
        ok: false,
        message: callErrorText(t, err),
        latencyMs: null,
        problem: 'other',
      }));
      if (r.models && r.models.length > 0) setModels(r.models);
      if (!r.ok) {
        setFailed(r);
        setBanner({ tone: 'warning', text: checkText(r) });
        setSaving(false);
        return;
      }
    }
    const saved = await save(v);
    if (saved) {
      try {
        const active = await providerRoutes.setActive({ id: saved.id });
        // Sessions under way keep the profile they used (the runtime gave it to them): their
        // summaries say so now.
        await Promise.all([loadProviders(), loadSessions()]);
        onSaved?.(active);
      } catch (err) {
        showError(callErrorText(t, err));
      }
    }
    setSaving(false);
  };

  /** The failed check's sentence in the banner (beside "Save anyway"). */
  const checkText = (r: TestResult): string =>
    r.problem === 'other' || !r.problem
      ? t('provider.problem.other', { message: r.message })
      : t('provider.problem.saveAnywayHint');

  /** A field's error: what the schema refused, else the failed check's sentence for it. */
  const errorOf = (field: (typeof FIELDS)[number]): string | null => {
    const invalid = fieldErrorText(t, ISSUE_KEYS, field, formState.errors[field]);
    if (invalid) return invalid;
    const problem = failed?.problem;
    return failed && problem && FIELD_OF[problem] === field ? problemSentence(t, failed) : null;
  };

  const needsKey = PROVIDER_PRESETS[preset].needsKey;
  // Said before saving: a key never follows its profile to another host (the runtime drops it).
  const keyHost = originOf(keyUrl);
  const keyDropped = hasKey && !removeKey && apiKey === '' && keyHost !== null && originOf(baseUrl) !== keyHost;

  return (
    <form
      className="provider-form"
      noValidate
      onSubmit={(e) => void form.handleSubmit((v) => submit(v))(e)}
      data-testid="provider-form"
    >
      <PresetGrid preset={preset} onPick={pick} />
      <div className="form-grid">
        <Field label={t('provider.name')} error={errorOf('name')} errorTestId="field-error-name">
          {(c) => <input className="input" {...c} {...register('name')} data-testid="provider-name" />}
        </Field>
        <Field label={t('provider.baseUrl')} error={errorOf('baseUrl')} errorTestId="field-error-baseUrl">
          {(c) => (
            <input
              className="input"
              {...c}
              {...register('baseUrl', {
                onChange: () => {
                  connectionEdited();
                  setModels(null);
                },
              })}
              data-testid="provider-url"
            />
          )}
        </Field>
        <Field
          label={t('provider.model')}
          error={errorOf('model')}
          errorTestId="field-error-model"
          hint={
            models && (
              <ModelPick
                models={models}
                model={values.model}
                onPick={(m) => {
                  setValue('model', m, { shouldValidate: true });
                  connectionEdited();
                }}
              />
            )
          }
        >
          {(c) => (
            <input
              className="input"
              {...c}
              {...register('model', { onChange: connectionEdited })}
              data-testid="provider-model"
            />
          )}
        </Field>
        <Field
          label={t('provider.contextWindow')}
          error={errorOf('contextWindow')}
          errorTestId="field-error-contextWindow"
          hint={
            <WindowHints
              profileId={savedId}
              local={preset === 'ollama' || preset === 'lmstudio' || preset === 'custom'}
              serverWindow={server}
              model={values.model.trim()}
              window={Number(values.contextWindow) || 0}
              onRead={(p) => setServer(p.serverWindow ?? null)}
              onUse={(w) => setValue('contextWindow', String(w), { shouldDirty: true })}
              learned={learned}
              forgetLearned={forgetLearned}
              onToggleForget={() => setForgetLearned(!forgetLearned)}
            />
          }
        >
          {(c) => (
            <input
              className="input"
              inputMode="numeric"
              {...c}
              {...register('contextWindow')}
              data-testid="provider-window"
            />
          )}
        </Field>
        <Field
          wide
          label={t('provider.apiKey')}
          labelExtra={
            <KeyState
              hasKey={hasKey}
              removeKey={removeKey}
              onToggleRemove={() => {
                setRemoveKey(!removeKey);
                connectionEdited();
              }}
            />
          }
          warning={
            keyDropped && (
              <span data-testid="provider-key-moved">{t('provider.keyHostChanged', { host: keyHost })}</span>
            )
          }
          error={errorOf('apiKey')}
          errorTestId="field-error-apiKey"
        >
          {(c) => (
            <input
              className="input"
              type="password"
              autoComplete="off"
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
              {...c}
              {...register('apiKey', { onChange: connectionEdited })}
              data-testid="provider-key"
            />
          )}
        </Field>
        <Field
          wide
          label={t('provider.compactionModel')}
          error={errorOf('compactionModel')}
          errorTestId="field-error-compactionModel"
        >
          {(c) => (
            <input
              className="input"
              placeholder={t('provider.compactionModelPlaceholder')}
              {...c}
              {...register('compactionModel')}
            />
          )}
        </Field>
      </div>
      <FormBanner
        banner={
          banner && failed
            ? {
                ...banner,
                text: checkText(failed),
                testId: 'save-check-failed',
                action: (
                  <button
                    type="button"
                    className="btn btn-small"
                    onClick={() => void form.handleSubmit((w) => submit(w, true))()}
                    disabled={saving}
                    data-testid="provider-save-anyway"
                  >
                    {t('provider.saveAnyway')}
                  </button>
                ),
              }
            : banner
        }
      />
      <div className="form-actions">
        <button
          type="button"
          className="btn"
          onClick={() => void form.handleSubmit(runTest)()}
          disabled={test.state === 'running'}
          data-testid="provider-test"
        >
          {test.state === 'running' ? <span className="spinner" aria-hidden /> : null}
          {t('provider.test')}
        </button>
        {test.state === 'done' && <TestResultText result={test} />}
        <span className="spacer" />
        <button type="submit" className="btn btn-primary" disabled={saving} data-testid="provider-save">
          {saving ? <span className="spinner" aria-hidden /> : null}
          {submitLabel}
        </button>
      </div>
    </form>
  );
}
