import type { GateRewrite } from './notices';
import type { RuleNote, RuleOptions } from './rules';
import type { ToolCall } from './messages';
import type { PendingToolCall, ToolAccess, ToolDiff } from './routes/chat';
import type { ToolSandbox } from './routes/sandbox';

/** What a pending call is made of; a card field that is null or absent is left out. */
export interface PendingToolCallParts {
  toolCall: ToolCall;
  messageId: string;
  needsApproval: boolean;
  /** Default: `waiting` when it asks, else `running`. */
  status?: PendingToolCall['status'];
  access?: ToolAccess | null;
  gate?: GateRewrite | null;
  sandbox?: ToolSandbox | null;
  diff?: ToolDiff | null;
  rules?: RuleOptions | null;
  rule?: RuleNote | null;
}

/**
 * The one builder of the pending tool-call shape: the agent keeps it for chat.state and sends it
 * (without `status`) as `tool.requested`; the renderer makes its card state from either.
 */
export function pendingToolCall(p: PendingToolCallParts): PendingToolCall {
  return {
    toolCall: p.toolCall,
    messageId: p.messageId,
    needsApproval: p.needsApproval,
    status: p.status ?? (p.needsApproval ? 'waiting' : 'running'),
    ...(p.access ? { access: p.access } : {}),
    ...(p.gate ? { gate: p.gate } : {}),
    ...(p.sandbox ? { sandbox: p.sandbox } : {}),
    ...(p.diff ? { diff: p.diff } : {}),
    ...(p.rules ? { rules: p.rules } : {}),
    ...(p.rule ? { rule: p.rule } : {}),
  };
}
