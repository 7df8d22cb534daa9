import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useAppStore } from '../store';
import { useDismiss } from '../hooks/useDismiss';
import { IconShield, IconX } from './Icons';
import { useInViewport } from '../hooks/useInViewport';

const NONE: Record<string, never> = {};
/** More than this many and they are one chip whose popover lists them (the header has to fit). */
const INLINE_MAX = 2;

/**
 * This session's own approval policies ("Always in this session" on a tool card), shown where
 * the user can see and undo them: an auto-approved shell is not something to forget about. They
 * are never hidden: each chip names its tool (the whole sentence in a narrow chat only in its
 * tooltip), and more than two are one chip that lists them.
 */
export function SessionApprovals({ sessionId }: { sessionId: string }) {
  const { t } = useTranslation();
  const fit = useInViewport<HTMLDivElement>();
  const policies = useAppStore((s) => s.bySession[sessionId]?.approvals ?? NONE);
  const setApproval = useAppStore((s) => s.setApproval);
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  useDismiss(open, ref, () => setOpen(false));
  const entries = Object.entries(policies);
  if (entries.length === 0) return null;

  const pill = ([tool, policy]: [string, string]) => {
    const sentence = t(`approvals.${policy}`, { tool });
    return (
      <span key={tool} className={`approval-pill approval-${policy}`} data-tool={tool} title={sentence}>
        <IconShield />
        <span className="approval-text approval-long">{sentence}</span>
        <span className="approval-text approval-short mono" aria-hidden="true">
          {tool}
        </span>
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
    );
  };

  if (entries.length <= INLINE_MAX)
    return (
      <div className="session-approvals" data-testid="session-approvals">
        {entries.map(pill)}
      </div>
    );
  const anyAuto = entries.some(([, policy]) => policy === 'auto');
  return (
    <div className="session-approvals" data-testid="session-approvals" ref={ref}>
      <button
        type="button"
        className={`approval-pill approval-summary ${anyAuto ? 'approval-auto' : ''}`}
        aria-haspopup="dialog"
        aria-expanded={open}
        title={t('approvals.summaryHint')}
        onClick={() => setOpen(!open)}
        data-testid="approvals-summary"
      >
        <IconShield />
        <span className="approval-text">{t('approvals.summary', { count: entries.length })}</span>
      </button>
      {open && (
        <div ref={fit} className="popover approvals-popover" role="dialog" aria-label={t('approvals.summaryHint')}>
          {entries.map(pill)}
        </div>
      )}
    </div>
  );
}
