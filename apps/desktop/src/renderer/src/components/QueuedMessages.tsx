import { useTranslation } from 'react-i18next';
import { useAppStore } from '../store';
import { discardUnsent } from '../hooks/useAttachments';
import { IconPaperclip, IconX } from './Icons';

/** Messages typed during the running turn: each can be taken back, or sent now once the turn has ended. */
export function QueuedMessages({ sessionId }: { sessionId: string }) {
  const { t } = useTranslation();
  const queued = useAppStore((s) => s.bySession[sessionId]?.queued);
  const busy = useAppStore((s) => Boolean(s.bySession[sessionId]?.busy));
  const unqueue = useAppStore((s) => s.unqueue);
  const send = useAppStore((s) => s.send);
  if (!queued || queued.length === 0) return null;
  return (
    <ul className="queued-list" aria-label={t('chat.queue.label')} data-testid="queued-list">
      {queued.map((q) => (
        <li key={q.id} className="queued-item" data-testid="queued-item">
          <span className="queued-badge">{busy ? t('chat.queue.waiting') : t('chat.queue.held')}</span>
          <span className="queued-text" title={q.text}>
            {q.text}
          </span>
          {q.attachments.length > 0 && (
            <span className="queued-files" title={t('chat.queue.attachments', { count: q.attachments.length })}>
              <IconPaperclip width={12} height={12} />
              {q.attachments.length}
            </span>
          )}
          {!busy && (
            <button
              type="button"
              className="btn btn-small"
              onClick={() => {
                const item = unqueue(sessionId, q.id);
                if (item) void send(sessionId, item.text, item.attachments);
              }}
              data-testid="queued-send"
            >
              {t('chat.queue.sendNow')}
            </button>
          )}
          <button
            type="button"
            className="icon-btn"
            aria-label={t('chat.queue.remove')}
            title={t('chat.queue.remove')}
            onClick={() => {
              const item = unqueue(sessionId, q.id);
              for (const id of item?.attachments ?? []) discardUnsent(id);
            }}
            data-testid="queued-remove"
          >
            <IconX />
          </button>
        </li>
      ))}
    </ul>
  );
}
