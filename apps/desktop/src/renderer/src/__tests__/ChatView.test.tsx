import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import '../i18n';
import { ChatView } from '../components/ChatView';
import { useAppStore } from '../store';
import { setBridge } from '../transport';
import { createFakeBridge } from './fakeBridge';
import { giveLayout, msg, session, settings, usage, seed } from './fixtures';

describe('ChatView', () => {
  let fake: ReturnType<typeof createFakeBridge>;
  beforeEach(() => {
    fake = createFakeBridge({
      'chat.send': () => ({ accepted: true, userMessageId: 'u1' }),
      'chat.cancel': () => ({ cancelled: true }),
      'messages.list': () => [],
    });
    setBridge(fake.bridge);
    useAppStore.setState(
      seed({
        settings: settings(),
        sessions: [session()],
        activeSessionId: 's1',
        messages: { s1: [msg({ id: 'u1', seq: 1, role: 'user', content: 'hello' })] },
        usage: { s1: usage() },
        compactions: { s1: [] },
        busy: {},
        compacting: {},
      }),
    );
  });
  afterEach(cleanup);

  it('Enter sends, Shift+Enter does not', async () => {
    render(<ChatView />);
    const input = screen.getByTestId('composer-input');
    fireEvent.change(input, { target: { value: 'line one' } });
    fireEvent.keyDown(input, { key: 'Enter', shiftKey: true });
    expect(fake.calls.some((c) => c.route === 'chat.send')).toBe(false);
    await act(async () => {
      fireEvent.keyDown(input, { key: 'Enter' });
    });
    expect(fake.calls.find((c) => c.route === 'chat.send')?.input).toEqual({ sessionId: 's1', text: 'line one' });
  });

  it('while streaming: a Stop button that cancels, and Compact disabled with the reason', async () => {
    useAppStore.setState(seed({ busy: { s1: true } }));
    render(<ChatView />);
    const compact = screen.getByTestId('compact-button') as HTMLButtonElement;
    expect(compact.disabled).toBe(true);
    expect(compact.title).toBe('Wait for the reply to finish before compacting');
    await act(async () => {
      fireEvent.click(screen.getByTestId('stop-button'));
    });
    expect(fake.calls.at(-1)).toEqual({ route: 'chat.cancel', input: { sessionId: 's1' } });
  });

  it('Compact is disabled when usage says nothing can be compacted, and calls compaction.run otherwise', async () => {
    useAppStore.setState(seed({ usage: { s1: usage({ canCompact: false }) } }));
    const { rerender } = render(<ChatView />);
    expect((screen.getByTestId('compact-button') as HTMLButtonElement).title).toBe('Nothing to compact yet');
    useAppStore.setState(seed({ usage: { s1: usage({ canCompact: true }) } }));
    rerender(<ChatView />);
    await act(async () => {
      fireEvent.click(screen.getByTestId('compact-button'));
    });
    // Compact means compact: no message is posted on the user's behalf.
    expect(fake.calls.find((c) => c.route === 'compaction.run')?.input).toEqual({ sessionId: 's1' });
    expect(fake.calls.some((c) => c.route === 'chat.send')).toBe(false);
  });

  it('"Compact with instructions…" passes the instructions to compaction.run', async () => {
    render(<ChatView />);
    fireEvent.click(screen.getByTestId('compact-menu'));
    fireEvent.click(screen.getByRole('menuitem'));
    fireEvent.change(screen.getByRole('textbox', { name: /keep every file path/i }), {
      target: { value: 'keep paths' },
    });
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Compact' }));
    });
    expect(fake.calls.find((c) => c.route === 'compaction.run')?.input).toEqual({
      sessionId: 's1',
      instructions: 'keep paths',
    });
    expect(fake.calls.some((c) => c.route === 'chat.send')).toBe(false);
  });

  it('a newer error takes the place of the stored error banner it follows', () => {
    giveLayout();
    const stored = msg({ id: 'e1', seq: 2, role: 'user', kind: 'error_notice', content: 'The provider failed.' });
    useAppStore.setState(
      seed({
        messages: { s1: [msg({ id: 'u1', seq: 1, role: 'user', content: 'hello' }), stored] },
        errors: {},
      }),
    );
    render(<ChatView />);
    expect(screen.getAllByTestId('inline-error').map((e) => e.textContent)).toEqual([
      expect.stringContaining('The provider failed.'),
    ]);
    act(() =>
      useAppStore.getState().patchSession('s1', {
        error: { code: 'invalid_input', message: 'That message was refused.', retryText: 'x', stored: false },
      }),
    );
    expect(screen.getAllByTestId('inline-error').map((e) => e.textContent)).toEqual([
      expect.stringContaining('That message was refused.'),
    ]);
    act(() => useAppStore.getState().patchSession('s1', { error: null }));
  });

  it('a 10,000-message session renders only a window of rows', () => {
    giveLayout();
    const many = Array.from({ length: 10_000 }, (_, i) =>
      msg({ id: `x${i}`, seq: i, role: i % 2 ? 'assistant' : 'user', content: `message ${i}` }),
    );
    useAppStore.setState(seed({ messages: { s1: many } }));
    render(<ChatView />);
    const rendered = screen.queryAllByTestId(/msg-(user|assistant)/).length;
    expect(rendered).toBeGreaterThan(0);
    expect(rendered).toBeLessThan(100);
  });
});

describe('Composer drafts', () => {
  afterEach(cleanup);
  it('keeps an unsent draft per session', async () => {
    const fake = createFakeBridge({ 'messages.list': () => [] });
    setBridge(fake.bridge);
    useAppStore.setState(
      seed({
        settings: settings(),
        sessions: [session(), session('s2', 'Second')],
        activeSessionId: 's1',
        messages: { s1: [], s2: [] },
        usage: { s1: usage(), s2: usage() },
        compactions: { s1: [], s2: [] },
        busy: {},
      }),
    );
    render(<ChatView />);
    fireEvent.change(screen.getByTestId('composer-input'), { target: { value: 'half a thought' } });
    act(() => useAppStore.setState({ activeSessionId: 's2' }));
    expect((screen.getByTestId('composer-input') as HTMLTextAreaElement).value).toBe('');
    act(() => useAppStore.setState({ activeSessionId: 's1' }));
    expect((screen.getByTestId('composer-input') as HTMLTextAreaElement).value).toBe('half a thought');
  });
});
