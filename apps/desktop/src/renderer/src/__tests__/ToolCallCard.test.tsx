import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import i18n from '../i18n';
import { ToolCallCard } from '../components/ToolCallCard';
import { useAppStore } from '../store';
import { msg } from './fixtures';

describe('ToolCallCard timing', () => {
  afterEach(cleanup);

  it('shows the run time and, apart, the time the call waited for approval', async () => {
    await i18n.changeLanguage('en');
    useAppStore.setState({ busy: {}, tools: {} });
    const call = { id: 'c1', type: 'function' as const, function: { name: 'shell', arguments: '{"command":"ls"}' } };
    const result = msg({
      id: 't1',
      role: 'tool',
      content: 'a\nb',
      tool_call_id: 'c1',
      meta: { status: 'ok', durationMs: 20, approvalWaitMs: 11_000 },
    });
    render(<ToolCallCard sessionId="s1" call={call} result={result} />);
    expect(screen.getByTestId('tool-duration').textContent).toBe('20 ms');
    expect(screen.getByTestId('tool-waited').textContent).toBe('waited 11 s');
  });

  it('a call that did not wait shows its run time only', async () => {
    useAppStore.setState({ busy: {}, tools: {} });
    const call = { id: 'c2', type: 'function' as const, function: { name: 'read_file', arguments: '{}' } };
    const result = msg({ id: 't2', role: 'tool', content: 'x', tool_call_id: 'c2', meta: { durationMs: 1500 } });
    render(<ToolCallCard sessionId="s1" call={call} result={result} />);
    expect(screen.getByTestId('tool-duration').textContent).toBe('1.5 s');
    expect(screen.queryByTestId('tool-waited')).toBeNull();
  });
});

describe('ToolCallCard diffs', () => {
  afterEach(cleanup);
  const diff = {
    path: '/w/a.ts',
    created: false,
    added: 1,
    removed: 1,
    patch: '@@ -1,2 +1,2 @@\n keep\n-old\n+new',
    moreLines: 7,
  };

  it("an edit's result shows the change as added and removed lines, with what was left out", async () => {
    await i18n.changeLanguage('en');
    useAppStore.setState({ busy: {}, tools: {} });
    const call = { id: 'd1', type: 'function' as const, function: { name: 'edit_file', arguments: '{"path":"a.ts"}' } };
    const result = msg({ id: 'r1', role: 'tool', content: 'edited', tool_call_id: 'd1', meta: { status: 'ok', diff } });
    const { container } = render(<ToolCallCard sessionId="s1" call={call} result={result} />);
    screen.getByRole('button', { expanded: false }).click();
    await screen.findByTestId('tool-diff');
    expect([...container.querySelectorAll('.diff-add')].map((e) => e.textContent)).toEqual(['+new']);
    expect([...container.querySelectorAll('.diff-del')].map((e) => e.textContent)).toEqual(['-old']);
    expect(screen.getByTestId('diff-more').textContent).toBe('7 more lines not shown');
    expect(screen.getByText('Change')).toBeTruthy();
  });

  it('a call waiting for approval shows the change it would make', async () => {
    await i18n.changeLanguage('zh-CN');
    const call = { id: 'd2', type: 'function' as const, function: { name: 'edit_file', arguments: '{"path":"a.ts"}' } };
    useAppStore.setState({
      busy: { s1: true },
      tools: { d2: { sessionId: 's1', status: 'waiting', needsApproval: true, durationMs: null, call, diff } },
    });
    const { container } = render(<ToolCallCard sessionId="s1" call={call} result={null} />);
    expect(screen.getByText('将要应用的更改')).toBeTruthy();
    expect(container.querySelector('.diff-add')?.textContent).toBe('+new');
    await i18n.changeLanguage('en');
  });
});
