import type { HeldFile } from '@threadline/protocol';

/** A held file as the runtime records it (its copy already moved into the data folder). */
export interface NewHeldFile {
  id?: string;
  sessionId: string;
  folder: string;
  path: string;
  kind: HeldFile['kind'];
  reason: HeldFile['reason'];
  entries: number | null;
  target: string | null;
  keepable: boolean;
}

/** Files held for the user (issue 34): one row per held file, until it is kept or discarded. */
export interface HeldFilesRepo {
  add(f: NewHeldFile): HeldFile;
  /** The session's held files, oldest first. */
  list(sessionId: string): HeldFile[];
  remove(id: string): void;
}
