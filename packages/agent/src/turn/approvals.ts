import { homedir } from 'node:os';
import { statSync } from 'node:fs';
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
import { decide, type CallFacts, type DecideContext, type Decision } from '../rules/decide';
import { rulesInForce } from '../rules/match';
import { ruleOptions } from '../rules/options';
import type { Turn } from './turn';
import type { ApprovalDecision } from '../session/session';
import { readOnly, readOnlyRefusal } from './readOnlyCommands';

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
function recordHits(turn: Turn, rules: readonly Rule[]): void {
  if (rules.length === 0) return;
  try {
    turn.deps.store.rules.hit(rules.map((r) => r.id));
  } catch {
    // a closed store: the call is decided all the same
  }
}

/** A call of the step in flight: kept for chat.state and pushed to the renderers. */
export function announce(
  turn: Turn,
  messageId: string,
  call: ToolCall,
  needsApproval: boolean,
  extra: {
    gate?: GateRewrite | null;
    access?: PathClass | null;
    sandbox?: ToolSandbox | null;
    diff?: ToolDiff | null;
    rules?: RuleOptions | null;
    rule?: RuleNote | null;
  } = {},
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
  turn.runtime.requested(pending);
  const { status: _status, ...requested } = pending;
  turn.deps.emit({ type: 'tool.requested', sessionId: turn.sessionId, ...requested });
}

/**
 * The change a file tool would make, for the approval card; never for a credential file (its
 * old text is not read to be shown) and never an error (a call the tool will refuse shows none).
 */
async function previewDiff(
  tool: ToolDefinition,
  args: unknown,
  access: PathClass | null,
  folder: string,
): Promise<ToolDiff | null> {
  if (!tool.preview || access?.zone === 'credential' || access?.zone === 'data') return null;
  try {
    const resolved = access && tool.path ? tool.path.set(args, access.path) : args;
    return await tool.preview(resolved, { cwd: folder });
  } catch {
    return null;
  }
}

function isFolder(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

export interface Approval {
  decision: ApprovalDecision;
  /** The user was asked (the call's run time leaves the wait out). */
  waited: boolean;
  sandbox: SandboxRun | null;
  /** The rule that made it run or refused it, for its result (meta.rule) and the model. */
  rule: RuleNote | null;
  /** Refused before any rule or card: an explore helper's command that cannot be confined (the model reads why). */
  refused?: string;
}

/**
 * tool calls → … → approval: the call's facts, the one decision (rules/decide.ts), then the card
 * when it asks. The call as the model made it, with the gate's rewrite beside it (the card shows both).
 */
export async function approve(
  turn: Turn,
  messageId: string,
  call: ToolCall,
  tool: ToolDefinition,
  gated: { args: unknown; rewritten: GateRewrite | null },
  access: PathClass | null,
  folder: string,
): Promise<Approval> {
  const platform = turn.deps.workspace.platform;
  const gate = gated.rewritten;
  // An explore helper's command runs only in a read-only sandbox, whatever the rules and the card
  // say (turn/readOnlyCommands.ts); the rules still decide whether it runs, asks or is denied.
  const confined = turn.helper?.readOnlyCommands === true && tool.sandbox !== undefined;
  if (confined) {
    const refused = await readOnlyRefusal(turn, tool, gated.args);
    if (refused !== null) {
      announce(turn, messageId, call, false, { gate, access });
      return { decision: 'deny', waited: false, sandbox: null, rule: null, refused };
    }
  }
  const facts = callFacts(tool, gated.args, access, folder, platform);
  const ctx = await decideContext(turn, folder);
  const decision: Decision = decide(facts, ctx);
  if (decision.action === 'run') {
    recordHits(turn, decision.by);
    announce(turn, messageId, call, false, { gate, access });
    // An explore helper's command (confined) runs where a sandbox exists: readOnlyRefusal said so.
    const found = confined || decision.sandboxed ? await sandboxRun(turn) : null;
    const run = confined && found ? readOnly(found) : found;
    // What the command leaves that runs code later is held through the turn (sandbox/turnLeftovers.ts).
    const sandbox = run && turn.leftovers ? { ...run, leftovers: turn.leftovers } : run;
    const rule = decision.by.length > 0 ? ruleNote('allow', decision.by) : null;
    return { decision: 'approve', waited: false, sandbox, rule };
  }
  if (decision.action === 'deny') {
    const by = decision.by ? [decision.by] : [];
    recordHits(turn, by);
    announce(turn, messageId, call, false, { gate, access });
    return { decision: 'deny', waited: false, sandbox: null, rule: by.length > 0 ? ruleNote('deny', by) : null };
  }
  // Worked out only when the user is asked: a call that runs on its own shows its diff once done.
  const diff = await previewDiff(tool, gated.args, access, folder);
  const rules = ruleOptions(facts, ctx, decision, access ? isFolder(access.path) : false);
  const rule = decision.by ? ruleNote(decision.by.decision, [decision.by]) : null;
  if (decision.by) recordHits(turn, [decision.by]);
  announce(turn, messageId, call, true, { gate, access, sandbox: decision.why, diff, rules, rule });
  // Approved on the card: it runs as the card said, outside the sandbox (a confined one in its own).
  const answer = await turn.runtime.awaitApproval(call.id, turn.signal);
  const confinedRun = confined ? await sandboxRun(turn) : null;
  return { decision: answer, waited: true, sandbox: confinedRun && readOnly(confinedRun), rule: null };
}

/**
 * What a call that runs in the sandbox gets: the session's network (its named domains), the
 * folders the user lets commands read, and the login PATH (its folders under the home are readable).
 */
async function sandboxRun(turn: Turn): Promise<SandboxRun | null> {
  const service = turn.deps.sandbox;
  if (!service) return null;
  const login = turn.deps.process.loginShell ? await turn.deps.process.loginEnv() : null;
  return service.run(turn.sessionId, {
    domains: turn.sandboxNetwork(),
    homeFolders: turn.settings.sandbox.homeFolders,
    ...(login?.PATH !== undefined ? { loginPath: login.PATH } : {}),
  });
}
