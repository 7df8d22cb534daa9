import { existsSync, mkdirSync } from 'node:fs';
import { AppError, type AppApi, type SessionSummary } from '@threadline/protocol';
import { checkWorkingFolder } from '../workspace/reach';
import { defaultFolder, presentSession, reachBase } from '../workspace/sessionFolder';
import { currentSettings, emitSession, requireSession, type ApiContext } from './apiContext';
import { notFound } from './errors';
import { exportSession } from './exportSession';
import { activeBranch } from './branchRoutes';
import { checkAtSessionStart } from './projectRoutes';

type SessionRoutes = Pick<
  AppApi,
  | 'sessions.list'
  | 'sessions.create'
  | 'sessions.rename'
  | 'sessions.delete'
  | 'sessions.export'
  | 'sessions.update'
  | 'messages.list'
  | 'messages.fullOutput'
  | 'search.messages'
>;

export function sessionRoutes(ctx: ApiContext): SessionRoutes {
  const { store } = ctx.deps;
  const present = (s: SessionSummary): SessionSummary => presentSession(ctx.deps.workspace, currentSettings(ctx), s);
  return {
    'sessions.list': async () => {
      const settings = currentSettings(ctx);
      return store.sessions.list().map((s) => presentSession(ctx.deps.workspace, settings, s));
    },
    'sessions.create': async ({ title, workingFolder, createFolder }) => {
      // Resolved and checked now, stored with the session: a later change of the default moves nothing.
      const folder =
        workingFolder !== undefined
          ? chosenFolder(checkWorkingFolder(workingFolder, reachBase(ctx.deps.workspace)), createFolder)
          : defaultFolder(ctx.deps.workspace, currentSettings(ctx));
      const session = store.sessions.create(title, folder);
      emitSession(ctx, session.id);
      checkAtSessionStart(ctx.deps.projects, folder, currentSettings(ctx));
      return session;
    },
    'sessions.rename': async ({ id, title }) => {
      requireSession(ctx, id);
      const session = store.sessions.rename(id, title);
      emitSession(ctx, id);
      return present(session);
    },
    'sessions.update': async ({ id, workingFolder, createFolder }) => {
      requireSession(ctx, id);
      const session = store.sessions.setWorkingFolder(
        id,
        chosenFolder(checkWorkingFolder(workingFolder, reachBase(ctx.deps.workspace)), createFolder),
      );
      emitSession(ctx, id);
      return session;
    },
    'sessions.delete': async ({ id }) => {
      requireSession(ctx, id);
      const rt = ctx.sessions.get(id);
      // A running turn is stopped first, so it never writes into a deleted session.
      rt.stop();
      if (rt.running) await rt.running;
      ctx.deps.sessions.deleteSession(id);
      // No row any more, and no work: `session: null`, not busy.
      emitSession(ctx, id);
      ctx.sessions.delete(id);
      return { deleted: true };
    },
    'sessions.export': async ({ id, format, branches, language }) => {
      const session = store.sessions.get(id);
      if (!session) throw notFound('session', id);
      const lang = language ?? currentSettings(ctx).language ?? 'en';
      const image = (ref: string) => {
        const att = store.attachments.get(ref);
        const bytes = att?.kind === 'image' ? store.attachments.bytes(ref) : null;
        return att && bytes ? { mime: att.mime, bytes } : null;
      };
      if (branches === 'all')
        return exportSession(session, store.messages.listAll(id), store.compactions.listAll(id), format, {
          lang,
          branches,
          image,
        });
      return exportSession(session, store.messages.list(id), store.compactions.list(id), format, { lang, image });
    },
    // Without full outputs (up to 1 MiB each): a long session would send them all on every load.
    // `meta.truncated` marks the messages that have one; messages.fullOutput fetches it.
    'messages.list': async ({ sessionId }) => {
      requireSession(ctx, sessionId);
      return activeBranch(ctx.deps, sessionId);
    },
    'search.messages': async ({ query, limit }) => store.messages.search(query, limit ? { limit } : {}),
    'messages.fullOutput': async ({ id }) => {
      const m = store.messages.get(id);
      if (!m) throw notFound('message', id);
      return { text: m.fullOutput ?? null };
    },
  };
}

/**
 * A folder the user typed must exist, or be created because they said so: a typo is not silently
 * turned into a new folder at the first command (the default ~/Threadline is created on first use).
 */
function chosenFolder(folder: string, create: boolean | undefined): string {
  if (existsSync(folder)) return folder;
  if (!create) throw new AppError('not_found', `The folder ${folder} does not exist.`);
  mkdirSync(folder, { recursive: true });
  return folder;
}
