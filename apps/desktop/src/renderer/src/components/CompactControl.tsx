import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useAppStore } from '../store';
import { useDismiss } from '../hooks/useDismiss';
import { useInViewport } from '../hooks/useInViewport';
import { Dialog } from './Dialog';
import { IconChevronDown, IconLayers } from './Icons';

/** The composer's Compact button, and its menu's "with instructions" dialog. */
export function CompactControl({ sessionId }: { sessionId: string }) {
  const { t } = useTranslation();
  const fit = useInViewport<HTMLDivElement>();
  const busy = useAppStore((s) => Boolean(s.bySession[sessionId]?.busy));
  const compacting = useAppStore((s) => Boolean(s.bySession[sessionId]?.compacting));
  const canCompact = useAppStore((s) => s.bySession[sessionId]?.usage?.canCompact ?? false);
  const compact = useAppStore((s) => s.compact);
  const [menu, setMenu] = useState(false);
  const [dialog, setDialog] = useState(false);
  const [instructions, setInstructions] = useState('');
  const menuRef = useRef<HTMLDivElement>(null);

  useDismiss(menu, menuRef, () => setMenu(false));

  const reason = compacting
    ? t('chat.compact.running')
    : busy
      ? t('chat.compact.disabledBusy')
      : !canCompact
        ? t('chat.compact.disabledNothing')
        : t('chat.compact.hint');
  const disabled = busy || compacting || !canCompact;

  return (
    <div className="split-btn" ref={menuRef}>
      <button
        type="button"
        className={`btn btn-ghost ${compacting ? 'is-running' : ''}`}
        disabled={disabled}
        title={reason}
        aria-label={`${t('chat.compact.button')}: ${reason}`}
        onClick={() => void compact(sessionId)}
        data-testid="compact-button"
      >
        {compacting ? <span className="spinner" aria-hidden /> : <IconLayers />}
        {compacting ? t('chat.compact.running') : t('chat.compact.button')}
      </button>
      <button
        type="button"
        className="btn btn-ghost split-caret"
        disabled={disabled}
        aria-label={t('chat.compact.more')}
        title={t('chat.compact.more')}
        aria-haspopup="menu"
        aria-expanded={menu}
        onClick={() => setMenu(!menu)}
        data-testid="compact-menu"
      >
        <IconChevronDown />
      </button>
      {menu && (
        <div ref={fit} className="menu" role="menu">
          <button
            type="button"
            role="menuitem"
            className="menu-item"
            onClick={() => {
              setMenu(false);
              setDialog(true);
            }}
          >
            {t('chat.compact.withInstructions')}
          </button>
        </div>
      )}
      {dialog && (
        <Dialog
          title={t('chat.compact.dialogTitle')}
          onClose={() => setDialog(false)}
          testId="compact-dialog"
          footer={
            <>
              <button type="button" className="btn" onClick={() => setDialog(false)}>
                {t('common.cancel')}
              </button>
              <button
                type="button"
                className="btn btn-primary"
                disabled={!instructions.trim()}
                onClick={() => {
                  setDialog(false);
                  void compact(sessionId, instructions);
                  setInstructions('');
                }}
              >
                {t('chat.compact.button')}
              </button>
            </>
          }
        >
          <p className="muted">{t('chat.compact.dialogHint')}</p>
          <textarea
            className="input"
            rows={4}
            value={instructions}
            placeholder={t('chat.compact.instructionsPlaceholder')}
            aria-label={t('chat.compact.instructionsPlaceholder')}
            onChange={(e) => setInstructions(e.target.value)}
          />
        </Dialog>
      )}
    </div>
  );
}
