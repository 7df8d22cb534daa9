import type { Checkpoint } from '@threadline/protocol';

/**
 * Whether each turn's changes are still in the files, after undo and redo went back and forth
 * (issue 37). A turn's change to a file is in the files when the file is as the turn left it, or
 * when a later turn whose change to that file is in the files started from what this turn left
 * (turn 1 wrote v1, turn 2 turned v1 into v2, the file is v2: both are in). A turn all of whose
 * changes are in the files is `applied`; one with a change no longer there is `overwritten` (a
 * forced undo of an older turn took it out). Undone turns stay undone: the user took them out.
 *
 * `blobs` answers `commit:path` queries with the object there (null: no file), all at once.
 */
export async function statesInFiles(
  checkpoints: readonly Checkpoint[],
  now: string,
  blobs: (queries: readonly string[]) => Promise<Map<string, string | null>>,
): Promise<Map<string, 'applied' | 'overwritten'>> {
  const live = checkpoints.filter((c) => c.state !== 'undone');
  const queries: string[] = [];
  for (const c of live)
    for (const f of c.files)
      queries.push(`${c.beforeCommit}:${f.path}`, `${c.afterCommit}:${f.path}`, `${now}:${f.path}`);
  const blob = await blobs(queries);
  const at = (commit: string, file: string): string | null => blob.get(`${commit}:${file}`) ?? null;
  /** file → the blob a later turn in the files started from (newest turns are walked first). */
  const continued = new Map<string, Set<string | null>>();
  const states = new Map<string, 'applied' | 'overwritten'>();
  for (let i = live.length - 1; i >= 0; i--) {
    const c = live[i]!;
    let all = true;
    for (const f of c.files) {
      const left = at(c.afterCommit, f.path);
      const inFiles = left === at(now, f.path) || (continued.get(f.path)?.has(left) ?? false);
      if (!inFiles) {
        all = false;
        continue;
      }
      const from = continued.get(f.path) ?? new Set<string | null>();
      from.add(at(c.beforeCommit, f.path));
      continued.set(f.path, from);
    }
    states.set(c.id, all ? 'applied' : 'overwritten');
  }
  return states;
}
