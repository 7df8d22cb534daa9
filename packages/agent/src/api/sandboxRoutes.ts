import type { AppApi, SandboxStatus } from '@threadline/protocol';
import { requireSession, type ApiContext } from './apiContext';

type SandboxRoutes = Pick<AppApi, 'sandbox.status' | 'sandbox.setNetwork'>;

/** The OS sandbox this machine gives (Settings shows it) and a session's network switch (the header). */
export function sandboxRoutes(ctx: ApiContext): SandboxRoutes {
  const { store } = ctx.deps;
  const status = async (sessionId: string | undefined): Promise<SandboxStatus> => {
    const info = ctx.deps.sandbox ? await ctx.deps.sandbox.info() : null;
    return {
      kind: info?.kind ?? 'none',
      reason: info ? (info.reason ?? null) : 'disabled',
      detail: info?.detail ?? null,
      network: sessionId !== undefined ? store.sessionSandbox.network(sessionId) : null,
      domains: store.settings.get().sandbox.networkDomains,
    };
  };
  return {
    'sandbox.status': async ({ sessionId }) => {
      if (sessionId !== undefined) requireSession(ctx, sessionId);
      return status(sessionId);
    },
    'sandbox.setNetwork': async ({ sessionId, allowed }) => {
      requireSession(ctx, sessionId);
      store.sessionSandbox.setNetwork(sessionId, allowed);
      ctx.sessions.get(sessionId).rowsChanged();
      return status(sessionId);
    },
  };
}
