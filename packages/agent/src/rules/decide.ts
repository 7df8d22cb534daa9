import type { ApprovalPolicy, NoSandboxReason, Rule, RuleBlock, RuleMatch, ToolSandbox } from '@threadline/protocol';
import type { PathClass } from '../workspace/reach';
import type { ReadCommand } from './command';
import { allowsPart, mayMatchCommand, scopeHolds, type Verdict } from './match';

/**
 * What `decide` needs to know of a tool call, worked out by its caller (the tool step) before:
 * nothing here reads a file or the store.
 */
export interface CallFacts {
  tool: {
    name: string;
    readOnly: boolean;
    /** The user's standing choice for an MCP server or tool. */
    autoApprove?: boolean;
    /** An MCP tool: its server's and its own name. */
    mcp?: { server: string; tool: string };
    /** It can run in the OS sandbox (shell). */
    sandboxable: boolean;
  };
  /** A tool that runs a command line: the line as read (rules/command.ts). */
  command?: ReadCommand;
  /** The command would run in a folder outside the working folder (`cwd`). */
  cwdOutside?: boolean;
  /** The model asked to run it outside the sandbox. */
  leave?: boolean;
  /** A file tool's path, resolved and classified (workspace/reach.ts); never the data folder here. */
  access?: PathClass | null;
}

export interface DecideContext {
  /** Settings' approval policy for tools that change things (default `sandboxed`). */
  policy: ApprovalPolicy;
  /** The rules in force for the session (rulesInForce). */
  rules: readonly Rule[];
  /** Whether this machine has an OS sandbox now, and why not. */
  sandbox: { available: true } | { available: false; reason: NoSandboxReason };
  /** The session's working folder, resolved. */
  folder: string;
  platform: NodeJS.Platform;
}

export type Decision =
  /** It runs: in the OS sandbox or not; `by`: the allow rules that made it run (none: the policy). */
  | { action: 'run'; sandboxed: boolean; by: Rule[] }
  /**
   * The user is asked. `why`: the sandbox's part (it would run outside it); `by`: the rule that
   * asks (an ask rule, or a deny rule that may match); `block`: why no rule may allow it.
   */
  | { action: 'ask'; why: ToolSandbox | null; by: Rule | null; block: RuleBlock | null }
  /** Refused without asking: by a deny rule (its reason goes to the model), or by the policy. */
  | { action: 'deny'; by: Rule | null };

/** Whether a rule is about this tool at all. */
export function concerns(m: RuleMatch, tool: CallFacts['tool']): boolean {
  if (m.kind === 'mcp')
    return tool.mcp !== undefined && tool.mcp.server === m.server && (m.tool === null || m.tool === tool.mcp.tool);
  return m.tool === tool.name;
}

/** Where a command would run now: in the sandbox only under `sandboxed`, with one here, and not asked out of it. */
function runsInSandbox(facts: CallFacts, ctx: DecideContext): boolean {
  return facts.tool.sandboxable && ctx.policy === 'sandboxed' && ctx.sandbox.available && facts.leave !== true;
}

/** A deny or ask rule's verdict on the call: for commands `maybe` when the call could hide the match. */
function verdict(r: Rule, facts: CallFacts, ctx: DecideContext): Verdict {
  const m = r.match;
  if (m.kind === 'command') return facts.command ? mayMatchCommand(m, facts.command) : 'no';
  if (m.kind === 'path') {
    if (!facts.access) return m.scope.kind === 'any' ? 'yes' : 'no';
    return scopeHolds(m.scope, facts.access.path, ctx.folder, ctx.platform) ? 'yes' : 'no';
  }
  return 'yes';
}

/**
 * The allow rules that together allow the call, or null: a command line only when each of its
 * simple commands is allowed (by the same rule or by others), read exactly, run in its folder, and
 * only by rules that hold where it would run (a sandbox-only rule never lets it run outside).
 */
function allowedBy(allow: readonly Rule[], facts: CallFacts, ctx: DecideContext): Rule[] | null {
  if (facts.command) {
    const read = facts.command;
    if (!read.ok || facts.cwdOutside) return null;
    const inSandbox = runsInSandbox(facts, ctx);
    const used = new Set<Rule>();
    for (const part of read.parts) {
      const r = allow.find(
        (x) =>
          x.match.kind === 'command' && (inSandbox || x.match.sandbox === 'also_outside') && allowsPart(x.match, part),
      );
      if (!r) return null;
      used.add(r);
    }
    return [...used];
  }
  if (facts.access) {
    const a = facts.access;
    const r = allow.find((x) => x.match.kind === 'path' && scopeHolds(x.match.scope, a.path, ctx.folder, ctx.platform));
    return r ? [r] : null;
  }
  const r = allow.find((x) => x.match.kind === 'mcp' || x.match.kind === 'tool');
  return r ? [r] : null;
}

