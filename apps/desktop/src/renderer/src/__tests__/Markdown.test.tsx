import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import i18n from '../i18n';
import { Markdown } from '../components/Markdown';
import { grammarsSettled } from '../lib/highlight';

describe('code blocks', () => {
  afterEach(cleanup);

  it('have a language label (a fence without one says "text") and a copy button', async () => {
    await i18n.changeLanguage('en');
    render(<Markdown text={'```ts\nconst a = 1;\n```\n\nand\n\n```\nplain words\n```'} />);
    expect(screen.getAllByTestId('code-lang').map((e) => e.textContent)).toEqual(['ts', 'text']);
    expect(screen.getAllByRole('button', { name: 'Copy' })).toHaveLength(2);
  });
});

describe('highlighting', () => {
  afterEach(cleanup);

  it('shows a block plain, then highlighted once its grammar (found by alias) has loaded', async () => {
    render(<Markdown text={'```sh\necho "hi" # greet\n```'} />);
    const code = document.querySelector('pre code')!;
    expect(code.textContent).toBe('echo "hi" # greet\n');
    await grammarsSettled();
    await waitFor(() => expect(code.querySelector('.hljs-comment')?.textContent).toBe('# greet'));
    expect(code.classList.contains('hljs')).toBe(true);
  });

  it('leaves a language highlight.js does not know plain', async () => {
    render(<Markdown text={'```nosuchlang\nx = 1\n```'} />);
    await grammarsSettled();
    const code = document.querySelector('pre code')!;
    expect(code.classList.contains('hljs')).toBe(false);
    expect(code.innerHTML).toBe('x = 1\n');
  });
});
