import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fmt, out } from './common';
import { p50, table } from './stats';

/**
 * Cold compaction (issue 25): the largest transcript compacted by a fresh process, five times,
 * median. Ours (coldChild.ts: vocabulary load + counting + compaction) beside ProbeAgent's
 * compactor (`contextCompactor.js` of the npm package @probelabs/probe: compactMessages on the
 * same messages, its own chars/4 estimate) when it can be found: the package cannot be installed
 * here (its dependency @nyariv/sandboxjs is fetched from GitHub), so the bench takes the file from
 * THREADLINE_PROBE_COMPACTOR (e.g. unpacked from `npm pack @probelabs/probe`).
 * Ours is timed from after its modules are loaded (the child runs through tsx, whose transpiling
 * would be most of the figure and is not what the built app does); ProbeAgent's one-file import is
 * inside its timer. Wall and CPU time of each child (CPU includes V8's compiler threads): on a
 * shared machine the CPU figure is the steadier one.
 */
export function coldCompactionBench(dir: string, quick: boolean): void {
  if (!existsSync(dir)) return;
  const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
  const largest = files.reduce((a, b) => (statSync(join(dir, b)).size > statSync(join(dir, a)).size ? b : a));
  const file = join(dir, largest);
  const runs = quick ? 3 : 5;
  const root = resolve(import.meta.dirname, '../../..');
  const tsx = join(root, 'node_modules/.bin/tsx');
  const ours: number[] = [];
  const oursCpu: number[] = [];
  let note = '';
  for (let i = 0; i < runs; i++) {
    const r = spawnSync(tsx, [join(import.meta.dirname, 'coldChild.ts'), file], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`cold compaction child failed: ${r.stderr}`);
    const j = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as {
      ms: number;
      cpu: number;
      before: number;
      after: number;
    };
    ours.push(j.ms);
    oursCpu.push(j.cpu);
    note = `${j.before} → ${j.after} tokens`;
  }
  const rows: Array<Array<string | number>> = [
    ['Threadline (legacy_segmented, exact o200k counts)', fmt(p50(ours)), fmt(p50(oursCpu)), note],
  ];
  const probe = process.env.THREADLINE_PROBE_COMPACTOR;
  let ratio = '';
  if (probe && existsSync(probe)) {
    const child = join(mkdtempSync(join(tmpdir(), 'tl-probe-')), 'probeChild.mjs');
    writeFileSync(
      child,
      [
        `import { readFileSync } from 'node:fs';`,
        `const raw = JSON.parse(readFileSync(process.argv[2], 'utf8'));`,
        `const messages = Array.isArray(raw) ? raw : raw.messages;`,
        `const t0 = performance.now();`,
        `const c0 = process.cpuUsage();`,
        `const { compactMessages, calculateCompactionStats } = await import(${JSON.stringify(probe)});`,
        `const c = compactMessages(messages);`,
        `const s = calculateCompactionStats(messages, c);`,
        `const ms = performance.now() - t0;`,
        `const cu = process.cpuUsage(c0);`,
        `process.stdout.write(JSON.stringify({ ms, cpu: (cu.user + cu.system) / 1000, s }) + '\\n');`,
      ].join('\n'),
    );
    const theirs: number[] = [];
    const theirsCpu: number[] = [];
    let pnote = '';
    for (let i = 0; i < runs; i++) {
      const r = spawnSync(process.execPath, [child, file], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`probe child failed: ${r.stderr}`);
      const j = JSON.parse(r.stdout.trim()) as {
        ms: number;
        cpu: number;
        s: { originalTokens: number; compactedTokens: number };
      };
      theirs.push(j.ms);
      theirsCpu.push(j.cpu);
      pnote = `${j.s.originalTokens} → ${j.s.compactedTokens} (chars/4 estimate)`;
    }
    rows.push(['ProbeAgent contextCompactor.js (module load included)', fmt(p50(theirs)), fmt(p50(theirsCpu)), pnote]);
    ratio =
      `${(p50(ours) / p50(theirs)).toFixed(1)}× ProbeAgent wall, ` +
      `${(p50(oursCpu) / p50(theirsCpu)).toFixed(1)}× CPU (goal ≤ 10×)`;
  } else {
    rows.push([
      'ProbeAgent',
      'not measured',
      '',
      '@probelabs/probe cannot be installed here (a GitHub dependency); set THREADLINE_PROBE_COMPACTOR to its src/agent/contextCompactor.js',
    ]);
  }
  out(`## Cold compaction, fresh process (${largest}, median of ${runs})`);
  out(table(['compactor', 'p50 (wall)', 'p50 (CPU)', 'result'], rows));
  if (ratio) out(`cold-compaction ratio: ${ratio}`);
}
