import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { formatTokens } from '../i18n';
import { useAppStore } from '../store';

/** Over this share of the window, a send first says so (the request as it is cannot be sent). */
export const OVER_WINDOW_PERCENT = 100;

/** Whether sending now would first need a compaction of a view over the whole window. */
export function overWindow(percent: number | undefined): boolean {
  return percent !== undefined && percent > OVER_WINDOW_PERCENT;
}

interface Props {
  sessionId: string;
  /** Compact, then send what was typed. */
  onCompactThenSend: () => void;
  /** Send as it is: the runtime compacts first anyway. */
  onSend: () => void;
  /** Back to the draft, nothing sent. */
  onCancel: () => void;
}

/**
 * Above the composer, after Send, when the conversation is over the model's whole window: sent as
 * it is, the request would wait for a compaction first (its summary calls can take a while), so
 * the app says so and offers to compact first. The buttons take the keyboard; Escape goes back.
 */
export function OverWindowWarning({ sessionId, onCompactThenSend, onSend, onCancel }: Props) {
  const { t } = useTranslation();
  const usage = useAppStore((s) => s.bySession[sessionId]?.usage);
  const first = useRef<HTMLButtonElement>(null);
  useEffect(() => first.current?.focus(), []);
  if (!usage) return null;
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
      <span id="over-window-text">
        {t('chat.overWindow.text', {
          percent: Math.round(usage.percent),
          tokens: formatTokens(usage.total),
          window: formatTokens(usage.window),
        })}
      </span>
      <span className="resend-actions">
        <button
          ref={first}
          type="button"
          className="btn btn-small btn-primary"
          onClick={onCompactThenSend}
          data-testid="over-window-compact"
        >
          {t('chat.overWindow.compactThenSend')}
        </button>
        <button type="button" className="btn btn-small" onClick={onSend} data-testid="over-window-send">
          {t('chat.overWindow.send')}
        </button>
        <button type="button" className="link-btn" onClick={onCancel} data-testid="over-window-cancel">
          {t('chat.overWindow.cancel')}
        </button>
      </span>
    </div>
  );
}
