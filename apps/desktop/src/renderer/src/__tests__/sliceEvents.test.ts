import { beforeEach, describe, expect, it, vi } from 'vitest';
import {
  COMPACTION_NOTICE_PREFIX,
  RUNTIME_NOTICE_PREFIX,
  formatNotice,
  type AppEvent,
  type ChatState,
  type CompactionNoticeType,
  type RuntimeNoticePayload,
} from '@threadline/protocol';
import type { StoreApi } from 'zustand';
import type { ProjectFact, ProjectMemory } from '@threadline/protocol';
import { connectEvents, createAppStore } from '../store';
import { chatEvents, createChatSlice } from '../store/chatSlice';
import { contextEvents, createContextSlice } from '../store/contextSlice';
import { createSessionsSlice, sessionsEvents } from '../store/sessionsSlice';
import { createSettingsSlice } from '../store/settingsSlice';
import { createUiSlice, uiEvents } from '../store/uiSlice';
import { CHAT_SESSION, CHECKPOINT_SESSION, CONTEXT_SESSION, EMPTY_SESSION } from '../store/sessionState';
import type { AppState, SessionState, SliceEvents } from '../store/types';
import { setBridge } from '../transport';
import { createFakeBridge } from './fakeBridge';
import { compaction, msg, session, usage, seed } from './fixtures';

/** The fields (and actions) each slice declares, read from the slice creators themselves. */
function fieldsOf(create: (set: never, get: never, api: never) => object): Set<string> {
  const get = () => ({}) as AppState;
  return new Set(Object.keys(create((() => undefined) as never, get as never, {} as StoreApi<AppState> as never)));
}
const FIELDS = {
  sessions: fieldsOf(createSessionsSlice),
  chat: fieldsOf(createChatSlice),
  context: fieldsOf(createContextSlice),
  settings: fieldsOf(createSettingsSlice),
  ui: fieldsOf(createUiSlice),
};
type SliceName = keyof typeof FIELDS;
const HANDLERS: Record<Exclude<SliceName, 'settings'>, SliceEvents> = {
  sessions: sessionsEvents,
  chat: chatEvents,
  context: contextEvents,
  ui: uiEvents,
};

/** Which slice owns each field of a session's state (`bySession[id]`). */
const SESSION_FIELDS: Record<string, SliceName | 'checkpoints'> = {
  ...Object.fromEntries(Object.keys(CHAT_SESSION).map((k) => [k, 'chat' as const])),
  ...Object.fromEntries(Object.keys(CONTEXT_SESSION).map((k) => [k, 'context' as const])),
  ...Object.fromEntries(Object.keys(CHECKPOINT_SESSION).map((k) => [k, 'checkpoints' as const])),
};

/** The fields that differ (by reference) between two states; a session's as `<id>.<field>`. */
function changedFields(before: AppState, after: AppState): string[] {
  const out: string[] = [];
  for (const key of Object.keys(after) as (keyof AppState)[]) {
    if (before[key] === after[key]) continue;
    if (key !== 'bySession') {
      out.push(key);
      continue;
    }
    for (const [id, s] of Object.entries(after.bySession)) {
      const prev = before.bySession[id] ?? EMPTY_SESSION;
      for (const field of Object.keys(s) as (keyof SessionState)[])
        if (prev[field] !== s[field]) out.push(`${id}.${field}`);
    }
  }
  return out;
}

/** Which slices' fields differ (by reference) between two states. */
function changedSlices(before: AppState, after: AppState): Set<SliceName | 'checkpoints'> {
  const out = new Set<SliceName | 'checkpoints'>();
  for (const key of changedFields(before, after)) {
    const field = key.includes('.') ? key.slice(key.indexOf('.') + 1) : key;
    const owner = key.includes('.')
      ? SESSION_FIELDS[field]
      : (Object.keys(FIELDS) as SliceName[]).find((n) => FIELDS[n].has(field));
    if (!owner) throw new Error(`no slice declares ${key}`);
    out.add(owner);
  }
  return out;
}

const call = { id: 'c1', type: 'function' as const, function: { name: 'shell', arguments: '{}' } };
const compactionNotice = (type: CompactionNoticeType) =>
  msg({
    id: `n-${type}`,
    seq: 50,
    role: 'user',
    kind: 'runtime_notice',
    visibility: { user: true, agent: false },
    content: formatNotice(COMPACTION_NOTICE_PREFIX, {
      version: 'v1',
      type,
      trigger: 'auto',
      strategy: 'cfpm_memory_v1',
    }),
  });

