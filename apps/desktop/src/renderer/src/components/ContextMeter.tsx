import { useMemo, useRef, useState, type RefObject } from 'react';
import { useDismiss } from '../hooks/useDismiss';
import { useTranslation } from 'react-i18next';
import { errorMessage, isAutoThreshold, type CompactionPreview, type ContextUsage } from '@threadline/protocol';
import { contextRoutes } from '../store/routes';
import { formatTokens } from '../i18n';
import { useAppStore } from '../store';
import { reasonText } from '../lib/reasons';
import { SessionCostBreakdown } from './CostViews';
import { useInViewport } from '../hooks/useInViewport';

/** `percent` is 0–100 (protocol ContextUsage); `threshold` is a fraction 0–1. */
export function band(percent: number, threshold: number): 'ok' | 'warn' | 'high' | 'full' {
  const p = percent / 100;
  const th = isAutoThreshold(threshold) ? threshold : 0.8;
  if (p >= 0.95) return 'full';
  if (p >= th) return 'high';
  if (p >= th - 0.2) return 'warn';
  return 'ok';
}

/** usage.percent is 0–100 (protocol); a tiny session is 0.3 %, not 30 %. */
export function pct(u: ContextUsage): number {
  return u.percent;
}

const PARTS = [
  'system',
  'instructions',
  'projectMemory',
  'memory',
  'summaries',
  'messages',
  'toolOutputs',
  'tools',
] as const;
/** Parts shown only when the request holds some. */
const OPTIONAL: ReadonlySet<string> = new Set(['instructions', 'projectMemory']);

/** A part of the meter, in the provider's tokens like `total` (the parts sum to it: turn/usage.ts). */
function part(u: ContextUsage, k: (typeof PARTS)[number]): number {
  return u.breakdown[k] ?? 0;
}

/** The instructions and project memory rows only when there are some. */
function shownParts(u: ContextUsage): (typeof PARTS)[number][] {
  return PARTS.filter((k) => !OPTIONAL.has(k) || (u.breakdown[k] ?? 0) > 0);
}

