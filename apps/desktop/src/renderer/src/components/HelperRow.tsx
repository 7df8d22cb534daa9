import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useShallow } from 'zustand/react/shallow';
import { errorMessage, type HelperSummary } from '@threadline/protocol';
import { formatTokens } from '../i18n';
import { formatCost } from '../lib/cost';
import { taskLine, usedTokens } from '../lib/helpers';
import { useAppStore } from '../store';
import { saveExport } from './ExportItems';
import { IconChevron, IconDownload, IconFile } from './Icons';
import { Markdown } from './Markdown';
import { ToolCallCard } from './ToolCallCard';

/** A helper's call waiting for the user: its own session's card, drawn in the parent's chat. */
function useWaitingCalls(helperId: string) {
  return useAppStore(
    useShallow((s) =>
      Object.values(s.tools).filter((x) => x.sessionId === helperId && x.status === 'waiting' && x.call),
    ),
  );
}

/**
 * One helper in the parent's chat: a row (its task, role, model, live status, the tools it ran,
 * its tokens and cost) that opens to its whole task, its report and its conversation. A call of it
 * that waits for approval shows under the row, named as the helper's, whether the row is open or not.
 */
export function HelperRow({ helper, of }: { helper: HelperSummary; of: number }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const showHelper = useAppStore((s) => s.showHelper);
  const showToast = useAppStore((s) => s.showToast);
  const waiting = useWaitingCalls(helper.id);
  const status = waiting.length > 0 ? 'waiting' : helper.status;
  const calls = helper.toolCalls.reduce((n, c) => n + c.count, 0);
  const exportIt = async () => {
    try {
      await saveExport(helper.id, 'markdown');
    } catch (err) {
      showToast(t('export.failed', { message: errorMessage(err) }));
    }
  };
  return (
    <div className={`helper-row status-${status}`} data-testid="helper-row" data-status={status}>
      <button
        type="button"
        className="helper-head"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
        data-testid="helper-head"
      >
        <IconChevron className={`chev ${open ? 'open' : ''}`} />
        <span className="helper-index">{t('helpers.index', { index: helper.index + 1, count: of })}</span>
        <span className="helper-task" title={helper.task}>
          {taskLine(helper.task)}
        </span>
        <span className="badge helper-role-badge" data-testid="helper-role">
          {t(`helpers.role.${helper.role}`, { defaultValue: helper.role })}
        </span>
        <span className="helper-meta">
          <span className="helper-tools" data-testid="helper-tool-count">
            {t('helpers.calls', { count: calls })}
          </span>
          <span className="helper-tokens" data-testid="helper-tokens" data-value={usedTokens(helper.usage)}>
            {helper.usage.cost !== null && helper.usage.cost > 0
              ? t('helpers.tokensCost', {
                  tokens: formatTokens(usedTokens(helper.usage)),
                  cost: formatCost(helper.usage.cost, t),
                })
              : t('helpers.tokens', { tokens: formatTokens(usedTokens(helper.usage)) })}
          </span>
        </span>
        <span className={`badge badge-${badgeOf(status)}`} data-testid="helper-status">
          {t(`helpers.status.${status}`)}
        </span>
      </button>
      {waiting.length > 0 && (
        <div className="helper-waiting" data-testid="helper-waiting">
          <div className="helper-waiting-label">
            {t('helpers.asks', { index: helper.index + 1, task: taskLine(helper.task) })}
          </div>
          {waiting.map((w) => (
            <ToolCallCard key={w.call!.id} sessionId={helper.id} call={w.call!} result={null} />
          ))}
        </div>
      )}
      {open && (
        <div className="helper-body" data-testid="helper-body">
          <dl className="helper-facts">
            <dt>{t('helpers.task')}</dt>
            <dd className="helper-task-full">{helper.task}</dd>
            <dt>{t('helpers.model')}</dt>
            <dd>
              <code>{helper.model}</code>
            </dd>
            <dt>{t('helpers.ran')}</dt>
            <dd data-testid="helper-ran">
              {helper.toolCalls.length === 0
                ? t('helpers.ranNothing')
                : helper.toolCalls.map((c) => (
                    <span key={c.name} className="reason-pill">
                      {t('helpers.toolCount', { name: c.name, count: c.count })}
                    </span>
                  ))}
            </dd>
            <dt>{t('helpers.spent')}</dt>
            <dd data-testid="helper-spent">
              {t('helpers.spentText', {
                calls: helper.usage.calls,
                tokens: formatTokens(usedTokens(helper.usage)),
                returned: formatTokens(helper.returnedTokens ?? 0),
                cost: formatCost(helper.usage.cost, t),
              })}
            </dd>
          </dl>
          {helper.error && (
            <div className="form-error" data-testid="helper-error">
              {t('helpers.failedBecause', { error: helper.error })}
            </div>
          )}
          {helper.report && (
            <div className="helper-report" data-testid="helper-report">
              <div className="tool-section-label">{t('helpers.report')}</div>
              <Markdown text={helper.report} />
            </div>
          )}
          <div className="helper-actions">
            <button
              type="button"
              className="btn btn-small"
              onClick={() => showHelper(helper.id)}
              data-testid="helper-open"
            >
              <IconFile />
              {t('helpers.open')}
            </button>
            <button type="button" className="btn btn-small" onClick={() => void exportIt()} data-testid="helper-export">
              <IconDownload />
              {t('helpers.export')}
            </button>
          </div>
        </div>
      )}
    </div>
  );
}

/** The badge colour of a status (the tool cards' palette). */
function badgeOf(status: HelperSummary['status'] | 'waiting'): string {
  switch (status) {
    case 'done':
      return 'ok';
    case 'failed':
      return 'error';
    case 'waiting':
      return 'waiting';
    case 'running':
      return 'running';
    default:
      return 'aborted';
  }
}