/** One event of every type, all about session s1 (and one error that belongs to no session). */
const EVENTS: AppEvent[] = [
  { type: 'message.delta', sessionId: 's1', messageId: 'a1', delta: 'Hel' },
  { type: 'message.complete', sessionId: 's1', message: msg({ id: 'a1', seq: 2, role: 'assistant', content: 'Hi' }) },
  { type: 'tool.requested', sessionId: 's1', toolCall: call, messageId: 'a1', needsApproval: true },
  {
    type: 'tool.finished',
    sessionId: 's1',
    toolCallId: 'c1',
    status: 'ok',
    durationMs: 3,
    message: msg({ id: 't1', seq: 3, role: 'tool', content: 'ok', tool_call_id: 'c1' }),
  },
  {
    type: 'notice',
    sessionId: 's1',
    message: msg({
      id: 'n1',
      seq: 4,
      role: 'user',
      kind: 'error_notice',
      content: '[THREADLINE_ERROR_V1] {"version":"v1","type":"turn_failed","message":"x"}',
    }),
  },
  { type: 'usage', sessionId: 's1', usage: usage({ percent: 77 }) },
  { type: 'session.updated', sessionId: 's1', session: session('s1'), busy: false },
  { type: 'session.updated', sessionId: 's1', session: null, busy: false },
  { type: 'error', sessionId: 's1', code: 'provider_error', message: 'rate limited' },
  { type: 'error', sessionId: null, code: 'internal', message: 'the event stream broke' },
  {
    type: 'compaction.started',
    sessionId: 's1',
    trigger: 'manual',
    strategy: 'cfpm_memory_v1',
    instructions: null,
    percent: null,
  },
  { type: 'compaction.progress', sessionId: 's1', step: 'summarize' },
  { type: 'compaction.finished', sessionId: 's1', compaction: compaction({ id: 'c9' }) },
  { type: 'compaction.failed', sessionId: 's1', reason: 'did_not_reduce', cancelled: false },
  { type: 'compaction.undone', sessionId: 's1', compaction: compaction({ id: 'c9', active: false }) },
  { type: 'provider.retrying', sessionId: 's1', attempt: 1, maxRetries: 3, delayMs: 20_000, reason: 'rate_limit' },
  { type: 'memory.updated', sessionId: 's1' },
];

/** A store with something in every slice an event could touch: a turn half done, a compaction running. */
function busyStore() {
  const store = createAppStore();
  store.setState(
    seed({
      sessions: [session('s1'), session('s2', 'Second')],
      activeSessionId: 's1',
      busy: {},
      messages: { s1: [msg({ id: 'u1', seq: 1, role: 'user', content: 'hi' })] },
      streaming: { a1: { sessionId: 's1', messageId: 'a1', text: 'He' } },
      tools: { c0: { sessionId: 's1', status: 'running', needsApproval: false, durationMs: null, messageId: 'a0' } },
      errors: { s1: { code: 'x', message: 'x', retryText: null, stored: true } },
      compacting: { s1: true },
      liveCompaction: {
        s1: { trigger: 'auto', strategy: 'cfpm_memory_v1', instructions: null, percent: 80, step: null },
      },
      compactions: { s1: [compaction({ id: 'c9' })] },
      facts: { s1: [] },
    }),
  );
  return store;
}

describe('slices own their events', () => {
  let fake: ReturnType<typeof createFakeBridge>;
  beforeEach(() => {
    fake = createFakeBridge({
      'messages.list': () => [msg({ id: 'u1', seq: 1, role: 'user', content: 'hi' })],
      'context.usage': () => usage(),
      'compaction.list': () => [],
      'memory.facts.list': () => [],
      'memory.candidates.list': () => [],
    });
    setBridge(fake.bridge);
  });

  it("a slice's handler writes its own fields and no other slice's, whatever the event", () => {
    const wrote = new Map<string, Set<SliceName>>();
    for (const [name, events] of Object.entries(HANDLERS)) {
      for (const e of EVENTS) {
        const store = busyStore();
        const before = store.getState();
        events(store.getState, store.setState)(e);
        const changed = changedSlices(before, store.getState());
        expect(
          [...changed].filter((n) => n !== name),
          `${name} on ${e.type}`,
        ).toEqual([]);
        if (changed.size) wrote.set(e.type, new Set([...(wrote.get(e.type) ?? []), name as SliceName]));
      }
    }
    // Not vacuous: the owners did apply their events.
    expect([...(wrote.get('tool.requested') ?? [])]).toEqual(['chat']);
    expect([...(wrote.get('usage') ?? [])]).toEqual(['context']);
    expect([...(wrote.get('compaction.started') ?? [])]).toEqual(['context']);
    // Whether a session is busy is the chat slice's (a delta says a turn runs).
    expect([...(wrote.get('message.delta') ?? [])]).toEqual(['chat']);
    expect([...(wrote.get('error') ?? [])].sort()).toEqual(['chat', 'context', 'ui']);
    expect([...(wrote.get('session.updated') ?? [])].sort()).toEqual(['chat', 'context', 'sessions']);
  });

  it('the dispatcher adds only the live epoch: a usage event changes the context slice and nothing else', () => {
    const store = busyStore();
    connectEvents(store);
    const before = store.getState();
    fake.emit({ type: 'usage', sessionId: 's1', usage: usage({ percent: 91 }) });
    const after = store.getState();
    expect(after.bySession.s1?.usage?.percent).toBe(91);
    expect(changedFields(before, after).sort()).toEqual(['s1.liveEpoch', 's1.usage']);
  });
});

