import { useState, type ReactNode } from 'react';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import {
  CheckpointNoticeMetaSchema,
  parseNotice,
  type CompactionNoticePayload,
  type GateNoticePayload,
  type RuntimeNoticePayload,
  type StoredMessage,
  type VisibilityLevel,
} from '@threadline/protocol';
import { useAppStore } from '../store';
import type { MemoryTally } from '../lib/transcript';
import { formatTokens } from '../i18n';
import { errorNoticeText, reasonText } from '../lib/reasons';
import { IconChevron, IconLayers, IconMemory, IconShield, IconAlert, IconUndo } from './Icons';
import { chatRoutes, contextRoutes } from '../store/routes';

type TFn = TFunction;

/** "1 added, 2 retired": the non-zero parts of a net change, in the user's language. */
function changeText(c: { added: number; updated: number; retired: number }, t: TFn): string {
  const parts = (['added', 'updated', 'retired'] as const)
    .filter((k) => c[k] > 0)
    .map((k) => t(`notice.cfpm.runtime.${k}`, { count: c[k] }));
  return parts.join(t('notice.listSep'));
}

function Details({ open, children }: { open: boolean; children: ReactNode }) {
  if (!open) return null;
  return (
    <dl className="chip-details" data-testid="notice-details">
      {children}
    </dl>
  );
}

function DetailsToggle({ open, setOpen }: { open: boolean; setOpen: (v: boolean) => void }) {
  const { t } = useTranslation();
  return (
    <button type="button" className="chip-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
      <IconChevron className={`chev ${open ? 'open' : ''}`} />
      {open ? t('notice.hideDetails') : t('notice.details')}
    </button>
  );
}

/** The notice as stored, for whoever wants to see exactly what the runtime wrote. */
function RawJson({ text }: { text: string | null }) {
  const { t } = useTranslation();
  const raw = text ?? '';
  const json = raw.slice(raw.indexOf('{'));
  let pretty = json;
  try {
    pretty = JSON.stringify(JSON.parse(json), null, 2);
  } catch {
    /* shown as stored */
  }
  return (
    <>
      <dt>{t('notice.json')}</dt>
      <dd>
        <pre className="chip-json">{pretty}</pre>
      </dd>
    </>
  );
}

/**
 * brief (`tally` given): the turn's net change of memory in one line. debug: this refresh as
 * stored, its counts and reasons behind Details.
 */
function RuntimeChip({ msg, p, tally }: { msg: StoredMessage; p: RuntimeNoticePayload; tally?: MemoryTally }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const reasons = Object.entries(p.rejectedReasonBreakdown).filter(([, n]) => n > 0);
  const net = tally ?? { added: p.added ?? 0, updated: p.updated ?? 0, retired: p.retired ?? 0, facts: p.factCount };
  const changed = net.added + net.updated + net.retired > 0;
  const text = changed
    ? t('notice.cfpm.runtime.changed', { changes: changeText(net, t), count: net.facts })
    : p.added === undefined
      ? t('notice.cfpm.runtime.legacy', { accepted: p.acceptedCount, rejected: p.rejectedCount, count: p.factCount })
      : t('notice.cfpm.runtime.unchanged', { count: p.factCount });
  return (
    <div className="chip-wrap" data-testid="notice-chip" data-notice="runtime" data-level={tally ? 'brief' : 'debug'}>
      <div className={`chip chip-memory ${changed ? '' : 'chip-quiet'}`}>
        <IconMemory />
        <span className="chip-text">{text}</span>
        {!tally && <DetailsToggle open={open} setOpen={setOpen} />}
      </div>
      <Details open={!tally && open}>
        <dt>{t('notice.cfpm.runtime.reason')}</dt>
        <dd>{t(`notice.cfpm.reasons.${p.reason}`, { defaultValue: p.reason })}</dd>
        <dt>{t('notice.cfpm.runtime.mode')}</dt>
        <dd>{t(`notice.cfpm.mode.${p.mode}`)}</dd>
        <dt>{t('notice.cfpm.runtime.candidates')}</dt>
        <dd>
          {t('notice.cfpm.runtime.counts', {
            accepted: p.acceptedCount,
            rejected: p.rejectedCount,
            pruned: p.prunedCount,
          })}
        </dd>
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
        <RawJson text={msg.content} />
      </Details>
    </div>
  );
}

function GateChip({ msg, p, level }: { msg: StoredMessage; p: GateNoticePayload; level: VisibilityLevel }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const target = t(`notice.cfpm.gate.target.${p.target}`);
  return (
    <div className="chip-wrap" data-testid="notice-chip" data-notice="gate" data-level={level}>
      <div className="chip chip-gate">
        <IconShield />
        <span className="chip-text">
          {p.declined
            ? t('notice.cfpm.gate.declined', { target })
            : t('notice.cfpm.gate.brief', { target, tool: p.tool })}
        </span>
        {level === 'debug' && <DetailsToggle open={open} setOpen={setOpen} />}
      </div>
      <Details open={level === 'debug' && open}>
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
        <RawJson text={msg.content} />
      </Details>
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
    // Exact figures: "by how much" is the point of these notices.
    window: p.window !== undefined ? p.window.toLocaleString() : '?',
    previous: p.previousWindow !== undefined ? p.previousWindow.toLocaleString() : '?',
    tokens: p.messageTokens !== undefined ? p.messageTokens.toLocaleString() : '?',
    over:
      p.messageTokens !== undefined && p.window !== undefined
        ? Math.max(0, p.messageTokens - p.window).toLocaleString()
        : '?',
    role: p.messageRole ? t(`notice.compaction.roles.${p.messageRole}`) : '',
  };
  return t(`notice.compaction.${p.type}`, vars);
}

