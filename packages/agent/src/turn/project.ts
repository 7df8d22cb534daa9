import { errorMessage } from '@threadline/protocol';
import type { ProjectPlace } from '../projectMemory/service';
import type { Turn } from './turn';
import type { SessionWork } from './sessionWork';
import { untilAborted } from './abortable';

/**
 * The turn start's part of project memory: the project of the session's folder found (by
 * realpath), what the user's message said for it proposed (a correction supersedes at once), its
 * facts checked, and its block fixed for every request of the turn, so the prompt stays
 * byte-identical between them. Bounded: the disk checks have their deadlines, and Stop does not
 * wait for them.
 */
export async function prepareProjectMemory(turn: Turn): Promise<void> {
  const { deps, settings } = turn;
  turn.projectBlock = null;
  if (!settings.projectMemory.enabled) return;
  const where = turn.folder();
  if (!('folder' in where)) return;
  try {
    const place = await untilAborted(deps.projects.placeOf(where.folder), turn.signal);
    turn.projectPlace = place ?? null;
    if (!place) return;
    // A helper's task is the model's words, not the user's: nothing of it is proposed (what a
    // helper's work verified reaches the project through its parent's memory, helpers/helperRun.ts).
    const said = turn.promotions.splice(0);
    if (!turn.helper) await deps.projects.propose(place, turn.sessionId, said, settings);
    await untilAborted(deps.projects.check(place.project, settings), turn.signal);
    turn.projectBlock = deps.projects.block(place.project, turn.profile.model, settings);
  } catch (err) {
    // Project memory is an aid: the turn goes on without it, and says why once.
    deps.emit({
      type: 'error',
      sessionId: turn.sessionId,
      code: 'internal',
      message: `Project memory: ${errorMessage(err)}`,
    });
  }
}

/** The turn's end: what its steps verified, proposed to the project's memory (the inbox). Never throws. */
export async function proposeToProject(turn: Turn): Promise<void> {
  const place = turn.projectPlace;
  const found = turn.promotions.splice(0);
  // A helper's: proposed by its parent, from what its work verified (prepareProjectMemory).
  if (!place || found.length === 0 || turn.helper) return;
  try {
    await turn.deps.projects.propose(place, turn.sessionId, found, turn.settings);
  } catch (err) {
    turn.deps.emit({
      type: 'error',
      sessionId: turn.sessionId,
      code: 'internal',
      message: `Project memory: ${errorMessage(err)}`,
    });
  }
}

/**
 * The project memory block of a request: the turn's, fixed at its start; outside a turn (the
 * meter, a preview) the project's current one, from what is known without asking the disk.
 */
export function projectBlockOf(work: SessionWork): string | null {
  if (work.projectBlock !== undefined) return work.projectBlock;
  if (!work.settings.projectMemory.enabled) return null;
  const where = work.folder();
  if (!('folder' in where)) return null;
  const place: ProjectPlace | null | undefined = work.deps.projects.knownPlace(where.folder);
  return place ? work.deps.projects.block(place.project, work.profile.model, work.settings) : null;
}
