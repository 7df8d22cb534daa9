import { lazy, Suspense, useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { applyLanguage, systemLanguage } from './i18n';
import { connectEvents, useAppStore } from './store';
import { useShortcuts } from './hooks/useShortcuts';
import { useTheme } from './hooks/useTheme';
import { ChatView } from './components/ChatView';
import { Sidebar } from './components/Sidebar';
import { IconAlert, IconRefresh } from './components/Icons';
import { ConnectionBanner } from './components/ConnectionBanner';

// Views not every start needs load when first shown (their forms and schemas with them).
const SettingsPage = lazy(() => import('./components/SettingsPage').then((m) => ({ default: m.SettingsPage })));
const SetupScreen = lazy(() => import('./components/SetupScreen').then((m) => ({ default: m.SetupScreen })));
const MemoryPanel = lazy(() => import('./components/MemoryPanel').then((m) => ({ default: m.MemoryPanel })));

export function App() {
  const { t } = useTranslation();
  const phase = useAppStore((s) => s.phase);
  const bootError = useAppStore((s) => s.bootError);
  const panel = useAppStore((s) => s.panel);
  const activeId = useAppStore((s) => s.activeSessionId);
  const setPanel = useAppStore((s) => s.setPanel);
  const sidebar = useAppStore((s) => s.sidebar);
  const toggleSidebar = useAppStore((s) => s.toggleSidebar);
  const language = useAppStore((s) => s.settings?.language);
  const toast = useAppStore((s) => s.toast);
  const boot = useAppStore((s) => s.boot);
  useTheme();
  useShortcuts();

  useEffect(() => {
    const off = connectEvents();
    void boot();
    return off;
  }, [boot]);

  // The language picked in Settings; until one is (null), the system's.
  useEffect(() => {
    if (language !== undefined) applyLanguage(language ?? systemLanguage());
  }, [language]);

  // A session picked (or made) in the sidebar laid over a narrow window, or Settings opened from
  // it: what was asked for comes forward, the sidebar goes back.
  useEffect(() => {
    if (useAppStore.getState().sidebar === 'shown') toggleSidebar(true);
  }, [activeId, panel, toggleSidebar]);

  if (phase === 'loading') return <div className="splash" aria-busy="true" />;
  if (phase === 'error')
    return (
      <div className="splash">
        <div className="boot-error" role="alert">
          <IconAlert />
          <div>
            <div className="boot-error-title">{t('app.bootError')}</div>
            <div className="muted">{bootError}</div>
          </div>
          <button type="button" className="btn" onClick={() => void boot()}>
            <IconRefresh />
            {t('chat.error.retry')}
          </button>
        </div>
      </div>
    );
  if (phase === 'setup')
    return (
      <Suspense fallback={<div className="splash" aria-busy="true" />}>
        <SetupScreen />
      </Suspense>
    );

  return (
    // The connection banner takes its own strip above the app: it never lays over the header.
    <div className="app-shell">
      <ConnectionBanner />
      <div className={`app ${panel === 'memory' ? 'with-panel' : ''} sidebar-${sidebar}`}>
        {/* Settings covers the window like a dialog: what is behind it leaves the Tab order. */}
        <div className="app-main" inert={panel === 'settings'}>
          <Sidebar />
          {/* A narrow window shows the sidebar over the chat: a press beside it closes it. */}
          {sidebar === 'shown' && (
            <div className="sidebar-scrim" onClick={() => toggleSidebar(true)} data-testid="sidebar-scrim" />
          )}
          <ChatView />
          {panel === 'memory' && activeId && (
            <>
              {/* Below ~1000 px the panel lays over the chat: a press beside it closes it. */}
              <div className="panel-scrim" onClick={() => setPanel('none')} data-testid="panel-scrim" />
              <Suspense fallback={null}>
                <MemoryPanel sessionId={activeId} />
              </Suspense>
            </>
          )}
        </div>
        {panel === 'settings' && (
          <Suspense fallback={null}>
            <SettingsPage />
          </Suspense>
        )}
        {toast && (
          <div className="toast" role="status">
            {toast}
          </div>
        )}
      </div>
    </div>
  );
}
