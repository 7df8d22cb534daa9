import { homedir } from 'node:os';
import {
  pendingToolCall,
  type GateRewrite,
  type Rule,
  type RuleNote,
  type RuleOptions,
  type ToolAccess,
  type ToolCall,
  type ToolDiff,
  type ToolSandbox,
} from '@threadline/protocol';
import type { SandboxRun } from '../sandbox/service';
import type { ToolDefinition } from '../tools/types';
import { within, type PathClass } from '../workspace/reach';
import { resolveReal } from '../workspace/resolve';
import { readCommand } from '../rules/command';
import type { CallFacts, DecideContext } from '../rules/decide';
import { rulesInForce } from '../rules/match';
import type { Turn } from './turn';

/** What the tool step knows of a call before it decides: its command as read, its path, where it would run. */
export function callFacts(
  tool: ToolDefinition,
  args: unknown,
  access: PathClass | null,
  folder: string,
  platform: NodeJS.Platform,
): CallFacts {
  const facts: CallFacts = {
    tool: {
      name: tool.name,
      readOnly: tool.readOnly,
      ...(tool.autoApprove !== undefined ? { autoApprove: tool.autoApprove } : {}),
      ...(tool.mcp ? { mcp: tool.mcp } : {}),
      sandboxable: tool.sandbox !== undefined,
    },
    access,
    leave: tool.sandbox?.outside(args) ?? false,
  };
  if (tool.command) {
    const { line, cwd } = tool.command(args);
    facts.command = readCommand(line, platform);
    if (cwd !== undefined) {
      let real: string | null = null;
      try {
        real = resolveReal(cwd, folder, homedir());
      } catch {
        real = null; // a link loop: not known to be inside
      }
      facts.cwdOutside = real === null || !within(real, folder, platform);
    }
  }
  return facts;
}

/** The rules in force for the session in its folder, the policy and whether a sandbox is here now. */
export async function decideContext(turn: Turn, folder: string): Promise<DecideContext> {
  const service = turn.deps.sandbox;
  const info = service ? await service.info() : null;
  const platform = turn.deps.workspace.platform;
  return {
    policy: turn.settings.approvalPolicy,
    // A helper follows the rules of the session it works for (its own session has none).
    rules: rulesInForce(turn.storedRules(), turn.helper?.parentSessionId ?? turn.sessionId, folder, platform),
    sandbox:
      info && info.kind !== 'none' ? { available: true } : { available: false, reason: info?.reason ?? 'disabled' },
    folder,
    platform,
  };
}

/** A rule as its call's card names it. */
export function ruleNote(decision: Rule['decision'], rules: readonly Rule[]): RuleNote {
  return {
    decision,
    rules: rules.map((r) => ({ id: r.id, match: r.match, scope: r.scope, reason: r.reason })),
  };
}

/** Counts the rules' decisions (Settings shows hits); never lets the store break the call. */
export function recordHits(turn: Turn, rules: readonly Rule[]): void {
  if (rules.length === 0) return;
  try {
    turn.deps.store.rules.hit(rules.map((r) => r.id));
  } catch {
    // a closed store: the call is decided all the same
  }
}

/** What a call's card shows besides the call: the path as classified (shown where it is why it asks). */
export interface CardParts {
  gate?: GateRewrite | null;
  access?: PathClass | null;
  sandbox?: ToolSandbox | null;
  diff?: ToolDiff | null;
  rules?: RuleOptions | null;
  rule?: RuleNote | null;
}

/** A call of the step in flight: kept for chat.state and pushed to the renderers. */
export function announce(
  turn: Turn,
  messageId: string,
  call: ToolCall,
  needsApproval: boolean,
  extra: CardParts = {},
): void {
  const { gate, access, sandbox, diff, rules, rule } = extra;
  // The card shows the resolved path only where it is the reason to ask.
  const shown: ToolAccess | undefined =
    access && access.zone !== 'inside' && access.zone !== 'data'
      ? { path: access.path, zone: access.zone, ...(access.reason ? { reason: access.reason } : {}) }
      : undefined;
  const pending = pendingToolCall({
    toolCall: call,
    messageId,
    needsApproval,
    access: shown,
    gate,
    sandbox,
    diff,
    rules,
    rule,
  });
  turn.state.requested(pending);
  const { status: _status, ...requested } = pending;
  turn.deps.emit({ type: 'tool.requested', sessionId: turn.sessionId, ...requested });
}

/**
 * What a call that runs in the sandbox gets: the session's network (its named domains), the
 * folders the user lets commands read, and the login PATH (its folders under the home are readable).
 */
export async function sandboxRun(turn: Turn): Promise<SandboxRun | null> {
  const service = turn.deps.sandbox;
  if (!service) return null;
  const login = turn.deps.process.loginShell ? await turn.deps.process.loginEnv() : null;
  return service.run(turn.sessionId, {
    domains: turn.sandboxNetwork(),
    homeFolders: turn.settings.sandbox.homeFolders,
    ...(login?.PATH !== undefined ? { loginPath: login.PATH } : {}),
  });
}
