import { memo, useRef, type ReactNode } from 'react';
import ReactMarkdown, { type Components } from 'react-markdown';
import remarkGfm from 'remark-gfm';
import rehypeHighlight from 'rehype-highlight';
import { CopyButton } from './CopyButton';

function Pre({ children }: { children?: ReactNode }) {
  const ref = useRef<HTMLPreElement>(null);
  const lang = /language-(\S+)/.exec(
    (children as { props?: { className?: string } } | undefined)?.props?.className ?? '',
  )?.[1];
  return (
    <div className="code-block">
      <div className="code-head">
        <span className="code-lang">{lang ?? ''}</span>
        <CopyButton getText={() => ref.current?.innerText ?? ''} />
      </div>
      <pre ref={ref}>{children}</pre>
    </div>
  );
}

function Link({ href, children }: { href?: string; children?: ReactNode }) {
  // Links open outside the app (the shell denies in-app navigation).
  return (
    <a href={href} target="_blank" rel="noreferrer noopener">
      {children}
    </a>
  );
}

const components: Components = { pre: Pre, a: Link };
const remarkPlugins = [remarkGfm];
const rehypePlugins = [[rehypeHighlight, { detect: false, ignoreMissing: true }]] as never;

/** Chat Markdown: GFM, highlighted code with a copy button; raw HTML is never rendered. */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  return (
    <div className="md">
      <ReactMarkdown remarkPlugins={remarkPlugins} rehypePlugins={rehypePlugins} components={components}>
        {text}
      </ReactMarkdown>
    </div>
  );
});
