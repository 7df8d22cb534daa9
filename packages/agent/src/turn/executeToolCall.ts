import { errorMessage, type GateRewrite, type RuleNote, type ToolCall } from '@threadline/protocol';
import type { NewMessage } from '@threadline/store';
import type { SandboxRun } from '../sandbox/service';
import { runParsedTool } from '../tools/registry';
import type { ToolResult } from '../tools/types';
import type { PathClass } from '../workspace/reach';
import { ensureFolder } from '../workspace/sessionFolder';
import type { ApprovalDecision } from '../session/session';
import { untilAborted } from './abortable';
import { announce, recordHits, sandboxRun } from './approvals';
import { pathAccess, planToolCall, refusedText, type ToolPlan, type ToolRefusal } from './planToolCall';
import { readOnly } from './readOnlyCommands';
import {
  STOPPED_TEXT,
  deniedText,
  gateNotices,
  resultMessage,
  toolContext,
  type ToolOutcome,
  type ToolStatus,
} from './toolStep';
import type { Turn } from './turn';

/** tool calls → plan (decide) → execute (do), for one call. Never throws. */
export async function runToolCall(
  turn: Turn,
  messageId: string,
  call: ToolCall,
  latestUserText: string,
): Promise<ToolOutcome> {
  const started = turn.deps.now();
  const plan = await planToolCall(turn, call, latestUserText);
  return executeToolCall(turn, messageId, call, plan, started);
}

/**
 * The tool step's doing, once planToolCall decided: the call announced once (its card), the
 * user's answer waited for when it asks, the checkpoint before the turn's first tool that may
 * write, the tool run, its result. `started`: when the call's work began (its run time leaves
 * the wait for the user and the checkpoint out).
 */
export async function executeToolCall(
  turn: Turn,
  messageId: string,
  call: ToolCall,
  plan: ToolPlan | ToolRefusal,
  started: number,
): Promise<ToolOutcome> {
  const { deps } = turn;
  const rewritten = plan.gated?.rewritten ?? null;
  const out = {
    started,
    approvalWaitMs: null as number | null,
    ranArguments: rewritten?.rewrittenArguments ?? null,
    gate: rewritten ? ({ ...rewritten, declined: false } as GateRewrite & { declined: boolean }) : null,
    rule: null as RuleNote | null,
  };
  const done = async (
    status: ToolStatus,
    result: ToolResult,
    notices: NewMessage[] = [],
    onTruncated?: (text: string) => string,
  ): Promise<ToolOutcome> => {
    const durationMs = deps.now() - out.started;
    const meta = { ranArguments: out.ranArguments, gate: out.gate, approvalWaitMs: out.approvalWaitMs, rule: out.rule };
    return {
      call,
      status,
      durationMs,
      messages: [...notices, await resultMessage(turn, call, status, result, durationMs, meta, onTruncated)],
    };
  };
  if (plan.kind === 'refused') {
    if (plan.card) announce(turn, messageId, call, false, plan.card);
    return done(plan.status, { ok: false, content: plan.content }, plan.notices);
  }
  recordHits(turn, plan.hits);
  announce(turn, messageId, call, plan.kind === 'ask', plan.card);
  let decision: ApprovalDecision;
  let sandbox: SandboxRun | null = null;
  if (plan.kind === 'run') {
    decision = 'approve';
    // An explore helper's command (confined) runs where a sandbox exists: readOnlyRefusal said so.
    const found = plan.confined || plan.sandboxed ? await sandboxRun(turn) : null;
    const run = plan.confined && found ? readOnly(found) : found;
    // What the command leaves that runs code later is held through the turn (sandbox/turnLeftovers.ts).
    sandbox = run && turn.leftovers ? { ...run, leftovers: turn.leftovers } : run;
    out.rule = plan.rule;
  } else if (plan.kind === 'deny') {
    decision = 'deny';
    out.rule = plan.rule;
  } else {
    const asked = deps.now();
    decision = await turn.state.awaitApproval(call.id, turn.signal);
    // Approved on the card: it runs as the card said, outside the sandbox (a confined one in its own).
    const confinedRun = plan.confined ? await sandboxRun(turn) : null;
    sandbox = confinedRun && readOnly(confinedRun);
    // The tool's run time leaves out the time it waited for the user.
    out.approvalWaitMs = deps.now() - asked;
    out.started = deps.now();
  }
  const { tool, gated, folder } = plan;
  let args = plan.access && tool.path ? tool.path.set(gated.args, plan.access.path) : gated.args;
  if (decision === 'approve_original' && out.gate) {
    args = plan.args;
    out.ranArguments = null;
    out.gate.declined = true;
    // The original is checked like any call: its path may not reach the data folder either.
    let originalAccess: PathClass | null;
    try {
      originalAccess = pathAccess(turn, tool, args, folder);
    } catch (err) {
      return done('error', { ok: false, content: `Error: ${errorMessage(err)}` }, gateNotices(gated.notice, true));
    }
    if (originalAccess?.zone === 'data')
      return done('error', { ok: false, content: refusedText(originalAccess.path) }, gateNotices(gated.notice, true));
    if (originalAccess && tool.path) args = tool.path.set(args, originalAccess.path);
  }
  const notices = gateNotices(gated.notice, out.gate?.declined === true);
  if (decision === 'deny') return done('denied', { ok: false, content: deniedText(turn, call.id, out.rule) }, notices);
  if (decision === 'aborted')
    return done('aborted', { ok: false, content: 'aborted: the user cancelled the turn' }, notices);
  try {
    ensureFolder(folder);
  } catch (err) {
    const reason = errorMessage(err);
    const content = `Error: the working folder ${folder} cannot be created (${reason}).`;
    return done('error', { ok: false, content }, notices);
  }
  // A tool that may write (not marked read-only: file tools, the shell, every MCP tool): the
  // folder's state before the turn's first such tool is the turn's checkpoint.
  // The tool's run time leaves the snapshot out.
  if (!tool.readOnly && turn.checkpoint) {
    await untilAborted(turn.checkpoint.beforeWrite(folder), turn.signal);
    out.started = deps.now();
  }
  if (turn.signal.aborted) return done('aborted', { ok: false, content: STOPPED_TEXT }, notices);
  // Stop never waits for the tool: the turn goes on at once, the tool ends its own work (kills
  // its processes, ends its worker) when it sees the signal.
  const ran = await untilAborted(runParsedTool(tool, args, toolContext(turn, folder, call.id, sandbox)), turn.signal);
  // It may have changed the folder (an instruction file too): what the prompt read is read again.
  if (!tool.readOnly) turn.folderWritten();
  const result = ran ?? { ok: false, content: STOPPED_TEXT };
  const status: ToolStatus = turn.signal.aborted ? 'aborted' : result.ok ? 'ok' : 'error';
  return done(status, result, notices, (text) => tool.onTruncated?.(text, args) ?? text);
}
