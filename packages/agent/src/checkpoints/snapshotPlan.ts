import type { Stats } from 'node:fs';
import type { CheckpointSkipped } from '@threadline/protocol';

/**
 * What a snapshot changes in the shadow index, worked out from one `git ls-files -t` listing of
 * the folder against the index (`H` in the index, `C` changed, `R` gone, `?` not in it and not
 * ignored) and the caps: only what changed since the last snapshot is read and hashed again, so a
 * snapshot of a folder where a turn touched a few files costs a few files, not the whole folder.
 */

export interface SnapshotCaps {
  /** A file larger than this is left out of the snapshot (and named in `skipped.tooLarge`). */
  maxFileBytes: number;
  /** The snapshot holds at most this many bytes of files; what does not fit is counted, left out. */
  maxTotalBytes: number;
  /** And at most this many files. */
  maxFiles: number;
}

export const DEFAULT_SNAPSHOT_CAPS: SnapshotCaps = {
  maxFileBytes: 5 * 1024 * 1024,
  maxTotalBytes: 200 * 1024 * 1024,
  maxFiles: 20_000,
};

/** How many over-cap paths a checkpoint names (the rest are only counted). */
const NAMED_SKIPS = 50;

export interface Listing {
  cached: Set<string>;
  changed: Set<string>;
  gone: Set<string>;
  others: string[];
}

/** `git ls-files -z -t -c -o -m -d` records (`<tag> <path>`) by tag. */
export function parseListing(records: readonly string[]): Listing {
  const out: Listing = { cached: new Set(), changed: new Set(), gone: new Set(), others: [] };
  for (const r of records) {
    const tag = r[0];
    const p = r.slice(2);
    if (tag === 'H') out.cached.add(p);
    else if (tag === 'C') out.changed.add(p);
    else if (tag === 'R') out.gone.add(p);
    else if (tag === '?') out.others.push(p);
  }
  return out;
}

export interface Plan {
  /** Paths to (re)hash into the index, or to drop from it when gone (`update-index --add --remove`). */
  update: string[];
  /** Paths to take out of the index although they exist (ignored now, over a cap, not a file). */
  forceRemove: string[];
  /** Every path the index holds afterwards, with its size. */
  entries: Map<string, number>;
  skipped: CheckpointSkipped;
}

/**
 * The plan: `entries` is what the index holds now (path → size as last seen), `stat` an lstat
 * reached through real folders only (null: not there that way), `ignored` index entries that a
 * changed .gitignore now ignores.
 */
export async function planSnapshot(input: {
  listing: Listing;
  entries: ReadonlyMap<string, number>;
  ignored: ReadonlySet<string>;
  caps: SnapshotCaps;
  stat: (rel: string) => Promise<Stats | null>;
  statAll: <T>(items: readonly string[], fn: (rel: string) => Promise<T>) => Promise<T[]>;
}): Promise<Plan> {
  const { listing, caps } = input;
  const entries = new Map(input.entries);
  const update: string[] = [];
  const forceRemove = new Set<string>(input.ignored);
  const nestedRepos: string[] = [];
  const tooLarge: string[] = [];
  for (const p of forceRemove) entries.delete(p);
  // The index's own list is the listing's (an entry the map missed is read below as changed).
  for (const p of entries.keys()) if (!listing.cached.has(p)) entries.delete(p);
  for (const p of listing.cached) if (!entries.has(p) && !forceRemove.has(p)) listing.changed.add(p);
  for (const p of listing.gone) {
    if (forceRemove.has(p)) continue;
    entries.delete(p);
    update.push(p);
  }
  const look = [
    ...[...listing.changed].filter((p) => !listing.gone.has(p) && !forceRemove.has(p)),
    ...listing.others.filter((p) => !p.endsWith('/')),
  ];
  for (const p of listing.others) if (p.endsWith('/')) nestedRepos.push(p.slice(0, -1));
  const stats = await input.statAll(look, input.stat);
  look.forEach((p, i) => {
    const st = stats[i];
    const inIndex = listing.cached.has(p);
    if (!st || !(st.isFile() || st.isSymbolicLink())) {
      // Gone by now, reached only through a link, a folder (a repository of its own), a FIFO…
      if (st?.isDirectory() && !inIndex) nestedRepos.push(p);
      if (inIndex) forceRemove.add(p);
      entries.delete(p);
      return;
    }
    if (st.isFile() && st.size > caps.maxFileBytes) {
      tooLarge.push(p);
      if (inIndex) forceRemove.add(p);
      entries.delete(p);
      return;
    }
    entries.set(p, st.size);
    update.push(p);
  });
  // The caps on the whole: files in path order until one is reached, the rest left out.
  let overBudget = 0;
  let total = 0;
  for (const size of entries.values()) total += size;
  if (entries.size > caps.maxFiles || total > caps.maxTotalBytes) {
    const sorted = [...entries.keys()].sort();
    let kept = 0;
    let bytes = 0;
    const added = new Set(update);
    for (const p of sorted) {
      const size = entries.get(p)!;
      if (kept < caps.maxFiles && bytes + size <= caps.maxTotalBytes) {
        kept++;
        bytes += size;
        continue;
      }
      overBudget++;
      entries.delete(p);
      if (listing.cached.has(p)) forceRemove.add(p);
      if (added.has(p)) added.delete(p);
    }
    update.splice(0, update.length, ...[...added]);
  }
  tooLarge.sort();
  nestedRepos.sort();
  return {
    update,
    forceRemove: [...forceRemove],
    entries,
    skipped: {
      tooLarge: tooLarge.slice(0, NAMED_SKIPS),
      overBudget: overBudget + Math.max(0, tooLarge.length - NAMED_SKIPS),
      nestedRepos: nestedRepos.slice(0, NAMED_SKIPS),
      maxFileBytes: caps.maxFileBytes,
      maxTotalBytes: caps.maxTotalBytes,
    },
  };
}
