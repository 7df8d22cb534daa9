import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import i18n from '../i18n';
import { Markdown } from '../components/Markdown';

describe('code blocks', () => {
  afterEach(cleanup);

  it('have a language label (a fence without one says "text") and a copy button', async () => {
    await i18n.changeLanguage('en');
    render(<Markdown text={'```ts\nconst a = 1;\n```\n\nand\n\n```\nplain words\n```'} />);
    expect(screen.getAllByTestId('code-lang').map((e) => e.textContent)).toEqual(['ts', 'text']);
    expect(screen.getAllByRole('button', { name: 'Copy' })).toHaveLength(2);
  });
});
