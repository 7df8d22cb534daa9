// Checkpoint bench (issue 37 item 9): the snapshot a turn takes before its first change, on a
// generated repository of 1,000 files (the user's own git repository with a commit, a .gitignore,
// ignored build output and node_modules), with a shadow repository that already holds the
// previous turn's snapshot: the case of every turn but a folder's first. Measured idle and with
// every core kept busy by spinning processes (the load the issue measured under). Beside it, on the
// same folder, what the sandbox adds around each command (issue 34): the scan before it, the stamp,
// the look at what changed and its classification (sandbox/commandGuard.ts).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { DEFAULT_SNAPSHOT_CAPS, ShadowRepo } from '../src/checkpoints/shadowGit';
import { guardCommand } from '../src/sandbox/commandGuard';

export interface CheckpointFigures {
  files: number;
  /** The folder's first snapshot (the shadow repository is created). */
  firstMs: number;
  /** A later turn's snapshot before its first change (a few files changed since the last one). */
  warm: { p50: number; max: number; runs: number };
  /** The same with every core busy. */
  busy: { p50: number; max: number; runs: number };
  /** The sandbox's look around one command that wrote a file (idle). */
  guard: { p50: number; max: number; runs: number };
}

/** A line of text for file `i`, version `v` (different files differ, so git stores each). */
const body = (i: number, v: number): string =>
  Array.from({ length: 40 }, (_, l) => `// file ${i} line ${l} version ${v}: ${'x'.repeat((i * 7 + l) % 60)}`).join(
    '\n',
  ) + '\n';

/** `files` source files in folders of 20, plus ignored output; the user's repository commits them. */
export function generateRepo(dir: string, files: number): void {
  for (let i = 0; i < files; i++) {
    const sub = path.join(dir, 'src', `mod${Math.floor(i / 20)}`);
    mkdirSync(sub, { recursive: true });
    writeFileSync(path.join(sub, `file${i}.ts`), body(i, 0));
  }
  writeFileSync(path.join(dir, '.gitignore'), 'node_modules/\nbuild/\n*.log\n');
  for (const ignored of ['node_modules/pkg', 'build']) {
    mkdirSync(path.join(dir, ignored), { recursive: true });
    for (let i = 0; i < 100; i++) writeFileSync(path.join(dir, ignored, `out${i}.js`), body(i, 9));
  }
  writeFileSync(path.join(dir, 'debug.log'), 'log\n');
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=b@b', ...args], { cwd: dir, stdio: 'ignore' });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'seed');
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** Processes that keep every core busy until killed. */
function loadCores(): ChildProcess[] {
  return Array.from({ length: availableParallelism() }, () =>
    spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }),
  );
}

async function warmRuns(repo: ShadowRepo, folder: string, runs: number, from: number): Promise<number[]> {
  const times: number[] = [];
  for (let r = 0; r < runs; r++) {
    // What a turn typically leaves: a few files edited, one added.
    for (let k = 0; k < 3; k++) {
      const i = (r * 37 + k * 101) % 1000;
      writeFileSync(path.join(folder, 'src', `mod${Math.floor(i / 20)}`, `file${i}.ts`), body(i, from + r + 1));
    }
    writeFileSync(path.join(folder, 'src', `added${from + r}.ts`), body(from + r, 1));
    const t = performance.now();
    await repo.snapshot('before turn', DEFAULT_SNAPSHOT_CAPS);
    times.push(performance.now() - t);
  }
  return times;
}

/** The guard around a command that writes one file, as a sandboxed shell call runs it (nothing held). */
async function guardRuns(folder: string, stamps: string, runs: number): Promise<number[]> {
  const hooks = { stampDir: stamps, skip: [], holdNow: async () => [], holdAtTurnEnd: () => {}, pending: () => [] };
  const times: number[] = [];
  for (let r = 0; r < runs; r++) {
    const t = performance.now();
    const guard = await guardCommand(folder, process.platform, hooks);
    writeFileSync(path.join(folder, 'src', 'guarded.ts'), body(r, 2));
    await guard.finish();
    times.push(performance.now() - t);
  }
  return times;
}

export async function measureCheckpoints(opts: { quick: boolean }): Promise<CheckpointFigures> {
  const root = mkdtempSync(path.join(tmpdir(), 'tl-bench-cp-'));
  try {
    const folder = path.join(root, 'repo');
    mkdirSync(folder);
    const files = 1000;
    generateRepo(folder, files);
    const repo = new ShadowRepo('git', path.join(root, 'data', 'checkpoints'), folder);
    const t = performance.now();
    await repo.snapshot('first', DEFAULT_SNAPSHOT_CAPS);
    const firstMs = performance.now() - t;
    // The previous turn's "after" snapshot, so the runs below are the steady state.
    await repo.snapshot('after turn', DEFAULT_SNAPSHOT_CAPS);
    const runs = opts.quick ? 5 : 15;
    const warm = await warmRuns(repo, folder, runs, 0);
    const load = loadCores();
    let busy: number[];
    try {
      busy = await warmRuns(repo, folder, runs, runs);
    } finally {
      for (const p of load) p.kill('SIGKILL');
    }
    const guard = await guardRuns(folder, path.join(root, 'stamps'), runs);
    return {
      files,
      firstMs,
      warm: { p50: median(warm), max: Math.max(...warm), runs },
      busy: { p50: median(busy), max: Math.max(...busy), runs },
      guard: { p50: median(guard), max: Math.max(...guard), runs },
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

export function printCheckpoints(f: CheckpointFigures): void {
  const ms = (n: number): string => `${n.toFixed(0)} ms`;
  console.log(`checkpoints (a generated repository of ${f.files} files, its own .git, ignored output)`);
  console.log(`  first snapshot of the folder: ${ms(f.firstMs)}`);
  console.log(
    `  snapshot before a turn's first change: p50 ${ms(f.warm.p50)}, max ${ms(f.warm.max)} over ${f.warm.runs} turns`,
  );
  console.log(
    `  the same with every core busy: p50 ${ms(f.busy.p50)}, max ${ms(f.busy.max)} over ${f.busy.runs} turns`,
  );
  console.log(
    `  the sandbox's look around a command (scan, stamp, what changed, classified): p50 ${ms(f.guard.p50)}, max ${ms(f.guard.max)} over ${f.guard.runs} commands`,
  );
}
