import { existsSync } from 'node:fs';
import path from 'node:path';
import type { HeldFile } from '@threadline/protocol';
import { gitMounts } from './gitGuard';
import { classifyLeftovers, type Leftover } from './leftovers';
import { changedSince, scanFolder, takeStamp } from './scan';

/** What a turn does with what a sandboxed command left (sandbox/turnLeftovers.ts). */
export interface LeftoverHooks {
  /** Where time stamps go: the app's data folder, which no sandboxed command sees. */
  stampDir: string;
  /** Never scanned (the app's data folder, when it lies inside the working folder). */
  skip: readonly string[];
  /** Holds these at once; answers what was held. */
  holdNow(folder: string, items: readonly Leftover[]): Promise<HeldFile[]>;
  /** Holds these when the turn ends (its later commands may still use them). */
  holdAtTurnEnd(folder: string, items: readonly Leftover[]): void;
  /** The session's held files now (said under each command's output while there are some). */
  pending(): HeldFile[];
}

export interface GuardedCommand {
  /** Absolute paths to mount read-only: every existing read-only path, at any depth. */
  readOnly: string[];
  /** Absolute `.git` folders to bind onto themselves (no rename, no removal). */
  pinned: string[];
  /** After the command: what it left that runs code later, held; what the model is told. */
  finish(): Promise<{ held: HeldFile[]; later: Leftover[]; note: string }>;
}

/** How many paths a note names (the rest are counted). */
const NOTE_MAX = 12;

function names(items: readonly { path: string; reason: string }[]): string {
  const listed = items.slice(0, NOTE_MAX).map((f) => `${f.path} (${f.reason.replace(/_/g, ' ')})`);
  const more = items.length > NOTE_MAX ? ` and ${items.length - NOTE_MAX} more` : '';
  return listed.join(', ') + more;
}

/**
 * Around one sandboxed command in `folder` (issue 34): before it, a scan of the folder for what
 * the sandbox mounts read-only (every repository's git surface, every existing protected path at
 * any depth) and a time stamp; after it, what changed since the stamp, classified
 * (leftovers.ts) and held through `hooks`. Without hooks (a command outside a turn) only the
 * mounts apply.
 */
export async function guardCommand(
  folder: string,
  platform: NodeJS.Platform,
  hooks: LeftoverHooks | null,
): Promise<GuardedCommand> {
  const scan = await scanFolder(folder, hooks?.skip ?? []);
  const git = gitMounts(folder, scan, existsSync);
  const readOnly = [...scan.readOnly.map((rel) => path.join(folder, rel)), ...git.readOnly];
  if (!hooks) return { readOnly, pinned: git.pinned, finish: async () => ({ held: [], later: [], note: '' }) };
  const stamp = await takeStamp(hooks.stampDir);
  return {
    readOnly,
    pinned: git.pinned,
    async finish() {
      try {
        const changed = await changedSince(folder, stamp.file, hooks.skip);
        const found = await classifyLeftovers(folder, changed, platform);
        const held = await hooks.holdNow(
          folder,
          found.filter((l) => l.when === 'now'),
        );
        const later = found.filter((l) => l.when === 'turn');
        hooks.holdAtTurnEnd(folder, later);
        const lines: string[] = [];
        if (held.length > 0)
          lines.push(
            `[held] The command left files that could make code run later (git, an editor, a shell or another agent would run or read them on their own). They were taken out of the folder and are held for the user, who keeps or discards them: ${names(held)}. Do not create them again; if the task needs them, say so to the user.`,
          );
        if (later.length > 0)
          lines.push(
            `[held] When this turn ends, these are held for the user too (they run code when the project's commands run): ${names(later)}. Your later commands in this turn can still use them.`,
          );
        const others = hooks.pending().filter((f) => !held.some((h) => h.id === f.id));
        if (others.length > 0)
          lines.push(
            `[held] Held for the user from earlier commands (not in the folder until the user keeps them): ${names(others)}.`,
          );
        return { held, later, note: lines.join('\n') };
      } finally {
        await stamp.remove();
      }
    },
  };
}
