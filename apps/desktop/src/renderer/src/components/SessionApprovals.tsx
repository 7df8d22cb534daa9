import { useTranslation } from 'react-i18next';
import { useAppStore } from '../store';
import { IconShield, IconX } from './Icons';

const NONE: Record<string, never> = {};

/**
 * This session's own approval policies ("Always in this session" on a tool card), shown where
 * the user can see and undo them: an auto-approved shell is not something to forget about.
 */
export function SessionApprovals({ sessionId }: { sessionId: string }) {
  const { t } = useTranslation();
  const policies = useAppStore((s) => s.bySession[sessionId]?.approvals ?? NONE);
  const setApproval = useAppStore((s) => s.setApproval);
  const entries = Object.entries(policies);
  if (entries.length === 0) return null;
  return (
    <div className="session-approvals" data-testid="session-approvals">
      {entries.map(([tool, policy]) => (
        <span
          key={tool}
          className={`approval-pill approval-${policy}`}
          data-tool={tool}
          title={t(`approvals.${policy}`, { tool })}
        >
          <IconShield />
          <span className="approval-text">{t(`approvals.${policy}`, { tool })}</span>
          <button
            type="button"
            className="icon-btn approval-reset"
            aria-label={t('approvals.reset', { tool })}
            title={t('approvals.reset', { tool })}
            onClick={() => void setApproval(sessionId, tool, null)}
          >
            <IconX />
          </button>
        </span>
      ))}
    </div>
  );
}
