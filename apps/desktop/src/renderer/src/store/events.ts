import { parseNotice, type AppEvent } from '@threadline/protocol';
import type { AppState, StreamingMessage } from './types';
import { lastUserText, withoutUncommitted } from './chatSlice';
import { bumpEpoch } from './liveEpoch';

type Get = () => AppState;
type Set = (patch: Partial<AppState>) => void;

/**
 * Deltas arrive many times per frame; coalesce them and render at most once per frame so a fast
 * stream does not re-parse Markdown hundreds of times a second.
 */
function createDeltaBuffer(get: Get, set: Set) {
  const pending = new Map<string, { sessionId: string; text: string }>();
  let scheduled = false;
  const schedule =
    typeof requestAnimationFrame === 'function' && typeof document !== 'undefined' && !document.hidden
      ? (fn: () => void) => requestAnimationFrame(() => fn())
      : (fn: () => void) => setTimeout(fn, 16);

  const flush = () => {
    scheduled = false;
    if (pending.size === 0) return;
    const streaming = { ...get().streaming };
    for (const [messageId, p] of pending) {
      const prev: StreamingMessage | undefined = streaming[messageId];
      streaming[messageId] = { sessionId: p.sessionId, messageId, text: (prev?.text ?? '') + p.text };
    }
    pending.clear();
    set({ streaming });
  };

  return {
    push(sessionId: string, messageId: string, delta: string) {
      const p = pending.get(messageId);
      if (p) p.text += delta;
      else pending.set(messageId, { sessionId, text: delta });
      if (!scheduled) {
        scheduled = true;
        schedule(flush);
      }
    },
    drop(messageId: string) {
      pending.delete(messageId);
    },
    flush,
  };
}

export function createEventHandler(get: Get, set: Set): (e: AppEvent) => void {
  const deltas = createDeltaBuffer(get, set);

  return (e) => {
    // Anything but a delta changes the live state a chat.state answer in flight describes.
    if (e.type !== 'message.delta' && e.sessionId) bumpEpoch(e.sessionId);
    switch (e.type) {
      case 'message.delta': {
        if (!get().busy[e.sessionId]) set({ busy: { ...get().busy, [e.sessionId]: true } });
        deltas.push(e.sessionId, e.messageId, e.delta);
        return;
      }
      case 'message.complete': {
        deltas.drop(e.message.id);
        if (get().streaming[e.message.id]) {
          const { [e.message.id]: _done, ...rest } = get().streaming;
          set({ streaming: rest });
        }
        get().addMessage(e.message);
        return;
      }
      case 'tool.requested': {
        const prev = get().tools[e.toolCall.id];
        set({
          tools: {
            ...get().tools,
            [e.toolCall.id]: {
              sessionId: e.sessionId,
              needsApproval: e.needsApproval,
              durationMs: null,
              status: prev && prev.status !== 'waiting' ? prev.status : e.needsApproval ? 'waiting' : 'running',
              call: e.toolCall,
              messageId: e.messageId,
              ...(e.access ? { access: e.access } : {}),
              ...(e.gate ? { gate: e.gate } : {}),
            },
          },
        });
        return;
      }
      case 'tool.finished': {
        set({
          tools: {
            ...get().tools,
            // Committed: the history row draws the card from now on, so the entry drops the call
            // and its step (the list's pending-steps selector stays as small as what is in flight).
            [e.toolCallId]: {
              sessionId: e.sessionId,
              needsApproval: false,
              status: e.status,
              durationMs: e.durationMs,
            },
          },
        });
        get().addMessage(e.message);
        return;
      }
      case 'notice': {
        get().addMessage(e.message);
        // The persisted error notice replaces the transient error row (it carries the retry).
        if (e.message.kind === 'error_notice' && get().errors[e.sessionId])
          set({ errors: { ...get().errors, [e.sessionId]: null } });
        const parsed = parseNotice(e.message.content);
        if (parsed?.type === 'compaction') {
          void get().loadContext(e.sessionId);
        } else if (parsed?.type === 'runtime' && get().facts[e.sessionId]) {
          void get().loadMemory(e.sessionId);
        }
        return;
      }
      case 'compaction.started': {
        const { trigger, strategy, instructions, percent } = e;
        set({
          compacting: { ...get().compacting, [e.sessionId]: true },
          liveCompaction: {
            ...get().liveCompaction,
            [e.sessionId]: { trigger, strategy, instructions, percent, step: null },
          },
        });
        return;
      }
      case 'compaction.progress': {
        const live = get().liveCompaction[e.sessionId];
        if (live) set({ liveCompaction: { ...get().liveCompaction, [e.sessionId]: { ...live, step: e.step } } });
        return;
      }
      case 'compaction.finished':
      case 'compaction.failed': {
        set({
          compacting: { ...get().compacting, [e.sessionId]: false },
          liveCompaction: { ...get().liveCompaction, [e.sessionId]: null },
        });
        if (e.type === 'compaction.finished') {
          // The record and the messages it inserted replace the progress in place.
          const list = get().compactions[e.sessionId] ?? [];
          set({
            compactions: {
              ...get().compactions,
              [e.sessionId]: [...list.filter((c) => c.id !== e.compaction.id), e.compaction],
            },
          });
          void get().loadMessages(e.sessionId);
        }
        void get().loadContext(e.sessionId);
        return;
      }
      case 'usage': {
        set({ usage: { ...get().usage, [e.sessionId]: e.usage } });
        return;
      }
      case 'session.updated': {
        if (e.session === null) {
          set({ sessions: get().sessions.filter((s) => s.id !== e.sessionId) });
          if (get().activeSessionId === e.sessionId) void get().selectSession(get().sessions[0]?.id ?? null);
          return;
        }
        get().upsertSession(e.session);
        set({ busy: { ...get().busy, [e.sessionId]: e.busy } });
        if (!e.busy) {
          deltas.flush();
          // A finished turn leaves no streaming bubble and no progress behind.
          const streaming = Object.fromEntries(
            Object.entries(get().streaming).filter(([, s]) => s.sessionId !== e.sessionId),
          );
          const stored = new Set((get().messages[e.sessionId] ?? []).map((m) => m.id));
          set({
            streaming,
            compacting: { ...get().compacting, [e.sessionId]: false },
            liveCompaction: { ...get().liveCompaction, [e.sessionId]: null },
            tools: withoutUncommitted(get().tools, e.sessionId, stored),
          });
          // A new version (edit, regenerate, retry) ended: its versions come with the list.
          if (get().reloadAfterTurn[e.sessionId]) {
            set({ reloadAfterTurn: { ...get().reloadAfterTurn, [e.sessionId]: false } });
            void get()
              .loadMessages(e.sessionId)
              .catch(() => undefined);
          }
          // An open memory panel follows the turn even when memory notices are off.
          if (get().facts[e.sessionId])
            void get()
              .loadMemory(e.sessionId)
              .catch(() => undefined);
        }
        return;
      }
      case 'error': {
        if (!e.sessionId) {
          get().showToast(e.message);
          return;
        }
        const retryText = lastUserText(get().messages[e.sessionId] ?? []);
        set({
          errors: { ...get().errors, [e.sessionId]: { code: e.code, message: e.message, retryText, stored: true } },
          compacting: { ...get().compacting, [e.sessionId]: false },
          liveCompaction: { ...get().liveCompaction, [e.sessionId]: null },
        });
        return;
      }
    }
  };
}
