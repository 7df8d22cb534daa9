import { useTranslation } from 'react-i18next';
import { inInbox } from '@threadline/protocol';
import { useAppStore } from '../store';

/** What waits in the project inbox of a session's folder (candidates and stale facts); 0 before it is loaded. */
export function useInboxCount(sessionId: string | null): number {
  return useAppStore((s) => (sessionId ? (s.bySession[sessionId]?.project?.facts.filter(inInbox).length ?? 0) : 0));
}

/** The inbox's count on the Memory button and the panel's Project tab; nothing when it is empty. */
export function InboxBadge({ count, testId }: { count: number; testId: string }) {
  const { t } = useTranslation();
  if (count === 0) return null;
  return (
    <span className="count-badge" data-testid={testId} aria-label={t('project.inboxCount', { count })}>
      {count}
    </span>
  );
}