describe('compaction state comes from the typed events only', () => {
  let fake: ReturnType<typeof createFakeBridge>;
  let store: ReturnType<typeof createAppStore>;
  beforeEach(() => {
    fake = createFakeBridge({
      'messages.list': () => [msg({ id: 'u1', seq: 1, role: 'user', content: 'hi' })],
      'context.usage': () => usage(),
      'compaction.list': () => [],
    });
    setBridge(fake.bridge);
    store = createAppStore();
    connectEvents(store);
    store.setState(seed({ messages: { s1: [] } }));
  });

  it('started, progress and finished run the divider with no notice in the conversation', () => {
    fake.emit({
      type: 'compaction.started',
      sessionId: 's1',
      trigger: 'recovery',
      strategy: 'cfpm_memory_v1',
      instructions: null,
      percent: null,
    });
    expect(store.getState().bySession.s1?.compacting).toBe(true);
    fake.emit({ type: 'compaction.progress', sessionId: 's1', step: 'memory_checkpoint' });
    expect(store.getState().bySession.s1?.liveCompaction).toMatchObject({
      trigger: 'recovery',
      step: 'memory_checkpoint',
    });
    fake.emit({
      type: 'compaction.finished',
      sessionId: 's1',
      compaction: compaction({ id: 'c3', trigger: 'recovery' }),
    });
    expect(store.getState().bySession.s1?.compacting).toBe(false);
    expect(store.getState().bySession.s1?.liveCompaction).toBeNull();
    expect(store.getState().bySession.s1?.compactions?.map((c) => c.id)).toEqual(['c3']);
    expect(store.getState().bySession.s1?.messages?.some((m) => m.kind !== 'normal')).toBe(false);
  });

  it('a notice that reads like a compaction changes no compaction state and reloads nothing', async () => {
    fake.emit({
      type: 'compaction.started',
      sessionId: 's1',
      trigger: 'auto',
      strategy: 'cfpm_memory_v1',
      instructions: null,
      percent: 85,
    });
    const running = store.getState().bySession.s1?.liveCompaction;
    const records = store.getState().bySession.s1?.compactions;
    const calls = fake.calls.length;
    for (const type of ['compacted', 'compaction_failed', 'undone', 'nothing_to_compact', 'auto_paused'] as const)
      fake.emit({ type: 'notice', sessionId: 's1', message: compactionNotice(type) });
    // An event's handler asks the host (if at all) while it handles the event: the fake bridge
    // records a call when it is made, so what it holds now is all the notices asked.
    expect(store.getState().bySession.s1?.compacting).toBe(true);
    expect(store.getState().bySession.s1?.liveCompaction).toBe(running);
    expect(store.getState().bySession.s1?.compactions).toBe(records);
    // The notices are in the conversation (as chips), and nothing was asked of the host.
    expect(store.getState().bySession.s1?.messages).toHaveLength(5);
    expect(fake.calls.slice(calls)).toEqual([]);
  });

  it('memory.updated refreshes an open memory panel; a memory notice alone asks nothing', async () => {
    const fake2 = createFakeBridge({ 'memory.facts.list': () => [], 'memory.candidates.list': () => [] });
    setBridge(fake2.bridge);
    const s = createAppStore();
    connectEvents(s);
    s.setState(seed({ messages: { s1: [] }, facts: { s1: [] } }));
    const payload: RuntimeNoticePayload = {
      version: 'v1',
      verbosity: 'brief',
      reason: 'turn_start',
      mode: 'merge',
      acceptedCount: 1,
      rejectedCount: 0,
      prunedCount: 0,
      factCount: 1,
      rejectedReasonBreakdown: {},
    };
    const content = formatNotice(RUNTIME_NOTICE_PREFIX, payload);
    fake2.emit({
      type: 'notice',
      sessionId: 's1',
      message: msg({ id: 'r1', seq: 1, role: 'user', kind: 'runtime_notice', content }),
    });
    // Calls are recorded as they are made, while the event is handled.
    expect(fake2.calls).toEqual([]);
    fake2.emit({ type: 'memory.updated', sessionId: 's1' });
    await vi.waitFor(() =>
      expect(fake2.calls.map((c) => c.route).sort()).toEqual(['memory.candidates.list', 'memory.facts.list']),
    );
    // A session whose memory panel was never opened loads nothing.
    fake2.emit({ type: 'memory.updated', sessionId: 's2' });
    expect(fake2.calls).toHaveLength(2);
  });
});

