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
