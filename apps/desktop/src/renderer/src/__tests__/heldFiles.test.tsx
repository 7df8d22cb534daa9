import { afterEach, describe, expect, it } from 'vitest';
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import type { HeldFile } from '@threadline/protocol';
import i18n from '../i18n';
import { HeldFilesCard } from '../components/HeldFilesCard';
import { NoticeChip } from '../components/NoticeChip';
import { useAppStore } from '../store';
import { createEventHandler } from '../store/events';
import { setBridge } from '../transport';
import { createFakeBridge } from './fakeBridge';
import { msg } from './fixtures';

afterEach(async () => {
  cleanup();
  useAppStore.setState({ bySession: {} });
  await i18n.changeLanguage('en');
});

let n = 0;
const held = (p: Partial<HeldFile>): HeldFile => ({
  id: `h${n++}`,
  sessionId: 's1',
  folder: '/w',
  path: '.envrc',
  kind: 'file',
  reason: 'envrc',
  entries: null,
  target: null,
  keepable: true,
  createdAt: 1,
  ...p,
});

const FILES: HeldFile[] = [
  held({ path: 'AGENTS.md', reason: 'agent_config' }),
  held({ path: '.github', kind: 'link', reason: 'link_outside', target: '/home/u/otherproj/.github' }),
  held({ path: 'node_modules/.bin/a', reason: 'node_bin' }),
  held({ path: 'node_modules/.bin/b', reason: 'node_bin' }),
  held({ path: 'node_modules/.bin/c', reason: 'node_bin' }),
  held({ path: '.vscode', kind: 'dir', reason: 'editor_tasks', entries: 2 }),
  held({ path: 'pipe', kind: 'fifo', reason: 'special_file', keepable: false }),
];

function show(files: HeldFile[]) {
  useAppStore.getState().patchSession('s1', { held: files });
  return render(<HeldFilesCard sessionId="s1" />);
}

describe('the held-files card', () => {
  it('lists each held file with why, an install’s programs as one row, in both languages', async () => {
    const { unmount } = show(FILES);
    const card = screen.getByTestId('held-card');
    expect(within(card).getByRole('heading').textContent).toBe(
      'Held for you: 7 files a command left that could run code later',
    );
    const rows = screen.getAllByTestId('held-file').map((r) => r.textContent);
    expect(rows).toEqual([
      expect.stringMatching(/^AGENTS\.md.*every later session/),
      expect.stringMatching(/^\.githublink to \/home\/u\/otherproj\/\.github.*out of the working folder/),
      expect.stringMatching(/^node_modules\/\.bin\/3 files.*npx/),
      expect.stringMatching(/^\.vscodefolder, 2 entries.*tasks/),
      expect.stringMatching(/^pipeFIFO.*hang/),
    ]);
    unmount();
    await i18n.changeLanguage('zh-CN');
    show(FILES);
    expect(screen.getByRole('heading').textContent).toBe('已为你暂扣：命令留下的 7 个可能在之后运行代码的文件');
    expect(screen.getByTestId('held-keep').textContent).toBe('保留');
    expect(screen.getByTestId('held-discard').textContent).toBe('丢弃');
  });

  it('shows nothing when nothing is held; held.updated brings the card and Discard empties it', async () => {
    const fake = createFakeBridge({
      'held.resolve': (input) => {
        expect(input).toEqual({ sessionId: 's1', decision: 'discard' });
        return { done: FILES, failed: [], files: [] };
      },
    });
    setBridge(fake.bridge);
    show([]);
    expect(screen.queryByTestId('held-card')).toBeNull();
    const handle = createEventHandler(useAppStore.getState, useAppStore.setState);
    act(() => handle({ type: 'held.updated', sessionId: 's1', files: FILES.slice(0, 2) }));
    expect(screen.getAllByTestId('held-file')).toHaveLength(2);
    await act(async () => fireEvent.click(screen.getByTestId('held-discard')));
    expect(screen.queryByTestId('held-card')).toBeNull();
  });

  it('Keep names what could not be put back, which stays held', async () => {
    const stays = [FILES[6]!];
    setBridge(
      createFakeBridge({
        'held.resolve': () => ({
          done: FILES.slice(0, 6),
          failed: [{ path: 'pipe', why: 'not_keepable' }],
          files: stays,
        }),
      }).bridge,
    );
    show(FILES);
    await act(async () => fireEvent.click(screen.getByTestId('held-keep')));
    expect(screen.getByTestId('held-failed').textContent).toBe(
      'A FIFO, socket or device cannot be put back: pipe. Discard it.',
    );
    expect(screen.getAllByTestId('held-file')).toHaveLength(1);
  });
});

describe('held notices', () => {
  it('says what was held at the end of a turn, and what the user kept, in the user language', async () => {
    const note = (action: string, files: string[]) =>
      msg({ role: 'user', kind: 'checkpoint_notice', content: 'x', meta: { action, files } });
    const { unmount } = render(<NoticeChip msg={note('held', ['node_modules/.bin/a', 'conftest.py'])} />);
    expect(screen.getByTestId('notice-chip').textContent).toBe(
      'Held 2 files at the end of the turn, because they could run code later: node_modules/.bin/a, conftest.py. The agent has been told.',
    );
    unmount();
    await i18n.changeLanguage('zh-CN');
    render(<NoticeChip msg={note('kept', ['.envrc'])} />);
    expect(screen.getByTestId('notice-chip').textContent).toBe('你保留了 1 个被暂扣的文件：.envrc。已告知助手。');
  });
});
