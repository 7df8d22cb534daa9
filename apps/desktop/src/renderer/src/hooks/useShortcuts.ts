import { useEffect } from 'react';
import type { AppCommand } from '@threadline/protocol';
import { useAppStore } from '../store';
import { getBridge } from '../transport';
import { escapeStopsReply, matchShortcut } from '../lib/shortcuts';
import { COMPOSER_ID } from '../lib/composerId';
import { holdForRefusedSetting } from '../lib/refusedSetting';

/** One place for what a command does, whether it came from a key press or the app menu. */
export function runAppCommand(cmd: AppCommand): void {
  const st = useAppStore.getState();
  if (st.phase !== 'ready') return;
  switch (cmd) {
    case 'new-session':
      void st.createSession();
      return;
    case 'focus-input':
      if (st.panel === 'settings') {
        if (holdForRefusedSetting()) return;
        st.setPanel('none');
      }
      requestAnimationFrame(() => document.getElementById(COMPOSER_ID)?.focus());
      return;
    case 'open-settings':
      if (st.panel === 'settings' && holdForRefusedSetting()) return;
      st.setPanel(st.panel === 'settings' ? 'none' : 'settings');
      return;
  }
}

/**
 * App-wide shortcuts (lib/shortcuts.ts) and the desktop menu's commands; Esc stops a streaming
 * reply. Send / newline live in the composer itself.
 */
export function useShortcuts(): void {
  useEffect(() => {
    const bridge = getBridge();
    const shell = bridge.shell;
    // In the desktop app the menu's accelerators own the shortcuts and arrive as commands.
    const offCommand = bridge.onCommand?.(runAppCommand);
    const onKey = (e: KeyboardEvent) => {
      const st = useAppStore.getState();
      if (st.phase !== 'ready') return;
      const cmd = matchShortcut(e, shell);
      if (cmd) {
        // Desktop: left alone, so the menu's accelerator takes it (Electron runs a menu
        // accelerator only for a key the page did not handle) and the command arrives once.
        if (shell === 'electron') return;
        e.preventDefault();
        runAppCommand(cmd);
        return;
      }
      if (e.key !== 'Escape' || e.defaultPrevented) return;
      if (st.panel === 'settings') {
        e.preventDefault();
        if (!holdForRefusedSetting()) st.setPanel('none');
        return;
      }
      if (document.querySelector('[aria-modal="true"]')) return;
      // An open overlay closes before anything else happens (the composer stops a reply itself).
      if (st.panel === 'memory') {
        e.preventDefault();
        st.setPanel('none');
        return;
      }
      const id = st.activeSessionId;
      if (id && st.bySession[id]?.busy && escapeStopsReply(e, COMPOSER_ID)) {
        e.preventDefault();
        void st.cancel(id);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => {
      window.removeEventListener('keydown', onKey);
      offCommand?.();
    };
  }, []);
}
