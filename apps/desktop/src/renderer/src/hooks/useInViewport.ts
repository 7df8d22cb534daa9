import { useCallback, useRef } from 'react';

const MARGIN = 8;

/**
 * A ref for a menu or popover that keeps it inside the window: taller than the room between its
 * anchor and the window's edge, it gets that height and scrolls; wider than the room at a side,
 * it moves in. Checked when it appears, when its content changes size and when the window does.
 */
export function useInViewport<T extends HTMLElement>(): (el: T | null) => void {
  const detach = useRef<(() => void) | null>(null);
  return useCallback((el: T | null) => {
    detach.current?.();
    detach.current = null;
    if (!el) return;
    const fit = (): void => {
      el.style.maxHeight = '';
      el.style.translate = '';
      const r = el.getBoundingClientRect();
      const room =
        r.top < MARGIN
          ? r.bottom - MARGIN
          : r.bottom > window.innerHeight - MARGIN
            ? window.innerHeight - MARGIN - r.top
            : null;
      if (room !== null) {
        el.style.maxHeight = `${Math.max(80, room)}px`;
        el.style.overflowY = 'auto';
      }
      const dx =
        r.left < MARGIN
          ? MARGIN - r.left
          : r.right > window.innerWidth - MARGIN
            ? window.innerWidth - MARGIN - r.right
            : 0;
      if (dx !== 0) el.style.translate = `${dx}px 0`;
    };
    fit();
    const observer = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(fit);
    observer?.observe(el);
    window.addEventListener('resize', fit);
    detach.current = () => {
      observer?.disconnect();
      window.removeEventListener('resize', fit);
    };
  }, []);
}
