import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useAppStore } from '../store';
import { IconX } from './Icons';
import { InboxBadge, useInboxCount } from './InboxBadge';
import { ProjectMemoryView } from './ProjectMemoryView';
import { SessionMemory } from './SessionMemory';

export { groupRejected } from './SessionMemory';

type Tab = 'session' | 'project';

/**
 * The Memory panel: what this session remembers, and beside it the project's memory (what earlier
 * sessions in this folder verified and the user accepted, with its inbox). The tab opens on the
 * project when its inbox has something waiting.
 */
export function MemoryPanel({ sessionId }: { sessionId: string }) {
  const { t } = useTranslation();
  const setPanel = useAppStore((s) => s.setPanel);
  const loadProject = useAppStore((s) => s.loadProject);
  const inbox = useInboxCount(sessionId);
  const [tab, setTab] = useState<Tab>(() => (inbox > 0 ? 'project' : 'session'));

  useEffect(() => {
    void loadProject(sessionId);
  }, [sessionId, loadProject]);

  const tabs: { id: Tab; label: string }[] = [
    { id: 'session', label: t('memory.tabs.session') },
    { id: 'project', label: t('memory.tabs.project') },
  ];
  return (
    <aside className="side-panel" aria-label={t('memory.title')} data-testid="memory-panel">
      <div className="panel-head">
        <div className="panel-title">{t('memory.title')}</div>
        <span className="spacer" />
        <button
          type="button"
          className="icon-btn"
          aria-label={t('common.close')}
          title={t('common.close')}
          onClick={() => setPanel('none')}
        >
          <IconX />
        </button>
      </div>
      <div className="memory-tabs" role="tablist" aria-label={t('memory.title')}>
        {tabs.map((x) => (
          <button
            key={x.id}
            type="button"
            role="tab"
            id={`memory-tab-${x.id}`}
            aria-selected={tab === x.id}
            aria-controls="memory-tab-panel"
            tabIndex={tab === x.id ? 0 : -1}
            className={`memory-tab ${tab === x.id ? 'on' : ''}`}
            onClick={() => setTab(x.id)}
            onKeyDown={(e) => {
              if (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight') return;
              e.preventDefault();
              const next: Tab = x.id === 'session' ? 'project' : 'session';
              setTab(next);
              document.getElementById(`memory-tab-${next}`)?.focus();
            }}
            data-testid={`memory-tab-${x.id}`}
          >
            {x.label}
            {x.id === 'project' && <InboxBadge count={inbox} testId="project-inbox-count" />}
          </button>
        ))}
      </div>
      <div className="panel-body" role="tabpanel" id="memory-tab-panel" aria-labelledby={`memory-tab-${tab}`}>
        {tab === 'session' ? <SessionMemory sessionId={sessionId} /> : <ProjectMemoryView sessionId={sessionId} />}
      </div>
    </aside>
  );
}
