import type { StateCreator } from 'zustand';
import type { ChatState, StoredMessage } from '@threadline/protocol';
import { errorMessage, pendingToolCall, CHAT_TEXT_MAX } from '@threadline/protocol';
import i18n from '../i18n';
import { call } from '../transport';
import {
  joinStream,
  pendingToolState,
  lastUserText,
  mergeMessage,
  throughLastRequest,
  withoutUncommitted,
} from './chatLists';
import { createDeltaBuffer } from './deltaBuffer';
import { sessionOf } from './sessionState';
import { hasHelpers } from './helperSlice';
import type { AppState, ChatSessionState, ChatSlice, SliceEvents } from './types';

const errMessage = (err: unknown) => errorMessage(err);
const errCode = (err: unknown) => (err && typeof err === 'object' && 'code' in err ? String(err.code) : 'internal');

type Get = () => AppState;

/** The chat slice writes only its own fields of a session. */
const patchChat = (
  get: Get,
  sessionId: string,
  patch: Partial<ChatSessionState> | ((s: ChatSessionState) => Partial<ChatSessionState>),
): void => get().patchSession(sessionId, patch);

/** Ids of queued messages (local to this page). */
let queueSeq = 0;

/**
 * A turn ended: the oldest queued message is sent, unless the turn ended badly (an error, or the
 * user stopped it): then the queue waits, visible, for the user to send or drop what is in it.
 */
function sendNextQueued(get: Get, sessionId: string): void {
  const s = sessionOf(get(), sessionId);
  const next = s.queued[0];
  if (!next || s.busy) return;
  const last = (s.messages ?? []).at(-1);
  if (s.error || last?.kind === 'error_notice' || last?.kind === 'turn_aborted') return;
  get().unqueue(sessionId, next.id);
  void get().send(sessionId, next.text, next.attachments);
}

/**
 * Edit, regenerate, retry: the transcript drops what the new version replaces at once, the host
 * starts the turn, and the list (with its versions) is reloaded now and when the turn ends.
 */
async function branchOp(
  get: Get,
  sessionId: string,
  keep: (list: StoredMessage[]) => StoredMessage[],
  op: () => Promise<unknown>,
): Promise<boolean> {
  const before = sessionOf(get(), sessionId).messages ?? [];
  patchChat(get, sessionId, { error: null, busy: true, messages: keep(before), reloadAfterTurn: true });
  try {
    await op();
  } catch (err) {
    patchChat(get, sessionId, { busy: false, messages: before, reloadAfterTurn: false });
    get().showToast(errMessage(err));
    return false;
  }
  await Promise.all([get().loadMessages(sessionId), get().loadContext(sessionId)]).catch(() => undefined);
  return true;
}

const tooLarge = (): string => i18n.t('chat.paste.tooLarge', { max: CHAT_TEXT_MAX.toLocaleString(i18n.language) });

/** A text over CHAT_TEXT_MAX as its beginning and end around a marker, within the limit. */
export function cutPaste(text: string): string {
  const half = Math.floor((CHAT_TEXT_MAX - 200) / 2);
  let head = text.slice(0, half);
  let tail = text.slice(text.length - half);
  // Never split a surrogate pair.
  if (/[\ud800-\udbff]$/.test(head)) head = head.slice(0, -1);
  if (/^[\udc00-\udfff]/.test(tail)) tail = tail.slice(1);
  const left = text.length - head.length - tail.length;
  return `${head}\n…${left} chars left out before sending (over ${CHAT_TEXT_MAX} characters)…\n${tail}`;
}

