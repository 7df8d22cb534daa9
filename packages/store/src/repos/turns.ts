// What one turn reads once (the session's small rows, in one read transaction) and what its steps
// store together (a step's messages, its model call, the memory refresh of what they say).
import type { StoredMessage } from '@threadline/protocol';
import {
  StoreError,
  type McpServersRepo,
  type RulesRepo,
  type MemoryRepo,
  type ProvidersRepo,
  type SessionSandboxRepo,
  type SessionsRepo,
  type SettingsRepo,
  type TurnRows,
  type TurnsRepo,
  type UsageRepo,
  type MessagesRepo,
} from '../types';
import type { RepoContext } from './context';

export interface TurnsRepoParts {
  sessions: SessionsRepo;
  messages: MessagesRepo;
  settings: SettingsRepo;
  providers: ProvidersRepo;
  rules: RulesRepo;
  sessionSandbox: SessionSandboxRepo;
  mcpServers: McpServersRepo;
  usage: UsageRepo;
  memory: MemoryRepo;
}

export function createTurnsRepo(ctx: RepoContext, parts: TurnsRepoParts): TurnsRepo {
  const { db } = ctx;
  const promptGet = db.prepare<[string], { system_prompt: string | null }>(
    'SELECT system_prompt FROM sessions WHERE id = ?',
  );

  const rows = (sessionId: string): TurnRows['rows'] => {
    const prompt = promptGet.get(sessionId);
    if (!prompt) throw new StoreError('not_found', `Session ${sessionId} does not exist.`);
    return {
      rules: parts.rules.forSession(sessionId),
      systemPrompt: prompt.system_prompt,
      sandboxNetwork: parts.sessionSandbox.network(sessionId),
    };
  };

  const loadTx = db.transaction((sessionId: string, secret: boolean): TurnRows | null => {
    const session = parts.sessions.get(sessionId);
    if (!session) return null;
    let settings: TurnRows['settings'];
    try {
      settings = parts.settings.get();
    } catch {
      settings = null;
    }
    const own = session.profileId ? parts.providers.get(session.profileId) : null;
    const profile = own ?? parts.providers.active();
    return {
      session,
      settings,
      profile,
      ownProfile: own !== null,
      secret: secret && profile ? parts.providers.secret(profile.id) : null,
      mcpServers: parts.mcpServers.list(),
      rows: rows(sessionId),
    };
  });

  const commitTx = db.transaction((sessionId: string, step: Parameters<TurnsRepo['commit']>[1]) => {
    const messages: StoredMessage[] =
      step.messages && step.messages.length > 0
        ? parts.messages.append(
            sessionId,
            step.messages,
            step.parentId === undefined ? {} : { parentId: step.parentId },
          )
        : [];
    const call = step.call ? parts.usage.record(step.call) : null;
    const memory = step.memory ? parts.memory.refresh(sessionId, step.memory.refresh, step.memory.branch) : null;
    const notice = step.memory?.notice ? (parts.messages.append(sessionId, [step.memory.notice])[0] ?? null) : null;
    const session = parts.sessions.get(sessionId);
    if (!session) throw new StoreError('not_found', `Session ${sessionId} does not exist.`);
    return { messages, call, memory, notice, session };
  });

  return {
    load: (sessionId, opts) => loadTx.deferred(sessionId, opts?.secret ?? false),
    rows: (sessionId) => rows(sessionId),
    commit: (sessionId, step) => commitTx.immediate(sessionId, step),
  };
}
