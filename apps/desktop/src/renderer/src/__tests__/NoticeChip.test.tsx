import { afterEach, describe, expect, it } from 'vitest';
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import i18n from '../i18n';
import { NoticeChip } from '../components/NoticeChip';
import { useAppStore } from '../store';
import { msg, settings } from './fixtures';

const runtime = (p: Record<string, unknown> = {}) =>
  `[CFPM_RUNTIME_V1] ${JSON.stringify({
    version: 'v1',
    verbosity: 'brief',
    reason: 'turn_end',
    mode: 'merge',
    acceptedCount: 3,
    rejectedCount: 1,
    prunedCount: 0,
    factCount: 12,
    rejectedReasonBreakdown: { too_short: 1 },
    ...p,
  })}`;
const gate = `[CFPM_TOOL_GATE_V1] ${JSON.stringify({
  version: 'v1',
  verbosity: 'brief',
  action: 'rewrite_known_folder_probe',
  tool: 'shell',
  target: 'Desktop',
  path: '/home/a/Desktop',
  originalCommand: 'ls ~/Desktop',
  rewrittenCommand: 'ls /home/a/Desktop',
})}`;
const notice = (content: string) =>
  msg({ role: 'assistant', kind: 'runtime_notice', content, visibility: { user: true, agent: false } });

describe('NoticeChip', () => {
  afterEach(async () => {
    cleanup();
    await i18n.changeLanguage('en');
  });

  it('brief (a turn tally): the net change in one localized line, no details toggle', () => {
    useAppStore.setState({ settings: settings({ runtimeVisibility: 'brief' }) });
    const tally = { added: 2, updated: 0, retired: 1, facts: 12 };
    render(<NoticeChip msg={notice(runtime())} tally={tally} />);
    expect(screen.getByText('Memory updated: 2 added, 1 retired · 12 facts')).toBeTruthy();
    expect(screen.queryByRole('button')).toBeNull();
  });

  it('debug: this refresh as stored, with details (mode, counts, reasons, the JSON)', () => {
    useAppStore.setState({ settings: settings({ runtimeVisibility: 'debug' }) });
    render(<NoticeChip msg={notice(runtime({ added: 0, updated: 0, retired: 0 }))} />);
    // Accepted evidence for facts memory already holds is no change, and says so.
    expect(screen.getByText('Memory checked: no change · 12 facts')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: /details/i }));
    expect(screen.getByText('Merged')).toBeTruthy();
    expect(screen.getByText('Too short × 1')).toBeTruthy();
    expect(screen.getByText('3 accepted, 1 rejected, 0 pruned')).toBeTruthy();
    expect(screen.getByTestId('notice-details').textContent).toContain('"acceptedCount": 3');
  });

  it('gate chip follows its own visibility, falling back to the runtime one', () => {
    useAppStore.setState({ settings: settings({ runtimeVisibility: 'off', toolGateVisibility: 'brief' }) });
    render(<NoticeChip msg={notice(gate)} />);
    expect(screen.getByText('Reused the known Desktop path for shell')).toBeTruthy();
    expect(screen.queryByRole('button')).toBeNull();
  });

  it('a malformed notice is plain text, never a crash', () => {
    useAppStore.setState({ settings: settings() });
    render(<NoticeChip msg={notice('[CFPM_RUNTIME_V1] {"version":"v1", oops')} />);
    expect(screen.getByTestId('notice-plain').textContent).toContain('oops');
  });

  it('is localized in Simplified Chinese, including compaction notices', async () => {
    await i18n.changeLanguage('zh-CN');
    useAppStore.setState({ settings: settings() });
    render(
      <>
        <NoticeChip msg={notice(runtime({ added: 1, updated: 0, retired: 0 }))} />
        <NoticeChip msg={notice('[THREADLINE_COMPACTION_V1] {"version":"v1","type":"max_attempts"}')} />
      </>,
    );
    expect(screen.getByText('记忆已更新：新增 1 条 · 共 12 条')).toBeTruthy();
    expect(screen.getByText('已达到最大压缩尝试次数。请新建会话继续。')).toBeTruthy();
  });
});

describe('NoticeChip: a message over the window (issue 22)', () => {
  afterEach(async () => {
    cleanup();
    await i18n.changeLanguage('en');
  });

  const tooLarge = `[THREADLINE_COMPACTION_V1] ${JSON.stringify({
    version: 'v1',
    type: 'message_too_large',
    trigger: 'recovery',
    messageId: 'm7',
    messageRole: 'user',
    messageTokens: 32_500,
    window: 16_000,
  })}`;

  it('says which message and by how much, in English and Chinese, and cuts it then retries', async () => {
    const { createFakeBridge } = await import('./fakeBridge');
    const { setBridge } = await import('../transport');
    const fake = createFakeBridge({
      'compaction.fitMessage': (i) => ({ compaction: { id: 'c1', hiddenIds: [i.messageId] } }),
      'chat.retry': () => ({ sessionId: 's1', messageId: 'm8' }),
    });
    setBridge(fake.bridge);
    render(<NoticeChip msg={notice(tooLarge)} />);
    const text = screen.getByTestId('notice-chip').textContent ?? '';
    expect(text).toContain('user message is 32,500 tokens, 16,500 more than');
    await act(async () => {
      fireEvent.click(screen.getByTestId('fit-message-cut'));
    });
    expect(fake.calls.map((c) => [c.route, c.input])).toEqual([
      ['compaction.fitMessage', { sessionId: 's1', messageId: 'm7', action: 'cut' }],
      ['chat.retry', { sessionId: 's1' }],
    ]);
    cleanup();
    await i18n.changeLanguage('zh-CN');
    render(<NoticeChip msg={notice(tooLarge)} />);
    expect(screen.getByTestId('notice-chip').textContent).toContain('用户消息为 32,500 个 token');
    expect(screen.getByTestId('fit-message-remove').textContent).toBe('不发给模型并重试');
  });
});
