import { closeSync, openSync, readSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ProjectInstructions, SessionInstructions, Settings } from '@threadline/protocol';
import type { Workspace } from '../workspace/types';
import { classifyPath } from '../workspace/reach';
import { foldersUp, repoRoot } from '../workspace/repo';
import { reachBase, sessionFolder } from '../workspace/sessionFolder';
import type { Store } from '@threadline/store';

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

function readCapped(file: string, size: number): { text: string; capped: boolean } {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(Math.min(size, READ_MAX_BYTES));
    const n = readSync(fd, buf, 0, buf.length, 0);
    const whole = buf.subarray(0, n).toString('utf8');
    if (size <= READ_MAX_BYTES && whole.length <= INSTRUCTIONS_MAX_CHARS) return { text: whole, capped: false };
    const cut = whole.slice(0, INSTRUCTIONS_MAX_CHARS);
    return {
      text: `${cut}\n[… cut: the file is ${size} bytes; only its first ${INSTRUCTIONS_MAX_CHARS} characters are included]`,
      capped: true,
    };
  } finally {
    closeSync(fd);
  }
}

/**
 * The nearest project instruction file, looked for at every model call: a stat per candidate,
 * the text read again only when its modification time or size changed.
 */
export class ProjectInstructionsCache {
  private readonly files = new Map<string, Cached>();

  /**
   * From the working folder up to its repository root (the folder holding `.git`; without one,
   * the working folder alone), never the home folder or above; the first folder holding one of
   * INSTRUCTION_FILES wins. A file in the data folder or a credential place (a link to one) is
   * never read.
   */
  find(folder: string, ws: Workspace): ProjectInstructions | null {
    const repo = repoRoot(folder, ws.homeDir);
    const up = foldersUp(folder, ws.homeDir);
    const dirs = repo === null ? up.slice(0, 1) : up.slice(0, up.indexOf(repo) + 1);
    const reach = { ...reachBase(ws), folder };
    for (const dir of dirs) {
      for (const name of INSTRUCTION_FILES) {
        const file = path.join(dir, name);
        const info = statSync(file, { throwIfNoEntry: false });
        if (!info?.isFile()) continue;
        const zone = classifyPath(file, reach).zone;
        if (zone === 'data' || zone === 'credential') continue;
        let hit = this.files.get(file);
        if (!hit || hit.mtimeMs !== info.mtimeMs || hit.size !== info.size) {
          try {
            hit = { mtimeMs: info.mtimeMs, size: info.size, ...readCapped(file, info.size) };
          } catch {
            continue; // unreadable: as if absent
          }
          this.files.set(file, hit);
        }
        return { path: file, name, text: hit.text, capped: hit.capped };
      }
    }
    return null;
  }
}

/** Everything in force for a session; never throws (an unusable folder has no project file). */
export function sessionInstructions(
  deps: { store: Store; workspace: Workspace; instructions: ProjectInstructionsCache },
  sessionId: string,
  settings: Settings,
): SessionInstructions {
  const session = deps.store.sessions.get(sessionId);
  let project: ProjectInstructions | null = null;
  let own: string | null = null;
  if (session) {
    try {
      project = deps.instructions.find(sessionFolder(deps.workspace, settings, session), deps.workspace);
    } catch {
      project = null;
    }
    own = deps.store.sessions.systemPrompt(sessionId);
  }
  return { project, custom: settings.agent.customInstructions, session: own };
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
