import type { BuildEnvironmentOptions } from 'vite';

// How the renderer is built, the same for the desktop app (electron.vite.config.ts, which would
// otherwise leave it unminified) and browser mode (vite.web.config.ts): minified, React and the
// Markdown stack in chunks of their own, and what only some views need left to dynamic imports
// (Settings, the first-run setup, the Memory panel, highlight.js and each of its grammars).
const pkg = (names: string): RegExp => new RegExp(`[\\\\/]node_modules[\\\\/](?:${names})[\\\\/]`);

export const rendererBuild: BuildEnvironmentOptions = {
  minify: true,
  cssMinify: true,
  // The report below names every file; one over 500 kB would be worth a look.
  chunkSizeWarningLimit: 500,
  rolldownOptions: {
    output: {
      codeSplitting: {
        groups: [
          { name: 'vendor-react', test: pkg('react|react-dom|scheduler'), priority: 20 },
          {
            name: 'vendor-markdown',
            test: pkg(
              'react-markdown|remark-[^\\\\/]+|rehype-[^\\\\/]+|micromark[^\\\\/]*|mdast-[^\\\\/]+|hast-[^\\\\/]+|unist-[^\\\\/]+|unified|vfile[^\\\\/]*|property-information|[a-z-]*separated-tokens|decode-named-character-reference|character-entities[^\\\\/]*|devlop|bail|trough|is-plain-obj|ccount|markdown-table|zwitch|longest-streak|trim-lines|html-url-attributes|estree-util-[^\\\\/]+|style-to-[^\\\\/]+|inline-style-parser|escape-string-regexp',
            ),
            priority: 10,
          },
        ],
      },
    },
  },
};
