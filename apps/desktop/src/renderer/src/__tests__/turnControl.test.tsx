import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import i18n from '../i18n';
import { Composer } from '../components/Composer';
import { MessageRow } from '../components/MessageRow';
import { ToolCallCard } from '../components/ToolCallCard';
import { buildRows } from '../lib/transcript';
import { connectEvents, useAppStore } from '../store';
import { setBridge } from '../transport';
import { createFakeBridge } from './fakeBridge';
import { msg, seed, usage } from './fixtures';

const accepted = () => ({ accepted: true, userMessageId: 'u-new' });

afterEach(() => {
  cleanup();
  useAppStore.setState(seed({ busy: {}, queued: {}, messages: {}, errors: {}, tools: {} }));
});

describe('Continue after a stopped reply', () => {
  it('the latest cut-off answer offers Continue, which asks the model to go on', async () => {
    const fake = createFakeBridge({ 'chat.send': accepted, 'messages.list': () => [] });
    setBridge(fake.bridge);
    const rows = buildRows(
      [
        msg({ role: 'user', content: 'explain' }),
        msg({ role: 'assistant', content: 'Here is the first', meta: { partial: true } }),
      ],
      [],
    );
    await i18n.changeLanguage('en');
    render(<MessageRow row={rows[1]!} sessionId="s1" />);
    await act(async () => {
      fireEvent.click(screen.getByTestId('continue-button'));
    });
    expect(fake.calls.find((c) => c.route === 'chat.send')?.input).toEqual({
      sessionId: 's1',
      text: 'Continue from where you stopped.',
    });
  });
});

describe('a message typed during a turn', () => {
  it('is queued (visible, removable) and sent when the turn ends, not before', async () => {
    const fake = createFakeBridge({ 'chat.send': accepted, 'messages.list': () => [] });
    setBridge(fake.bridge);
    const disconnect = connectEvents(useAppStore);
    await i18n.changeLanguage('en');
    useAppStore.setState(seed({ busy: { s1: true }, messages: { s1: [msg({ role: 'user', content: 'go' })] } }));
    render(<Composer sessionId="s1" />);
    const input = screen.getByTestId('composer-input');
    for (const text of ['then run the tests', 'and drop this one']) {
      fireEvent.change(input, { target: { value: text } });
      fireEvent.keyDown(input, { key: 'Enter' });
    }
    expect(screen.getAllByTestId('queued-item').map((li) => li.textContent)).toEqual([
      'Queuedthen run the tests',
      'Queuedand drop this one',
    ]);
    fireEvent.click(screen.getAllByTestId('queued-remove')[1]!);
    expect(screen.getAllByTestId('queued-item')).toHaveLength(1);
    expect(fake.calls.some((c) => c.route === 'chat.send')).toBe(false);
    // The turn ends: the queued message goes out, the queue empties.
    await act(async () => {
      fake.emit({
        type: 'session.updated',
        sessionId: 's1',
        busy: false,
        session: { id: 's1', title: 't', createdAt: 1, updatedAt: 2, messageCount: 2, workingFolder: '/w' },
      });
      await new Promise((r) => setTimeout(r, 0));
    });
    expect(fake.calls.filter((c) => c.route === 'chat.send').map((c) => c.input.text)).toEqual(['then run the tests']);
    expect(screen.queryByTestId('queued-list')).toBeNull();
    disconnect();
  });

  it('keeps the files attached to it and sends them with it', async () => {
    const fake = createFakeBridge({
      'chat.send': accepted,
      'messages.list': () => [],
      'attachments.add': (input) => ({
        id: 'att-1',
        kind: 'text',
        name: String(input.name),
        mime: String(input.mime),
        size: 5,
        chars: 5,
      }),
    });
    setBridge(fake.bridge);
    const disconnect = connectEvents(useAppStore);
    await i18n.changeLanguage('en');
    useAppStore.setState(seed({ busy: { s1: true }, messages: { s1: [msg({ role: 'user', content: 'go' })] } }));
    render(<Composer sessionId="s1" />);
    const picker = screen.getByTestId('attach-input');
    await act(async () => {
      fireEvent.change(picker, { target: { files: [new File(['hello'], 'notes.txt', { type: 'text/plain' })] } });
    });
    const input = screen.getByTestId('composer-input');
    fireEvent.change(input, { target: { value: 'read this file' } });
    // Enter does nothing while the file uploads; once it is stored, the message is queued with it.
    await vi.waitFor(() => {
      fireEvent.keyDown(input, { key: 'Enter' });
      expect(screen.getAllByTestId('queued-item')).toHaveLength(1);
    });
    expect(screen.queryByText('notes.txt')).toBeNull(); // the composer's chip went with the message
    expect(screen.getByTestId('queued-item').textContent).toContain('read this file');
    expect(screen.getByTestId('queued-item').querySelector('.queued-files')?.textContent).toBe('1');
    await act(async () => {
      fake.emit({
        type: 'session.updated',
        sessionId: 's1',
        busy: false,
        session: { id: 's1', title: 't', createdAt: 1, updatedAt: 2, messageCount: 2, workingFolder: '/w' },
      });
      await new Promise((r) => setTimeout(r, 0));
    });
    expect(fake.calls.filter((c) => c.route === 'chat.send').map((c) => c.input)).toEqual([
      { sessionId: 's1', text: 'read this file', attachments: ['att-1'] },
    ]);
    disconnect();
  });

  it('waits, with Send now, when the turn was stopped', async () => {
    const fake = createFakeBridge({ 'chat.send': accepted, 'messages.list': () => [] });
    setBridge(fake.bridge);
    await i18n.changeLanguage('zh-CN');
    useAppStore.setState(
      seed({
        busy: { s1: false },
        messages: { s1: [msg({ role: 'user', content: 'x', kind: 'turn_aborted' })] },
      }),
    );
    useAppStore.getState().enqueue('s1', 'later');
    render(<Composer sessionId="s1" />);
    expect(screen.getByTestId('queued-item').textContent).toContain('未发送');
    await act(async () => {
      fireEvent.click(screen.getByTestId('queued-send'));
    });
    expect(fake.calls.find((c) => c.route === 'chat.send')?.input.text).toBe('later');
    await i18n.changeLanguage('en');
  });
});

