import { useEffect } from 'react';
import { useAppStore } from '../store';
import { isMod } from '../lib/platform';
import { COMPOSER_ID } from '../components/Composer';

/**
 * App-wide shortcuts: new session (Mod+N), focus input (Mod+L), settings (Mod+,), stop (Esc while
 * a reply streams). Send / newline live in the composer itself.
 */
export function useShortcuts(): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const st = useAppStore.getState();
      if (st.phase !== 'ready') return;
      if (isMod(e) && !e.shiftKey && !e.altKey) {
        const k = e.key.toLowerCase();
        if (k === 'n') {
          e.preventDefault();
          void st.createSession();
        } else if (k === 'l') {
          e.preventDefault();
          if (st.panel === 'settings') st.setPanel('none');
          requestAnimationFrame(() => document.getElementById(COMPOSER_ID)?.focus());
        } else if (k === ',') {
          e.preventDefault();
          st.setPanel(st.panel === 'settings' ? 'none' : 'settings');
        }
        return;
      }
      if (e.key === 'Escape' && !e.defaultPrevented) {
        if (document.querySelector('[aria-modal="true"]')) return;
        if (st.panel === 'settings') {
          st.setPanel('none');
          return;
        }
        const id = st.activeSessionId;
        if (id && st.busy[id]) {
          e.preventDefault();
          void st.cancel(id);
        }
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}
