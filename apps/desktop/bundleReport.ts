import { gzipSync } from 'node:zlib';
import type { Plugin, ResolvedConfig } from 'vite';

// `pnpm build` ends each bundle's list of files with one line of totals: what a window loads
// before its first paint (the entry and everything it imports statically, plus its CSS) and what
// the bundle holds in all, with gzip sizes. The figures the issue asks to watch, in one place.

interface OutputFile {
  type: 'chunk' | 'asset';
  fileName: string;
  code?: string;
  source?: string | Uint8Array;
  isEntry?: boolean;
  imports?: string[];
  viteMetadata?: { importedCss?: Set<string> };
}

const kB = (n: number): string =>
  `${(n / 1000).toLocaleString('en-US', { maximumFractionDigits: 1, minimumFractionDigits: 1 })} kB`;

function bytesOf(file: OutputFile): Buffer {
  const body = file.type === 'chunk' ? file.code : file.source;
  return typeof body === 'string' ? Buffer.from(body) : Buffer.from(body ?? []);
}

/** The totals line of one bundle's output files (exported for its test). */
export function bundleTotals(label: string, files: readonly OutputFile[]): string {
  const byName = new Map(files.map((f) => [f.fileName, f]));
  const counted = files.filter((f) => /\.(m?js|cjs|css)$/.test(f.fileName));
  const start = new Set<string>();
  const visit = (name: string): void => {
    const f = byName.get(name);
    if (!f || start.has(name)) return;
    start.add(name);
    for (const css of f.viteMetadata?.importedCss ?? []) start.add(css);
    for (const dep of f.imports ?? []) visit(dep);
  };
  for (const f of files) if (f.isEntry) visit(f.fileName);
  const sum = (list: readonly OutputFile[]) => {
    const bytes = list.map(bytesOf);
    return { raw: bytes.reduce((a, b) => a + b.length, 0), gzip: bytes.reduce((a, b) => a + gzipSync(b).length, 0) };
  };
  const first = sum(counted.filter((f) => start.has(f.fileName)));
  const all = sum(counted);
  const nFirst = counted.filter((f) => start.has(f.fileName)).length;
  if (nFirst === counted.length)
    return `${label}: ${kB(all.raw)} (gzip ${kB(all.gzip)}) in ${counted.length} file${counted.length === 1 ? '' : 's'}`;
  return (
    `${label}: ${kB(first.raw)} at start (gzip ${kB(first.gzip)}, ${nFirst} files), ` +
    `${kB(all.raw)} in all (gzip ${kB(all.gzip)}, ${counted.length} files; the rest load when a view or a code block needs them)`
  );
}

/**
 * A plugin that prints `bundleTotals` once the build is done (after Vite's list of files),
 * through Vite's logger: a build run with `logLevel: 'silent'` prints nothing.
 */
export function bundleReport(label: string): Plugin {
  let line: string | null = null;
  let logger: ResolvedConfig['logger'] | null = null;
  return {
    name: 'threadline-bundle-report',
    apply: 'build',
    configResolved(config) {
      logger = config.logger;
    },
    writeBundle(_options, bundle) {
      line = bundleTotals(label, Object.values(bundle) as unknown as OutputFile[]);
    },
    closeBundle() {
      if (line) logger?.info(line);
      line = null;
    },
  };
}