describe('deny with a reason', () => {
  it('sends the reason with the denial', async () => {
    const fake = createFakeBridge({ 'chat.approve': () => ({ ok: true }) });
    setBridge(fake.bridge);
    await i18n.changeLanguage('en');
    const call = {
      id: 'c1',
      type: 'function' as const,
      function: { name: 'shell', arguments: '{"command":"rm -rf build"}' },
    };
    useAppStore.setState(
      seed({
        busy: { s1: true },
        tools: {
          c1: { sessionId: 's1', needsApproval: true, durationMs: null, status: 'waiting', call, messageId: 'a1' },
        },
      }),
    );
    render(<ToolCallCard sessionId="s1" call={call} result={null} />);
    fireEvent.click(screen.getByTestId('deny-with-reason'));
    fireEvent.change(screen.getByTestId('deny-reason'), { target: { value: 'only dist/' } });
    await act(async () => {
      fireEvent.click(screen.getByTestId('deny-reason-send'));
    });
    expect(fake.calls.find((c) => c.route === 'chat.approve')?.input).toEqual({
      sessionId: 's1',
      toolCallId: 'c1',
      decision: 'deny',
      reason: 'only dist/',
    });
  });
});

describe("a reasoning model's thinking", () => {
  it('streams apart from the answer and shows collapsed above the stored answer, in both languages', async () => {
    const fake = createFakeBridge({});
    setBridge(fake.bridge);
    const disconnect = connectEvents(useAppStore);
    for (const [delta, reasoning] of [
      ['Compare ', true],
      ['the two.', true],
      ['Answer.', false],
    ] as const)
      fake.emit({
        type: 'message.delta',
        sessionId: 's1',
        messageId: 'a1',
        delta,
        ...(reasoning ? { reasoning } : {}),
      });
    await vi.waitFor(() =>
      expect(useAppStore.getState().streaming.a1).toMatchObject({ text: 'Answer.', reasoning: 'Compare the two.' }),
    );
    disconnect();
    const rows = buildRows(
      [msg({ role: 'assistant', content: 'Answer.', meta: { reasoning: 'Compare the two.' } })],
      [],
    );
    await i18n.changeLanguage('zh-CN');
    render(<MessageRow row={rows[0]!} sessionId="s1" />);
    const details = screen.getByTestId('reasoning') as HTMLDetailsElement;
    expect(details.open).toBe(false);
    expect(details.querySelector('summary')!.textContent).toBe('思考过程');
    expect(details.textContent).toContain('Compare the two.');
    await i18n.changeLanguage('en');
  });
});

