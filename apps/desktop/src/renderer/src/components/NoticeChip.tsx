import { useState } from 'react';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import {
  parseNotice,
  type CompactionNoticePayload,
  type GateNoticePayload,
  type RuntimeNoticePayload,
  type StoredMessage,
  type VisibilityLevel,
} from '@threadline/protocol';
import { useAppStore } from '../store';
import { formatTokens } from '../i18n';
import { errorNoticeText, reasonText } from '../lib/reasons';
import { IconChevron, IconLayers, IconMemory, IconShield, IconAlert } from './Icons';

type TFn = TFunction;

function RuntimeChip({ p, level }: { p: RuntimeNoticePayload; level: VisibilityLevel }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const reasons = Object.entries(p.rejectedReasonBreakdown).filter(([, n]) => n > 0);
  return (
    <div className="chip-wrap" data-testid="notice-chip" data-notice="runtime">
      <div className="chip chip-memory">
        <IconMemory />
        <span className="chip-text">
          {t('notice.cfpm.runtime.brief', {
            accepted: p.acceptedCount,
            rejected: p.rejectedCount,
            count: p.factCount,
          })}
          {p.prunedCount > 0 && (
            <span className="chip-sep">{t('notice.cfpm.runtime.pruned', { count: p.prunedCount })}</span>
          )}
        </span>
        {level === 'debug' && (
          <button type="button" className="chip-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
            <IconChevron className={`chev ${open ? 'open' : ''}`} />
            {open ? t('notice.hideDetails') : t('notice.details')}
          </button>
        )}
      </div>
      {level === 'debug' && open && (
        <dl className="chip-details" data-testid="notice-details">
          <dt>{t('notice.cfpm.runtime.reason')}</dt>
          <dd>{t(`notice.cfpm.reasons.${p.reason}`, { defaultValue: p.reason })}</dd>
          <dt>{t('notice.cfpm.runtime.mode')}</dt>
          <dd>{t(`notice.cfpm.mode.${p.mode}`)}</dd>
          <dt>{t('notice.cfpm.runtime.rejectedReasons')}</dt>
          <dd>
            {reasons.length === 0
              ? t('notice.none')
              : reasons.map(([code, n]) => (
                  <span key={code} className="reason-pill">
                    {t('notice.reasonCount', { reason: t(`memory.reason.${code}`, { defaultValue: code }), count: n })}
                  </span>
                ))}
          </dd>
        </dl>
      )}
    </div>
  );
}

function GateChip({ p, level }: { p: GateNoticePayload; level: VisibilityLevel }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  return (
    <div className="chip-wrap" data-testid="notice-chip" data-notice="gate">
      <div className="chip chip-gate">
        <IconShield />
        <span className="chip-text">
          {t('notice.cfpm.gate.brief', { target: t(`notice.cfpm.gate.target.${p.target}`), tool: p.tool })}
        </span>
        {level === 'debug' && (
          <button type="button" className="chip-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
            <IconChevron className={`chev ${open ? 'open' : ''}`} />
            {open ? t('notice.hideDetails') : t('notice.details')}
          </button>
        )}
      </div>
      {level === 'debug' && open && (
        <dl className="chip-details" data-testid="notice-details">
          <dt>{t('notice.cfpm.gate.path')}</dt>
          <dd>
            <code>{p.path}</code>
          </dd>
          <dt>{t('notice.cfpm.gate.original')}</dt>
          <dd>
            <code>{p.originalCommand}</code>
          </dd>
          <dt>{t('notice.cfpm.gate.rewritten')}</dt>
          <dd>
            <code>{p.rewrittenCommand}</code>
          </dd>
        </dl>
      )}
    </div>
  );
}

export function compactionText(p: CompactionNoticePayload, t: TFn): string {
  const vars = {
    percent: p.percent !== undefined ? Math.round(p.percent) : '?',
    before: p.tokensBefore !== undefined ? formatTokens(p.tokensBefore) : '?',
    after: p.tokensAfter !== undefined ? formatTokens(p.tokensAfter) : '?',
    attempt: p.attempt ?? '?',
    max: p.maxAttempts ?? '?',
    strategy: p.strategy ? t(`settings.context.strategy.${p.strategy}.name`) : '',
    trigger: p.trigger ? t(`compaction.trigger.${p.trigger}`) : '',
    reason: reasonText(p.reason, t),
  };
  return t(`notice.compaction.${p.type}`, vars);
}

function CompactionChip({ p }: { p: CompactionNoticePayload }) {
  const { t } = useTranslation();
  const warn = p.type === 'max_attempts' || p.type === 'compaction_failed' || p.type === 'auto_paused';
  return (
    <div className="chip-wrap" data-testid="notice-chip" data-notice={`compaction-${p.type}`}>
      <div className={`chip ${warn ? 'chip-warn' : 'chip-compaction'}`}>
        {warn ? <IconAlert /> : <IconLayers />}
        <span className="chip-text">{compactionText(p, t)}</span>
      </div>
    </div>
  );
}

/**
 * A user-only notice as a localized chip. Runtime and gate chips follow the visibility settings
 * (off: nothing; brief: one line; debug: one line + details). Anything that does not parse is
 * shown as the plain text it is.
 */
export function NoticeChip({ msg }: { msg: StoredMessage }) {
  const { t } = useTranslation();
  const runtimeLevel = useAppStore((s) => s.settings?.cfpm.runtimeVisibility ?? 'brief');
  const gateLevel = useAppStore((s) => s.settings?.cfpm.toolGateVisibility ?? null) ?? runtimeLevel;
  const parsed = parseNotice(msg.content);
  if (!parsed) {
    return (
      <div className="chip-wrap" data-testid="notice-plain">
        <div className="notice-plain">{msg.content ?? ''}</div>
      </div>
    );
  }
  if (parsed.type === 'runtime') {
    if (runtimeLevel === 'off') return null;
    return <RuntimeChip p={parsed.payload} level={runtimeLevel} />;
  }
  if (parsed.type === 'gate') {
    if (gateLevel === 'off') return null;
    return <GateChip p={parsed.payload} level={gateLevel} />;
  }
  if (parsed.type === 'error') return <ErrorChip text={errorNoticeText(msg.content, t)} />;
  return <CompactionChip p={parsed.payload} />;
}

/** An error notice that reached the chip path (the transcript normally shows it inline). */
function ErrorChip({ text }: { text: string }) {
  return (
    <div className="chip-wrap" data-testid="notice-chip" data-notice="error">
      <div className="chip chip-warn">
        <IconAlert />
        <span className="chip-text">{text}</span>
      </div>
    </div>
  );
}

/** Whether a notice row renders nothing under the current settings (the list skips it). */
export function noticeIsSilent(content: string | null, runtime: VisibilityLevel, gate: VisibilityLevel): boolean {
  const parsed = parseNotice(content);
  if (parsed?.type === 'runtime') return runtime === 'off';
  if (parsed?.type === 'gate') return gate === 'off';
  return false;
}
