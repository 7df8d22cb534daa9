import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatTokens } from '../i18n';
import { useAppStore } from '../store';
import { contextRoutes } from '../store/routes';

/** Over this share of the window, a send first says so (the request as it is cannot be sent). */
export const OVER_WINDOW_PERCENT = 100;

/** Whether sending now would first need a compaction of a view over the whole window. */
export function overWindow(percent: number | undefined): boolean {
  return percent !== undefined && percent > OVER_WINDOW_PERCENT;
}

/** Why a send is held: the conversation alone, or with the draft (`draft`: its tokens), is over the window. */
export interface OverWindowHold {
  draft: number | null;
  total: number;
  window: number;
  percent: number;
}

/** A token is at least one UTF-8 byte: a draft with fewer bytes than the room left cannot fill it. */
function cannotFill(text: string, room: number, calibration: number): boolean {
  return new TextEncoder().encode(text).length * Math.max(1, calibration) + 16 < room;
}

/**
 * The check before a send: the conversation over the window (the meter's figure), or a draft
 * that would bring it there (a long one is measured by the runtime, `context.measureDraft`, in the
 * meter's units). `check` answers whether the send may go now; when not, `hold` says why and the
 * warning shows. A draft that cannot fill the room left is never sent to be measured.
 */
export function useOverWindowGate(sessionId: string) {
  const usage = useAppStore((s) => s.bySession[sessionId]?.usage);
  const [hold, setHold] = useState<OverWindowHold | null>(null);
  const [measuring, setMeasuring] = useState(false);
  const check = async (text: string): Promise<boolean> => {
    if (!usage) return true;
    if (overWindow(usage.percent)) {
      setHold({ draft: null, total: usage.total, window: usage.window, percent: usage.percent });
      return false;
    }
    if (cannotFill(text, usage.window - usage.total, usage.calibration)) return true;
    setMeasuring(true);
    try {
      const m = await contextRoutes.measureDraft({ sessionId, text });
      if (!overWindow(m.percent)) return true;
      setHold({ draft: m.tokens, total: m.total, window: m.window, percent: m.percent });
      return false;
    } catch {
      // Not measured (an older runtime, a lost connection): the send itself says what went wrong.
      return true;
    } finally {
      setMeasuring(false);
    }
  };
  return { hold, measuring, check, release: () => setHold(null), canCompact: usage?.canCompact ?? false };
}

interface Props {
  hold: OverWindowHold;
  /** Whether the conversation holds something to compact (a first message has nothing before it). */
  canCompact: boolean;
  /** Compact, then send what was typed. */
  onCompactThenSend: () => void;
  /** Send as it is: the runtime compacts first anyway. */
  onSend: () => void;
  /** Back to the draft, nothing sent. */
  onCancel: () => void;
}

/**
 * Above the composer, after Send, when the conversation, or the conversation with the message
 * typed, is over the model's whole window: sent as it is, the request would wait for a compaction
 * first (its summary calls can take a while), or a message over half the window reaches the model
 * as its beginning and end, so the app says so first and offers to compact. The buttons take the
 * keyboard; Escape goes back.
 */
export function OverWindowWarning({ hold, canCompact, onCompactThenSend, onSend, onCancel }: Props) {
  const { t } = useTranslation();
  const first = useRef<HTMLButtonElement>(null);
  useEffect(() => first.current?.focus(), []);
  const figures = {
    percent: Math.round(hold.percent),
    tokens: formatTokens(hold.total),
    window: formatTokens(hold.window),
    draft: formatTokens(hold.draft ?? 0),
  };
  const key = hold.draft === null ? 'text' : hold.draft * 2 > hold.window ? 'draftCut' : 'draft';
  return (
    <div
      className="resend-warning over-window-warning"
      role="alertdialog"
      aria-labelledby="over-window-text"
      data-testid="over-window-warning"
      onKeyDown={(e) => {
        if (e.key === 'Escape') {
          e.preventDefault();
          onCancel();
        }
      }}
    >
      <span id="over-window-text">{t(`chat.overWindow.${key}`, figures)}</span>
      <span className="resend-actions">
        {canCompact && (
          <button
            ref={first}
            type="button"
            className="btn btn-small btn-primary"
            onClick={onCompactThenSend}
            data-testid="over-window-compact"
          >
            {t('chat.overWindow.compactThenSend')}
          </button>
        )}
        <button
          ref={canCompact ? undefined : first}
          type="button"
          className={`btn btn-small${canCompact ? '' : ' btn-primary'}`}
          onClick={onSend}
          data-testid="over-window-send"
        >
          {t('chat.overWindow.send')}
        </button>
        <button type="button" className="link-btn" onClick={onCancel} data-testid="over-window-cancel">
          {t('chat.overWindow.cancel')}
        </button>
      </span>
    </div>
  );
}
