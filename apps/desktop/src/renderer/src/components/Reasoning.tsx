import { useTranslation } from 'react-i18next';

/**
 * A reasoning model's thinking, collapsed above its answer: open while it streams and nothing of
 * the answer has come yet, closed after. Plain text (it is the model's scratch, not a document).
 */
export function Reasoning({ text, live }: { text: string; live: boolean }) {
  const { t } = useTranslation();
  if (text === '') return null;
  return (
    <details className="reasoning" open={live || undefined} data-testid="reasoning">
      <summary>{live ? t('chat.reasoning.live') : t('chat.reasoning.done')}</summary>
      <div className="reasoning-text">{text}</div>
    </details>
  );
}
