import { AppError, type AppApi, type Settings } from '@threadline/protocol';
import type { ProjectMemory, ProjectPlace } from '../projectMemory/service';
import { exportFilename, exportJson, exportMarkdown, importedProposals, parseExport } from '../projectMemory/transfer';
import { sessionFolder } from '../workspace/sessionFolder';
import { currentSettings, requireSession, type ApiContext } from './apiContext';

type ProjectRoutes = Pick<
  AppApi,
  | 'project.get'
  | 'project.decide'
  | 'project.facts.upsert'
  | 'project.facts.setStatus'
  | 'project.export'
  | 'project.import'
>;

/** The project of a session's folder (found again, by realpath), or null when the folder cannot be used yet. */
async function placeOf(ctx: ApiContext, sessionId: string, settings: Settings): Promise<ProjectPlace | null> {
  const session = requireSession(ctx, sessionId);
  let folder: string;
  try {
    folder = sessionFolder(ctx.deps.workspace, settings, session);
  } catch {
    return null;
  }
  return ctx.deps.projects.placeOf(folder);
}

async function requirePlace(ctx: ApiContext, sessionId: string): Promise<ProjectPlace> {
  const place = await placeOf(ctx, sessionId, currentSettings(ctx));
  if (!place)
    throw new AppError(
      'conflict',
      "The session's working folder does not exist yet; its project memory starts with it.",
    );
  return place;
}

/**
 * When a session starts (created, or its folder changed): its project's facts are checked, off the
 * request (the answer does not wait for the disk).
 */
export function checkAtSessionStart(projects: ProjectMemory, folder: string, settings: Settings): void {
  if (!settings.projectMemory.enabled) return;
  void projects
    .placeOf(folder)
    .then((place) => (place ? projects.check(place.project, settings) : undefined))
    .catch(() => undefined);
}

/** Project memory: a session's project and its facts, the inbox's decisions, export and import. */
export function projectRoutes(ctx: ApiContext): ProjectRoutes {
  const projects = ctx.deps.projects;
  return {
    'project.get': async ({ sessionId }) => {
      const settings = currentSettings(ctx);
      const place = await placeOf(ctx, sessionId, settings);
      const enabled = settings.projectMemory.enabled;
      if (!place) return { project: null, facts: [], enabled };
      // What the panel shows is checked first: stale facts are marked before the user reads them.
      await projects.check(place.project, settings);
      return { project: place.project, facts: projects.facts(place.project), enabled };
    },
    'project.decide': async ({ ids, decision }) => projects.decide(ids, decision),
    'project.facts.upsert': async ({ sessionId, ...fact }) => {
      const place = await requirePlace(ctx, sessionId);
      return projects.upsert(place.project, fact);
    },
    'project.facts.setStatus': async ({ id, status, pinned }) => projects.setStatus(id, status, pinned),
    'project.export': async ({ sessionId, format }) => {
      const { project } = await requirePlace(ctx, sessionId);
      const facts = projects.facts(project);
      const at = ctx.deps.now();
      return format === 'json'
        ? { filename: exportFilename(project, at, 'json'), text: exportJson(project, facts, at) }
        : { filename: exportFilename(project, at, 'md'), text: exportMarkdown(project, facts, at) };
    },
    'project.import': async ({ sessionId, text }) => {
      const { project } = await requirePlace(ctx, sessionId);
      const facts = parseExport(text);
      return projects.importFacts(project, importedProposals(facts, ctx.deps.now()));
    },
  };
}
