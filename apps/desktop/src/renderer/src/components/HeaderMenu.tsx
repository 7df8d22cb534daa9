import { useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useDismiss } from '../hooks/useDismiss';
import { IconMore } from './Icons';
import { useInViewport } from '../hooks/useInViewport';

/**
 * "More" (⋯) at the end of the chat header: the session's secondary actions (Export…). The header
 * keeps in sight what is in force and what is used all the time; an action that is not belongs
 * here, so the header fits from 640 px whatever the title (see docs/architecture.md, "The chat
 * header"). `children` are menu entries (`role="menuitem"` buttons); a press on one closes the menu.
 */
export function HeaderMenu({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const fit = useInViewport<HTMLDivElement>();
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  useDismiss(open, ref, () => setOpen(false));
  return (
    <div className="header-menu" ref={ref}>
      <button
        type="button"
        className="icon-btn header-more"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-label={t('chat.header.more')}
        title={t('chat.header.more')}
        onClick={() => setOpen(!open)}
        data-testid="header-more"
      >
        <IconMore />
      </button>
      {open && (
        <div
          ref={fit}
          className="menu menu-down"
          role="menu"
          data-testid="header-menu"
          onClick={(e) => {
            if ((e.target as HTMLElement).closest('[role="menuitem"]')) setOpen(false);
          }}
        >
          {children}
        </div>
      )}
    </div>
  );
}