describe('project memory', () => {
  const memory = (project: string | null, facts: ProjectFact[] = []): ProjectMemory => ({
    project,
    facts,
    enabled: true,
  });
  it('project.updated reloads the project of every open session there (and of one whose folder had none), no other', async () => {
    const fake = createFakeBridge({ 'project.get': () => memory('/p') });
    setBridge(fake.bridge);
    const s = createAppStore();
    connectEvents(s);
    s.setState(seed({ project: { s1: memory('/p'), s2: memory('/q'), s3: memory(null) } }));
    fake.emit({ type: 'project.updated', project: '/p', inbox: 2 });
    await vi.waitFor(() =>
      expect(fake.calls.map((c) => [c.route, (c.input as { sessionId: string }).sessionId]).sort()).toEqual([
        ['project.get', 's1'],
        ['project.get', 's3'],
      ]),
    );
    // It changes no live state (the epoch a chat.state answer is checked against).
    expect(s.getState().bySession.s1?.liveEpoch ?? 0).toBe(0);
  });
});

describe('the live epoch lives in the store', () => {
  it('every event but a delta moves the epoch of its session', () => {
    const fake = createFakeBridge({});
    setBridge(fake.bridge);
    const store = createAppStore();
    connectEvents(store);
    store.setState(seed({ messages: { s1: [] } }));
    fake.emit({ type: 'message.delta', sessionId: 's1', messageId: 'a1', delta: 'x' });
    expect(store.getState().bySession.s1?.liveEpoch).toBe(0);
    fake.emit({ type: 'tool.requested', sessionId: 's1', toolCall: call, messageId: 'a1', needsApproval: true });
    fake.emit({ type: 'usage', sessionId: 's1', usage: usage() });
    expect(store.getState().bySession.s1?.liveEpoch).toBe(2);
  });

  it('a stale chat.state answer is joined for its text only: its calls and busy are ignored', async () => {
    let answer: (s: ChatState) => void = () => undefined;
    const fake = createFakeBridge({ 'chat.state': () => new Promise<ChatState>((r) => (answer = r)) });
    setBridge(fake.bridge);
    const store = createAppStore();
    connectEvents(store);
    store.setState(seed({ messages: { s1: [] } }));
    const loading = store.getState().loadChatState('s1');
    // While the answer is on its way the page streams on, and the call it will describe is answered.
    fake.emit({ type: 'message.delta', sessionId: 's1', messageId: 'a1', delta: 'world!' });
    await vi.waitFor(() => expect(store.getState().streaming.a1?.text).toBe('world!'));
    fake.emit({
      type: 'tool.requested',
      sessionId: 's1',
      toolCall: { ...call, id: 'c2' },
      messageId: 'a1',
      needsApproval: false,
    });
    answer({
      busy: false,
      partial: { messageId: 'a1', text: 'Hello wor' },
      pending: [{ toolCall: call, messageId: 'a1', needsApproval: true, status: 'waiting' }],
    });
    await loading;
    const st = store.getState();
    expect(st.streaming.a1?.text).toBe('Hello world!');
    expect(st.bySession.s1?.busy).toBe(true);
    expect(st.tools.c1).toBeUndefined();
    expect(st.tools.c2?.status).toBe('running');
  });

  it("one store's events do not make another store's answer stale", async () => {
    const fake = createFakeBridge({
      'chat.state': (): ChatState => ({ busy: true, partial: null, pending: [] }),
    });
    setBridge(fake.bridge);
    const window1 = createAppStore();
    const window2 = createAppStore();
    connectEvents(window1);
    window2.setState(seed({ messages: { s1: [] } }));
    const loading = window2.getState().loadChatState('s1');
    // Only window 1 hears this event; window 2's answer is still the newest it knows.
    fake.emit({ type: 'usage', sessionId: 's1', usage: usage() });
    await loading;
    expect(window1.getState().bySession.s1?.liveEpoch).toBe(1);
    expect(window2.getState().bySession.s1?.busy).toBe(true);
  });
});
