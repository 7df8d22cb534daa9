import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import i18n from '../i18n';
import { NoticeChip } from '../components/NoticeChip';
import { CheckpointRow } from '../components/CheckpointRow';
import type { Checkpoint } from '@threadline/protocol';
import { buildRows, withCheckpoints } from '../lib/transcript';
import { createAppStore } from '../store';
import { createEventHandler } from '../store/events';
import { msg } from './fixtures';

const checkpoint = (p: Partial<Checkpoint>): Checkpoint => ({
  id: 'cp1',
  sessionId: 's1',
  anchorId: 'a1',
  userMessageId: 'u1',
  folder: '/w',
  beforeCommit: 'b',
  afterCommit: 'a',
  filesChanged: 1,
  files: [{ path: 'x.txt', status: 'modified', added: 1, removed: 1 }],
  skipped: { tooLarge: [], overBudget: 0, nestedRepos: [], maxFileBytes: 1, maxTotalBytes: 1 },
  state: 'applied',
  createdAt: 1,
  updatedAt: 1,
  ...p,
});

describe('checkpoint rows', () => {
  const history = [
    msg({ id: 'u1', seq: 1, role: 'user', content: 'change x' }),
    msg({ id: 'a1', seq: 2, role: 'assistant', content: 'done' }),
    msg({ id: 'u2', seq: 3, role: 'user', content: 'next' }),
    msg({ id: 'a2', seq: 4, role: 'assistant', content: 'ok' }),
  ];

  it('sits after the turn it belongs to; one anchored on another branch is not shown', () => {
    const rows = withCheckpoints(buildRows(history, []), history, [
      checkpoint({}),
      checkpoint({ id: 'cp2', anchorId: 'a2' }),
      checkpoint({ id: 'elsewhere', anchorId: 'other-branch' }),
    ]);
    expect(rows.map((r) => r.key)).toEqual(['u1', 'a1', 'cp:cp1', 'u2', 'a2', 'cp:cp2']);
  });

  it('checkpoint.updated adds a checkpoint, then replaces it when undone', () => {
    const store = createAppStore();
    const handle = createEventHandler(store.getState, store.setState);
    handle({ type: 'checkpoint.updated', sessionId: 's1', checkpoint: checkpoint({}) });
    handle({ type: 'checkpoint.updated', sessionId: 's1', checkpoint: checkpoint({ state: 'undone' }) });
    expect(store.getState().bySession.s1?.checkpoints?.map((c) => [c.id, c.state])).toEqual([['cp1', 'undone']]);
  });
});

describe('a checkpoint whose changes were overwritten', () => {
  afterEach(async () => {
    cleanup();
    await i18n.changeLanguage('en');
  });

  it('says its changes are no longer in the files and offers Redo, in both languages', async () => {
    render(<CheckpointRow checkpoint={checkpoint({ state: 'overwritten' })} sessionId="s1" />);
    expect(screen.getByTestId('checkpoint-overwritten').textContent).toBe('No longer in the files');
    expect(screen.getByTestId('checkpoint').textContent).toContain('Redo puts them back');
    expect(screen.getByTestId('checkpoint-redo').textContent).toBe('Redo');
    expect(screen.queryByTestId('checkpoint-undo')).toBeNull();
    cleanup();
    await i18n.changeLanguage('zh-CN');
    render(<CheckpointRow checkpoint={checkpoint({ state: 'overwritten' })} sessionId="s1" />);
    expect(screen.getByTestId('checkpoint-overwritten').textContent).toBe('已不在文件中');
    expect(screen.getByTestId('checkpoint-redo').textContent).toBe('重做');
  });
});

describe('checkpoint notices', () => {
  afterEach(async () => {
    cleanup();
    await i18n.changeLanguage('en');
  });
  const note = (meta: Record<string, unknown>, content = 'The user undid the file changes of turn 1: a.txt') =>
    msg({ role: 'user', kind: 'checkpoint_notice', content, meta, visibility: { user: true, agent: true } });

  it('says an undo in the user language, not the sentence the model reads', async () => {
    render(<NoticeChip msg={note({ action: 'undo', checkpointId: 'cp1', files: ['a.txt', 'b.txt'] })} />);
    expect(screen.getByTestId('notice-chip').textContent).toBe(
      'You undid 2 file changes of an earlier turn: a.txt, b.txt. The agent has been told.',
    );
    cleanup();
    await i18n.changeLanguage('zh-CN');
    render(
      <NoticeChip msg={note({ action: 'unavailable', files: [] }, 'Checkpoints are off: git is not installed')} />,
    );
    expect(screen.getByTestId('notice-chip').textContent).toContain('未安装 git');
  });
});
