import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ProviderProfile, ServerWindow } from '@threadline/protocol';
import { providerRoutes } from '../store/routes';
import { callErrorText } from '../lib/formErrors';

interface Props {
  /** The saved profile's id (nothing to read before the first save). */
  profileId: string | undefined;
  /** Whether the preset is one a local server answers for (Ollama, LM Studio, a custom address). */
  local: boolean;
  serverWindow: ServerWindow | null;
  /** The model and window the form holds now. */
  model: string;
  window: number;
  onRead: (p: ProviderProfile) => void;
  /** Puts the server's window into the form's window field. */
  onUse: (window: number) => void;
}

/**
 * Under the window field: what the local server said about the window it runs the model with
 * (Ollama's num_ctx, LM Studio's loaded context, llama.cpp's n_ctx, vLLM's max_model_len) and
 * where it came from, read on every save or on request; the user's own window still applies.
 */
export function ServerWindowHint({ profileId, local, serverWindow: sw, model, window, onRead, onUse }: Props) {
  const { t } = useTranslation();
  const [reading, setReading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (!local && !sw) return null;
  const read = async () => {
    if (!profileId) return;
    setReading(true);
    setError(null);
    try {
      onRead(await providerRoutes.readWindow({ id: profileId }));
    } catch (err) {
      setError(callErrorText(t, err));
    } finally {
      setReading(false);
    }
  };
  const mine = sw !== null && sw.model === model ? sw : null;
  const server = mine ? t(`provider.serverWindow.server.${mine.source}`) : '';
  return (
    <span className="server-window" data-testid="provider-server-window">
      {mine === null ? (
        <span>{profileId ? t('provider.serverWindow.none') : t('provider.serverWindow.onSave')}</span>
      ) : mine.window === null ? (
        <span>
          {t('provider.serverWindow.notLoaded', {
            server,
            model,
            max: mine.modelMax?.toLocaleString() ?? '?',
          })}
        </span>
      ) : (
        <span data-testid="provider-server-window-found">
          {t('provider.serverWindow.found', {
            server,
            model: mine.alias ?? model,
            window: mine.window.toLocaleString(),
            field: t(`provider.serverWindow.field.${mine.field}`, { defaultValue: mine.field }),
          })}
          {mine.modelMax !== null && mine.modelMax !== mine.window
            ? ` ${t('provider.serverWindow.modelMax', { max: mine.modelMax.toLocaleString() })}`
            : ''}
          {mine.alias ? ` ${t('provider.serverWindow.alias', { alias: mine.alias, model })}` : ''}
          {window > mine.window &&
            (mine.source === 'ollama'
              ? ` ${t('provider.serverWindow.ollamaLarger', { window: window.toLocaleString() })}`
              : ` ${t('provider.serverWindow.capped', { window: mine.window.toLocaleString() })}`)}
        </span>
      )}
      {mine?.window != null && mine.window !== window && (
        <>
          {' '}
          <button
            type="button"
            className="link-btn"
            onClick={() => onUse(mine.window!)}
            data-testid="provider-server-window-use"
          >
            {t('provider.serverWindow.use', { window: mine.window.toLocaleString() })}
          </button>
        </>
      )}
      {profileId && (local || sw) && (
        <>
          {' '}
          <button
            type="button"
            className="link-btn"
            disabled={reading}
            onClick={() => void read()}
            data-testid="provider-server-window-read"
          >
            {reading ? t('provider.serverWindow.reading') : t('provider.serverWindow.read')}
          </button>
        </>
      )}
      {error && <span className="form-error">{error}</span>}
    </span>
  );
}
