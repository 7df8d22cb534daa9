import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ProviderProfile } from '@threadline/protocol';
import { useDismiss } from '../hooks/useDismiss';
import { useAppStore } from '../store';
import { providerRoutes, sessionRoutes } from '../store/routes';
import { IconChevronDown, IconCpu, IconRefresh } from './Icons';
import { errorMessage } from '@threadline/protocol';
import { useInViewport } from '../hooks/useInViewport';

interface Listed {
  models: string[];
  error: string | null;
  loading: boolean;
}

/** The profile and model a session's next request goes to (its own, else the active profile's). */
export function useSessionModel(sessionId: string): { profile: ProviderProfile | null; model: string | null } {
  const session = useAppStore((s) => s.sessions.find((x) => x.id === sessionId));
  const providers = useAppStore((s) => s.providers);
  const own = session?.profileId ? providers.find((p) => p.id === session.profileId) : undefined;
  const profile = own ?? providers.find((p) => p.active) ?? null;
  return { profile, model: (own ? session?.model : null) ?? profile?.model ?? null };
}

/**
 * The chat header's model menu: this session's model, chosen among the models each profile's
 * provider lists (`providers.models`, cached by the host) or typed; it changes this session only.
 */
export function ModelSwitcher({ sessionId }: { sessionId: string }) {
  const { t } = useTranslation();
  const fit = useInViewport<HTMLDivElement>();
  const providers = useAppStore((s) => s.providers);
  const showToast = useAppStore((s) => s.showToast);
  const { profile, model } = useSessionModel(sessionId);
  const [open, setOpen] = useState(false);
  const [lists, setLists] = useState<Record<string, Listed>>({});
  const [typed, setTyped] = useState('');
  const ref = useRef<HTMLDivElement>(null);
  useDismiss(open, ref, () => setOpen(false));

  const load = (id: string, refresh = false) => {
    setLists((cur) => ({ ...cur, [id]: { models: cur[id]?.models ?? [], error: null, loading: true } }));
    providerRoutes.models({ id, ...(refresh ? { refresh } : {}) }).then(
      (r) => setLists((cur) => ({ ...cur, [id]: { ...r, loading: false } })),
      (err: unknown) =>
        setLists((cur) => ({
          ...cur,
          [id]: { models: [], error: errorMessage(err), loading: false },
        })),
    );
  };

  useEffect(() => {
    if (!open) return;
    for (const p of providers) load(p.id);
    // Loaded once per opening; the host caches the lists.
  }, [open]);

  const choose = async (p: ProviderProfile, m: string) => {
    setOpen(false);
    setTyped('');
    try {
      await sessionRoutes.setModel({ id: sessionId, profileId: p.id, model: m });
    } catch (err) {
      showToast(errorMessage(err));
    }
  };

  if (!profile || !model) return null;
  return (
    <div className="split-btn model-switch" ref={ref}>
      <button
        type="button"
        className="btn btn-ghost model-switch-btn"
        aria-haspopup="menu"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
        title={t('chat.model.title', { model, profile: profile.name })}
        aria-label={t('chat.model.title', { model, profile: profile.name })}
        data-testid="model-switch"
      >
        <IconCpu />
        <span className="model-switch-name">{model}</span>
        <IconChevronDown />
      </button>
      {open && (
        <div ref={fit} className="menu menu-down model-menu" role="menu" data-testid="model-menu">
          {providers.map((p) => {
            const listed = lists[p.id];
            const models = [...new Set([p.model, ...(listed?.models ?? [])])];
            return (
              <div key={p.id} className="model-group" role="group" aria-label={p.name}>
                <div className="model-group-head">
                  <span className="model-group-name">{p.name}</span>
                  {p.active && <span className="badge badge-ok">{t('provider.active')}</span>}
                  <span className="spacer" />
                  <button
                    type="button"
                    className="icon-btn"
                    onClick={() => load(p.id, true)}
                    aria-label={t('chat.model.refresh', { profile: p.name })}
                    title={t('chat.model.refresh', { profile: p.name })}
                    disabled={listed?.loading}
                  >
                    <IconRefresh />
                  </button>
                </div>
                {listed?.loading && <div className="muted model-note">{t('chat.model.loading')}</div>}
                {listed?.error && (
                  <div className="muted model-note" title={listed.error}>
                    {t('chat.model.listFailed')}
                  </div>
                )}
                <div className="model-list">
                  {models.map((m) => {
                    const current = p.id === profile.id && m === model;
                    return (
                      <button
                        key={m}
                        type="button"
                        role="menuitemradio"
                        aria-checked={current}
                        className={`menu-item model-item ${current ? 'is-current' : ''}`}
                        onClick={() => void choose(p, m)}
                        data-testid="model-option"
                        data-model={m}
                        data-profile={p.id}
                      >
                        <span className="mono">{m}</span>
                        {m === p.model && <span className="muted">{t('chat.model.profileDefault')}</span>}
                      </button>
                    );
                  })}
                </div>
              </div>
            );
          })}
          <div className="menu-sep" role="separator" />
          <form
            className="model-typed"
            onSubmit={(e) => {
              e.preventDefault();
              if (typed.trim()) void choose(profile, typed.trim());
            }}
          >
            <input
              className="input"
              value={typed}
              onChange={(e) => setTyped(e.target.value)}
              placeholder={t('chat.model.typedPlaceholder', { profile: profile.name })}
              aria-label={t('chat.model.typedPlaceholder', { profile: profile.name })}
              data-testid="model-typed"
            />
            <button type="submit" className="btn btn-small" disabled={!typed.trim()}>
              {t('chat.model.use')}
            </button>
          </form>
        </div>
      )}
    </div>
  );
}
