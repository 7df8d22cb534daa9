import type { ComponentProps } from 'react';
import { useTranslation } from 'react-i18next';
import type { PresetId } from '@threadline/protocol';
import { PRESET_IDS, problemSentence, type TestResult } from '../lib/providerForm';
import { ServerWindowHint } from './ServerWindowHint';

// The parts of the provider profile form (ProviderForm.tsx) that only show what it holds.

/** The presets to start a profile from, one selected. */
export function PresetGrid({ preset, onPick }: { preset: PresetId; onPick: (id: PresetId) => void }) {
  const { t } = useTranslation();
  return (
    <div className="preset-grid" role="radiogroup" aria-label={t('provider.preset')}>
      {PRESET_IDS.map((id) => (
        <button
          key={id}
          type="button"
          role="radio"
          aria-checked={preset === id}
          className={`preset ${preset === id ? 'selected' : ''}`}
          onClick={() => onPick(id)}
          data-testid={`preset-${id}`}
        >
          <span className="preset-name">{t(`provider.presets.${id}.name`)}</span>
          <span className="preset-desc">{t(`provider.presets.${id}.desc`)}</span>
        </button>
      ))}
    </div>
  );
}

/** The models the provider listed in the last check, offered to pick. */
export function ModelPick({ models, model, onPick }: { models: string[]; model: string; onPick: (m: string) => void }) {
  const { t } = useTranslation();
  return (
    <select
      className="input model-pick"
      aria-label={t('provider.modelPick', { count: models.length })}
      value={models.includes(model) ? model : ''}
      onChange={(e) => {
        if (!e.target.value) return;
        onPick(e.target.value);
      }}
      data-testid="provider-model-pick"
    >
      <option value="">{t('provider.modelPick', { count: models.length })}</option>
      {models.map((m) => (
        <option key={m} value={m}>
          {m}
        </option>
      ))}
    </select>
  );
}

/**
 * Below the window field: what the local server runs the model with (ServerWindowHint), and the
 * smaller window the provider stated in an error, with its undo.
 */
export function WindowHints({
  learned,
  forgetLearned,
  onToggleForget,
  ...server
}: ComponentProps<typeof ServerWindowHint> & {
  learned: number | null;
  forgetLearned: boolean;
  onToggleForget: () => void;
}) {
  const { t } = useTranslation();
  return (
    <>
      <ServerWindowHint {...server} />
      {learned !== null && (
        <span data-testid="provider-learned-window">
          {forgetLearned
            ? t('provider.learnedWindow.forgotten')
            : t('provider.learnedWindow.inEffect', { window: learned.toLocaleString() })}{' '}
          <button type="button" className="link-btn" onClick={onToggleForget} data-testid="provider-learned-undo">
            {forgetLearned ? t('provider.learnedWindow.keep') : t('provider.learnedWindow.undo')}
          </button>
        </span>
      )}
    </>
  );
}

/** Beside the API key's label: whether a key is stored, and removing it (or keeping it after all). */
export function KeyState({
  hasKey,
  removeKey,
  onToggleRemove,
}: {
  hasKey: boolean;
  removeKey: boolean;
  onToggleRemove: () => void;
}) {
  const { t } = useTranslation();
  if (!hasKey) return null;
  return (
    <>
      {!removeKey && (
        <span className="key-set" data-testid="key-set">
          {t('provider.keySet')}
        </span>
      )}
      <button type="button" className="link-btn" onClick={onToggleRemove} data-testid="provider-remove-key">
        {removeKey ? t('provider.keepKey') : t('provider.removeKey')}
      </button>
    </>
  );
}

/** What the last "Test" said: its time, or why it failed in the user's language. */
export function TestResultText({ result }: { result: TestResult }) {
  const { t } = useTranslation();
  return (
    <span className={`test-result ${result.ok ? 'ok' : 'bad'}`} data-testid="provider-test-result" role="status">
      {result.ok
        ? t('provider.testOk', { ms: result.latencyMs ?? '?' })
        : result.problem && result.problem !== 'other'
          ? problemSentence(t, result)
          : t('provider.testFailed', { message: result.message })}
    </span>
  );
}