export const createChatSlice: StateCreator<AppState, [], [], ChatSlice> = (set, get) => ({
  streaming: {},
  tools: {},
  rulesVersion: 0,

  enqueue(sessionId, text, attachments = []) {
    const trimmed = text.trim();
    if (!trimmed && attachments.length === 0) return;
    queueSeq += 1;
    const item = { id: `q${queueSeq}`, text: trimmed, attachments: [...attachments] };
    patchChat(get, sessionId, (s) => ({ queued: [...s.queued, item] }));
  },

  unqueue(sessionId, id) {
    const list = sessionOf(get(), sessionId).queued;
    const item = list.find((q) => q.id === id) ?? null;
    if (item) patchChat(get, sessionId, { queued: list.filter((q) => q !== item) });
    return item;
  },

  bumpLiveEpoch(sessionId) {
    patchChat(get, sessionId, (s) => ({ liveEpoch: s.liveEpoch + 1 }));
  },

  async loadMessages(sessionId) {
    const list = await call('messages.list', { sessionId });
    const sorted = [...list].sort((a, b) => a.seq - b.seq);
    // Tool results carry their status/duration in meta; rebuild the tool states from them.
    const tools = { ...get().tools };
    for (const m of sorted) {
      if (m.role !== 'tool' || !m.tool_call_id) continue;
      const meta = m.meta ?? {};
      const status = typeof meta.status === 'string' ? meta.status : meta.ok === false ? 'error' : 'ok';
      tools[m.tool_call_id] = {
        sessionId,
        status: (['ok', 'error', 'denied', 'aborted'].includes(status) ? status : 'ok') as 'ok',
        needsApproval: false,
        durationMs: typeof meta.durationMs === 'number' ? meta.durationMs : null,
      };
    }
    // Messages that events added while the list was on its way are newer than it: keep them.
    const lastSeq = sorted.at(-1)?.seq ?? -1;
    const fetched = new Set(sorted.map((m) => m.id));
    const later = (sessionOf(get(), sessionId).messages ?? []).filter((m) => m.seq > lastSeq && !fetched.has(m.id));
    set({ tools });
    patchChat(get, sessionId, { messages: later.length ? [...sorted, ...later] : sorted });
    await Promise.all([
      get().loadChatState(sessionId),
      get().loadRules(sessionId),
      // The rows of its helpers (the delegate tool), when it has any to show.
      ...(hasHelpers(sorted) ? [get().loadHelpers(sessionId)] : []),
    ]);
  },

  async loadChatState(sessionId) {
    // What history cannot tell: a turn running (or waiting for an approval) since before this
    // page loaded or the event stream reconnected. Without it the call could never be answered.
    let state: ChatState;
    const asked = sessionOf(get(), sessionId).liveEpoch;
    try {
      state = await call('chat.state', { sessionId });
    } catch {
      return; // an older host without the route: history alone, as before
    }
    const streaming = { ...get().streaming };
    const stored = new Set((sessionOf(get(), sessionId).messages ?? []).map((m) => m.id));
    if (state.partial && !stored.has(state.partial.messageId)) {
      const live = streaming[state.partial.messageId]?.text ?? '';
      streaming[state.partial.messageId] = {
        sessionId,
        messageId: state.partial.messageId,
        text: joinStream(state.partial.text, live),
      };
    }
    if (sessionOf(get(), sessionId).liveEpoch !== asked) {
      // Events moved on while the answer was on its way (the turn may even have ended): they
      // are the newer truth for busy and the calls; only the streamed text is merged.
      set({ streaming });
      return;
    }
    const tools = { ...get().tools };
    for (const p of state.pending) {
      const prev = tools[p.toolCall.id];
      const status = prev && prev.status !== 'waiting' && prev.status !== 'running' ? prev.status : p.status;
      tools[p.toolCall.id] = pendingToolState(sessionId, p, status);
    }
    set({ tools: state.busy ? tools : withoutUncommitted(tools, sessionId, stored), streaming });
    patchChat(get, sessionId, { busy: state.busy });
    // A compaction that began before this page loaded is shown in place all the same.
    get().showLiveCompaction(sessionId, state.compaction ?? null);
  },

  async send(sessionId, text, attachments) {
    let trimmed = text.trim();
    const files = attachments ?? [];
    if (!trimmed && files.length === 0) return false;
    // Over what chat.send takes: the beginning and the end are sent, with a marker.
    if (trimmed.length > CHAT_TEXT_MAX) {
      trimmed = cutPaste(trimmed);
      get().showToast(tooLarge());
    }
    patchChat(get, sessionId, { error: null, busy: true });
    try {
      const res = await call('chat.send', {
        sessionId,
        text: trimmed,
        ...(files.length > 0 ? { attachments: files } : {}),
      });
      // The user message normally arrives as an event; fetch it if it has not.
      const have = (sessionOf(get(), sessionId).messages ?? []).some((m) => m.id === res.userMessageId);
      if (!have)
        void get()
          .loadMessages(sessionId)
          .catch(() => undefined);
      return true;
    } catch (err) {
      patchChat(get, sessionId, {
        busy: false,
        error: {
          code: errCode(err),
          // The server's body limit answers with the same sentence, in the user's language here.
          message: errCode(err) === 'too_large' ? tooLarge() : errMessage(err),
          retryText: trimmed,
          stored: false,
        },
      });
      return false;
    }
  },

  async cancel(sessionId) {
    try {
      await call('chat.cancel', { sessionId });
    } catch (err) {
      get().showToast(errMessage(err));
    }
  },

  async loadRules(sessionId) {
    const list = await call('rules.list', { sessionId }).catch(() => null);
    if (list) patchChat(get, sessionId, { rules: list });
  },

  async revokeRule(id) {
    try {
      await call('rules.remove', { id });
    } catch (err) {
      get().showToast(errMessage(err));
    }
  },

  async approve(sessionId, toolCallId, decision, opts = {}) {
    const { remember, useOriginal, reason } = opts;
    const prev = get().tools[toolCallId];
    set({
      tools: {
        ...get().tools,
        [toolCallId]: {
          ...prev,
          sessionId,
          needsApproval: false,
          durationMs: prev?.durationMs ?? null,
          status: decision === 'approve' ? 'running' : 'denied',
        },
      },
    });
    try {
      await call('chat.approve', {
        sessionId,
        toolCallId,
        decision,
        ...(remember ? { remember } : {}),
        ...(useOriginal ? { useOriginal } : {}),
        ...(decision === 'deny' && reason?.trim() ? { reason: reason.trim() } : {}),
      });
      return true;
    } catch (err) {
      if (prev) set({ tools: { ...get().tools, [toolCallId]: prev } });
      get().showToast(errMessage(err));
      return false;
    }
  },

  async retry(sessionId) {
    const e = sessionOf(get(), sessionId).error;
    patchChat(get, sessionId, { error: null });
    // Refused before it was stored: send it (once). Stored: the same message is answered again.
    if (e && !e.stored && e.retryText) {
      await get().send(sessionId, e.retryText);
      return;
    }
    await branchOp(get, sessionId, throughLastRequest, () => call('chat.retry', { sessionId }));
  },

  async edit(sessionId, messageId, text) {
    const trimmed = text.trim();
    if (!trimmed) return false;
    return branchOp(
      get,
      sessionId,
      (list) =>
        list.slice(
          0,
          Math.max(
            0,
            list.findIndex((m) => m.id === messageId),
          ),
        ),
      () => call('chat.edit', { sessionId, messageId, text: trimmed }),
    );
  },

  async regenerate(sessionId) {
    await branchOp(get, sessionId, throughLastRequest, () => call('chat.regenerate', { sessionId }));
  },

  async switchBranch(sessionId, messageId) {
    try {
      const list = await call('branches.switch', { sessionId, messageId });
      patchChat(get, sessionId, { messages: list });
      await get().loadContext(sessionId);
    } catch (err) {
      get().showToast(errMessage(err));
    }
  },

  focus: null,

  async openMessage(sessionId, messageId) {
    if (get().activeSessionId !== sessionId) await get().selectSession(sessionId);
    // A hit on another branch: show that branch first.
    if (!(sessionOf(get(), sessionId).messages ?? []).some((m) => m.id === messageId))
      await get().switchBranch(sessionId, messageId);
    set({ focus: { sessionId, messageId, nonce: (get().focus?.nonce ?? 0) + 1 } });
  },

  dismissError(sessionId) {
    patchChat(get, sessionId, { error: null });
  },

  addMessage(m) {
    const list = get().bySession[m.sessionId]?.messages;
    if (!list) return; // not loaded: it will come with messages.list
    patchChat(get, m.sessionId, { messages: mergeMessage(list, m) });
  },

  abortLive() {
    const tools = { ...get().tools };
    for (const [id, t] of Object.entries(tools))
      if (t.status === 'running' || t.status === 'waiting') tools[id] = { ...t, status: 'aborted' };
    set({ tools, streaming: {} });
    for (const [id, s] of Object.entries(get().bySession)) if (s.busy) patchChat(get, id, { busy: false });
  },
});

