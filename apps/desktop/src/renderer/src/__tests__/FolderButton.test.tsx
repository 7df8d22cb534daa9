import { afterEach, describe, expect, it } from 'vitest';
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import '../i18n';
import { ChatView } from '../components/ChatView';
import { ToolCallCard } from '../components/ToolCallCard';
import { useAppStore } from '../store';
import { setBridge } from '../transport';
import { createFakeBridge } from './fakeBridge';
import { session, settings, usage, seed } from './fixtures';

afterEach(cleanup);

describe('the working folder in the chat header', () => {
  it('is shown, and changed through a checked field', async () => {
    const fake = createFakeBridge({
      'messages.list': () => [],
      'sessions.update': (i) => {
        if (i.workingFolder === '~')
          throw {
            code: 'invalid_input',
            message: 'The working folder cannot be your whole home folder; choose a folder inside it.',
          };
        return { ...session(), workingFolder: '/srv/project' };
      },
    });
    setBridge(fake.bridge);
    useAppStore.setState(
      seed({
        settings: settings(),
        sessions: [session()],
        activeSessionId: 's1',
        messages: { s1: [] },
        usage: { s1: usage() },
        compactions: { s1: [] },
        busy: {},
        compacting: {},
      }),
    );
    render(<ChatView />);
    expect(screen.getByTestId('folder-button').textContent).toContain('/home/u/Threadline');
    fireEvent.click(screen.getByTestId('folder-button'));
    const input = screen.getByTestId('folder-input') as HTMLInputElement;
    expect(input.value).toBe('/home/u/Threadline');
    // Checked here first: a relative path never reaches the runtime.
    fireEvent.change(input, { target: { value: 'project' } });
    await act(async () => fireEvent.click(screen.getByTestId('folder-save')));
    expect(screen.getByTestId('folder-error').textContent).toMatch(/absolute path/);
    expect(fake.calls.some((c) => c.route === 'sessions.update')).toBe(false);
    // The protocol's own rule: nothing typed, and a path past its length, are refused here too.
    fireEvent.change(input, { target: { value: '   ' } });
    await act(async () => fireEvent.click(screen.getByTestId('folder-save')));
    expect(screen.getByTestId('folder-error').textContent).toMatch(/Type the path of a folder/);
    fireEvent.change(input, { target: { value: '/' + 'a'.repeat(5000) } });
    await act(async () => fireEvent.click(screen.getByTestId('folder-save')));
    expect(screen.getByTestId('folder-error').textContent).toMatch(/too long/);
    expect(fake.calls.some((c) => c.route === 'sessions.update')).toBe(false);
    // The runtime's refusal is shown as its one sentence.
    fireEvent.change(input, { target: { value: '~' } });
    await act(async () => fireEvent.click(screen.getByTestId('folder-save')));
    expect(screen.getByTestId('folder-error').textContent).toMatch(/whole home folder/);
    fireEvent.change(input, { target: { value: '/srv/project' } });
    await act(async () => fireEvent.click(screen.getByTestId('folder-save')));
    expect(screen.queryByTestId('folder-dialog')).toBeNull();
    expect(screen.getByTestId('folder-button').textContent).toContain('/srv/project');
  });
});

describe('the approval card', () => {
  it('shows the resolved path that made a file tool ask', () => {
    const call = {
      id: 'c1',
      type: 'function' as const,
      function: { name: 'read_file', arguments: '{"path":"link.txt"}' },
    };
    useAppStore.setState(
      seed({
        busy: { s1: true },
        tools: {
          c1: {
            sessionId: 's1',
            status: 'waiting',
            needsApproval: true,
            durationMs: null,
            call,
            messageId: 'a1',
            access: { path: '/home/u/.ssh/id_ed25519', zone: 'credential' },
          },
        },
      }),
    );
    render(<ToolCallCard sessionId="s1" call={call} result={null} />);
    const access = screen.getByTestId('tool-access');
    expect(access.textContent).toContain('/home/u/.ssh/id_ed25519');
    expect(access.textContent).toContain('Where credentials are kept');
  });
});
