import {
  errorMessage,
  GATE_NOTICE_PREFIX,
  USER_ONLY,
  formatNotice,
  parseNotice,
  type GateRewrite,
  type RuleNote,
  type StoredMessage,
  type ToolCall,
} from '@threadline/protocol';
import { attachmentsOf, capFullOutput, truncateToolOutputAsync } from '@threadline/context';
import type { NewMessage } from '@threadline/store';
import { parseToolCall, runParsedTool } from '../tools/registry';
import { TODO_TOOL_NAME } from '../tools/todo';
import type { TodoItem, ToolContext, ToolDefinition, ToolResult } from '../tools/types';
import { announce, approve } from './approvals';
import type { SandboxRun } from '../sandbox/service';
import { describeRule } from '../rules/describe';
import type { Turn } from './turn';
import { gateToolCall } from './gate';
import { classifyPath, type PathClass } from '../workspace/reach';
import { ensureFolder, reachBase } from '../workspace/sessionFolder';
import { untilAborted } from './abortable';

/** What the model reads of a call the user stopped while it ran. */
const STOPPED_TEXT = 'aborted: the user stopped the turn while this tool ran';

export type ToolStatus = 'ok' | 'error' | 'denied' | 'aborted';

export interface ToolOutcome {
  call: ToolCall;
  status: ToolStatus;
  durationMs: number;
  /** The tool result, then nothing else: notices go before it. */
  messages: NewMessage[];
}

/** Tracks identical consecutive calls across one turn (the doom-loop guard). */
export class DoomLoopGuard {
  private last: string | null = null;
  private streak = 0;
  constructor(private readonly limit: number) {}

  /** true when this call would be the limit-th identical call in a row. */
  check(call: ToolCall): boolean {
    const sig = `${call.function.name}\u0000${canonicalArgs(call.function.arguments)}`;
    this.streak = sig === this.last ? this.streak + 1 : 1;
    this.last = sig;
    return this.streak >= this.limit;
  }
}

function canonicalArgs(raw: string): string {
  try {
    return JSON.stringify(JSON.parse(raw));
  } catch {
    return raw.trim();
  }
}

function toolContext(turn: Turn, folder: string, callId: string, sandbox: SandboxRun | null): ToolContext {
  const { deps, sessionId } = turn;
  return {
    ...(sandbox ? { sandbox } : {}),
    sessionId,
    cwd: folder,
    onSpawn: (p) => recordProcess(turn, callId, p),
    platform: deps.workspace.platform,
    signal: turn.signal,
    shellTimeoutMs: deps.process.shellTimeoutMs,
    loginShell: deps.process.loginShell,
    loginEnv: deps.process.loginEnv,
    envPassthrough: turn.settings.agent.envPassthrough,
    lookupToolOutput: (id) => lookupToolOutput(turn, id),
    latestTodos: () => latestTodos(turn.snapshot().history),
    reach: { ...reachBase(deps.workspace), folder },
    ...(turn.delegate ? { delegate: (args) => turn.delegate!(callId, args) } : {}),
  };
}

/** A running tool process in the store until it ends; never lets the store break the tool. */
function recordProcess(
  turn: Turn,
  toolCallId: string,
  p: { pid: number; pgid: number | null; command: string },
): () => void {
  let id: string | null = null;
  try {
    id = turn.deps.store.processes.add({ sessionId: turn.sessionId, toolCallId, hostPid: process.pid, ...p });
  } catch {
    return () => {};
  }
  return () => {
    if (id === null) return;
    const done = id;
    id = null;
    try {
      turn.deps.store.processes.remove(done);
    } catch {
      // closed store: the next start finds the row, sees the process gone, and only marks the turn
    }
  };
}

/**
 * The full text behind a truncated tool result, an oversized user message, or any message of the
 * conversation a compaction cut to fit (its marker names the message's id) for read_tool_output.
 * The snapshot's light history finds the id without loading any full output (up to 1 MiB each);
 * only the one message asked for is read whole, from disk.
 */
function lookupToolOutput(turn: Turn, id: string): string | null {
  const { history } = turn.snapshot();
  // A text attachment of this branch (a file, a PDF's text): paged like a long output.
  if (history.some((x) => x.role === 'user' && attachmentsOf(x).some((a) => a.id === id && a.kind === 'text')))
    return turn.deps.store.attachments.text(id);
  const hit = history.find((x) => (x.role === 'tool' && x.tool_call_id === id) || x.id === id);
  // A message of the conversation the model was shown (never a notice or another user-only row).
  if (!hit || (hit.role !== 'tool' && hit.meta?.truncated !== true && !(hit.visibility.agent && hit.kind === 'normal')))
    return null;
  const m = turn.deps.store.messages.get(hit.id);
  if (!m) return null;
  return m.fullOutput ?? m.content ?? '';
}

