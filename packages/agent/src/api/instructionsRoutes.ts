import type { AppApi } from '@threadline/protocol';
import { instructionsOf } from '../turn/view';
import { requireSession, sessionWork, type ApiContext } from './apiContext';

type InstructionsRoutes = Pick<AppApi, 'instructions.get' | 'instructions.setSession'>;

/** The instructions in a session's system prompt: what is in force, and the session's own prompt. */
export function instructionsRoutes(ctx: ApiContext): InstructionsRoutes {
  return {
    'instructions.get': async ({ sessionId }) => {
      requireSession(ctx, sessionId);
      return instructionsOf(sessionWork(ctx, sessionId, new AbortController().signal));
    },
    'instructions.setSession': async ({ sessionId, systemPrompt }) => {
      requireSession(ctx, sessionId);
      // Read by the next model call (a running turn's next step too): nothing else to update.
      ctx.deps.store.sessions.setSystemPrompt(sessionId, systemPrompt);
      ctx.sessions.get(sessionId).rowsChanged();
      return instructionsOf(sessionWork(ctx, sessionId, new AbortController().signal));
    },
  };
}
