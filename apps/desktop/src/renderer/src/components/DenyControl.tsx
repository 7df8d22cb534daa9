import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useAppStore } from '../store';

/**
 * Deny on an approval card, with an optional reason: the reason is the tool's result the model
 * reads ("use the staging database instead"), so a denial can steer instead of only stopping.
 */
export function DenyControl({ sessionId, toolCallId }: { sessionId: string; toolCallId: string }) {
  const { t } = useTranslation();
  const approve = useAppStore((s) => s.approve);
  const [asking, setAsking] = useState(false);
  const [reason, setReason] = useState('');
  const input = useRef<HTMLInputElement>(null);
  const deny = (why?: string) => void approve(sessionId, toolCallId, 'deny', why ? { reason: why } : {});

  if (!asking)
    return (
      <>
        <button type="button" className="btn" onClick={() => deny()} data-testid="deny">
          {t('tool.deny')}
        </button>
        <button
          type="button"
          className="btn btn-ghost"
          onClick={() => {
            setAsking(true);
            queueMicrotask(() => input.current?.focus());
          }}
          data-testid="deny-with-reason"
        >
          {t('tool.denyWithReason')}
        </button>
      </>
    );
  return (
    <form
      className="deny-reason"
      onSubmit={(e) => {
        e.preventDefault();
        deny(reason);
      }}
    >
      <input
        ref={input}
        className="input"
        value={reason}
        maxLength={2000}
        placeholder={t('tool.denyReasonPlaceholder')}
        aria-label={t('tool.denyReasonLabel')}
        onChange={(e) => setReason(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.preventDefault();
            e.stopPropagation();
            setAsking(false);
          }
        }}
        data-testid="deny-reason"
      />
      <button type="submit" className="btn" disabled={!reason.trim()} data-testid="deny-reason-send">
        {t('tool.denyAndTell')}
      </button>
    </form>
  );
}
