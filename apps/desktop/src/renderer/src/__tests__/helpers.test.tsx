import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { EMPTY_USAGE_TOTALS, ERROR_NOTICE_PREFIX, formatNotice, type HelperSummary } from '@threadline/protocol';
import '../i18n';
import { ChatView } from '../components/ChatView';
import { connectEvents, useAppStore } from '../store';
import { setBridge } from '../transport';
import { createFakeBridge } from './fakeBridge';
import { giveLayout, msg, seed, session, settings, usage } from './fixtures';

const helper = (p: Partial<HelperSummary> & Pick<HelperSummary, 'id' | 'index'>): HelperSummary => ({
  parentSessionId: 's1',
  toolCallId: 'call-d',
  task: `Task ${p.index + 1}`,
  role: 'explore',
  model: 'fake-model',
  tools: ['read_file'],
  status: 'running',
  toolCalls: [],
  usage: EMPTY_USAGE_TOTALS,
  returnedTokens: null,
  report: null,
  error: null,
  createdAt: 1,
  endedAt: null,
  ...p,
});

const delegateCall = msg({
  id: 'a1',
  seq: 2,
  role: 'assistant',
  content: '',
  tool_calls: [
    {
      id: 'call-d',
      type: 'function',
      function: { name: 'delegate', arguments: JSON.stringify({ tasks: [{ task: 'Task 1' }, { task: 'Task 2' }] }) },
    },
  ],
});

describe('helper rows', () => {
  let fake: ReturnType<typeof createFakeBridge>;
  let off: () => void;
  beforeEach(() => {
    giveLayout();
    fake = createFakeBridge({
      'chat.approve': () => ({ ok: true }),
      'messages.list': () => [],
      'chat.state': () => ({ busy: false, partial: null, pending: [] }),
      'rules.list': () => [],
    });
    setBridge(fake.bridge);
    off = connectEvents();
    useAppStore.setState(
      seed({
        settings: settings(),
        sessions: [session()],
        activeSessionId: 's1',
        messages: { s1: [msg({ id: 'u1', seq: 1, role: 'user', content: 'look around' }), delegateCall] },
        usage: { s1: usage() },
        compactions: { s1: [] },
        busy: { s1: true },
        tools: {},
      }),
    );
  });
  afterEach(() => {
    off();
    cleanup();
  });

  it('shows the tasks at once, then each helper as the runtime tells it, with a waiting card answered for the helper', async () => {
    render(<ChatView />);
    const card = screen.getByTestId('delegate-card');
    // Before the runtime stored them: the call's tasks, queued.
    expect(
      within(card)
        .getAllByTestId('helper-row')
        .map((r) => r.dataset.status),
    ).toEqual(['queued', 'queued']);
    await act(async () => {
      fake.emit({ type: 'helper.updated', sessionId: 's1', helper: helper({ id: 'h1', index: 0 }) });
      fake.emit({ type: 'helper.updated', sessionId: 's1', helper: helper({ id: 'h2', index: 1, status: 'queued' }) });
      // The first helper's call waits for the user: its own session's event.
      fake.emit({
        type: 'tool.requested',
        sessionId: 'h1',
        messageId: 'hm1',
        needsApproval: true,
        toolCall: { id: 'hc1', type: 'function', function: { name: 'shell', arguments: '{"command":"ls"}' } },
      });
    });
    const rows = within(card).getAllByTestId('helper-row');
    expect(rows.map((r) => r.dataset.status)).toEqual(['waiting', 'queued']);
    const waiting = within(rows[0]!).getByTestId('helper-waiting');
    expect(waiting.textContent).toContain('Helper 1 asks (Task 1)');
    await act(async () => {
      fireEvent.click(within(waiting).getByTestId('approve'));
    });
    expect(fake.calls.find((c) => c.route === 'chat.approve')?.input).toEqual({
      sessionId: 'h1',
      toolCallId: 'hc1',
      decision: 'approve',
    });
    // It ends: done, with what it ran and used; the row opens and closes.
    await act(async () => {
      fake.emit({
        type: 'helper.updated',
        sessionId: 's1',
        helper: helper({
          id: 'h1',
          index: 0,
          status: 'done',
          report: 'Found **it**.',
          toolCalls: [{ name: 'shell', count: 1 }],
          usage: { ...EMPTY_USAGE_TOTALS, calls: 2, promptTokens: 2000, completionTokens: 100 },
          returnedTokens: 40,
        }),
      });
    });
    const done = within(card).getAllByTestId('helper-row')[0]!;
    expect(done.dataset.status).toBe('done');
    expect(within(done).getByTestId('helper-tokens').textContent).toBe('2.1K tokens');
    expect(within(card).getByTestId('helper-totals').textContent).toBe('2 helpers: 2.1K tokens used, 40 returned');
    fireEvent.click(within(done).getByTestId('helper-head'));
    expect(within(done).getByTestId('helper-report').textContent).toContain('Found it.');
    expect(within(done).getByTestId('helper-ran').textContent).toBe('shell × 1');
    fireEvent.click(within(done).getByTestId('helper-head'));
    expect(within(done).queryByTestId('helper-body')).toBeNull();
    // With a price for its model, the row shows what it cost too.
    await act(async () => {
      fake.emit({
        type: 'helper.updated',
        sessionId: 's1',
        helper: helper({
          id: 'h2',
          index: 1,
          status: 'done',
          usage: { ...EMPTY_USAGE_TOTALS, calls: 1, promptTokens: 900, completionTokens: 100, cost: 0.0123 },
        }),
      });
    });
    expect(within(within(card).getAllByTestId('helper-row')[1]!).getByTestId('helper-tokens').textContent).toBe(
      '1.0K tokens · $0.012',
    );
  });

  it("a helper's session never joins the sessions list", async () => {
    await act(async () => {
      fake.emit({
        type: 'session.updated',
        sessionId: 'h1',
        busy: false,
        session: { ...session('h1', 'Task 1'), parentId: 's1' },
      });
    });
    expect(useAppStore.getState().sessions.map((s) => s.id)).toEqual(['s1']);
  });

  it('a notice that a crash stopped helpers shows them as they ended', () => {
    const notice = msg({
      id: 'n1',
      seq: 3,
      role: 'user',
      kind: 'error_notice',
      visibility: { user: true, agent: false },
      content: formatNotice(ERROR_NOTICE_PREFIX, {
        version: 'v1',
        type: 'helpers_interrupted',
        toolCallId: 'call-x',
        count: 1,
      }),
    });
    useAppStore.setState(
      seed({
        messages: { s1: [msg({ id: 'u1', seq: 1, role: 'user', content: 'look around' }), notice] },
        helpers: { s1: [helper({ id: 'h9', index: 0, toolCallId: 'call-x', status: 'interrupted' })] },
        busy: { s1: false },
        usage: { s1: usage() },
        compactions: { s1: [] },
      }),
    );
    render(<ChatView />);
    expect(screen.getByTestId('inline-error').textContent).toContain('Threadline stopped while a helper was working');
    expect(screen.getAllByTestId('helper-row').map((r) => r.dataset.status)).toEqual(['interrupted']);
  });
});
