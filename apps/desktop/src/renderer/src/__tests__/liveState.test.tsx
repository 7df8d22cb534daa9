import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import i18n from '../i18n';
import {
  ERROR_NOTICE_PREFIX,
  formatNotice,
  type ChatState,
  type Rule,
  type RuleMatch,
  type RuleNote,
  type RuleOptions,
} from '@threadline/protocol';
import { ToolCallCard } from '../components/ToolCallCard';
import { SessionRules } from '../components/SessionRules';
import { MessageRow } from '../components/MessageRow';
import { errorNoticeText, reasonText } from '../lib/reasons';
import { connectEvents, createAppStore, useAppStore } from '../store';
import { joinStream } from '../store/chatLists';
import { setBridge } from '../transport';
import { createFakeBridge } from './fakeBridge';
import { msg, seed } from './fixtures';

const call = {
  id: 'c1',
  type: 'function' as const,
  function: { name: 'shell', arguments: '{"command":"ls ~/Desktop"}' },
};

describe('a renderer that loads while a turn runs', () => {
  it('learns from chat.state that the session is busy, what streamed and which call waits for approval', async () => {
    const state: ChatState = {
      busy: true,
      partial: { messageId: 'a1', text: 'Let me look.' },
      pending: [{ toolCall: call, messageId: 'a1', needsApproval: true, status: 'waiting' }],
    };
    const fake = createFakeBridge({
      'messages.list': () => [msg({ id: 'u1', seq: 1, role: 'user', content: 'check' })],
      'chat.state': () => state,
    });
    setBridge(fake.bridge);
    const store = createAppStore();
    await store.getState().loadMessages('s1');
    const st = store.getState();
    expect(st.bySession.s1?.busy).toBe(true);
    expect(st.streaming.a1?.text).toBe('Let me look.');
    expect(st.tools.c1).toMatchObject({ status: 'waiting', needsApproval: true, call, messageId: 'a1' });
  });

  it('keeps working with a host that has no chat.state route', async () => {
    const fake = createFakeBridge({ 'messages.list': () => [] });
    setBridge(fake.bridge);
    const store = createAppStore();
    await store.getState().loadMessages('s1');
    expect(store.getState().bySession.s1?.busy).toBe(false);
  });
});

describe('localized errors and reasons', () => {
  afterEach(async () => {
    cleanup();
    await i18n.changeLanguage('en');
  });

  it('error notices of the runtime read in the user language; other text stays as it is', async () => {
    const doom = formatNotice(ERROR_NOTICE_PREFIX, { version: 'v1', type: 'doom_loop', tool: 'shell', limit: 3 });
    expect(errorNoticeText(doom, i18n.t)).toBe(
      'Stopped: the agent called shell with the same arguments 3 times in a row.',
    );
    await i18n.changeLanguage('zh-CN');
    expect(errorNoticeText(doom, i18n.t)).toBe('已停止：智能体连续 3 次以相同参数调用 shell。');
    expect(errorNoticeText('plain old text', i18n.t)).toBe('plain old text');
    const provider = formatNotice(ERROR_NOTICE_PREFIX, {
      version: 'v1',
      type: 'provider_error',
      message: '429 Too Many Requests',
    });
    render(
      <MessageRow
        sessionId="s1"
        row={{
          kind: 'error',
          key: 'e',
          msg: msg({ id: 'e', seq: 3, role: 'user', kind: 'error_notice', content: provider }),
          retryable: false,
        }}
      />,
    );
    // An untyped provider notice (stored before notices had a kind) is its own one sentence.
    expect(screen.getByTestId('inline-error').textContent).toContain('429 Too Many Requests');
    expect(screen.getByTestId('open-profile').textContent).toBe('检查服务商配置');
    const typed = formatNotice(ERROR_NOTICE_PREFIX, {
      version: 'v1',
      type: 'provider_error',
      message: 'Could not reach the provider (connect ECONNREFUSED 127.0.0.1:9).',
      kind: 'network',
      detail: 'connect ECONNREFUSED 127.0.0.1:9',
    });
    expect(errorNoticeText(typed, i18n.t)).toBe('无法连接到服务商地址（connect ECONNREFUSED 127.0.0.1:9）。');
    await i18n.changeLanguage('en');
    expect(errorNoticeText(typed, i18n.t)).toBe(
      'Could not reach the provider at its address (connect ECONNREFUSED 127.0.0.1:9).',
    );
    await i18n.changeLanguage('zh-CN');
  });

  it('reason codes become sentences; unknown ones are shown as they are', () => {
    expect(reasonText('target_not_reached', i18n.t)).toMatch(/over the target/);
    expect(reasonText('summary_failed: socket hang up', i18n.t)).toBe('the summary request failed (socket hang up)');
    expect(reasonText('something new', i18n.t)).toBe('something new');
    expect(reasonText(null, i18n.t)).toBe('');
  });
});

