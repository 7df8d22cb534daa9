import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { transcriptFilesBySize } from '../src/cli/transcripts';
import { fmt, out } from './common';
import { p50, table } from './stats';

/**
 * Cold compaction (issue 25): the largest transcript compacted by a fresh process, five times,
 * median. Ours (coldChild.ts: counting every message exactly with the o200k vocabulary, then
 * compacting) beside ProbeAgent's compactor (`contextCompactor.js` of the npm package
 * @probelabs/probe: compactMessages on the same messages, its own chars/4 estimate) when it can be
 * found: the package cannot be installed here (its dependency @nyariv/sandboxjs is fetched from
 * GitHub), so the bench takes the file from THREADLINE_PROBE_COMPACTOR (e.g. unpacked from
 * `npm pack @probelabs/probe`).
 *
 * ProbeAgent's file runs as its package ships it, ours as the CLI ships (the TypeScript sources
 * through tsx, js-tiktoken's ranks parsed on first count). Two measures of the same runs, each as
 * wall and CPU time (CPU includes V8's compiler threads; on a shared machine it is the steadier
 * figure):
 * - the work, timed in the process from the child's first line: loading the compactor's module,
 *   reading and parsing the file, counting and compacting — the same steps for both;
 * - the whole fresh process, node's start to exit, wall timed around the spawn, CPU the child's
 *   own total.
 */
export function coldCompactionBench(dir: string, quick: boolean): void {
  if (!existsSync(dir)) return;
  const bySize = transcriptFilesBySize(dir);
  const file = bySize.at(-1)!;
  const largest = basename(file);
  const runs = quick ? 3 : 5;
  const work = mkdtempSync(join(tmpdir(), 'tl-cold-'));
  // Ours as the CLI ships (bin/threadline-context.mjs): the sources through tsx. The entry notes
  // the time, then imports the child: loading (and transpiling) the code is part of what is timed.
  // Like ProbeAgent's child below, it has node:fs loaded before that (Node builds a builtin's
  // module face on its first load, ~3 ms for fs): the same steps are timed for both.
  const ours = join(work, 'oursChild.mjs');
  writeFileSync(
    ours,
    [
      `import 'node:fs';`,
      `globalThis.__tlColdStart = { t0: performance.now(), c0: process.cpuUsage() };`,
      `const child = await import(${JSON.stringify(pathToFileURL(join(import.meta.dirname, 'coldChild.ts')).href)});`,
      `await child.main(process.argv.slice(2));`,
    ].join('\n'),
  );
  const tsx = ['--import', 'tsx'];

  interface Child {
    ms: number;
    cpu: number;
    processCpu: number;
    wall: number;
    stdout: Record<string, unknown>;
  }
  const run = (cmd: string, args: string[], env = process.env): Child => {
    const t0 = performance.now();
    const r = spawnSync(cmd, args, { encoding: 'utf8', env });
    const wall = performance.now() - t0;
    if (r.status !== 0) throw new Error(`cold compaction child ${args.join(' ')} failed: ${r.stderr}`);
    const j = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as Child['stdout'];
    return { ms: j.ms as number, cpu: j.cpu as number, processCpu: j.processCpu as number, wall, stdout: j };
  };
  const median = (xs: Child[], k: 'ms' | 'cpu' | 'processCpu' | 'wall'): number => p50(xs.map((x) => x[k]));

  const mine: Child[] = [];
  for (let i = 0; i < runs; i++) mine.push(run(process.execPath, [...tsx, ours, file]));
  const last = mine.at(-1)!.stdout;
  const note = `${String(last.before)} → ${String(last.after)} tokens`;
  const inProcess: Array<Array<string | number>> = [
    ['Threadline (legacy_segmented, exact o200k counts)', fmt(median(mine, 'ms')), fmt(median(mine, 'cpu')), note],
  ];
  const whole: Array<Array<string | number>> = [
    [
      'Threadline (legacy_segmented, exact o200k counts)',
      fmt(median(mine, 'wall')),
      fmt(median(mine, 'processCpu')),
      note,
    ],
  ];
  const probe = process.env.THREADLINE_PROBE_COMPACTOR;
  const ratios: string[] = [];
  if (probe && existsSync(probe)) {
    const child = join(work, 'probeChild.mjs');
    writeFileSync(
      child,
      [
        `import { readFileSync } from 'node:fs';`,
        `const t0 = performance.now();`,
        `const c0 = process.cpuUsage();`,
        `const raw = JSON.parse(readFileSync(process.argv[2], 'utf8'));`,
        `const messages = Array.isArray(raw) ? raw : raw.messages;`,
        `const { compactMessages, calculateCompactionStats } = await import(${JSON.stringify(probe)});`,
        `const c = compactMessages(messages);`,
        `const s = calculateCompactionStats(messages, c);`,
        `const ms = performance.now() - t0;`,
        `const cu = process.cpuUsage(c0);`,
        `const all = process.cpuUsage();`,
        `process.stdout.write(JSON.stringify({ ms, cpu: (cu.user + cu.system) / 1000, processCpu: (all.user + all.system) / 1000, s }) + '\\n');`,
      ].join('\n'),
    );
    const theirs: Child[] = [];
    for (let i = 0; i < runs; i++) theirs.push(run(process.execPath, [child, file]));
    const s = theirs.at(-1)!.stdout.s as { originalTokens: number; compactedTokens: number };
    const pnote = `${s.originalTokens} → ${s.compactedTokens} (chars/4 estimate)`;
    inProcess.push(['ProbeAgent contextCompactor.js', fmt(median(theirs, 'ms')), fmt(median(theirs, 'cpu')), pnote]);
    whole.push([
      'ProbeAgent contextCompactor.js',
      fmt(median(theirs, 'wall')),
      fmt(median(theirs, 'processCpu')),
      pnote,
    ]);
    const ratio = (a: number, b: number): string => `${(a / b).toFixed(1)}×`;
    ratios.push(
      `cold-compaction ratio, the work: ${ratio(median(mine, 'ms'), median(theirs, 'ms'))} wall, ` +
        `${ratio(median(mine, 'cpu'), median(theirs, 'cpu'))} CPU (goal ≤ 10×)`,
      `cold-compaction ratio, whole fresh process: ${ratio(median(mine, 'wall'), median(theirs, 'wall'))} wall, ` +
        `${ratio(median(mine, 'processCpu'), median(theirs, 'processCpu'))} CPU`,
    );
  } else {
    const missing = [
      'ProbeAgent',
      'not measured',
      '',
      '@probelabs/probe cannot be installed here (a GitHub dependency); set THREADLINE_PROBE_COMPACTOR to its src/agent/contextCompactor.js',
    ];
    inProcess.push(missing);
    whole.push(missing);
  }
  out(`## Cold compaction, fresh process (${largest}, median of ${runs})`);
  out('The work, timed in the process from its first line (module load, read and parse, count, compact):');
  out(table(['compactor', 'p50 (wall)', 'p50 (CPU)', 'result'], inProcess));
  const phase = (k: string): string => fmt(p50(mine.map((m) => (m.stdout.phases as Record<string, number>)[k]!)));
  out(
    `Threadline's work by step (medians): loading the code ${phase('load')}, reading and checking the file ` +
      `${phase('read')}, counting ${phase('count')}, compacting ${phase('compact')}`,
  );
  out('The whole fresh process (node start to exit):');
  out(table(['compactor', 'p50 (wall)', 'p50 (CPU)', 'result'], whole));
  for (const r of ratios) out(r);
}
