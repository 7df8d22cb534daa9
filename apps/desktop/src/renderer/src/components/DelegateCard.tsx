import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import type { HelperSummary, StoredMessage, ToolCall } from '@threadline/protocol';
import { formatTokens } from '../i18n';
import { formatCost } from '../lib/cost';
import { delegateTasks, helperTotals, taskLine } from '../lib/helpers';
import { useAppStore } from '../store';
import { HelperRow } from './HelperRow';
import { IconHelpers } from './Icons';
import { statusOf } from '../lib/toolStatus';

const NONE: HelperSummary[] = [];

/** The helpers of one delegate call, in task order (every helper of the session when `toolCallId` is absent). */
export function useHelpersOf(sessionId: string, toolCallId: string): HelperSummary[] {
  const all = useAppStore((s) => s.bySession[sessionId]?.helpers ?? NONE);
  return useMemo(() => all.filter((h) => h.toolCallId === toolCallId), [all, toolCallId]);
}

/** "3 helpers: 96K tokens used, 2.1K returned · $0.12": what a call's helpers took, apart. */
export function HelperTotals({ helpers }: { helpers: readonly HelperSummary[] }) {
  const { t } = useTranslation();
  const totals = helperTotals(helpers);
  return (
    <span className="helper-totals" data-testid="helper-totals" data-used={totals.used} data-returned={totals.returned}>
      {t('helpers.totals', {
        count: helpers.length,
        used: formatTokens(totals.used),
        returned: formatTokens(totals.returned),
      })}
      {/* A price the models have: an unknown one is said in each row, not here. */}
      {totals.cost !== null && totals.cost > 0 && ` · ${formatCost(totals.cost, t)}`}
    </span>
  );
}

/** The rows of one call's helpers; before the runtime stored them, its tasks as queued rows. */
export function HelperList({
  sessionId,
  toolCallId,
  call,
}: {
  sessionId: string;
  toolCallId: string;
  call?: ToolCall;
}) {
  const { t } = useTranslation();
  const helpers = useHelpersOf(sessionId, toolCallId);
  const asked = useMemo(() => (call && helpers.length === 0 ? delegateTasks(call) : []), [call, helpers.length]);
  return (
    <div className="helper-list" data-testid="helper-list">
      {helpers.map((h) => (
        <HelperRow key={h.id} helper={h} of={helpers.length} />
      ))}
      {asked.map((a, i) => (
        <div key={i} className="helper-row status-queued" data-testid="helper-row" data-status="queued">
          <div className="helper-head">
            <span className="helper-index">{t('helpers.index', { index: i + 1, count: asked.length })}</span>
            <span className="helper-task">{taskLine(a.task)}</span>
            <span className="badge helper-role-badge">{t(`helpers.role.${a.role}`, { defaultValue: a.role })}</span>
            <span className="badge badge-aborted">{t('helpers.status.queued')}</span>
          </div>
        </div>
      ))}
    </div>
  );
}

/**
 * A delegate call in the transcript: its helpers, each a row of its own, with what they took
 * together. It never shows their tool traffic: that is in each helper's own conversation.
 */
export function DelegateCard({
  sessionId,
  call,
  result,
}: {
  sessionId: string;
  call: ToolCall;
  result: StoredMessage | null;
}) {
  const { t } = useTranslation();
  const state = useAppStore((s) => s.tools[call.id]);
  const busy = useAppStore((s) => Boolean(s.bySession[sessionId]?.busy));
  const helpers = useHelpersOf(sessionId, call.id);
  const status = statusOf(result, state?.status, busy);
  return (
    <div className={`tool-card delegate-card status-${status}`} data-testid="delegate-card" data-status={status}>
      <div className="tool-head delegate-head">
        <IconHelpers />
        <span className="tool-name">{t('helpers.title')}</span>
        {helpers.length > 0 && <HelperTotals helpers={helpers} />}
        <span className="spacer" />
        <span className={`badge badge-${status}`}>{t(`tool.status.${status}`)}</span>
      </div>
      <div className="delegate-body">
        <HelperList sessionId={sessionId} toolCallId={call.id} call={call} />
        {result && status === 'error' && helpers.length === 0 && (
          <pre className="tool-pre tool-output" data-testid="tool-output">
            {result.content}
          </pre>
        )}
      </div>
    </div>
  );
}
