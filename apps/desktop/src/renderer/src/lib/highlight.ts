// Syntax highlighting of fenced code with highlight.js, each grammar loaded the first time a code
// block names it (or one of its aliases), so the renderer's first load carries none of them (nor
// highlight.js' core, loaded with the first grammar).
// The table is highlight.js's "common" set (lib/common.js) with each grammar's own aliases and
// the grammars it embeds (subLanguage); highlight.test.ts checks it against the library.
import type { HLJSApi, LanguageFn } from 'highlight.js';

interface Grammar {
  load: () => Promise<{ default: LanguageFn }>;
  aliases?: readonly string[];
  /** Grammars it highlights parts of its text with (a <script> in HTML): loaded with it. */
  uses?: readonly string[];
}

export const GRAMMARS: Readonly<Record<string, Grammar>> = {
  xml: {
    load: () => import('highlight.js/lib/languages/xml'),
    aliases: ['html', 'xhtml', 'rss', 'atom', 'xjb', 'xsd', 'xsl', 'plist', 'wsf', 'svg'],
    uses: ['css', 'javascript'],
  },
  bash: {
    load: () => import('highlight.js/lib/languages/bash'),
    aliases: ['sh', 'zsh'],
  },
  c: {
    load: () => import('highlight.js/lib/languages/c'),
    aliases: ['h'],
  },
  cpp: {
    load: () => import('highlight.js/lib/languages/cpp'),
    aliases: ['cc', 'c++', 'h++', 'hpp', 'hh', 'hxx', 'cxx'],
  },
  csharp: {
    load: () => import('highlight.js/lib/languages/csharp'),
    aliases: ['cs', 'c#'],
  },
  css: {
    load: () => import('highlight.js/lib/languages/css'),
  },
  markdown: {
    load: () => import('highlight.js/lib/languages/markdown'),
    aliases: ['md', 'mkdown', 'mkd'],
    uses: ['xml'],
  },
  diff: {
    load: () => import('highlight.js/lib/languages/diff'),
    aliases: ['patch'],
  },
  ruby: {
    load: () => import('highlight.js/lib/languages/ruby'),
    aliases: ['rb', 'gemspec', 'podspec', 'thor', 'irb'],
  },
  go: {
    load: () => import('highlight.js/lib/languages/go'),
    aliases: ['golang'],
  },
  graphql: {
    load: () => import('highlight.js/lib/languages/graphql'),
    aliases: ['gql'],
  },
  ini: {
    load: () => import('highlight.js/lib/languages/ini'),
    aliases: ['toml'],
  },
  java: {
    load: () => import('highlight.js/lib/languages/java'),
    aliases: ['jsp'],
  },
  javascript: {
    load: () => import('highlight.js/lib/languages/javascript'),
    aliases: ['js', 'jsx', 'mjs', 'cjs'],
    uses: ['xml', 'css', 'graphql'],
  },
  json: {
    load: () => import('highlight.js/lib/languages/json'),
    aliases: ['jsonc', 'json5'],
  },
  kotlin: {
    load: () => import('highlight.js/lib/languages/kotlin'),
    aliases: ['kt', 'kts', 'ktm', 'ktx'],
  },
  less: {
    load: () => import('highlight.js/lib/languages/less'),
  },
  lua: {
    load: () => import('highlight.js/lib/languages/lua'),
    aliases: ['pluto'],
  },
  makefile: {
    load: () => import('highlight.js/lib/languages/makefile'),
    aliases: ['mk', 'mak', 'make'],
  },
  perl: {
    load: () => import('highlight.js/lib/languages/perl'),
    aliases: ['pl', 'pm'],
  },
  objectivec: {
    load: () => import('highlight.js/lib/languages/objectivec'),
    aliases: ['mm', 'objc', 'obj-c', 'obj-c++', 'objective-c++'],
  },
  php: {
    load: () => import('highlight.js/lib/languages/php'),
  },
  'php-template': {
    load: () => import('highlight.js/lib/languages/php-template'),
    uses: ['xml', 'php'],
  },
  plaintext: {
    load: () => import('highlight.js/lib/languages/plaintext'),
    aliases: ['text', 'txt'],
  },
  python: {
    load: () => import('highlight.js/lib/languages/python'),
    aliases: ['py', 'gyp', 'ipython'],
  },
  'python-repl': {
    load: () => import('highlight.js/lib/languages/python-repl'),
    aliases: ['pycon'],
    uses: ['python'],
  },
  r: {
    load: () => import('highlight.js/lib/languages/r'),
  },
  rust: {
    load: () => import('highlight.js/lib/languages/rust'),
    aliases: ['rs'],
  },
  scss: {
    load: () => import('highlight.js/lib/languages/scss'),
  },
  shell: {
    load: () => import('highlight.js/lib/languages/shell'),
    aliases: ['console', 'shellsession'],
    uses: ['bash'],
  },
  sql: {
    load: () => import('highlight.js/lib/languages/sql'),
  },
  swift: {
    load: () => import('highlight.js/lib/languages/swift'),
  },
  yaml: {
    load: () => import('highlight.js/lib/languages/yaml'),
    aliases: ['yml'],
    uses: ['ruby'],
  },
  typescript: {
    load: () => import('highlight.js/lib/languages/typescript'),
    aliases: ['ts', 'tsx', 'mts', 'cts'],
    uses: ['xml', 'css', 'graphql'],
  },
  vbnet: {
    load: () => import('highlight.js/lib/languages/vbnet'),
    aliases: ['vb'],
  },
  wasm: {
    load: () => import('highlight.js/lib/languages/wasm'),
  },
};

