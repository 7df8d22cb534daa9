import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import '../i18n';
import { Sidebar } from '../components/Sidebar';
import { useAppStore } from '../store';
import { setBridge } from '../transport';
import { createFakeBridge } from './fakeBridge';

describe('Sidebar', () => {
  let fake: ReturnType<typeof createFakeBridge>;
  beforeEach(() => {
    fake = createFakeBridge({
      'sessions.delete': () => ({ deleted: true }),
      'sessions.rename': (i) => ({
        id: i.id,
        title: i.title,
        createdAt: 1,
        updatedAt: 99,
        messageCount: 0,
        workingFolder: '/home/u/Threadline',
      }),
    });
    setBridge(fake.bridge);
    useAppStore.setState({
      activeSessionId: null,
      sessions: [
        {
          id: 'b',
          title: 'Beta plan',
          createdAt: 1,
          updatedAt: 20,
          messageCount: 3,
          workingFolder: '/home/u/Threadline',
        },
        {
          id: 'a',
          title: 'Alpha notes',
          createdAt: 1,
          updatedAt: 10,
          messageCount: 1,
          workingFolder: '/home/u/Threadline',
        },
      ],
    });
  });
  afterEach(cleanup);

  it('lists newest first and filters by title', () => {
    render(<Sidebar />);
    expect(screen.getAllByTestId('session-item').map((el) => el.getAttribute('data-session-id'))).toEqual(['b', 'a']);
    fireEvent.change(screen.getByTestId('session-search'), { target: { value: 'alp' } });
    expect(screen.getAllByTestId('session-item').map((el) => el.getAttribute('data-session-id'))).toEqual(['a']);
  });

  it('deletes only after confirmation', async () => {
    render(<Sidebar />);
    fireEvent.click(screen.getAllByTestId('session-delete')[0]!);
    expect(fake.calls.some((c) => c.route === 'sessions.delete')).toBe(false);
    await act(async () => {
      fireEvent.click(screen.getByTestId('confirm-delete-button'));
    });
    expect(fake.calls.find((c) => c.route === 'sessions.delete')?.input).toEqual({ id: 'b' });
    expect(screen.getAllByTestId('session-item')).toHaveLength(1);
  });

  it('renames inline with Enter', async () => {
    render(<Sidebar />);
    fireEvent.click(screen.getAllByTestId('session-rename')[1]!);
    const input = screen.getByTestId('session-rename-input');
    fireEvent.change(input, { target: { value: 'Alpha, renamed' } });
    await act(async () => {
      fireEvent.keyDown(input, { key: 'Enter' });
    });
    expect(fake.calls.find((c) => c.route === 'sessions.rename')?.input).toEqual({ id: 'a', title: 'Alpha, renamed' });
    expect(screen.getByText('Alpha, renamed')).toBeTruthy();
  });
});
