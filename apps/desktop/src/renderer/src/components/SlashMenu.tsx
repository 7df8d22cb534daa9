import { useState, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useAppStore } from '../store';
import { Dialog } from './Dialog';
import { saveExport } from './ExportItems';
import { errorMessage } from '@threadline/protocol';

/** The commands `/` offers. `insert`: goes into the input for the user to finish and send. */
const COMMANDS = [
  { name: 'compact', insert: true },
  { name: 'summarize', insert: false },
  { name: 'new', insert: false },
  { name: 'memory', insert: false },
  { name: 'export', insert: false },
  { name: 'help', insert: false },
] as const;
type Command = (typeof COMMANDS)[number];

/** `/compact [instructions]`: the argument's name in the user's language. */
function usage(c: Command, t: (k: string) => string): string {
  return c.insert ? `/${c.name} [${t('slash.instructionsArg')}]` : `/${c.name}`;
}

/** The command name being typed: the input is `/` and a word, nothing after it yet. */
function typedName(text: string): string | null {
  const m = /^\/([a-z]*)$/i.exec(text);
  return m ? m[1]!.toLowerCase() : null;
}

export const SLASH_MENU_ID = 'slash-menu';

/**
 * `/` in the composer: a keyboard-navigable menu of commands (↑ ↓, Enter or Tab picks, Esc
 * closes). A picked command runs at once, or goes into the input when it takes arguments.
 */
export function useSlashMenu(
  sessionId: string,
  text: string,
  setText: (v: string) => void,
): {
  menu: React.ReactNode;
  onKeyDown: (e: KeyboardEvent<HTMLTextAreaElement>) => boolean;
  inputProps: Record<string, string | boolean | undefined>;
} {
  const { t } = useTranslation();
  const [active, setActive] = useState(0);
  const [dismissed, setDismissed] = useState<string | null>(null);
  const [help, setHelp] = useState(false);
  const send = useAppStore((s) => s.send);
  const createSession = useAppStore((s) => s.createSession);
  const setPanel = useAppStore((s) => s.setPanel);
  const showToast = useAppStore((s) => s.showToast);

  // Esc closes the menu for the text it was open on; typing on opens it again.
  if (dismissed !== null && dismissed !== text) setDismissed(null);
  const name = typedName(text);
  const matches = name === null ? [] : COMMANDS.filter((c) => c.name.startsWith(name));
  const open = matches.length > 0 && dismissed !== text;
  const current = Math.min(active, Math.max(0, matches.length - 1));

  const run = async (c: Command) => {
    setActive(0);
    if (c.insert) {
      setText(`/${c.name} `);
      return;
    }
    setText('');
    switch (c.name) {
      case 'summarize':
        await send(sessionId, '/summarize');
        return;
      case 'new':
        await createSession();
        return;
      case 'memory':
        setPanel('memory');
        return;
      case 'export':
        try {
          await saveExport(sessionId, 'markdown');
        } catch (err) {
          showToast(t('export.failed', { message: errorMessage(err) }));
        }
        return;
      case 'help':
        setHelp(true);
        return;
    }
  };

  /** true when the key was the menu's (the composer then does nothing more with it). */
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>): boolean => {
    if (!open || e.nativeEvent.isComposing) return false;
    const pick = matches[current]!;
    switch (e.key) {
      case 'ArrowDown':
        setActive((current + 1) % matches.length);
        break;
      case 'ArrowUp':
        setActive((current - 1 + matches.length) % matches.length);
        break;
      case 'Tab':
        void run(pick);
        break;
      case 'Enter':
        if (e.shiftKey) return false;
        // The whole name typed: Enter sends it as it is (e.g. `/compact` with no instructions).
        if (pick.insert && name === pick.name) return false;
        void run(pick);
        break;
      case 'Escape':
        setDismissed(text);
        break;
      default:
        return false;
    }
    e.preventDefault();
    return true;
  };

  const menu = (
    <>
      {open && (
        <div
          className="slash-menu"
          role="listbox"
          id={SLASH_MENU_ID}
          aria-label={t('slash.label')}
          data-testid="slash-menu"
        >
          {matches.map((c, i) => (
            <div
              key={c.name}
              id={`slash-${c.name}`}
              role="option"
              aria-selected={i === current}
              className={`slash-item ${i === current ? 'is-active' : ''}`}
              // mousedown: the input keeps its focus
              onMouseDown={(e) => {
                e.preventDefault();
                void run(c);
              }}
              onMouseEnter={() => setActive(i)}
              data-testid="slash-item"
              data-command={c.name}
            >
              <span className="slash-usage">{usage(c, t)}</span>
              <span className="slash-desc">{t(`slash.${c.name}`)}</span>
            </div>
          ))}
          <div className="slash-foot">{t('slash.hint')}</div>
        </div>
      )}
      {help && (
        <Dialog title={t('slash.helpTitle')} onClose={() => setHelp(false)} testId="slash-help">
          <dl className="slash-help">
            {COMMANDS.map((c) => (
              <div key={c.name}>
                <dt>
                  <code>{usage(c, t)}</code>
                </dt>
                <dd>{t(`slash.${c.name}`)}</dd>
              </div>
            ))}
          </dl>
          <p className="muted">{t('chat.input.hint')}</p>
        </Dialog>
      )}
    </>
  );

  return {
    menu,
    onKeyDown,
    inputProps: {
      'aria-controls': open ? SLASH_MENU_ID : undefined,
      'aria-expanded': open,
      'aria-activedescendant': open ? `slash-${matches[current]!.name}` : undefined,
      'aria-autocomplete': 'list',
    },
  };
}