export function latestTodos(history: readonly StoredMessage[]): TodoItem[] | null {
  for (let i = history.length - 1; i >= 0; i--) {
    const todos = history[i].meta?.todos;
    if (history[i].role === 'tool' && history[i].meta?.toolName === TODO_TOOL_NAME && Array.isArray(todos))
      return todos as TodoItem[];
  }
  return null;
}

async function resultMessage(
  turn: Turn,
  call: ToolCall,
  status: ToolStatus,
  result: ToolResult,
  durationMs: number,
  ranArguments: string | null,
  gate: (GateRewrite & { declined: boolean }) | null,
  approvalWaitMs: number | null,
  rule: RuleNote | null,
  onTruncated?: (text: string) => string,
): Promise<NewMessage> {
  const { settings, profile } = turn;
  // write-time truncation: the model gets head + tail with a marker; the full text stays beside it.
  // A large output is counted in slices (the runtime answers other requests meanwhile).
  const cut = await truncateToolOutputAsync(result.content, {
    policy: settings.toolOutput.policy,
    maxTokens: settings.toolOutput.maxTokens,
    model: profile.model,
    outputId: call.id,
  });
  const meta: Record<string, unknown> = { ...result.meta, toolName: call.function.name, status, durationMs };
  // How long the call waited for the user, apart: an `ls` that ran 20 ms after 11 s of waiting.
  if (approvalWaitMs !== null) meta.approvalWaitMs = approvalWaitMs;
  // The renderer offers "show full output" (messages.fullOutput) only where one exists.
  if (cut.truncated) meta.truncated = true;
  // The gate rewrote the command: the call in history keeps the model's arguments, this is what ran.
  if (ranArguments !== null) meta.ranArguments = ranArguments;
  // Why, for the card after the fact: the folder and its path from memory, and the user's choice.
  if (gate) meta.gate = { target: gate.target, path: gate.path, declined: gate.declined };
  // The rule that let it run or refused it: its card names it.
  if (rule) meta.rule = rule;
  return {
    role: 'tool',
    tool_call_id: call.id,
    content: cut.truncated && onTruncated ? onTruncated(cut.text) : cut.text,
    fullOutput: cut.truncated ? capFullOutput(result.content).text : null,
    meta,
  };
}

