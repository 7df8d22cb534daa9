import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import '../i18n';
import { CompactionDivider } from '../components/CompactionDivider';
import { useAppStore } from '../store';
import { compaction, msg, seed } from './fixtures';

const SNAPSHOT =
  '[CFPM_MEMORY_V1] Checkpoint.\nUser messages (first line each):\n- run step 2\nKnown artifacts/paths:\n- build/report.txt';

describe('CompactionDivider', () => {
  afterEach(cleanup);

  it('shows a CFPM checkpoint as the plain lines it is (titles stay their own lines)', () => {
    useAppStore.setState(seed({ busy: {} }));
    const c = compaction({
      strategy: 'cfpm_memory_v1',
      summary: SNAPSHOT,
      insertedIds: ['x'],
      tokensBefore: 5100,
      tokensAfter: 3400,
    });
    // As right after the compaction: the record is there, its inserted messages not loaded yet.
    render(<CompactionDivider sessionId="s1" compaction={c} latest inserted={[]} />);
    expect(screen.getByTestId('compaction-divider').textContent).toContain('5.1K → 3.4K tokens (−33%)');
    fireEvent.click(screen.getByRole('button', { name: /Show summary/ }));
    const body = screen.getByTestId('compaction-summary');
    expect(body.textContent).toContain('Memory snapshot the model reads instead');
    expect(body.querySelector('.divider-snapshot')?.textContent).toBe(SNAPSHOT);
    expect(body.querySelector('li')).toBeNull();
  });

  it('renders a model summary as Markdown', () => {
    const c = compaction({ strategy: 'legacy_segmented', summary: '## Goals\n- ship it', insertedIds: ['s'] });
    const inserted = [
      msg({
        id: 's',
        seq: 9,
        role: 'user',
        kind: 'summary',
        content: '## Goals\n- ship it',
        visibility: { user: false, agent: true },
      }),
    ];
    render(<CompactionDivider sessionId="s1" compaction={c} latest inserted={inserted} />);
    fireEvent.click(screen.getByRole('button', { name: /Show summary/ }));
    expect(screen.getByTestId('compaction-summary').querySelector('li')?.textContent).toBe('ship it');
  });

  it('says so when a compaction saved under 10 %, and shows its instructions', () => {
    useAppStore.setState(seed({ busy: {} }));
    const small = compaction({ tokensBefore: 3600, tokensAfter: 3500, instructions: 'focus on files' });
    render(<CompactionDivider sessionId="s1" compaction={small} latest inserted={[]} />);
    expect(screen.getByTestId('divider-small').textContent).toContain('saved under 10%');
    expect(screen.getByTestId('divider-instructions').textContent).toBe('Instructions: focus on files');
    cleanup();
    render(<CompactionDivider sessionId="s1" compaction={compaction({})} latest inserted={[]} />);
    expect(screen.queryByTestId('divider-small')).toBeNull();
  });
});
