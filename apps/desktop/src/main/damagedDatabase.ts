// A damaged database at start-up (issue 25): instead of only an error box, the user may start with
// a new database and keep the damaged one beside it. The rule (what is damaged, where it is kept)
// is the store's (isDamagedDatabase, onCorrupt 'report' / 'recreate'); this is the desktop's offer.
import { basename } from 'node:path';
import { isDamagedDatabase } from '@threadline/agent';
import { menuStrings } from './menu/strings';

/** The part of Electron's `dialog.showMessageBox` the offer uses (injected in tests). */
export type ShowMessageBox = (options: {
  type: 'error';
  message: string;
  buttons: string[];
  defaultId: number;
  cancelId: number;
  noLink: boolean;
}) => Promise<{ response: number }>;

const START_FRESH = 0;
const QUIT = 1;

/** What the user chose: a fresh database keeping the damaged one as `keepAs`, or to quit. */
export type FreshDatabaseChoice = { startFresh: true; keepAs: string } | { startFresh: false };

/**
 * When `err` says the database is damaged: one sentence and two buttons, "Start fresh — keep the
 * damaged copy as <name>" and "Quit", in `language`. Resolves to the user's choice (closing the
 * dialog is Quit), or null when `err` is not a damaged database (the caller reports it as any
 * other failure).
 */
export async function offerFreshDatabase(
  err: unknown,
  file: string,
  language: string,
  showMessageBox: ShowMessageBox,
): Promise<FreshDatabaseChoice | null> {
  if (!isDamagedDatabase(err) || !err.keepAs) return null;
  const strings = menuStrings(language);
  const { response } = await showMessageBox({
    type: 'error',
    message: strings.damagedDatabase.replace('{file}', file),
    buttons: [strings.startFresh.replace('{name}', basename(err.keepAs)), strings.quitButton],
    defaultId: START_FRESH,
    cancelId: QUIT,
    noLink: true,
  });
  return response === START_FRESH ? { startFresh: true, keepAs: err.keepAs } : { startFresh: false };
}