/** tool calls → gate → approval → tool, for one call. Never throws. */
export async function runToolCall(
  turn: Turn,
  messageId: string,
  call: ToolCall,
  latestUserText: string,
): Promise<ToolOutcome> {
  const { deps } = turn;
  /** When the work of the call began: reset after an approval, so its run time leaves the wait out. */
  let started = deps.now();
  let approvalWaitMs: number | null = null;
  let ranArguments: string | null = null;
  let gate: (GateRewrite & { declined: boolean }) | null = null;
  let rule: RuleNote | null = null;
  const done = async (
    status: ToolStatus,
    result: ToolResult,
    notices: NewMessage[] = [],
    onTruncated?: (text: string) => string,
  ): Promise<ToolOutcome> => {
    const durationMs = deps.now() - started;
    return {
      call,
      status,
      durationMs,
      messages: [
        ...notices,
        await resultMessage(
          turn,
          call,
          status,
          result,
          durationMs,
          ranArguments,
          gate,
          approvalWaitMs,
          rule,
          onTruncated,
        ),
      ],
    };
  };
  if (turn.signal.aborted)
    return done('aborted', { ok: false, content: 'aborted: the user cancelled the turn before this tool ran' });
  const parsed = parseToolCall(turn.tools(), call);
  if (!parsed.ok) {
    announce(turn, messageId, call, false);
    return done('error', { ok: false, content: parsed.error });
  }
  // The gate runs before the approval, so the user is asked about what will really run.
  const gated = gateToolCall(turn, parsed.tool, parsed.args, latestUserText);
  if (gated.rewritten) {
    ranArguments = gated.rewritten.rewrittenArguments;
    gate = { ...gated.rewritten, declined: false };
  }
  // The session's working folder, or why there is none usable (an error the model can read).
  const place = turn.folder();
  if ('error' in place) {
    announce(turn, messageId, call, false);
    const content = `Error: no usable working folder: ${place.error}`;
    return done('error', { ok: false, content }, gateNotices(gated.notice, false));
  }
  let access: PathClass | null;
  try {
    access = pathAccess(turn, parsed.tool, gated.args, place.folder);
  } catch (err) {
    // A symlink loop (or a path the OS cannot resolve): this call's error, not the turn's.
    announce(turn, messageId, call, false);
    return done('error', { ok: false, content: `Error: ${errorMessage(err)}` }, gateNotices(gated.notice, false));
  }
  if (access?.zone === 'data') {
    // Refused outright, approved or not: the database and the key that seals the API keys.
    announce(turn, messageId, call, false);
    return done('error', { ok: false, content: refusedText(access.path) }, gateNotices(gated.notice, false));
  }
  const asked = deps.now();
  const approval = await approve(turn, messageId, call, parsed.tool, gated, access, place.folder);
  if (approval.refused)
    return done('error', { ok: false, content: approval.refused }, gateNotices(gated.notice, false));
  const { decision, waited, sandbox } = approval;
  rule = approval.rule;
  if (waited) {
    // The tool's run time leaves out the time it waited for the user.
    approvalWaitMs = deps.now() - asked;
    started = deps.now();
  }
  let args = access && parsed.tool.path ? parsed.tool.path.set(gated.args, access.path) : gated.args;
  if (decision === 'approve_original' && gate) {
    args = parsed.args;
    ranArguments = null;
    gate.declined = true;
    // The original is checked like any call: its path may not reach the data folder either.
    let originalAccess: PathClass | null;
    try {
      originalAccess = pathAccess(turn, parsed.tool, args, place.folder);
    } catch (err) {
      return done('error', { ok: false, content: `Error: ${errorMessage(err)}` }, gateNotices(gated.notice, true));
    }
    if (originalAccess?.zone === 'data')
      return done('error', { ok: false, content: refusedText(originalAccess.path) }, gateNotices(gated.notice, true));
    if (originalAccess && parsed.tool.path) args = parsed.tool.path.set(args, originalAccess.path);
  }
  const notices = gateNotices(gated.notice, gate?.declined === true);
  if (decision === 'deny') return done('denied', { ok: false, content: deniedText(turn, call.id, rule) }, notices);
  if (decision === 'aborted')
    return done('aborted', { ok: false, content: 'aborted: the user cancelled the turn' }, notices);
  try {
    ensureFolder(place.folder);
  } catch (err) {
    const reason = errorMessage(err);
    return done(
      'error',
      { ok: false, content: `Error: the working folder ${place.folder} cannot be created (${reason}).` },
      notices,
    );
  }
  // A tool that may write (not marked read-only: file tools, the shell, every MCP tool): the
  // folder's state before the turn's first such tool is the turn's checkpoint.
  // The tool's run time leaves the snapshot out.
  if (!parsed.tool.readOnly && turn.checkpoint) {
    await untilAborted(turn.checkpoint.beforeWrite(place.folder), turn.signal);
    started = deps.now();
  }
  if (turn.signal.aborted) return done('aborted', { ok: false, content: STOPPED_TEXT }, notices);
  // Stop never waits for the tool: the turn goes on at once, the tool ends its own work (kills
  // its processes, ends its worker) when it sees the signal.
  const ran = await untilAborted(
    runParsedTool(parsed.tool, args, toolContext(turn, place.folder, call.id, sandbox)),
    turn.signal,
  );
  // It may have changed the folder (an instruction file too): what the prompt read is read again.
  if (!parsed.tool.readOnly) turn.folderWritten();
  const result = ran ?? { ok: false, content: STOPPED_TEXT };
  const status: ToolStatus = turn.signal.aborted ? 'aborted' : result.ok ? 'ok' : 'error';
  return done(status, result, notices, (text) => parsed.tool.onTruncated?.(text, args) ?? text);
}

/** What the model reads for a denied call: the user's own reason when they gave one (on the card or in the rule). */
function deniedText(turn: Turn, toolCallId: string, rule: RuleNote | null): string {
  const reason = turn.runtime.takeDenyReason(toolCallId);
  const byRule = rule?.rules[0];
  if (byRule) {
    const why = byRule.reason ? ` The user's reason: ${byRule.reason}` : '';
    return `denied: a rule the user saved does not allow this call (${describeRule(byRule.match)}).${why}`;
  }
  return reason
    ? `denied: the user did not allow this tool call and said: ${reason}`
    : 'denied: the user did not allow this tool call';
}

/**
 * Where a file tool's path leads. A tool that is not read-only writes its path (write_file, the
 * edit tools): protected paths count for it, by that intent rather than by the tool's name.
 */
function pathAccess(turn: Turn, tool: ToolDefinition, args: unknown, folder: string): PathClass | null {
  if (!tool.path) return null;
  const launch = turn.deps.mcp?.launchTargets() ?? [];
  return classifyPath(
    tool.path.get(args),
    { ...reachBase(turn.deps.workspace), folder, launch },
    { write: !tool.readOnly },
  );
}

function refusedText(p: string): string {
  return `Error: refused: ${p} is in Threadline's own data folder (its database, backups and the key that seals stored API keys). No tool may read or change it, whatever the approval.`;
}

/** The gate notice as stored: marked when the user ran the model's original command instead. */
function gateNotices(notice: string | null, declined: boolean): NewMessage[] {
  if (notice === null) return [];
  let content = notice;
  const parsed = declined ? parseNotice(notice) : null;
  if (parsed?.type === 'gate') content = formatNotice(GATE_NOTICE_PREFIX, { ...parsed.payload, declined: true });
  return [{ role: 'user', content, kind: 'gate_notice', visibility: USER_ONLY }];
}