describe('tool card', () => {
  let fake: ReturnType<typeof createFakeBridge>;
  beforeEach(() => {
    fake = createFakeBridge({ 'messages.fullOutput': () => ({ text: 'line 1\nline 2\nthe very end' }) });
    setBridge(fake.bridge);
    useAppStore.setState(seed({ tools: {}, busy: {} }));
  });
  afterEach(cleanup);

  it('fetches a truncated output in full on request, and shows what the gate ran instead', async () => {
    const result = msg({
      id: 't1',
      seq: 3,
      role: 'tool',
      tool_call_id: 'c1',
      content: 'Total output lines: 3\nline 1\n…12 tokens truncated…',
      meta: { status: 'ok', truncated: true, ranArguments: '{"command":"ls /home/a/Desktop"}' },
    });
    render(<ToolCallCard sessionId="s1" call={call} result={result} />);
    fireEvent.click(screen.getByRole('button', { expanded: false }));
    expect(screen.getByTestId('tool-ran').textContent).toContain('/home/a/Desktop');
    await act(async () => {
      fireEvent.click(screen.getByTestId('tool-show-full'));
    });
    expect(fake.calls.at(-1)).toEqual({ route: 'messages.fullOutput', input: { id: 't1' } });
    expect(screen.getByTestId('tool-output').textContent).toContain('the very end');
  });
});

describe('rules on an approval card', () => {
  afterEach(cleanup);
  const options: RuleOptions = {
    parts: [
      {
        options: [
          { kind: 'command', tool: 'shell', words: ['ls', '~/Desktop'], more: false, sandbox: 'also_outside' },
          { kind: 'command', tool: 'shell', words: ['ls'], more: true, sandbox: 'also_outside' },
        ],
        preferred: 1,
      },
    ],
    folder: '/home/u/Threadline',
  };
  const saved = (decision: 'allow' | 'deny', match: RuleMatch): Rule => ({
    id: 'r1',
    decision,
    match,
    scope: { kind: 'folder', folder: '/home/u/Threadline' },
    reason: null,
    origin: { kind: 'card', sessionId: 's1', sessionTitle: 'First', toolCallId: 'c1' },
    createdAt: 1,
    updatedAt: 1,
    hits: 0,
    lastHitAt: null,
  });

  it('"Allow … in this folder" saves the match chosen; the header lists it and revokes it', async () => {
    let rules: Rule[] = [];
    const fake = createFakeBridge({
      'chat.approve': (i) => {
        const remember = i.remember as { matches: RuleMatch[] } | undefined;
        if (remember) rules = [saved('allow', remember.matches[0]!)];
        fake.emit({ type: 'rules.changed' });
        return { ok: true };
      },
      'rules.list': () => rules,
      'rules.remove': () => {
        rules = [];
        fake.emit({ type: 'rules.changed' });
        return { removed: true };
      },
    });
    setBridge(fake.bridge);
    connectEvents(useAppStore);
    useAppStore.setState(
      seed({
        tools: {
          c1: { sessionId: 's1', status: 'waiting', needsApproval: true, durationMs: null, rules: options },
        },
        busy: { s1: true },
        rules: { s1: [] },
      }),
    );
    render(
      <>
        <SessionRules sessionId="s1" />
        <ToolCallCard sessionId="s1" call={call} result={null} />
      </>,
    );
    // Each choice says what the rule will match; the wider one is offered first.
    const select = screen.getByTestId('remember-match') as HTMLSelectElement;
    expect([...select.options].map((o) => o.textContent)).toEqual([
      'shell: ls ~/Desktop (exactly), inside or outside the sandbox',
      'shell: ls … (with any arguments), inside or outside the sandbox',
    ]);
    expect(select.value).toBe('1');
    expect(screen.getByTestId('remember-allow').textContent).toBe('Allow in this session');
    await act(async () => {
      fireEvent.click(screen.getByTestId('remember-scope-folder'));
    });
    expect(screen.getByTestId('remember-allow').textContent).toBe('Allow in this folder');
    await act(async () => {
      fireEvent.click(screen.getByTestId('remember-allow'));
    });
    expect(fake.calls.find((c) => c.route === 'chat.approve')?.input).toEqual({
      sessionId: 's1',
      toolCallId: 'c1',
      decision: 'approve',
      remember: { scope: 'folder', matches: [options.parts[0]!.options[1]] },
    });
    await act(async () => {
      fireEvent.click(await screen.findByTestId('session-rules'));
    });
    expect(screen.getByTestId('session-rule').textContent).toContain('shell: ls … (with any arguments)');
    await act(async () => {
      fireEvent.click(screen.getByTestId('session-rule-revoke'));
    });
    expect(fake.calls.some((c) => c.route === 'rules.remove')).toBe(true);
    await vi.waitFor(() => expect(screen.queryByTestId('session-rules')).toBeNull());
  });

  it('offers no allow where a floor stands, and says why; a deny rule still can be saved, with its reason', async () => {
    const fake = createFakeBridge({ 'chat.approve': () => ({ ok: true }) });
    setBridge(fake.bridge);
    useAppStore.setState(
      seed({
        tools: {
          c1: {
            sessionId: 's1',
            status: 'waiting',
            needsApproval: true,
            durationMs: null,
            rules: { ...options, blocked: 'leave_sandbox' },
          },
        },
        busy: { s1: true },
      }),
    );
    render(<ToolCallCard sessionId="s1" call={call} result={null} />);
    expect(screen.queryByTestId('remember-allow')).toBeNull();
    expect(screen.getByTestId('remember-blocked').textContent).toMatch(/one command at a time/);
    fireEvent.change(screen.getByTestId('remember-reason'), { target: { value: 'not on this machine' } });
    await act(async () => {
      fireEvent.click(screen.getByTestId('remember-deny'));
    });
    expect(fake.calls.find((c) => c.route === 'chat.approve')?.input).toMatchObject({
      decision: 'deny',
      reason: 'not on this machine',
      remember: { scope: 'session' },
    });
  });

  it('a call that ran or was refused because of a rule names it on its card', () => {
    const note: RuleNote = {
      decision: 'deny',
      rules: [
        { id: 'r1', match: options.parts[0]!.options[1]!, scope: { kind: 'everywhere' }, reason: 'Use the trash.' },
      ],
    };
    render(
      <ToolCallCard
        sessionId="s1"
        call={call}
        result={msg({
          id: 't1',
          seq: 3,
          role: 'tool',
          tool_call_id: 'c1',
          content: 'denied',
          meta: { status: 'denied', rule: note },
        })}
      />,
    );
    fireEvent.click(screen.getByRole('button', { expanded: false }));
    const line = screen.getByTestId('tool-rule');
    expect(line.dataset.decision).toBe('deny');
    expect(line.textContent).toContain('Refused by a rule');
    expect(line.textContent).toContain('shell: ls …');
    expect(line.textContent).toContain('Use the trash.');
  });
});

