import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { build, type Rolldown } from 'vite';

// What `pnpm build` makes of the renderer and the preload, built here with Vite as the app is.

// The renderer as browser mode builds it (the desktop build shares its settings, rendererBuild.ts):
// minified, split, and what only some views need out of what a window loads at start.
const desktop = resolve(import.meta.dirname, '..');
const out = mkdtempSync(join(tmpdir(), 'tl-renderer-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('the renderer bundle', () => {
  it('loads no highlight.js, forms or settings at start; each grammar is a chunk of its own', async () => {
    const result = (await build({
      configFile: resolve(desktop, 'vite.web.config.ts'),
      logLevel: 'silent',
      build: { write: false, outDir: out, emptyOutDir: false },
    })) as Rolldown.RolldownOutput;
    const chunks = result.output.filter((o): o is Rolldown.OutputChunk => o.type === 'chunk');
    const byName = new Map(chunks.map((c) => [c.fileName, c]));
    const start = new Set<Rolldown.OutputChunk>();
    const visit = (c: Rolldown.OutputChunk | undefined): void => {
      if (!c || start.has(c)) return;
      start.add(c);
      for (const i of c.imports) visit(byName.get(i));
    };
    for (const c of chunks) if (c.isEntry) visit(c);
    const atStart = [...start].flatMap((c) => c.moduleIds);
    expect(atStart.filter((id) => /highlight\.js|react-hook-form|SettingsPage|MemoryPanel/.test(id))).toEqual([]);
    expect(atStart.some((id) => /react-markdown/.test(id))).toBe(true);

    const grammarChunks = chunks.filter((c) =>
      c.moduleIds.some((id) => /highlight\.js[\\/]es[\\/]languages[\\/]/.test(id)),
    );
    expect(grammarChunks.length).toBeGreaterThanOrEqual(30);
    for (const c of grammarChunks)
      expect(
        c.moduleIds.filter((id) => /languages[\\/]/.test(id)),
        c.fileName,
      ).toHaveLength(1);

    // Minified: no module comments, long lines.
    const entry = chunks.find((c) => c.isEntry)!;
    expect(entry.code).not.toMatch(/^\/\/ (src|\.\.)\//m);
    expect(entry.code.length / entry.code.split('\n').length).toBeGreaterThan(1000);
  });
});

// The preload is bundled into one CommonJS file (a sandboxed preload can require only electron).
// It checks route names and events with plain lists and type checks: no schema library in it.
describe('the preload bundle', () => {
  it('is a few kilobytes with no zod in it', async () => {
    const out = (await build({
      configFile: false,
      logLevel: 'silent',
      build: {
        write: false,
        minify: false,
        lib: { entry: resolve(desktop, 'src/preload/index.ts'), formats: ['cjs'], fileName: 'index' },
        rolldownOptions: { external: ['electron'] },
      },
    })) as Rolldown.RolldownOutput[];
    const chunks = out.flatMap((o) => o.output).filter((o): o is Rolldown.OutputChunk => o.type === 'chunk');
    expect(chunks).toHaveLength(1);
    const chunk = chunks[0]!;
    expect(chunk.moduleIds.filter((id) => id.includes('node_modules'))).toEqual([]);
    expect(chunk.code).not.toMatch(/ZodError|\$ZodType|safeParse/);
    expect(chunk.code).toContain('exposeInMainWorld');
    expect(chunk.code).toContain('sessions.list');
    expect(chunk.code.length).toBeLessThan(10_000);
  });
});
