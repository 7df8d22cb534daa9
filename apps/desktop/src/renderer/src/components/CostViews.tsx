import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ResendEstimate } from '@threadline/protocol';
import { usageRoutes } from '../store/routes';
import { formatTokens } from '../i18n';
import { useAppStore } from '../store';
import { cacheRate, formatCost } from '../lib/cost';
import { usedTokens } from '../lib/helpers';

/** The meter's cost part: this session's tokens in and out, cache hits and cost; its helpers' apart. */
export function SessionCostBreakdown({ sessionId }: { sessionId: string }) {
  const { t } = useTranslation();
  const cost = useAppStore((s) => s.bySession[sessionId]?.cost);
  if (!cost) return null;
  const { total, summaries } = cost;
  return (
    <div className="cost-breakdown" data-testid="session-cost">
      <div className="popover-subtitle">{t('cost.title', { count: total.calls })}</div>
      <table className="breakdown">
        <tbody>
          <tr>
            <td>{t('cost.tokensIn')}</td>
            <td className="num" data-testid="cost-tokens-in" data-value={total.promptTokens}>
              {formatTokens(total.promptTokens)}
            </td>
          </tr>
          <tr>
            <td>{t('cost.cacheHits')}</td>
            <td className="num" data-testid="cost-cache-rate" data-value={total.cachedTokens}>
              {t('cost.cacheRate', { tokens: formatTokens(total.cachedTokens), percent: cacheRate(total) })}
            </td>
          </tr>
          <tr>
            <td>{t('cost.tokensOut')}</td>
            <td className="num" data-testid="cost-tokens-out" data-value={total.completionTokens}>
              {formatTokens(total.completionTokens)}
            </td>
          </tr>
          <tr className="cost-total">
            <td>{t('cost.cost')}</td>
            <td className="num" data-testid="cost-total" data-value={total.cost ?? 'unknown'}>
              {formatCost(total.cost, t)}
            </td>
          </tr>
        </tbody>
      </table>
      {summaries.calls > 0 && (
        <div className="muted" data-testid="cost-summaries">
          {t('cost.summaries', {
            count: summaries.calls,
            tokens: formatTokens(summaries.promptTokens + summaries.completionTokens),
            cost: formatCost(summaries.cost, t),
          })}
        </div>
      )}
      {cost.helpers && cost.helpers.count > 0 && (
        <div className="muted" data-testid="cost-helpers" data-used={usedTokens(cost.helpers.total)}>
          {t('cost.helpers', {
            count: cost.helpers.count,
            used: formatTokens(usedTokens(cost.helpers.total)),
            returned: formatTokens(cost.helpers.returnedTokens),
            cost: formatCost(cost.helpers.total.cost, t),
          })}
        </div>
      )}
      {total.unpricedCalls > 0 && <div className="muted">{t('cost.unknownHint')}</div>}
    </div>
  );
}

/** What a compaction's summary calls cost, on its divider (nothing when it made none). */
export function DividerCost({ sessionId, compactionId }: { sessionId: string; compactionId: string }) {
  const { t } = useTranslation();
  const u = useAppStore((s) => s.bySession[sessionId]?.cost?.compactions[compactionId]);
  if (!u || u.calls === 0) return null;
  return (
    <span className="divider-cost" data-testid="divider-cost" data-value={u.cost ?? 'unknown'}>
      <span className="dot-sep" />
      {t('cost.divider', {
        input: formatTokens(u.promptTokens),
        percent: cacheRate(u),
        output: formatTokens(u.completionTokens),
        cost: formatCost(u.cost, t),
      })}
    </span>
  );
}

/**
 * Above the composer: the provider's cache has likely expired (idle past its TTL) and the next
 * request is large, so sending re-reads it at the full price; compacting first makes it smaller.
 * Asked of the runtime when the user starts typing (it knows the clock, the TTL and the prices).
 */
export function ResendWarning({ sessionId, typing }: { sessionId: string; typing: boolean }) {
  const { t } = useTranslation();
  const busy = useAppStore((s) => Boolean(s.bySession[sessionId]?.busy));
  const compacting = useAppStore((s) => Boolean(s.bySession[sessionId]?.compacting));
  const compact = useAppStore((s) => s.compact);
  const lastCallAt = useAppStore((s) => s.bySession[sessionId]?.cost?.lastCallAt ?? null);
  const [estimate, setEstimate] = useState<ResendEstimate | null>(null);
  const [dismissed, setDismissed] = useState<number | null>(null);

  useEffect(() => {
    if (!typing || busy || lastCallAt === null) return setEstimate(null);
    let live = true;
    void usageRoutes
      .resendEstimate({ sessionId })
      .then((e) => live && setEstimate(e))
      .catch(() => live && setEstimate(null));
    return () => {
      live = false;
    };
  }, [sessionId, typing, busy, lastCallAt]);

  if (!estimate?.warn || dismissed === lastCallAt || compacting) return null;
  return (
    <div className="resend-warning" role="status" data-testid="resend-warning">
      <span>
        {t(estimate.cost === null ? 'cost.resend.warnUnknown' : 'cost.resend.warn', {
          minutes: Math.floor((estimate.idleMs ?? 0) / 60_000),
          tokens: formatTokens(estimate.promptTokens),
          cost: formatCost(estimate.cost, t),
          cachedCost: formatCost(estimate.cachedCost, t),
        })}
      </span>
      <span className="resend-actions">
        <button
          type="button"
          className="btn btn-small"
          onClick={() => void compact(sessionId)}
          data-testid="resend-compact"
        >
          {t('cost.resend.compactFirst')}
        </button>
        <button type="button" className="link-btn" onClick={() => setDismissed(lastCallAt)}>
          {t('cost.resend.dismiss')}
        </button>
      </span>
    </div>
  );
}
