import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import i18n from '../i18n';
import { MessageRow } from '../components/MessageRow';
import { buildRows } from '../lib/transcript';
import { msg } from './fixtures';

describe('an interrupted answer', () => {
  afterEach(cleanup);

  it('is marked as incomplete, in both languages; a whole answer is not', async () => {
    const rows = buildRows(
      [
        msg({ role: 'user', content: 'explain' }),
        msg({ role: 'assistant', content: 'Here is the first', meta: { partial: true } }),
        msg({ role: 'assistant', content: 'A whole answer.' }),
      ],
      [],
    );
    await i18n.changeLanguage('en');
    const { rerender } = render(<MessageRow row={rows[1]!} sessionId="s1" />);
    expect(screen.getByTestId('partial-tag').textContent).toBe('Interrupted: this answer is incomplete');
    await i18n.changeLanguage('zh-CN');
    rerender(<MessageRow row={rows[1]!} sessionId="s1" />);
    expect(screen.getByTestId('partial-tag').textContent).toBe('已中断：此回答不完整');
    rerender(<MessageRow row={rows[2]!} sessionId="s1" />);
    expect(screen.queryByTestId('partial-tag')).toBeNull();
    await i18n.changeLanguage('en');
  });
});
