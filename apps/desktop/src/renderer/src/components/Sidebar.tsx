import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { SessionSummary } from '@threadline/protocol';
import { useAppStore } from '../store';
import { Dialog } from './Dialog';
import { SearchResults } from './SearchResults';
import { shortcutLabel } from '../lib/shortcuts';
import { getBridge } from '../transport';
import { IconLogo, IconPencil, IconPlus, IconSearch, IconSettings, IconTrash } from './Icons';

function relativeTime(ts: number, lang: string): string {
  const diff = (ts - Date.now()) / 1000;
  const rtf = new Intl.RelativeTimeFormat(lang, { numeric: 'auto', style: 'short' });
  const abs = Math.abs(diff);
  if (abs < 60) return rtf.format(0, 'second');
  if (abs < 3600) return rtf.format(Math.round(diff / 60), 'minute');
  if (abs < 86400) return rtf.format(Math.round(diff / 3600), 'hour');
  if (abs < 86400 * 30) return rtf.format(Math.round(diff / 86400), 'day');
  return new Date(ts).toLocaleDateString(lang);
}

/** Re-renders every minute, so "now" becomes "1 min. ago" without anything else changing. */
function useMinuteTick(): void {
  const [, setTick] = useState(0);
  useEffect(() => {
    const id = setInterval(() => setTick((n) => n + 1), 60_000);
    return () => clearInterval(id);
  }, []);
}

function SessionItem({ s, active, onDelete }: { s: SessionSummary; active: boolean; onDelete: () => void }) {
  const { t, i18n } = useTranslation();
  const select = useAppStore((st) => st.selectSession);
  const rename = useAppStore((st) => st.renameSession);
  const busy = useAppStore((st) => Boolean(st.bySession[s.id]?.busy));
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(s.title);
  const title = s.title || t('sidebar.untitled');

  const commit = () => {
    setEditing(false);
    const v = draft.trim();
    if (v && v !== s.title) void rename(s.id, v);
  };

  return (
    <li className={`session ${active ? 'active' : ''}`} data-testid="session-item" data-session-id={s.id}>
      {editing ? (
        <input
          className="session-rename"
          value={draft}
          autoFocus
          aria-label={t('sidebar.renameLabel')}
          onChange={(e) => setDraft(e.target.value)}
          onBlur={commit}
          onKeyDown={(e) => {
            if (e.key === 'Enter') commit();
            if (e.key === 'Escape') {
              e.preventDefault(); // handled here: it cancels the rename, nothing else
              setDraft(s.title);
              setEditing(false);
            }
          }}
          data-testid="session-rename-input"
        />
      ) : (
        <button
          type="button"
          className="session-main"
          onClick={() => void select(s.id)}
          onDoubleClick={() => {
            setDraft(s.title);
            setEditing(true);
          }}
          aria-current={active ? 'page' : undefined}
        >
          <span className="session-title">
            {busy && <span className="live-dot" aria-hidden />}
            <span className="session-title-text">{title}</span>
          </span>
          <span className="session-meta">
            {relativeTime(s.updatedAt, i18n.language)}
            <span className="dot-sep" />
            {t('sidebar.messageCount', { count: s.messageCount })}
          </span>
        </button>
      )}
      {!editing && (
        <span className="session-actions">
          <button
            type="button"
            className="icon-btn"
            aria-label={t('sidebar.rename')}
            title={t('sidebar.rename')}
            onClick={() => {
              setDraft(s.title);
              setEditing(true);
            }}
            data-testid="session-rename"
          >
            <IconPencil />
          </button>
          <button
            type="button"
            className="icon-btn danger"
            aria-label={t('sidebar.delete')}
            title={t('sidebar.delete')}
            onClick={onDelete}
            data-testid="session-delete"
          >
            <IconTrash />
          </button>
        </span>
      )}
    </li>
  );
}

export function Sidebar() {
  const { t } = useTranslation();
  const sessions = useAppStore((s) => s.sessions);
  const activeId = useAppStore((s) => s.activeSessionId);
  const create = useAppStore((s) => s.createSession);
  const remove = useAppStore((s) => s.deleteSession);
  const setPanel = useAppStore((s) => s.setPanel);
  const [query, setQuery] = useState('');
  const [confirm, setConfirm] = useState<SessionSummary | null>(null);
  useMinuteTick();

  const shown = useMemo(() => {
    const q = query.trim().toLowerCase();
    return q ? sessions.filter((s) => s.title.toLowerCase().includes(q)) : sessions;
  }, [sessions, query]);

  return (
    <aside className="sidebar" aria-label={t('sidebar.label')}>
      <div className="brand">
        <IconLogo className="brand-logo" />
        <span className="brand-name">{t('app.name')}</span>
      </div>
      <button
        type="button"
        className="btn new-session"
        onClick={() => void create()}
        title={t('sidebar.newHint')}
        data-testid="new-session"
      >
        <IconPlus />
        {t('sidebar.new')}
        <kbd className="kbd">{shortcutLabel('new-session', getBridge().shell)}</kbd>
      </button>
      <label className="search">
        <IconSearch />
        {/* The placeholder is text beside the field (shown while it is empty), so it wraps to a
            second line in a narrow sidebar instead of being cut. */}
        <span className="field-ph-wrap">
          <input
            type="search"
            value={query}
            placeholder=" "
            aria-label={t('sidebar.search')}
            onChange={(e) => setQuery(e.target.value)}
            data-testid="session-search"
          />
          <span className="field-ph" aria-hidden="true">
            {t('sidebar.search')}
          </span>
        </span>
      </label>
      <ul className="session-list" data-testid="session-list">
        {shown.map((s) => (
          <SessionItem key={s.id} s={s} active={s.id === activeId} onDelete={() => setConfirm(s)} />
        ))}
        {shown.length === 0 && <li className="session-empty">{query ? t('sidebar.noMatch') : t('sidebar.empty')}</li>}
      </ul>
      <SearchResults query={query} />
      <button
        type="button"
        className="btn btn-ghost sidebar-foot"
        onClick={() => setPanel('settings')}
        data-testid="open-settings"
      >
        <IconSettings />
        {t('settings.title')}
        <kbd className="kbd">{shortcutLabel('open-settings', getBridge().shell)}</kbd>
      </button>
      {confirm && (
        <Dialog
          title={t('sidebar.deleteTitle')}
          onClose={() => setConfirm(null)}
          testId="confirm-delete"
          footer={
            <>
              <button type="button" className="btn" onClick={() => setConfirm(null)} data-autofocus>
                {t('common.cancel')}
              </button>
              <button
                type="button"
                className="btn btn-danger"
                onClick={() => {
                  const id = confirm.id;
                  setConfirm(null);
                  void remove(id);
                }}
                data-testid="confirm-delete-button"
              >
                {t('sidebar.deleteConfirm')}
              </button>
            </>
          }
        >
          <p>{t('sidebar.deleteBody', { title: confirm.title || t('sidebar.untitled') })}</p>
        </Dialog>
      )}
    </aside>
  );
}
