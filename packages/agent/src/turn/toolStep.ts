import { USER_ONLY, type StoredMessage, type ToolCall } from '@threadline/protocol';
import type { NewMessage } from '@threadline/store';
import { parseToolCall, runParsedTool } from '../tools/registry';
import { TODO_TOOL_NAME } from '../tools/todo';
import type { TodoItem, ToolContext, ToolDefinition, ToolResult } from '../tools/types';
import { effectivePolicy, waitForApproval } from './approvals';
import type { TurnScope } from './deps';
import { gateToolCall } from './gate';

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

function toolContext(scope: TurnScope): ToolContext {
  const { deps, sessionId } = scope;
  return {
    sessionId,
    cwd: deps.cwd,
    platform: deps.platform,
    signal: scope.signal,
    shellTimeoutMs: deps.shellTimeoutMs,
    loginShell: deps.loginShell,
    lookupToolOutput: (id) => lookupToolOutput(scope, id),
    latestTodos: () => latestTodos(deps.store.messages.list(sessionId, { fullOutput: false })),
  };
}

/**
 * The full text behind a truncated tool result (or oversized user message) for read_tool_output.
 * The light list finds the id without loading every full output of the session (up to 1 MiB
 * each); only the one message asked for is read whole.
 */
function lookupToolOutput(scope: TurnScope, id: string): string | null {
  const history = scope.deps.store.messages.list(scope.sessionId, { fullOutput: false });
  const hit = history.find((x) => (x.role === 'tool' && x.tool_call_id === id) || x.id === id);
  if (!hit || (hit.role !== 'tool' && hit.meta?.truncated !== true)) return null;
  const m = scope.deps.store.messages.get(hit.id);
  if (!m) return null;
  return m.fullOutput ?? m.content ?? '';
}

export function latestTodos(history: StoredMessage[]): TodoItem[] | null {
  for (let i = history.length - 1; i >= 0; i--) {
    const todos = history[i].meta?.todos;
    if (history[i].role === 'tool' && history[i].meta?.toolName === TODO_TOOL_NAME && Array.isArray(todos))
      return todos as TodoItem[];
  }
  return null;
}

function resultMessage(
  scope: TurnScope,
  call: ToolCall,
  status: ToolStatus,
  result: ToolResult,
  durationMs: number,
  ranArguments: string | null,
): NewMessage {
  const { deps, settings, profile } = scope;
  // write-time truncation: the model gets head + tail with a marker; the full text stays beside it.
  const cut = deps.engine.truncateToolOutput(result.content, settings.toolOutput, profile.model, call.id);
  const meta: Record<string, unknown> = { ...result.meta, toolName: call.function.name, status, durationMs };
  // The renderer offers "show full output" (messages.fullOutput) only where one exists.
  if (cut.truncated) meta.truncated = true;
  // The gate rewrote the command: the call in history keeps the model's arguments, this is what ran.
  if (ranArguments !== null) meta.ranArguments = ranArguments;
  return {
    role: 'tool',
    tool_call_id: call.id,
    content: cut.content,
    fullOutput: cut.truncated ? deps.engine.capFullOutput(result.content) : null,
    meta,
  };
}

/** tool calls → gate → approval → tool, for one call. Never throws. */
export async function runToolCall(
  scope: TurnScope,
  messageId: string,
  call: ToolCall,
  latestUserText: string,
): Promise<ToolOutcome> {
  const { deps } = scope;
  const started = deps.now();
  let ranArguments: string | null = null;
  const done = (status: ToolStatus, result: ToolResult, notices: NewMessage[] = []): ToolOutcome => {
    const durationMs = deps.now() - started;
    return {
      call,
      status,
      durationMs,
      messages: [...notices, resultMessage(scope, call, status, result, durationMs, ranArguments)],
    };
  };
  if (scope.signal.aborted)
    return done('aborted', { ok: false, content: 'aborted: the user cancelled the turn before this tool ran' });
  const parsed = parseToolCall(deps.toolsFor(scope.sessionId), call);
  if (!parsed.ok) {
    announce(scope, messageId, call, false);
    return done('error', { ok: false, content: parsed.error });
  }
  const gated = gateToolCall(scope, parsed.tool, parsed.args, latestUserText);
  const notices: NewMessage[] = gated.notice
    ? [{ role: 'user', content: gated.notice, kind: 'gate_notice', visibility: USER_ONLY }]
    : [];
  if (gated.rewritten) ranArguments = JSON.stringify(gated.args);
  const effectiveCall: ToolCall =
    ranArguments !== null ? { ...call, function: { ...call.function, arguments: ranArguments } } : call;
  const decision = await approve(scope, messageId, effectiveCall, parsed.tool);
  if (decision === 'deny')
    return done('denied', { ok: false, content: 'denied: the user did not allow this tool call' }, notices);
  if (decision === 'aborted')
    return done('aborted', { ok: false, content: 'aborted: the user cancelled the turn' }, notices);
  const result = await runParsedTool(parsed.tool, gated.args, toolContext(scope));
  const status: ToolStatus = scope.signal.aborted ? 'aborted' : result.ok ? 'ok' : 'error';
  return done(status, result, notices);
}

/** A call of the step in flight: kept for chat.state and pushed to the renderers. */
function announce(scope: TurnScope, messageId: string, call: ToolCall, needsApproval: boolean): void {
  scope.deps.runtime(scope.sessionId).requested(messageId, call, needsApproval);
  scope.deps.emit({ type: 'tool.requested', sessionId: scope.sessionId, toolCall: call, messageId, needsApproval });
}

async function approve(
  scope: TurnScope,
  messageId: string,
  call: ToolCall,
  tool: ToolDefinition,
): Promise<'approve' | 'deny' | 'aborted'> {
  const policy = effectivePolicy(scope, tool);
  announce(scope, messageId, call, policy === 'ask');
  if (policy === 'auto') return 'approve';
  if (policy === 'deny') return 'deny';
  return waitForApproval(scope, call.id);
}
