import {
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
import { TODO_TOOL_NAME } from '../tools/todo';
import type { TodoItem, ToolContext, ToolResult } from '../tools/types';
import type { SandboxRun } from '../sandbox/service';
import { describeRule } from '../rules/describe';
import type { Turn } from './turn';
import { reachBase } from '../workspace/sessionFolder';

/** What the model reads of a call the user stopped while it ran. */
export const STOPPED_TEXT = 'aborted: the user stopped the turn while this tool ran';

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

export function toolContext(turn: Turn, folder: string, callId: string, sandbox: SandboxRun | null): ToolContext {
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

/** What the result's meta says of how the call went besides its tool's own meta. */
export interface ResultNotes {
  /** The gate rewrote the command: what ran (the call in history keeps the model's arguments). */
  ranArguments: string | null;
  gate: (GateRewrite & { declined: boolean }) | null;
  approvalWaitMs: number | null;
  rule: RuleNote | null;
}

export async function resultMessage(
  turn: Turn,
  call: ToolCall,
  status: ToolStatus,
  result: ToolResult,
  durationMs: number,
  { ranArguments, gate, approvalWaitMs, rule }: ResultNotes,
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

/** What the model reads for a denied call: the user's own reason when they gave one (on the card or in the rule). */
export function deniedText(turn: Turn, toolCallId: string, rule: RuleNote | null): string {
  const reason = turn.state.takeDenyReason(toolCallId);
  const byRule = rule?.rules[0];
  if (byRule) {
    const why = byRule.reason ? ` The user's reason: ${byRule.reason}` : '';
    return `denied: a rule the user saved does not allow this call (${describeRule(byRule.match)}).${why}`;
  }
  return reason
    ? `denied: the user did not allow this tool call and said: ${reason}`
    : 'denied: the user did not allow this tool call';
}

/** The gate notice as stored: marked when the user ran the model's original command instead. */
export function gateNotices(notice: string | null, declined: boolean): NewMessage[] {
  if (notice === null) return [];
  let content = notice;
  const parsed = declined ? parseNotice(notice) : null;
  if (parsed?.type === 'gate') content = formatNotice(GATE_NOTICE_PREFIX, { ...parsed.payload, declined: true });
  return [{ role: 'user', content, kind: 'gate_notice', visibility: USER_ONLY }];
}
