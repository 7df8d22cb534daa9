import { mkdirSync } from 'node:fs';
import type { SessionSummary, Settings } from '@threadline/protocol';
import type { Workspace } from './types';
import { DEFAULT_FOLDER, checkWorkingFolder, type Reach } from './reach';

export function reachBase(ws: Workspace): Omit<Reach, 'folder'> {
  return { home: ws.homeDir, dataDir: ws.dataDir, dbFile: ws.dbFile, platform: ws.platform };
}

/** The folder a new session gets: Settings → agent.defaultWorkingFolder, else ~/Threadline. */
export function defaultFolder(ws: Workspace, settings: Settings): string {
  return checkWorkingFolder(settings.agent.defaultWorkingFolder ?? DEFAULT_FOLDER, reachBase(ws));
}

/** A session's folder; one from before working folders existed ('') gets today's default. */
export function sessionFolder(ws: Workspace, settings: Settings, session: SessionSummary): string {
  return session.workingFolder !== '' ? session.workingFolder : defaultFolder(ws, settings);
}

/** The summary the renderers see: always with the folder the agent will work in. */
export function presentSession(ws: Workspace, settings: Settings, s: SessionSummary): SessionSummary {
  if (s.workingFolder !== '') return s;
  try {
    return { ...s, workingFolder: defaultFolder(ws, settings) };
  } catch {
    return s; // a default that no longer passes the checks: the next tool call says why
  }
}

/** Created on first use (the default ~/Threadline too), never before a tool needs it. */
export function ensureFolder(folder: string): void {
  mkdirSync(folder, { recursive: true });
}
