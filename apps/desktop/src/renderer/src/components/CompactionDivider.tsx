import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { CompactionRecord, StoredMessage } from '@threadline/protocol';
import type { LiveCompaction } from '../store/types';
import { useAppStore } from '../store';
import { formatTokens } from '../i18n';
import { IconChevron, IconLayers, IconUndo, IconX } from './Icons';
import { Markdown } from './Markdown';
import { DividerCost } from './CostViews';

/** The first line of every CFPM checkpoint (packages/context memory/constants.ts). */
const CHECKPOINT_HEADER = '[CFPM_MEMORY_V1]';
/** Under this share of tokens saved, the divider says the compaction hardly helped. */
const SMALL_SAVING_PERCENT = 10;

interface Props {
  sessionId: string;
  compaction: CompactionRecord;
  latest: boolean;
  inserted: StoredMessage[];
}

/** Where a compaction happened: what it did, what the agent now reads instead, and Undo. */
export function CompactionDivider({ sessionId, compaction: c, latest, inserted }: Props) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const [undoing, setUndoing] = useState(false);
  const undo = useAppStore((s) => s.undoCompaction);
  const busy = useAppStore((s) => Boolean(s.bySession[sessionId]?.busy));
  const body =
    c.summary ??
    inserted
      .filter((m) => m.kind === 'summary' || m.kind === 'memory_snapshot')
      .map((m) => m.content ?? '')
      .join('\n\n');
  // A CFPM checkpoint (no model summary) is plain lines; a model summary is Markdown. The
  // inserted messages may not be loaded yet (they arrive with the next history load), the
  // checkpoint's header is always there.
  const isSnapshot =
    body.startsWith(CHECKPOINT_HEADER) ||
    (inserted.some((m) => m.kind === 'memory_snapshot') && !inserted.some((m) => m.kind === 'summary'));
  const savedExact = c.tokensBefore > 0 ? (1 - c.tokensAfter / c.tokensBefore) * 100 : 0;
  const saved = Math.round(savedExact);
  const small = savedExact < SMALL_SAVING_PERCENT;
  return (
    <div
      className={`divider ${c.active ? '' : 'divider-undone'}`}
      data-testid="compaction-divider"
      data-active={c.active}
      data-small={small}
    >
      <div className="divider-line">
        <span className="divider-rule" />
        <div className="divider-pill">
          <IconLayers />
          <span className="divider-title">
            {c.active ? t('compaction.divider.title') : t('compaction.divider.undoneTitle')}
          </span>
          <span className="divider-meta">
            {t(`settings.context.strategy.${c.strategy}.name`)}
            <span className="dot-sep" />
            {t(`compaction.trigger.${c.trigger}`)}
            <span className="dot-sep" />
            {t('compaction.divider.tokens', {
              before: formatTokens(c.tokensBefore),
              after: formatTokens(c.tokensAfter),
              percent: saved,
            })}
            {small && (
              <span className="divider-small" data-testid="divider-small">
                <span className="dot-sep" />
                {t('compaction.divider.smallSaving', { percent: SMALL_SAVING_PERCENT })}
              </span>
            )}
            <DividerCost sessionId={sessionId} compactionId={c.id} />
          </span>
          {body && (
            <button type="button" className="link-btn" aria-expanded={open} onClick={() => setOpen(!open)}>
              <IconChevron className={`chev ${open ? 'open' : ''}`} />
              {open ? t('compaction.divider.hideSummary') : t('compaction.divider.showSummary')}
            </button>
          )}
          {latest && c.active && (
            <button
              type="button"
              className="link-btn"
              disabled={undoing || busy}
              title={busy ? t('compaction.divider.undoBusy') : t('compaction.divider.undoHint')}
              onClick={() => {
                setUndoing(true);
                void undo(sessionId).finally(() => setUndoing(false));
              }}
            >
              <IconUndo />
              {t('compaction.divider.undo')}
            </button>
          )}
        </div>
        <span className="divider-rule" />
      </div>
      {c.instructions && (
        <div className="divider-instr-line" data-testid="divider-instructions">
          {t('compaction.divider.instructions', { text: c.instructions })}
        </div>
      )}
      {open && body && (
        <div className="divider-summary" data-testid="compaction-summary">
          <div className="divider-summary-label">
            {isSnapshot ? t('compaction.divider.snapshotLabel') : t('compaction.divider.summaryLabel')}
          </div>
          {/* A model summary is Markdown; the CFPM checkpoint is plain lines, and Markdown would
              fold its section titles into the list item above them. */}
          {isSnapshot ? <div className="divider-snapshot">{body}</div> : <Markdown text={body} />}
        </div>
      )}
    </div>
  );
}

/** The compaction while it runs, in the place its divider will take: what, why, and Cancel. */
export function LiveCompactionDivider({ sessionId, live }: { sessionId: string; live: LiveCompaction }) {
  const { t } = useTranslation();
  const cancel = useAppStore((s) => s.cancel);
  const [cancelling, setCancelling] = useState(false);
  return (
    <div className="divider divider-live" data-testid="compaction-divider" data-live="true" role="status">
      <div className="divider-line">
        <span className="divider-rule" />
        <div className="divider-pill">
          <span className="spinner" aria-hidden />
          <span className="divider-title">
            {live.percent !== null
              ? t('compaction.divider.runningAt', { percent: live.percent })
              : t('compaction.divider.running')}
          </span>
          <span className="divider-meta">
            {t(`settings.context.strategy.${live.strategy}.name`)}
            <span className="dot-sep" />
            {t(`compaction.trigger.${live.trigger}`)}
            {live.step && (
              <>
                <span className="dot-sep" />
                <span data-testid="compaction-step">
                  {t(`compaction.step.${live.step}`, { defaultValue: live.step })}
                </span>
              </>
            )}
            {live.index !== undefined && live.tokens !== undefined && (
              <>
                <span className="dot-sep" />
                <span data-testid="compaction-progress">
                  {t('compaction.divider.progress', { index: live.index, tokens: formatTokens(live.tokens) })}
                </span>
              </>
            )}
          </span>
          <button
            type="button"
            className="link-btn"
            disabled={cancelling}
            onClick={() => {
              setCancelling(true);
              void cancel(sessionId).finally(() => setCancelling(false));
            }}
            data-testid="compaction-cancel"
          >
            <IconX />
            {t('compaction.divider.cancel')}
          </button>
        </div>
        <span className="divider-rule" />
      </div>
      {live.instructions && (
        <div className="divider-instr-line">{t('compaction.divider.instructions', { text: live.instructions })}</div>
      )}
    </div>
  );
}
