import { memo, useEffect, useRef, useSyncExternalStore, type ReactElement, type ReactNode } from 'react';
import renderMarkdownTree, { type Components } from 'react-markdown';
import remarkGfm from 'remark-gfm';
import { useTranslation } from 'react-i18next';
import { CopyButton } from './CopyButton';
import { grammarOf, grammarsVersion, highlighted, loadGrammar, subscribeGrammars } from '../lib/highlight';

function Pre({ children }: { children?: ReactNode }) {
  const { t } = useTranslation();
  const ref = useRef<HTMLPreElement>(null);
  const lang = /language-(\S+)/.exec(
    (children as { props?: { className?: string } } | undefined)?.props?.className ?? '',
  )?.[1];
  return (
    <div className="code-block">
      <div className="code-head">
        {/* A fence without a language still says what it is. */}
        <span className="code-lang" data-testid="code-lang">
          {lang ?? t('chat.code.plain')}
        </span>
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

/**
 * Fenced code, highlighted with one shared highlight.js instance whose grammars load on first use
 * (`lib/highlight.ts`): the block shows plain until its grammar arrives, then highlighted.
 * (rehype-highlight builds a new highlighter with every grammar for each parse, which dominated
 * scrolling a long session.) highlight.js escapes the code it is given; its output is only spans
 * with classes.
 */
function Code({ className, children }: { className?: string; children?: ReactNode }) {
  const lang = /language-(\S+)/.exec(className ?? '')?.[1];
  const text = typeof children === 'string' ? children : Array.isArray(children) ? children.join('') : '';
  const grammar = lang && text.length <= 100_000 ? grammarOf(lang) : null;
  // Re-render when a grammar lands (this block's, or one it embeds).
  useSyncExternalStore(subscribeGrammars, grammarsVersion);
  useEffect(() => {
    if (grammar) loadGrammar(grammar);
  }, [grammar]);
  const html = grammar ? highlighted(text.replace(/\n$/, ''), grammar) : null;
  if (html === null) return <code className={className}>{children}</code>;
  return <code className={`${className} hljs`} dangerouslySetInnerHTML={{ __html: html }} />;
}

const components: Components = { pre: Pre, a: Link, code: Code };
const remarkPlugins = [remarkGfm];

/** Text with nothing Markdown would change renders as a paragraph without running the parser. */
const PLAIN = /^[^*_`#[\]|<>~!\\\n&]*$/;
const LISTY = /^\s*([-+]|\d+[.)])\s/;
function isPlain(text: string): boolean {
  return PLAIN.test(text) && !LISTY.test(text) && !/https?:|www\./i.test(text);
}

/**
 * Parsed trees by text. A virtual list mounts and unmounts rows all the time while scrolling;
 * parsing and highlighting the same message again on every mount is what makes long frames.
 * React elements are immutable, so one tree can be mounted any number of times.
 */
const CACHE_MAX = 1500;
const cache = new Map<string, ReactElement>();
function cachedTree(text: string): ReactElement {
  const hit = cache.get(text);
  if (hit) {
    cache.delete(text);
    cache.set(text, hit);
    return hit;
  }
  const tree = isPlain(text) ? <p>{text}</p> : renderMarkdownTree({ children: text, remarkPlugins, components });
  cache.set(text, tree);
  if (cache.size > CACHE_MAX) cache.delete(cache.keys().next().value as string);
  return tree;
}

/** Chat Markdown: GFM, highlighted code with a copy button; raw HTML is never rendered. */
export const Markdown = memo(function Markdown({ text, streaming = false }: { text: string; streaming?: boolean }) {
  // A streaming message changes every frame: parse it, but do not fill the cache with its prefixes.
  const tree = streaming ? (
    isPlain(text) ? (
      <p>{text}</p>
    ) : (
      renderMarkdownTree({ children: text, remarkPlugins, components })
    )
  ) : (
    cachedTree(text)
  );
  return <div className="md">{tree}</div>;
});