/**
 * Why no allow rule may lift the call: protected paths, credential places, and leaving the
 * sandbox where commands run in it (under another policy they run outside it anyway).
 */
export function floorOf(facts: CallFacts, ctx: Pick<DecideContext, 'policy'>): RuleBlock | null {
  if (facts.access?.zone === 'credential') return 'credential';
  if (facts.access?.zone === 'protected') return 'protected';
  if (facts.leave && facts.tool.sandboxable && ctx.policy === 'sandboxed') return 'leave_sandbox';
  return null;
}

/** Why a sandboxable tool asks under `sandboxed`: asked out of it, or none here. */
function sandboxWhy(facts: CallFacts, ctx: DecideContext): ToolSandbox | null {
  if (!facts.tool.sandboxable || ctx.policy !== 'sandboxed') return null;
  if (facts.leave) return { state: 'outside_requested' };
  if (!ctx.sandbox.available) return { state: 'unavailable', reason: ctx.sandbox.reason };
  return null;
}

/**
 * What the policy alone says (no rule): read-only and auto-approved tools run; a file tool by
 * where its path leads (inside the folder it runs unless the policy denies tools that change
 * things; credential places and protected paths ask; outside it follows the policy); `sandboxed`
 * runs a sandboxable tool in the sandbox when there is one and asks otherwise.
 */
function byPolicy(facts: CallFacts, ctx: DecideContext): Decision {
  const { tool } = facts;
  const why = sandboxWhy(facts, ctx);
  const ask = (): Decision => ({ action: 'ask', why, by: null, block: floorOf(facts, ctx) });
  if (facts.access) {
    const zone = facts.access.zone;
    if (zone === 'credential' || zone === 'protected') return ask();
    if (zone === 'inside') return ctx.policy === 'deny' && !tool.readOnly ? { action: 'deny', by: null } : run(false);
  } else if (tool.readOnly || tool.autoApprove === true) return run(false);
  switch (ctx.policy) {
    case 'auto':
      return run(false);
    case 'deny':
      return { action: 'deny', by: null };
    case 'ask':
      return ask();
    case 'sandboxed':
      return runsInSandbox(facts, ctx) ? run(true) : ask();
  }
}

function run(sandboxed: boolean, by: Rule[] = []): Decision {
  return { action: 'run', sandboxed, by };
}

/**
 * The one decision on a tool call, for every caller (a session's turn, a helper's): pure, from
 * the call's facts and the rules in force. In order:
 * 1. a deny rule that matches denies (its reason goes to the model); one that may match asks;
 * 2. the floor: a credential place, a protected path, leaving the sandbox ask, whatever allows them;
 * 3. an ask rule that matches (or may) asks;
 * 4. allow rules: the call runs when they allow all of it and the policy alone would not have run
 *    it the same way (so "ran because of a rule" is said only where the rule made the difference);
 * 5. the policy alone.
 * A deny is final and order-free: no rule's position or scope makes another one lose.
 */
export function decide(facts: CallFacts, ctx: DecideContext): Decision {
  const mine = ctx.rules.filter((r) => concerns(r.match, facts.tool));
  let maybeDeny: Rule | null = null;
  for (const r of mine.filter((x) => x.decision === 'deny')) {
    const v = verdict(r, facts, ctx);
    if (v === 'yes') return { action: 'deny', by: r };
    if (v === 'maybe') maybeDeny ??= r;
  }
  const floor = floorOf(facts, ctx);
  const why = sandboxWhy(facts, ctx);
  if (maybeDeny) return { action: 'ask', why, by: maybeDeny, block: floor ?? 'ask_rule' };
  if (floor) return { action: 'ask', why, by: null, block: floor };
  const asking = mine.find((r) => r.decision === 'ask' && verdict(r, facts, ctx) !== 'no');
  if (asking) return { action: 'ask', why, by: asking, block: 'ask_rule' };
  const policy = byPolicy(facts, ctx);
  const allowed = allowedBy(
    mine.filter((r) => r.decision === 'allow'),
    facts,
    ctx,
  );
  if (!allowed) return policy;
  const sandboxed = runsInSandbox(facts, ctx);
  if (policy.action === 'run' && policy.sandboxed === sandboxed) return policy;
  return run(sandboxed, allowed);
}
