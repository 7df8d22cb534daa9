import { statSync } from 'node:fs';
import { errorMessage, type Rule, type RuleNote, type ToolCall, type ToolDiff } from '@threadline/protocol';
import type { NewMessage } from '@threadline/store';
import { decide } from '../rules/decide';
import { ruleOptions } from '../rules/options';
import { parseToolCall } from '../tools/registry';
import type { ToolDefinition } from '../tools/types';
import { classifyPath, type PathClass } from '../workspace/reach';
import { reachBase } from '../workspace/sessionFolder';
import { callFacts, decideContext, ruleNote, type CardParts } from './approvals';
import { gateToolCall, type GateResult } from './gate';
import { readOnlyRefusal } from './readOnlyCommands';
import { gateNotices } from './toolStep';
import type { Turn } from './turn';

/** A call that will not run, decided before anything ran: the model reads `content`. */
export interface ToolRefusal {
  kind: 'refused';
  status: 'error' | 'aborted';
  content: string;
  notices: NewMessage[];
  /** What its card shows (null: not shown at all, the turn was stopped before it). */
  card: CardParts | null;
  /** The gate's reading of the call, when it got that far (its rewrite goes in the result's meta). */
  gated: GateResult | null;
}

/** A call the rules let run, refuse, or put to the user. */
export interface ToolPlan {
  kind: 'run' | 'deny' | 'ask';
  tool: ToolDefinition;
  /** The model's arguments, parsed. */
  args: unknown;
  gated: GateResult;
  access: PathClass | null;
  folder: string;
  card: CardParts;
  /** The rules whose hit is counted when it goes ahead. */
  hits: readonly Rule[];
  /** The rule that let it run or refused it (the result's meta.rule); null when the user answers. */
  rule: RuleNote | null;
  /** Runs in the OS sandbox (the policy's choice). */
  sandboxed: boolean;
  /** An explore helper's command: only ever in a read-only sandbox. */
  confined: boolean;
}

/**
 * The tool step's decision, before anything is shown or run: the arguments against the tool's
 * schema, the gate, where a path leads, the one decision of rules/decide.ts (rules, the floor,
 * the policy, the sandbox) and, when it asks, the diff and the rules its card offers. It writes
 * nothing, announces nothing and waits for no one: executeToolCall does that.
 */
export async function planToolCall(
  turn: Turn,
  call: ToolCall,
  latestUserText: string,
): Promise<ToolPlan | ToolRefusal> {
  if (turn.signal.aborted)
    return refusal('aborted', 'aborted: the user cancelled the turn before this tool ran', null, null);
  const parsed = parseToolCall(turn.tools(), call);
  if (!parsed.ok) return refusal('error', parsed.error, {}, null);
  // The gate runs before the approval, so the user is asked about what will really run.
  const gated = gateToolCall(turn, parsed.tool, parsed.args, latestUserText);
  const notices = gateNotices(gated.notice, false);
  // The session's working folder, or why there is none usable (an error the model can read).
  const place = turn.folder();
  if ('error' in place) return refusal('error', `Error: no usable working folder: ${place.error}`, {}, gated, notices);
  let access: PathClass | null;
  try {
    access = pathAccess(turn, parsed.tool, gated.args, place.folder);
  } catch (err) {
    // A symlink loop (or a path the OS cannot resolve): this call's error, not the turn's.
    return refusal('error', `Error: ${errorMessage(err)}`, {}, gated, notices);
  }
  // Refused outright, approved or not: the database and the key that seals the API keys.
  if (access?.zone === 'data') return refusal('error', refusedText(access.path), {}, gated, notices);
  const { tool } = parsed;
  const folder = place.folder;
  const gate = gated.rewritten;
  // An explore helper's command runs only in a read-only sandbox, whatever the rules and the card
  // say (turn/readOnlyCommands.ts); the rules still decide whether it runs, asks or is denied.
  const confined = turn.helper?.readOnlyCommands === true && tool.sandbox !== undefined;
  if (confined) {
    const refused = await readOnlyRefusal(turn, tool, gated.args);
    if (refused !== null) return refusal('error', refused, { gate, access }, gated, notices);
  }
  const facts = callFacts(tool, gated.args, access, folder, turn.deps.workspace.platform);
  const ctx = await decideContext(turn, folder);
  const decision = decide(facts, ctx);
  const base = { tool, args: parsed.args, gated, access, folder, confined };
  if (decision.action === 'run') {
    const rule = decision.by.length > 0 ? ruleNote('allow', decision.by) : null;
    return { ...base, kind: 'run', card: { gate, access }, hits: decision.by, rule, sandboxed: decision.sandboxed };
  }
  if (decision.action === 'deny') {
    const by = decision.by ? [decision.by] : [];
    const rule = by.length > 0 ? ruleNote('deny', by) : null;
    return { ...base, kind: 'deny', card: { gate, access }, hits: by, rule, sandboxed: false };
  }
  // Worked out only when the user is asked: a call that runs on its own shows its diff once done.
  const diff = await previewDiff(tool, gated.args, access, folder);
  const rules = ruleOptions(facts, ctx, decision, access ? isFolder(access.path) : false);
  const rule = decision.by ? ruleNote(decision.by.decision, [decision.by]) : null;
  const card = { gate, access, sandbox: decision.why, diff, rules, rule };
  return { ...base, kind: 'ask', card, hits: decision.by ? [decision.by] : [], rule: null, sandboxed: false };
}

function refusal(
  status: ToolRefusal['status'],
  content: string,
  card: CardParts | null,
  gated: GateResult | null,
  notices: NewMessage[] = [],
): ToolRefusal {
  return { kind: 'refused', status, content, notices, card, gated };
}

/**
 * Where a file tool's path leads. A tool that is not read-only writes its path (write_file, the
 * edit tools): protected paths count for it, by that intent rather than by the tool's name.
 */
export function pathAccess(turn: Turn, tool: ToolDefinition, args: unknown, folder: string): PathClass | null {
  if (!tool.path) return null;
  const launch = turn.deps.mcp?.launchTargets() ?? [];
  return classifyPath(
    tool.path.get(args),
    { ...reachBase(turn.deps.workspace), folder, launch },
    { write: !tool.readOnly },
  );
}

export function refusedText(p: string): string {
  return `Error: refused: ${p} is in Threadline's own data folder (its database, backups and the key that seals stored API keys). No tool may read or change it, whatever the approval.`;
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