function CompactionChip({ p, sessionId }: { p: CompactionNoticePayload; sessionId: string }) {
  const { t } = useTranslation();
  const warn =
    p.type === 'max_attempts' ||
    p.type === 'compaction_failed' ||
    p.type === 'auto_paused' ||
    p.type === 'message_too_large';
  return (
    <div className="chip-wrap" data-testid="notice-chip" data-notice={`compaction-${p.type}`}>
      <div className={`chip ${warn ? 'chip-warn' : 'chip-compaction'}`}>
        {warn ? <IconAlert /> : <IconLayers />}
        <span className="chip-text">{compactionText(p, t)}</span>
        {p.type === 'message_too_large' && p.messageId && (
          <FitMessageActions sessionId={sessionId} messageId={p.messageId} />
        )}
      </div>
    </div>
  );
}

/**
 * A message over the window on its own: cut it (head and tail) or leave it out of what the model
 * reads, then send the same request again. Either is a compaction the user can undo.
 */
function FitMessageActions({ sessionId, messageId }: { sessionId: string; messageId: string }) {
  const { t } = useTranslation();
  const [state, setState] = useState<'idle' | 'working' | 'done' | 'failed'>('idle');
  const run = async (action: 'cut' | 'remove') => {
    setState('working');
    try {
      await contextRoutes.fitMessage({ sessionId, messageId, action });
      await chatRoutes.retry({ sessionId });
      setState('done');
    } catch {
      setState('failed');
    }
  };
  if (state === 'done') return null;
  return (
    <span className="chip-actions" data-testid="fit-message-actions">
      <button
        type="button"
        className="link-btn"
        disabled={state === 'working'}
        onClick={() => void run('cut')}
        data-testid="fit-message-cut"
      >
        {t('notice.compaction.fit.cut')}
      </button>
      <button
        type="button"
        className="link-btn"
        disabled={state === 'working'}
        onClick={() => void run('remove')}
        data-testid="fit-message-remove"
      >
        {t('notice.compaction.fit.remove')}
      </button>
      {state === 'failed' && <span className="chip-error">{t('notice.compaction.fit.failed')}</span>}
    </span>
  );
}

/**
 * A user-only notice as a localized chip. What is shown of it follows the visibility settings
 * (lib/noticeView.ts picks the rows; `tally` marks a brief memory chip for a whole turn).
 * Anything that does not parse is shown as the plain text it is.
 */
export function NoticeChip({ msg, tally }: { msg: StoredMessage; tally?: MemoryTally }) {
  const { t } = useTranslation();
  const runtimeLevel = useAppStore((s) => s.settings?.cfpm.runtimeVisibility ?? 'brief');
  const gateLevel = useAppStore((s) => s.settings?.cfpm.toolGateVisibility ?? null) ?? runtimeLevel;
  if (msg.kind === 'checkpoint_notice') return <CheckpointNoticeChip msg={msg} />;
  const parsed = parseNotice(msg.content);
  if (!parsed) {
    return (
      <div className="chip-wrap" data-testid="notice-plain">
        <div className="notice-plain">{msg.content ?? ''}</div>
      </div>
    );
  }
  if (parsed.type === 'runtime') return <RuntimeChip msg={msg} p={parsed.payload} tally={tally} />;
  if (parsed.type === 'gate') return <GateChip msg={msg} p={parsed.payload} level={gateLevel} />;
  if (parsed.type === 'error') return <ErrorChip text={errorNoticeText(msg.content, t)} />;
  return <CompactionChip p={parsed.payload} sessionId={msg.sessionId} />;
}

/**
 * The user undid or redid a turn's file changes, a turn's commands left files that were held, or
 * the user kept or discarded held files (the model reads the stored sentence); or git is missing.
 */
function CheckpointNoticeChip({ msg }: { msg: StoredMessage }) {
  const { t } = useTranslation();
  const meta = CheckpointNoticeMetaSchema.safeParse(msg.meta ?? {});
  if (!meta.success) return <div className="chip-wrap notice-plain">{msg.content ?? ''}</div>;
  const { action, files } = meta.data;
  const text =
    action === 'unavailable'
      ? t('checkpoints.notice.unavailable')
      : t(`checkpoints.notice.${action}`, { count: files.length, files: files.slice(0, 5).join(', ') });
  return (
    <div className="chip-wrap" data-testid="notice-chip" data-notice={`checkpoint-${action}`}>
      <div className={`chip ${action === 'unavailable' || action === 'held' ? 'chip-warn' : 'chip-muted'}`}>
        {action === 'unavailable' ? (
          <IconAlert />
        ) : action === 'held' || action === 'kept' || action === 'discarded' ? (
          <IconShield />
        ) : (
          <IconUndo className={action === 'redo' ? 'icon-flip' : undefined} />
        )}
        <span className="chip-text">{text}</span>
      </div>
    </div>
  );
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
