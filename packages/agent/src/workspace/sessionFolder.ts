import { mkdirSync } from 'node:fs';
import type { SessionSummary, Settings } from '@threadline/protocol';
import type { TurnDeps } from '../turn/deps';
import { DEFAULT_FOLDER, checkWorkingFolder, type Reach } from './reach';

export function reachBase(deps: TurnDeps): Omit<Reach, 'folder'> {
  return { home: deps.homeDir, dataDir: deps.dataDir, dbFile: deps.dbFile, platform: deps.platform };
}

/** The folder a new session gets: Settings → agent.defaultWorkingFolder, else ~/Threadline. */
export function defaultFolder(deps: TurnDeps, settings: Settings): string {
  return checkWorkingFolder(settings.agent.defaultWorkingFolder ?? DEFAULT_FOLDER, reachBase(deps));
}

/** A session's folder; one from before working folders existed ('') gets today's default. */
export function sessionFolder(deps: TurnDeps, settings: Settings, session: SessionSummary): string {
  return session.workingFolder !== '' ? session.workingFolder : defaultFolder(deps, settings);
}

/** The summary the renderers see: always with the folder the agent will work in. */
export function presentSession(deps: TurnDeps, settings: Settings, s: SessionSummary): SessionSummary {
  if (s.workingFolder !== '') return s;
  try {
    return { ...s, workingFolder: defaultFolder(deps, settings) };
  } catch {
    return s; // a default that no longer passes the checks: the next tool call says why
  }
}

/** Created on first use (the default ~/Threadline too), never before a tool needs it. */
export function ensureFolder(folder: string): void {
  mkdirSync(folder, { recursive: true });
}
