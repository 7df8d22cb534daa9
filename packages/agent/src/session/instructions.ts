import { statSync } from 'node:fs';
import path from 'node:path';
import type { ProjectInstructions, SessionInstructions } from '@threadline/protocol';
import { readRegularFileSync } from '../workspace/fileAccess';
import { classifyPath, type Reach } from '../workspace/reach';
import { foldersUp, repoRoot } from '../workspace/repo';

/** The project instruction files, in the order one folder's are preferred. */
export const INSTRUCTION_FILES = ['AGENTS.md', 'CLAUDE.md', 'GEMINI.md', '.github/copilot-instructions.md'] as const;
/** What of a project file goes into the system prompt at most; the rest is said by a marker. */
export const INSTRUCTIONS_MAX_CHARS = 16_000;
/** Bytes read of a file at most (enough for the cap in any UTF-8 text). */
const READ_MAX_BYTES = INSTRUCTIONS_MAX_CHARS * 4;

interface Cached {
  mtimeMs: number;
  size: number;
  text: string;
  capped: boolean;
}

/** A regular file only (workspace/fileAccess.ts): a FIFO planted as AGENTS.md is never opened. */
function readCapped(file: string): { text: string; capped: boolean } {
  const { bytes, size } = readRegularFileSync(file, READ_MAX_BYTES);
  const whole = bytes.toString('utf8');
  if (size <= READ_MAX_BYTES && whole.length <= INSTRUCTIONS_MAX_CHARS) return { text: whole, capped: false };
  const cut = whole.slice(0, INSTRUCTIONS_MAX_CHARS);
  return {
    text: `${cut}\n[… cut: the file is ${size} bytes; only its first ${INSTRUCTIONS_MAX_CHARS} characters are included]`,
    capped: true,
  };
}

/**
 * The nearest project instruction file, looked for once per turn (turn/view.ts): a stat per candidate,
 * the text read again only when its modification time or size changed.
 */
export class ProjectInstructionsCache {
  private readonly files = new Map<string, Cached>();

  /**
   * From the working folder up to its repository root (the folder holding `.git`; without one,
   * the working folder alone), never the home folder or above; the first folder holding one of
   * INSTRUCTION_FILES wins. Only a regular file that really lies in those folders is read: a link
   * out of them, into the data folder or a credential place, or a FIFO is as if absent.
   */
  find(folder: string, base: Omit<Reach, 'folder'>): ProjectInstructions | null {
    const repo = repoRoot(folder, base.home);
    const up = foldersUp(folder, base.home);
    const dirs = repo === null ? up.slice(0, 1) : up.slice(0, up.indexOf(repo) + 1);
    // What may be read: files that really are in the folders searched. A link out of them (an
    // AGENTS.md pointing at ~/.claude/.credentials.json) is what read_file would ask for: skipped.
    const top = dirs.at(-1) ?? folder;
    const reach = { ...base, folder: top };
    for (const dir of dirs) {
      for (const name of INSTRUCTION_FILES) {
        const file = path.join(dir, name);
        let info;
        try {
          info = statSync(file, { throwIfNoEntry: false });
        } catch {
          continue; // a link loop, an unreadable folder: as if absent
        }
        if (!info?.isFile()) continue;
        let real: string;
        try {
          const where = classifyPath(file, reach);
          if (where.zone !== 'inside') continue;
          real = where.path;
        } catch {
          continue; // a link loop: as if absent
        }
        let hit = this.files.get(real);
        if (!hit || hit.mtimeMs !== info.mtimeMs || hit.size !== info.size) {
          try {
            hit = { mtimeMs: info.mtimeMs, size: info.size, ...readCapped(real) };
          } catch {
            continue; // unreadable, or no longer a regular file: as if absent
          }
          this.files.set(real, hit);
        }
        return { path: file, name, text: hit.text, capped: hit.capped };
      }
    }
    return null;
  }
}

/**
 * The instructions part of the system prompt, after the base prompt, always in the same order
 * (the project's file, the user's custom instructions, the session's own prompt) and with nothing
 * that changes from turn to turn, so a provider's prompt cache keeps hitting. Null: none.
 */
export function instructionsSection(i: SessionInstructions): string | null {
  const parts: string[] = [];
  if (i.project && i.project.text.trim() !== '')
    parts.push(`# Project instructions (${i.project.path})\n\n${i.project.text.trim()}`);
  if (i.custom.trim() !== '') parts.push(`# The user's instructions\n\n${i.custom.trim()}`);
  if (i.session !== null && i.session.trim() !== '')
    parts.push(`# The user's instructions for this session\n\n${i.session.trim()}`);
  return parts.length > 0 ? parts.join('\n\n') : null;
}