function Popover({
  sessionId,
  usage,
  onClose,
  wrapRef,
}: {
  sessionId: string;
  usage: ContextUsage;
  onClose: () => void;
  wrapRef: RefObject<HTMLDivElement | null>;
}) {
  const { t } = useTranslation();
  const fit = useInViewport<HTMLDivElement>();
  const [preview, setPreview] = useState<CompactionPreview | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const thresholdOn = isAutoThreshold(usage.threshold);

  // .meter-wrap holds the meter button too, whose click is its own toggle.
  useDismiss(true, wrapRef, onClose);

  const runPreview = async () => {
    setLoading(true);
    setError(null);
    try {
      setPreview(await contextRoutes.previewCompaction({ sessionId }));
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setLoading(false);
    }
  };

  return (
    <div
      ref={fit}
      className="popover meter-popover"
      role="dialog"
      aria-label={t('context.title')}
      data-testid="context-popover"
    >
      <div className="popover-title">{t('context.title')}</div>
      <div className="meter-summary">
        {t('context.used', {
          used: formatTokens(usage.total),
          window: formatTokens(usage.window),
          percent: Math.round(pct(usage)),
        })}
      </div>
      <div className="breakdown-bar">
        {shownParts(usage).map((k) => (
          <span
            key={k}
            className={`seg seg-${k}`}
            style={{ width: `${usage.window ? (part(usage, k) / usage.window) * 100 : 0}%` }}
          />
        ))}
      </div>
      <table className="breakdown">
        <tbody>
          {shownParts(usage).map((k) => (
            <tr key={k} data-testid={`meter-part-${k}`}>
              <td>
                <span className={`swatch seg-${k}`} />
                {t(`context.breakdown.${k}`)}
                {k === 'tools' && (usage.toolServers ?? 0) > 0 && (
                  <span className="muted" data-testid="meter-tool-servers">
                    {' '}
                    {t('context.toolServers', { count: usage.toolServers })}
                  </span>
                )}
              </td>
              <td className="num">{formatTokens(part(usage, k))}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="meter-foot">
        {thresholdOn
          ? t('context.threshold', { percent: Math.round(usage.threshold * 100) })
          : t('context.thresholdOff')}
        {usage.autoPaused && <div className="warn-text">{t('context.autoPaused')}</div>}
        {usage.providerPromptTokens !== null && (
          <div className="muted">
            {t('context.providerTokens', {
              tokens: formatTokens(usage.providerPromptTokens),
              ratio: usage.calibration.toFixed(2),
            })}
          </div>
        )}
      </div>
      <SessionCostBreakdown sessionId={sessionId} />
      <button
        type="button"
        className="btn btn-block"
        onClick={() => void runPreview()}
        disabled={loading}
        data-testid="preview-compaction"
      >
        {loading ? t('context.previewing') : t('context.preview')}
      </button>
      {error && <div className="form-error">{error}</div>}
      {preview && (
        <div className="preview" data-testid="compaction-preview">
          {preview.ok ? (
            <>
              <div>
                {t('context.previewResult', {
                  hidden: preview.hiddenIds.length,
                  inserted: preview.inserted.length,
                  before: formatTokens(preview.tokensBefore),
                  after: formatTokens(preview.tokensAfter),
                })}
              </div>
              <div className="muted">{t(`settings.context.strategy.${preview.strategy}.name`)}</div>
              <HiddenList sessionId={sessionId} ids={preview.hiddenIds} />
            </>
          ) : (
            <div>{t('context.previewNothing', { reason: reasonText(preview.reason, t) })}</div>
          )}
        </div>
      )}
    </div>
  );
}

const HIDDEN_SHOWN = 6;

/** What a compaction would hide, first lines of the first few messages, oldest first. */
function HiddenList({ sessionId, ids }: { sessionId: string; ids: string[] }) {
  const { t } = useTranslation();
  const messages = useAppStore((s) => s.bySession[sessionId]?.messages);
  const hidden = useMemo(() => {
    const want = new Set(ids);
    return (messages ?? []).filter((m) => want.has(m.id) && m.visibility.user);
  }, [messages, ids]);
  if (hidden.length === 0) return null;
  const line = (text: string | null) =>
    (text ?? '')
      .split('\n')
      .find((l) => l.trim() !== '')
      ?.trim()
      .slice(0, 80) ?? '';
  return (
    <ul className="preview-hidden" aria-label={t('context.previewHiddenLabel')} data-testid="preview-hidden">
      {hidden.slice(0, HIDDEN_SHOWN).map((m) => (
        <li key={m.id}>
          {m.role === 'tool'
            ? t('context.previewItem.tool', {
                name: m.name ?? (typeof m.meta?.toolName === 'string' ? m.meta.toolName : ''),
                text: line(m.content),
              })
            : m.role === 'user'
              ? t('context.previewItem.user', { text: line(m.content) })
              : m.tool_calls?.length
                ? t('context.previewItem.call', { name: m.tool_calls.map((c) => c.function.name).join(', ') })
                : t('context.previewItem.assistant', { text: line(m.content) })}
        </li>
      ))}
      {hidden.length > HIDDEN_SHOWN && (
        <li className="muted">{t('context.previewMore', { count: hidden.length - HIDDEN_SHOWN })}</li>
      )}
    </ul>
  );
}

/** Percent of the model's window in use, coloured by band, with the auto-compact threshold marked. */
export function ContextMeter({ sessionId }: { sessionId: string }) {
  const { t } = useTranslation();
  const usage = useAppStore((s) => s.bySession[sessionId]?.usage);
  const [open, setOpen] = useState(false);
  const wrapRef = useRef<HTMLDivElement>(null);
  if (!usage) return null;
  const p = pct(usage);
  const b = band(p, usage.threshold);
  const thresholdOn = isAutoThreshold(usage.threshold);
  const label = t('context.meterLabel', { percent: Math.round(p) });
  return (
    <div className="meter-wrap" ref={wrapRef}>
      <button
        type="button"
        className={`meter meter-${b}`}
        aria-label={label}
        title={label}
        aria-expanded={open}
        onClick={() => setOpen(!open)}
        data-testid="context-meter"
        data-percent={Math.round(p)}
      >
        <span className="meter-track">
          <span className="meter-fill" style={{ width: `${Math.min(100, p)}%` }} />
          {thresholdOn && <span className="meter-tick" style={{ left: `${usage.threshold * 100}%` }} />}
        </span>
        <span className="meter-num">{t('context.percent', { percent: Math.round(p) })}</span>
      </button>
      {open && <Popover sessionId={sessionId} usage={usage} onClose={() => setOpen(false)} wrapRef={wrapRef} />}
    </div>
  );
}
