import { useEffect, useRef, type RefObject } from 'react';

/**
 * Closes a menu or popover on a press outside `area` or on Esc. Esc is marked handled, so it does
 * not also stop a streaming reply (hooks/useShortcuts). `area` should hold the button that opens
 * it too: a press there is that button's own toggle, not an outside click.
 */
export function useDismiss(open: boolean, area: RefObject<HTMLElement | null>, close: () => void): void {
  const onClose = useRef(close);
  onClose.current = close;
  useEffect(() => {
    if (!open) return;
    const onDown = (e: MouseEvent) => {
      if (area.current && !area.current.contains(e.target as Node)) onClose.current();
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      e.preventDefault();
      onClose.current();
    };
    document.addEventListener('mousedown', onDown);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('mousedown', onDown);
      document.removeEventListener('keydown', onKey);
    };
  }, [open, area]);
}
