import { useTranslation } from 'react-i18next';
import { strategyKeepsMemory } from '@threadline/protocol';
import { useAppStore } from '../store';

/**
 * No fact yet: why, and what would fill the panel — the agent's work under a strategy that keeps
 * memory, else only facts the user adds (with the way to the setting that changes it).
 */
export function EmptyMemory() {
  const { t } = useTranslation();
  const strategy = useAppStore((s) => s.settings?.compaction.strategy);
  const openSettings = useAppStore((s) => s.openSettings);
  if (!strategy) return null;
  const learns = strategyKeepsMemory(strategy);
  return (
    <div className="empty-facts" data-testid="memory-empty">
      <div className="empty-facts-title">{t('memory.empty')}</div>
      <p className="muted small">
        {learns
          ? t('memory.emptyLearns')
          : t('memory.emptyNotLearning', { strategy: t(`settings.context.strategy.${strategy}.name`) })}
      </p>
      {!learns && (
        <button
          type="button"
          className="btn btn-small"
          onClick={() => openSettings('context')}
          data-testid="memory-open-strategy"
        >
          {t('memory.chooseStrategy')}
        </button>
      )}
    </div>
  );
}
