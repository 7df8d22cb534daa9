import { useTranslation } from 'react-i18next';
import { useAppStore } from '../store';
import { Composer } from './Composer';
import { ExportMenu } from './ExportMenu';
import { FolderButton } from './FolderButton';
import { NetworkSwitch } from './NetworkSwitch';
import { InstructionsChip } from './InstructionsChip';
import { SessionRules } from './SessionRules';
import { IconMemory, IconPlus, IconSidebar } from './Icons';
import { InboxBadge, useInboxCount } from './InboxBadge';
import { MessageList } from './MessageList';
import { ModelSwitcher } from './ModelSwitcher';
import { HeldFilesCard } from './HeldFilesCard';
import { ToolShareNotice } from './ToolShareNotice';
import { McpReviewNotice } from './McpToolReview';
import { isNarrow } from '../lib/layout';
import { shortcutLabel } from '../lib/shortcuts';
import { getBridge } from '../transport';

function EmptyChat() {
  const { t } = useTranslation();
  const create = useAppStore((s) => s.createSession);
  return (
    <div className="empty-state">
      <div className="empty-title">{t('chat.empty.title')}</div>
      <div className="empty-body">{t('chat.empty.body')}</div>
      <button type="button" className="btn btn-primary" onClick={() => void create()}>
        <IconPlus />
        {t('sidebar.new')}
        <kbd className="kbd kbd-on-primary">{shortcutLabel('new-session', getBridge().shell)}</kbd>
      </button>
    </div>
  );
}

/** Hides or shows the sessions sidebar (below ~760 px it lays over the chat). */
function SidebarToggle() {
  const { t } = useTranslation();
  const sidebar = useAppStore((s) => s.sidebar);
  const toggle = useAppStore((s) => s.toggleSidebar);
  const shown = sidebar === 'shown' || (sidebar === 'auto' && !isNarrow());
  return (
    <button
      type="button"
      className="icon-btn sidebar-toggle"
      aria-label={shown ? t('sidebar.hide') : t('sidebar.show')}
      title={shown ? t('sidebar.hide') : t('sidebar.show')}
      aria-expanded={shown}
      onClick={() => toggle(isNarrow())}
      data-testid="sidebar-toggle"
    >
      <IconSidebar />
    </button>
  );
}
export function ChatView() {
  const { t } = useTranslation();
  const sessionId = useAppStore((s) => s.activeSessionId);
  const session = useAppStore((s) => s.sessions.find((x) => x.id === s.activeSessionId));
  const loaded = useAppStore((s) => (sessionId ? Boolean(s.bySession[sessionId]?.messages) : false));
  const count = useAppStore((s) => (sessionId ? (s.bySession[sessionId]?.messages?.length ?? 0) : 0));
  const busy = useAppStore((s) => (sessionId ? Boolean(s.bySession[sessionId]?.busy) : false));
  const panel = useAppStore((s) => s.panel);
  const setPanel = useAppStore((s) => s.setPanel);
  // What waits in the project's inbox (candidates, stale facts): said on the Memory button.
  const inbox = useInboxCount(sessionId);

  if (!sessionId)
    return (
      <main className="chat">
        {/* No session yet: the sidebar (and Settings in it) stays reachable in a narrow window. */}
        <header className="chat-header chat-header-empty">
          <SidebarToggle />
        </header>
        <EmptyChat />
      </main>
    );

  return (
    <main className="chat" aria-label={t('chat.label')}>
      <header className="chat-header">
        <SidebarToggle />
        <div className="chat-title" data-testid="chat-title">
          {session?.title || t('sidebar.untitled')}
        </div>
        {session?.workingFolder ? (
          <FolderButton key={sessionId} sessionId={sessionId} folder={session.workingFolder} />
        ) : null}
        <InstructionsChip
          key={`instructions-${sessionId}`}
          sessionId={sessionId}
          folder={session?.workingFolder ?? ''}
        />
        <span className="spacer" />
        <ModelSwitcher sessionId={sessionId} />
        <NetworkSwitch key={`network-${sessionId}`} sessionId={sessionId} />
        <SessionRules sessionId={sessionId} />
        <ExportMenu sessionId={sessionId} />
        <button
          type="button"
          className={`btn btn-ghost ${panel === 'memory' ? 'is-on' : ''}`}
          onClick={() => setPanel(panel === 'memory' ? 'none' : 'memory')}
          aria-pressed={panel === 'memory'}
          data-testid="open-memory"
          title={inbox > 0 ? `${t('memory.title')} — ${t('project.inboxCount', { count: inbox })}` : t('memory.title')}
        >
          <IconMemory />
          <span className="btn-label">{t('memory.title')}</span>
          <InboxBadge count={inbox} testId="memory-inbox-badge" />
        </button>
      </header>
      {loaded && count === 0 && !busy ? (
        <div className="message-pane">
          <div className="empty-state">
            <div className="empty-title">{t('chat.start.title')}</div>
            <div className="empty-body">{t('chat.start.body')}</div>
          </div>
        </div>
      ) : (
        <MessageList sessionId={sessionId} />
      )}
      <HeldFilesCard sessionId={sessionId} />
      <ToolShareNotice sessionId={sessionId} />
      <McpReviewNotice sessionId={sessionId} />
      <Composer sessionId={sessionId} />
    </main>
  );
}
