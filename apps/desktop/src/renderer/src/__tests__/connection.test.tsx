import { seed } from './fixtures';
import { afterEach, describe, expect, it } from 'vitest';
import { act, cleanup, render, screen } from '@testing-library/react';
import i18n from '../i18n';
import { ConnectionBanner } from '../components/ConnectionBanner';
import { CHAT_TEXT_MAX } from '@threadline/protocol';
import { createAppStore, useAppStore } from '../store';
import { cutPaste } from '../store/chatSlice';
import { setBridge } from '../transport';
import { createFakeBridge } from './fakeBridge';

const call = { id: 'c1', type: 'function' as const, function: { name: 'shell', arguments: '{}' } };

afterEach(() => {
  cleanup();
  useAppStore.setState({ connection: 'open' });
});

describe('the link to the runtime (issue 25)', () => {
  it('a runtime that stopped ends running and waiting tool cards and every busy session', () => {
    const store = createAppStore();
    store.setState(
      seed({
        busy: { s1: true },
        tools: {
          c1: { sessionId: 's1', status: 'running', needsApproval: false, durationMs: null, call, messageId: 'a1' },
          c2: { sessionId: 's1', status: 'waiting', needsApproval: true, durationMs: null, call, messageId: 'a1' },
          c3: { sessionId: 's1', status: 'ok', needsApproval: false, durationMs: 5 },
        },
      }),
    );
    store.getState().setConnection('reconnecting');
    expect(store.getState().tools.c1!.status).toBe('running');
    store.getState().setConnection('stopped');
    const { tools, bySession } = store.getState();
    expect([tools.c1!.status, tools.c2!.status, tools.c3!.status]).toEqual(['aborted', 'aborted', 'ok']);
    expect(Object.values(bySession).filter((s) => s.busy)).toEqual([]);
  });

  it('says so in the page, in English and Chinese, and nothing while the link is up', async () => {
    await act(() => i18n.changeLanguage('en'));
    render(<ConnectionBanner />);
    expect(screen.queryByTestId('connection-banner')).toBeNull();
    act(() => useAppStore.getState().setConnection('reconnecting'));
    expect(screen.getByRole('alert').textContent).toBe('Connection to Threadline lost: reconnecting…');
    act(() => useAppStore.getState().setConnection('stopped'));
    expect(screen.getByRole('alert').textContent).toBe(
      'Threadline stopped. Start it again (pnpm serve, same data folder) and this page reconnects by itself; if it prints another address, open that one.',
    );
    await act(() => i18n.changeLanguage('zh-CN'));
    expect(screen.getByRole('alert').textContent).toBe(
      'Threadline 已停止。请重新启动它（pnpm serve，同一数据文件夹），此页面会自动重新连接；如果它打印了其他地址，请打开那个地址。',
    );
    act(() => useAppStore.getState().setConnection('open'));
    expect(screen.queryByTestId('connection-banner')).toBeNull();
    await act(() => i18n.changeLanguage('en'));
  });
});

describe('a paste over what chat.send takes (issue 25)', () => {
  it('sends its beginning and end around a marker, within the limit, and says so in one sentence', async () => {
    const sent: string[] = [];
    setBridge(
      createFakeBridge({
        'chat.send': (input) => (sent.push((input as { text: string }).text), { accepted: true, userMessageId: 'u1' }),
      }).bridge,
    );
    const store = createAppStore();
    const text = 'A'.repeat(CHAT_TEXT_MAX) + 'middle' + 'Z'.repeat(CHAT_TEXT_MAX);
    expect(await store.getState().send('s1', text)).toBe(true);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.length).toBeLessThanOrEqual(CHAT_TEXT_MAX);
    expect(sent[0]!.startsWith('AAAA')).toBe(true);
    expect(sent[0]!.endsWith('ZZZZ')).toBe(true);
    expect(sent[0]).toMatch(/…\d+ chars left out before sending/);
    expect(store.getState().toast).toBe(
      `Too large to send whole: Threadline takes up to ${CHAT_TEXT_MAX.toLocaleString('en')} characters in one message; the middle of this text was left out.`,
    );
    expect(cutPaste('😀'.repeat(CHAT_TEXT_MAX)).length).toBeLessThanOrEqual(CHAT_TEXT_MAX);
  });
});