const byName = new Map<string, string>();
for (const [name, g] of Object.entries(GRAMMARS)) {
  byName.set(name, name);
  for (const alias of g.aliases ?? []) byName.set(alias, name);
}

/** The grammar a fence's language names (`sh` → bash), or null when highlight.js has none. */
export function grammarOf(lang: string): string | null {
  return byName.get(lang.toLowerCase()) ?? null;
}

let hljs: HLJSApi | null = null;
let core: Promise<HLJSApi> | null = null;
const loadCore = (): Promise<HLJSApi> => (core ??= import('highlight.js/lib/core').then((m) => (hljs = m.default)));

const loading = new Map<string, Promise<void>>();
/** Highlighted blocks by grammar and text (a virtual list mounts the same block again and again). */
const done = new Map<string, string>();
const DONE_MAX = 500;
const listeners = new Set<() => void>();
let version = 0;

/**
 * Loads a grammar, and the grammars it uses alongside (each registered, and announced, as it
 * arrives: a block is highlighted again when one of them lands). A failed load leaves the block plain.
 */
export function loadGrammar(name: string): void {
  const g = GRAMMARS[name];
  if (!g || loading.has(name)) return;
  loading.set(
    name,
    Promise.all([loadCore(), g.load()])
      .then(([api, mod]) => {
        api.registerLanguage(name, mod.default);
        version++;
        done.clear();
        for (const l of listeners) l();
      })
      .catch(() => undefined),
  );
  for (const u of g.uses ?? []) loadGrammar(u);
}

/** Resolves when every grammar asked for so far has loaded or failed (tests, and nothing else). */
export async function grammarsSettled(): Promise<void> {
  let size = -1;
  while (size !== loading.size) {
    size = loading.size;
    await Promise.all(loading.values());
  }
}

/** For useSyncExternalStore: changes whenever a grammar is registered. */
export function subscribeGrammars(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
export const grammarsVersion = (): number => version;

/** Highlighted HTML (spans with classes; highlight.js escapes the code), or null until its grammar is loaded. */
export function highlighted(code: string, name: string): string | null {
  if (!hljs?.getLanguage(name)) return null;
  const key = `${name}\0${code}`;
  let html = done.get(key);
  if (html === undefined) {
    html = hljs.highlight(code, { language: name, ignoreIllegals: true }).value;
    done.set(key, html);
    if (done.size > DONE_MAX) done.delete(done.keys().next().value as string);
  }
  return html;
}
