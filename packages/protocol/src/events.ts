import type { StoredMessage, ToolCall } from './messages';
import type { ContextUsage } from './compaction';
import type { SessionSummary, ToolAccess } from './routes';

/** Events pushed from the runtime to every renderer (SPEC §7.1). */
export type AppEvent =
  | { type: 'message.delta'; sessionId: string; messageId: string; delta: string }
  | { type: 'message.complete'; sessionId: string; message: StoredMessage }
  | {
      type: 'tool.requested';
      sessionId: string;
      toolCall: ToolCall;
      messageId: string;
      needsApproval: boolean;
      /** The resolved path that made a file tool ask (outside the folder, or credentials). */
      access?: ToolAccess;
    }
  | {
      type: 'tool.finished';
      sessionId: string;
      toolCallId: string;
      status: 'ok' | 'error' | 'denied' | 'aborted';
      durationMs: number;
      message: StoredMessage;
    }
  | { type: 'notice'; sessionId: string; message: StoredMessage }
  | { type: 'usage'; sessionId: string; usage: ContextUsage }
  | { type: 'session.updated'; sessionId: string; session: SessionSummary | null; busy: boolean }
  | { type: 'error'; sessionId: string | null; code: string; message: string };

export type AppEventType = AppEvent['type'];
export const APP_EVENT_TYPES: readonly AppEventType[] = [
  'message.delta',
  'message.complete',
  'tool.requested',
  'tool.finished',
  'notice',
  'usage',
  'session.updated',
  'error',
];