describe('races between chat.state and events', () => {
  it('a chat.state answer older than the events does not make an ended turn busy again', async () => {
    let answer: (s: ChatState) => void = () => undefined;
    const fake = createFakeBridge({ 'chat.state': () => new Promise<ChatState>((r) => (answer = r)) });
    setBridge(fake.bridge);
    const store = createAppStore();
    connectEvents(store);
    store.setState(seed({ messages: { s1: [] } }));
    const loading = store.getState().loadChatState('s1');
    // The turn ends while the answer is on its way...
    fake.emit({
      type: 'session.updated',
      sessionId: 's1',
      session: {
        id: 's1',
        title: 't',
        createdAt: 1,
        updatedAt: 2,
        messageCount: 2,
        workingFolder: '/home/u/Threadline',
      },
      busy: false,
    });
    // ...and the answer still describes it running, with a call waiting.
    answer({
      busy: true,
      partial: null,
      pending: [{ toolCall: call, messageId: 'a1', needsApproval: true, status: 'waiting' }],
    });
    await loading;
    expect(store.getState().bySession.s1?.busy).toBe(false);
    expect(store.getState().tools.c1).toBeUndefined();
  });

  it('streamed text from the snapshot and from deltas is joined without repeating the overlap', () => {
    expect(joinStream('Hello wor', 'world!')).toBe('Hello world!');
    expect(joinStream('Hello', ' there')).toBe('Hello there');
    expect(joinStream('Hello world', 'world')).toBe('Hello world');
    expect(joinStream('Hello', '')).toBe('Hello');
  });

  it('an idle session drops the cards of a step that never reached history', () => {
    const fake = createFakeBridge({});
    setBridge(fake.bridge);
    const store = createAppStore();
    connectEvents(store);
    store.setState(seed({ messages: { s1: [msg({ id: 'u1', seq: 1, role: 'user', content: 'go' })] } }));
    fake.emit({ type: 'tool.requested', sessionId: 's1', toolCall: call, messageId: 'a9', needsApproval: false });
    expect(store.getState().tools.c1?.messageId).toBe('a9');
    fake.emit({
      type: 'session.updated',
      sessionId: 's1',
      session: {
        id: 's1',
        title: 't',
        createdAt: 1,
        updatedAt: 2,
        messageCount: 1,
        workingFolder: '/home/u/Threadline',
      },
      busy: false,
    });
    expect(store.getState().tools.c1).toBeUndefined();
  });
});

describe('a paste cut for the model', () => {
  afterEach(cleanup);
  it('shows the cut text with a note, and the whole message on request', async () => {
    const fake = createFakeBridge({
      'messages.fullOutput': () => ({ text: 'line 1\nline 2\nline 3 (the middle)\nline 4' }),
    });
    setBridge(fake.bridge);
    const cut = msg({
      id: 'u9',
      seq: 1,
      role: 'user',
      content: 'line 1\n…40 tokens truncated…\nline 4',
      meta: { truncated: true },
    });
    render(<MessageRow sessionId="s1" row={{ kind: 'user', key: 'u9', msg: cut, hidden: false }} />);
    expect(screen.getByTestId('msg-user').textContent).toContain("Too long for the model's window");
    await act(async () => {
      fireEvent.click(screen.getByTestId('user-show-full'));
    });
    expect(fake.calls.at(-1)).toEqual({ route: 'messages.fullOutput', input: { id: 'u9' } });
    expect(screen.getByTestId('msg-user').textContent).toContain('line 3 (the middle)');
  });
});
