// The sessions part of @threadline/store's surface;
// types.ts re-exports it with the rest.
import type { SessionSummary } from '@threadline/protocol';

export interface SessionsRepo {
  /**
   * Title defaults to '' (the renderer shows a localized "Untitled"). `workingFolder`: the
   * resolved folder (the runtime checks it); null/undefined stores none (summary says '').
   */
  create(title?: string, workingFolder?: string | null): SessionSummary;
  setWorkingFolder(id: string, folder: string): SessionSummary;
  /** Most recently updated first, helpers' sessions left out. messageCount counts user-visible messages. */
  list(): SessionSummary[];
  get(id: string): SessionSummary | null;
  rename(id: string, title: string): SessionSummary;
  /** Deletes the session and every row that belongs to it. Throws not_found if missing. */
  delete(id: string): void;
  /** Bump updatedAt (appends do this themselves). */
  touch(id: string): void;
  /** The session's provider profile and model (null, null: the active profile and its model). */
  setModel(id: string, profileId: string | null, model: string | null): SessionSummary;
  /** null or blank removes it; does not bump updatedAt (it is not activity). */
  setSystemPrompt(id: string, text: string | null): void;
}
