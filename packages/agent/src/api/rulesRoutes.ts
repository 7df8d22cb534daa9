import picomatch from 'picomatch';
import {
  AppError,
  type AppApi,
  type PendingToolCall,
  type Remember,
  type Rule,
  type RuleBlock,
  type RuleDraft,
  type RuleMatch,
  type RuleScope,
} from '@threadline/protocol';
import { rulesInForce } from '../rules/match';
import { BUILTIN_TOOLS } from '../tools/registry';
import { resolveReal } from '../workspace/resolve';
import { sessionFolder } from '../workspace/sessionFolder';
import { currentSettings, requireSession, type ApiContext } from './apiContext';

type RulesRoutes = Pick<AppApi, 'rules.list' | 'rules.save' | 'rules.remove'>;

/** A rule changed: every session's running turn reads its rules again at its next call; the renderers are told. */
function rulesChanged(ctx: ApiContext): void {
  for (const rt of ctx.sessions.all()) rt.rowsChanged();
  ctx.deps.emit({ type: 'rules.changed' });
}

const BLOCKED: Record<RuleBlock, string> = {
  protected: 'a write to a protected path asks every time',
  credential: 'a place where credentials are kept asks every time',
  leave_sandbox: 'running a command outside the sandbox is approved one command at a time',
  ask_rule: 'a rule says to ask for it',
  unreadable: 'Threadline cannot read this command exactly',
  redirect: 'the command writes to a file or sets variables',
};

/**
 * A rule as it is stored: folders resolved (symlinks followed, so a rule means the folder they
 * lead to, as calls are compared), a glob checked, and a match only of the kind its tool has (a
 * command rule for a tool that runs commands, a path rule for a file tool).
 */
function normalize(ctx: ApiContext, draft: Omit<RuleDraft, 'id'>): Omit<RuleDraft, 'id'> {
  const { homeDir } = ctx.deps.workspace;
  const real = (p: string): string => resolveReal(p, '/', homeDir);
  let match: RuleMatch = draft.match;
  const builtin = match.kind === 'mcp' ? undefined : BUILTIN_TOOLS.find((t) => t.name === match.tool);
  if (match.kind === 'command' && builtin && !builtin.command)
    throw new AppError('invalid_input', `${match.tool} runs no commands: a command rule cannot name it.`);
  if (match.kind === 'path' && builtin && !builtin.path)
    throw new AppError('invalid_input', `${match.tool} takes no path: a path rule cannot name it.`);
  if (match.kind === 'tool' && builtin && (builtin.command || builtin.path))
    throw new AppError('invalid_input', `A rule for ${match.tool} names its commands or paths, not the whole tool.`);
  if (match.kind === 'path' && match.scope.kind === 'folder')
    match = { ...match, scope: { kind: 'folder', path: real(match.scope.path) } };
  if (match.kind === 'path' && match.scope.kind === 'glob') {
    try {
      picomatch(match.scope.pattern);
    } catch {
      throw new AppError('invalid_input', `The pattern ${match.scope.pattern} is not a valid glob.`);
    }
  }
  const scope: RuleScope =
    draft.scope.kind === 'folder' ? { kind: 'folder', folder: real(draft.scope.folder) } : draft.scope;
  if (scope.kind === 'session') requireSession(ctx, scope.sessionId);
  return { ...draft, match, scope };
}

/** Whether a match is about the call it was made from (the same tool, or the same MCP server). */
function aboutCall(m: RuleMatch, pending: PendingToolCall): boolean {
  const options = pending.rules?.parts.flatMap((p) => p.options) ?? [];
  if (m.kind === 'mcp') return options.some((o) => o.kind === 'mcp' && o.server === m.server);
  return m.tool === pending.toolCall.function.name && options.some((o) => o.kind === m.kind);
}

/**
 * "Allow … / Deny … in this session, folder, everywhere" on a card: the rules made from the call,
 * with the card's answer as their decision. Refused (the call still waits) when the card offered
 * no rule, when an allow would lift a floor, or when a match is not about this call.
 */
export function rememberRules(
  ctx: ApiContext,
  sessionId: string,
  pending: PendingToolCall | undefined,
  remember: Remember,
  decision: 'approve' | 'deny',
  reason: string | undefined,
): Rule[] {
  const options = pending?.rules;
  if (!pending || !options) throw new AppError('invalid_input', 'This call offers no rule to remember.');
  if (decision === 'approve' && options.blocked)
    throw new AppError('invalid_input', `No rule can allow this call: ${BLOCKED[options.blocked]}.`);
  for (const m of remember.matches)
    if (!aboutCall(m, pending))
      throw new AppError('invalid_input', 'A rule remembered on a card must be about the call on that card.');
  const session = requireSession(ctx, sessionId);
  const scope: RuleScope =
    remember.scope === 'session'
      ? { kind: 'session', sessionId }
      : remember.scope === 'folder'
        ? { kind: 'folder', folder: options.folder }
        : { kind: 'everywhere' };
  const origin = { kind: 'card' as const, sessionId, sessionTitle: session.title, toolCallId: pending.toolCall.id };
  const made = ctx.deps.store.transaction(() =>
    remember.matches.map((match) =>
      ctx.deps.store.rules.add(
        normalize(ctx, {
          decision: decision === 'approve' ? 'allow' : 'deny',
          match,
          scope,
          reason: decision === 'deny' ? (reason ?? null) : null,
        }),
        origin,
      ),
    ),
  );
  rulesChanged(ctx);
  return made;
}

/** rules.list, rules.save, rules.remove (docs/api.md "Rules"). */
export function rulesRoutes(ctx: ApiContext): RulesRoutes {
  const { store, workspace } = ctx.deps;
  return {
    'rules.list': async ({ sessionId }) => {
      if (sessionId === undefined) return store.rules.list();
      const session = requireSession(ctx, sessionId);
      let folder: string;
      try {
        folder = sessionFolder(workspace, currentSettings(ctx), session);
      } catch {
        // No usable folder: only its own rules and everywhere ones can hold.
        return store.rules.forSession(sessionId).filter((r) => r.scope.kind !== 'folder');
      }
      return rulesInForce(store.rules.forSession(sessionId), sessionId, folder, workspace.platform);
    },
    'rules.save': async ({ id, ...draft }) => {
      const rule = normalize(ctx, draft);
      const saved = id === undefined ? store.rules.add(rule, { kind: 'settings' }) : store.rules.update(id, rule);
      rulesChanged(ctx);
      return saved;
    },
    'rules.remove': async ({ id }) => {
      const removed = store.rules.remove(id);
      rulesChanged(ctx);
      return { removed };
    },
  };
}