/**
 * The chat slice's part of the event stream: streamed text, committed messages, tool calls, the
 * inline error, and what a finished turn leaves behind.
 */
export const chatEvents: SliceEvents = (get, set) => {
  const deltas = createDeltaBuffer(get, set);
  /** Something came from the provider (or the turn ended): the retry is over. */
  const retried = (sessionId: string): void => {
    if (get().bySession[sessionId]?.retrying) patchChat(get, sessionId, { retrying: null });
  };
  return (e) => {
    switch (e.type) {
      case 'provider.retrying': {
        const { type: _type, sessionId, ...status } = e;
        patchChat(get, sessionId, { retrying: status });
        return;
      }
      case 'message.delta':
        if (!get().bySession[e.sessionId]?.busy) patchChat(get, e.sessionId, { busy: true });
        retried(e.sessionId);
        deltas.push(e.sessionId, e.messageId, e.delta, e.reasoning === true);
        return;
      case 'message.complete': {
        retried(e.message.sessionId);
        deltas.drop(e.message.id);
        if (get().streaming[e.message.id]) {
          const { [e.message.id]: _done, ...rest } = get().streaming;
          set({ streaming: rest });
        }
        get().addMessage(e.message);
        return;
      }
      case 'tool.requested': {
        retried(e.sessionId);
        const prev = get().tools[e.toolCall.id];
        const pending = pendingToolCall(e);
        const status = prev && prev.status !== 'waiting' ? prev.status : pending.status;
        set({ tools: { ...get().tools, [e.toolCall.id]: pendingToolState(e.sessionId, pending, status) } });
        return;
      }
      case 'rules.changed': {
        set({ rulesVersion: get().rulesVersion + 1 });
        // The rules in force for every open session may have changed (a folder or everywhere rule).
        for (const id of Object.keys(get().bySession))
          if (sessionOf(get(), id).rules !== undefined) void get().loadRules(id);
        return;
      }
      case 'tool.finished':
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
      case 'notice':
        get().addMessage(e.message);
        // The persisted error notice replaces the transient error row (it carries the retry).
        if (e.message.kind === 'error_notice' && get().bySession[e.sessionId]?.error)
          patchChat(get, e.sessionId, { error: null });
        return;
      case 'compaction.finished':
        // The messages it inserted (summary, memory checkpoint) come with the list.
        void get()
          .loadMessages(e.sessionId)
          .catch(() => undefined);
        return;
      case 'session.updated': {
        if (e.session === null) return;
        patchChat(get, e.sessionId, { busy: e.busy });
        if (e.busy) return;
        retried(e.sessionId);
        deltas.flush();
        // A finished turn leaves no streaming bubble and no pending card behind.
        const streaming = Object.fromEntries(
          Object.entries(get().streaming).filter(([, s]) => s.sessionId !== e.sessionId),
        );
        const stored = new Set((get().bySession[e.sessionId]?.messages ?? []).map((m) => m.id));
        set({ streaming, tools: withoutUncommitted(get().tools, e.sessionId, stored) });
        // A new version (edit, regenerate, retry) ended: its versions come with the list.
        if (get().bySession[e.sessionId]?.reloadAfterTurn) {
          patchChat(get, e.sessionId, { reloadAfterTurn: false });
          void get()
            .loadMessages(e.sessionId)
            .catch(() => undefined);
        }
        // After this event's other handlers: the next queued message.
        queueMicrotask(() => sendNextQueued(get, e.sessionId));
        return;
      }
      case 'error': {
        if (!e.sessionId) return;
        retried(e.sessionId);
        const retryText = lastUserText(get().bySession[e.sessionId]?.messages ?? []);
        patchChat(get, e.sessionId, { error: { code: e.code, message: e.message, retryText, stored: true } });
        return;
      }
    }
  };
};