describe('an attachment taken out before it was sent', () => {
  it('is discarded on the host, unless another composer item or queued message still holds it', async () => {
    let n = 0;
    const fake = createFakeBridge({
      'chat.send': accepted,
      'messages.list': () => [],
      'attachments.discard': () => ({ deleted: true }),
      // The same bytes twice are one attachment: a.txt and its copy share an id.
      'attachments.add': (input) => ({
        id: String(input.name).startsWith('a') ? 'att-a' : `att-${++n}`,
        kind: 'text',
        name: String(input.name),
        mime: 'text/plain',
        size: 5,
        chars: 5,
      }),
    });
    setBridge(fake.bridge);
    await i18n.changeLanguage('en');
    useAppStore.setState(seed({ busy: { s2: true }, messages: { s2: [] } }));
    render(<Composer sessionId="s2" />);
    const picker = screen.getByTestId('attach-input');
    await act(async () => {
      fireEvent.change(picker, {
        target: {
          files: [
            new File(['hello'], 'a.txt', { type: 'text/plain' }),
            new File(['hello'], 'a-copy.txt', { type: 'text/plain' }),
            new File(['other'], 'b.txt', { type: 'text/plain' }),
          ],
        },
      });
    });
    await vi.waitFor(() =>
      expect(screen.getAllByTestId('composer-attachment').map((li) => li.dataset.status)).toEqual([
        'ready',
        'ready',
        'ready',
      ]),
    );
    const discarded = () => fake.calls.filter((c) => c.route === 'attachments.discard').map((c) => c.input.id);
    // a.txt's copy still holds att-a: nothing deleted; b.txt is the only holder of its id.
    fireEvent.click(screen.getByRole('button', { name: /a\.txt/ }));
    fireEvent.click(screen.getByRole('button', { name: /b\.txt/ }));
    expect(discarded()).toEqual(['att-1']);
    // The copy goes into the queue with a message, then is taken out of it: now att-a goes.
    const input = screen.getByTestId('composer-input');
    fireEvent.change(input, { target: { value: 'later' } });
    fireEvent.keyDown(input, { key: 'Enter' });
    expect(discarded()).toEqual(['att-1']);
    fireEvent.click(screen.getByTestId('queued-remove'));
    expect(discarded()).toEqual(['att-1', 'att-a']);
  });
});

describe("the composer's attachment errors", () => {
  it('a newer failed upload replaces the older error; a good file stays beside it', async () => {
    const fake = createFakeBridge({
      'messages.list': () => [],
      'attachments.add': (input) => {
        if (String(input.name).startsWith('bad'))
          throw Object.assign(new Error(`${String(input.name)} is neither text`), { code: 'invalid_input' });
        return { id: 'ok-1', kind: 'text', name: String(input.name), mime: 'text/plain', size: 2, chars: 2 };
      },
    });
    setBridge(fake.bridge);
    await i18n.changeLanguage('en');
    render(<Composer sessionId="s3" />);
    const picker = screen.getByTestId('attach-input');
    const pick = async (...names: string[]) =>
      act(async () => {
        fireEvent.change(picker, { target: { files: names.map((n) => new File(['hi'], n, { type: 'text/plain' })) } });
      });
    await pick('bad-one.bin', 'good.txt');
    await vi.waitFor(() =>
      expect(screen.getAllByTestId('composer-attachment').map((li) => li.dataset.status)).toEqual(['error', 'ready']),
    );
    await pick('bad-two.bin');
    await vi.waitFor(() =>
      expect(screen.getAllByTestId('composer-attachment').map((li) => [li.dataset.status, li.title])).toEqual([
        ['ready', 'good.txt'],
        ['error', 'bad-two.bin is neither text'],
      ]),
    );
  });
});

