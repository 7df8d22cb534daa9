import { useEffect } from 'react';
import { useAppStore } from '../store';

const THEME_KEY = 'threadline.theme';

/** Resolve light/dark/system to a `data-theme` on <html>; follows the OS while on "system". */
export function useTheme(): void {
  const pref = useAppStore((s) => s.settings?.theme) ?? readSaved();
  useEffect(() => {
    const mq = window.matchMedia?.('(prefers-color-scheme: dark)');
    const apply = () => {
      const dark = pref === 'dark' || (pref === 'system' && Boolean(mq?.matches));
      document.documentElement.dataset.theme = dark ? 'dark' : 'light';
    };
    apply();
    try {
      localStorage.setItem(THEME_KEY, pref);
    } catch {
      /* storage unavailable */
    }
    if (pref !== 'system' || !mq) return;
    mq.addEventListener('change', apply);
    return () => mq.removeEventListener('change', apply);
  }, [pref]);
}

function readSaved(): 'light' | 'dark' | 'system' {
  try {
    const v = localStorage.getItem(THEME_KEY);
    if (v === 'light' || v === 'dark' || v === 'system') return v;
  } catch {
    /* storage unavailable */
  }
  return 'system';
}