describe('a send far over the window (issue 36)', () => {
  it('first says so and offers to compact; Compact then sends, Send sends, Keep editing sends nothing', async () => {
    const fake = createFakeBridge({
      'chat.send': accepted,
      'messages.list': () => [],
      'compaction.run': () => ({ ok: true, compaction: null, reason: null }),
    });
    setBridge(fake.bridge);
    await i18n.changeLanguage('en');
    useAppStore.setState(seed({ usage: { s1: usage({ total: 181_700, window: 10_000, percent: 1_817 }) } }));
    render(<Composer sessionId="s1" />);
    const input = screen.getByTestId('composer-input');
    fireEvent.change(input, { target: { value: 'and now the summary table' } });
    fireEvent.keyDown(input, { key: 'Enter' });
    const warning = screen.getByTestId('over-window-warning');
    expect(warning.textContent).toContain("This conversation is 1817% of the model's window");
    expect(fake.calls.some((c) => c.route === 'chat.send')).toBe(false);
    // The first button has the keyboard; Escape goes back to the draft, nothing sent.
    expect(document.activeElement).toBe(screen.getByTestId('over-window-compact'));
    fireEvent.keyDown(warning, { key: 'Escape' });
    expect(screen.queryByTestId('over-window-warning')).toBeNull();
    expect((input as HTMLTextAreaElement).value).toBe('and now the summary table');
    // Compact, then send.
    fireEvent.keyDown(input, { key: 'Enter' });
    await act(async () => {
      fireEvent.click(screen.getByTestId('over-window-compact'));
      await new Promise((r) => setTimeout(r, 0));
    });
    const order = fake.calls.map((c) => c.route).filter((r) => r === 'compaction.run' || r === 'chat.send');
    expect(order).toEqual(['compaction.run', 'chat.send']);
    // Send anyway (the turn that send started has ended).
    act(() => {
      useAppStore.setState(
        seed({ busy: { s1: false }, usage: { s1: usage({ total: 181_700, window: 10_000, percent: 1_817 }) } }),
      );
    });
    fireEvent.change(input, { target: { value: 'one more' } });
    fireEvent.keyDown(input, { key: 'Enter' });
    await act(async () => {
      fireEvent.click(screen.getByTestId('over-window-send'));
    });
    expect(fake.calls.filter((c) => c.route === 'chat.send').map((c) => c.input.text)).toEqual([
      'and now the summary table',
      'one more',
    ]);
  });

  it('under the window sends at once', async () => {
    const fake = createFakeBridge({ 'chat.send': accepted, 'messages.list': () => [] });
    setBridge(fake.bridge);
    useAppStore.setState(seed({ usage: { s1: usage({ percent: 96 }) } }));
    render(<Composer sessionId="s1" />);
    const input = screen.getByTestId('composer-input');
    fireEvent.change(input, { target: { value: 'hi' } });
    await act(async () => {
      fireEvent.keyDown(input, { key: 'Enter' });
    });
    expect(screen.queryByTestId('over-window-warning')).toBeNull();
    expect(fake.calls.some((c) => c.route === 'chat.send')).toBe(true);
  });
});

describe('a draft that would bring the conversation over the window (issue 36)', () => {
  it('is measured by the runtime first; a huge first message says the model reads its beginning and end', async () => {
    const fake = createFakeBridge({
      'chat.send': accepted,
      'messages.list': () => [],
      // Two characters a token (as for these numbers and commas), over a conversation of 1,000.
      'context.measureDraft': ({ text }) => {
        const tokens = Math.ceil(String(text).length / 2);
        return { tokens, total: 1_000 + tokens, window: 10_000, percent: (1_000 + tokens) / 100 };
      },
    });
    setBridge(fake.bridge);
    await i18n.changeLanguage('en');
    useAppStore.setState(seed({ usage: { s1: usage({ total: 1_000, percent: 10, canCompact: false }) } }));
    render(<Composer sessionId="s1" />);
    const input = screen.getByTestId('composer-input');
    // A short draft cannot fill the room left: sent at once, never measured.
    fireEvent.change(input, { target: { value: 'hi' } });
    await act(async () => {
      fireEvent.keyDown(input, { key: 'Enter' });
    });
    expect(fake.calls.map((c) => c.route)).toContain('chat.send');
    expect(fake.calls.some((c) => c.route === 'context.measureDraft')).toBe(false);
    act(() => {
      useAppStore.setState(
        seed({ busy: { s1: false }, usage: { s1: usage({ total: 1_000, percent: 10, canCompact: false }) } }),
      );
    });
    // A paste of 24,000 characters: measured, 12,000 tokens alone, held with the sentence.
    const paste = `Summarise this table by region.\n${Array(4_000).fill('a,b,1').join('\n')}`;
    fireEvent.change(input, { target: { value: paste } });
    await act(async () => {
      fireEvent.keyDown(input, { key: 'Enter' });
    });
    expect(fake.calls.filter((c) => c.route === 'context.measureDraft')).toHaveLength(1);
    const warning = screen.getByTestId('over-window-warning');
    expect(warning.textContent).toContain('This message alone is about');
    expect(warning.textContent).toContain('the model will read its beginning and its end');
    // Nothing to compact before a first message: Send anyway has the keyboard.
    expect(screen.queryByTestId('over-window-compact')).toBeNull();
    expect(document.activeElement).toBe(screen.getByTestId('over-window-send'));
    expect(fake.calls.filter((c) => c.route === 'chat.send')).toHaveLength(1);
    await act(async () => {
      fireEvent.click(screen.getByTestId('over-window-send'));
    });
    expect(fake.calls.filter((c) => c.route === 'chat.send').map((c) => c.input.text)).toEqual(['hi', paste]);
  });
});
