// Issue 35: the longest stall of the request loop while the runtime meets each hostile input —
// five read_file calls of a FIFO, a symlink loop, a catastrophic regular expression (grep), a FIFO
// named .gitignore (grep), a 150,000-page PDF and a flate-bomb PDF (attachments.add) — and the
// server's peak memory over the run. A real server process (tsx apps/server/src/cli.ts), fake-llm
// in a process of its own; another session asks chat.state in a loop while each input runs (the
// longest round trip is what a click or a Stop waits; the probe runs in a thread of its own,
// probeWorker.mjs). Each input is given at most
// INPUT_LIMIT_MS: one that does not end by then is reported as such (a turn hung on a FIFO). The
// first row, the probes alone, is the machine's noise under the others.
// THREADLINE_BENCH_ROOT runs another checkout's server (e.g. main's, for the figures before).
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { flateBombPdf, manyPagesPdf } from '@threadline/fake-llm/hostilePdfs';
import { peakRssMb } from '../src/__tests__/peakRss';
import { benchRoot, killGroup, startFakeLlm, startServer, type BenchServer } from './benchServer';

const INPUT_LIMIT_MS = 90_000;

export interface HostileFigure {
  input: string;
  /** The longest chat.state round trip while it ran (ms). */
  longestMs: number;
  /**
   * The server's request thread while it ran (loopCpu.mjs): its longest gap between two ticks of
   * a 1 ms timer (ms of wall time: what a request arriving then waited for it) and the most CPU
   * time of its own in one gap; null where the runtime cannot tell. Gaps under 20 ms with under
   * 5 ms of CPU are not logged (0 here).
   */
  loop: { gapMs: number; cpuMs: number } | null;
  probes: number;
  /** From the start to its end (ms), or null when it did not end within INPUT_LIMIT_MS. */
  doneMs: number | null;
  /** The server's peak resident memory (MB, Linux: VmHWM of it and its children). */
  peakRssMb: number;
}

export interface HostileFigures {
  root: string;
  figures: HostileFigure[];
}

const wait = (ms: number) => new Promise<void>((ok) => setTimeout(ok, ms));

export async function measureHostile(opts: { input?: string | null } = {}): Promise<HostileFigures> {
  const root = benchRoot();
  // A checkout from before bytes travelled as bytes (protocol's binary.ts) takes them as base64.
  const base64Bytes = !existsSync(join(root, 'packages/protocol/src/binary.ts'));
  const temp = realpathSync(mkdtempSync(join(tmpdir(), 'tl-hostile-bench-')));
  const rulesFile = join(temp, 'rules.json');
  // The user's text names the call: `CALL <tool> <json args>`.
  const call = (name: string, args: unknown) => `CALL ${name} ${JSON.stringify(args)}`;
  const calls = [
    ['read_file', { path: 'pipe' }],
    ['read_file', { path: 'loop' }],
    ['grep', { pattern: '^(a+)+$', path: 'redos' }],
    ['grep', { pattern: 'needle', path: 'ignored' }],
  ] as const;
  const fake = await startFakeLlm(
    root,
    rulesFile,
    calls.map(([name, args]) => ({
      match: { lastUserIncludes: call(name, args) },
      reply: { toolCalls: [{ name, arguments: args }] },
    })),
  );
  try {
    const folder = join(temp, 'folder');
    mkdirSync(join(folder, 'redos'), { recursive: true });
    mkdirSync(join(folder, 'ignored', 'src'), { recursive: true });
    execFileSync('mkfifo', [join(folder, 'pipe'), join(folder, 'ignored', '.gitignore')]);
    symlinkSync('loop', join(folder, 'loop'));
    // 2^27 steps for the backtracking engine: seconds, not forever (main's figure stays measurable).
    writeFileSync(join(folder, 'redos', 'input.txt'), `${'a'.repeat(27)}!\n`);
    writeFileSync(join(folder, 'ignored', 'src', 'a.ts'), 'const needle = 1;\n');
    const figures: HostileFigure[] = [];
    const wanted = (input: string) => !opts.input || input.toLowerCase().includes(opts.input.toLowerCase());
    let n = 0;
    /**
     * Runs one input in a server of its own (a FIFO that hangs an old checkout's thread pool must
     * not hang the next input), probing chat.state of another session while it runs.
     */
    const measure = async (
      input: string,
      load: (s: Server, folderSession: () => Promise<string>, signal: AbortSignal) => Promise<void>,
    ): Promise<void> => {
      if (!wanted(input)) return;
      const server = await startLoopServer(root, fake.url, join(temp, `server-${++n}`));
      try {
        const { rpc } = server;
        const probe = await rpc<{ id: string }>('sessions.create', { title: 'probe' });
        // Warm: routes compiled, the tokenizer loaded.
        await rpc('chat.send', { sessionId: probe.id, text: 'hello' });
        while ((await rpc<{ busy: boolean }>('chat.state', { sessionId: probe.id })).busy) await wait(50);
        const folderSession = async () => {
          const s = await rpc<{ id: string }>('sessions.create', { title: 'load' });
          await rpc('sessions.update', { id: s.id, workingFolder: folder });
          return s.id;
        };
        // The probe thread is started, and has answered once, before the input starts.
        const prober = new Worker(new URL('./probeWorker.mjs', import.meta.url), {
          workerData: { url: `${server.origin}/api/rpc/chat.state`, token: server.token, sessionId: probe.id },
        });
        const said = new Promise<void>((ok, fail) => {
          prober.once('message', () => ok());
          prober.once('error', fail);
        });
        await said;
        const probed = new Promise<{ longestMs: number; probes: number }>((ok, fail) => {
          prober.once('message', ok);
          prober.once('error', fail);
        });
        const t0 = performance.now();
        const from = Date.now();
        const abort = new AbortController();
        let done: number | null = null;
        const running = load(server, folderSession, abort.signal).then(
          () => {
            done = performance.now() - t0;
          },
          () => undefined,
        );
        await Promise.race([running, wait(INPUT_LIMIT_MS)]);
        const to = Date.now();
        prober.postMessage('stop');
        const { longestMs, probes } = await probed;
        await prober.terminate();
        abort.abort();
        await Promise.race([running, wait(1000)]);
        figures.push({
          input,
          longestMs,
          loop: server.loop(from, to),
          probes,
          doneMs: done,
          peakRssMb: peakRssMb(server.child.pid!),
        });
      } finally {
        await server.close();
      }
    };
    const turn =
      (count: number, text: string) =>
      async ({ rpc }: Server, folderSession: () => Promise<string>, signal: AbortSignal) => {
        const ids = await Promise.all(Array.from({ length: count }, () => folderSession()));
        await Promise.all(ids.map((id) => rpc('chat.send', { sessionId: id, text }, signal)));
        for (const id of ids)
          while ((await rpc<{ busy: boolean }>('chat.state', { sessionId: id }, signal)).busy) await wait(50);
      };
    const attach =
      (name: string, bytes: Buffer) =>
      async ({ rpc }: Server, _f: unknown, signal: AbortSignal) => {
        const data = base64Bytes ? bytes.toString('base64') : bytes;
        await rpc('attachments.add', { name, mime: 'application/pdf', data }, signal);
      };
    // The floor the figures below stand on: the same probes with nothing else to do (on a busy
    // machine, the time the two processes wait for a core).
    await measure('nothing (the probes alone for 10 s)', () => wait(10_000));
    await measure('read_file of a FIFO, 5 sessions at once', turn(5, call(...calls[0])));
    await measure('read_file of a symlink loop', turn(1, call(...calls[1])));
    await measure('grep with a catastrophic pattern (^(a+)+$ on 27 a and !)', turn(1, call(...calls[2])));
    await measure('grep under a FIFO named .gitignore', turn(1, call(...calls[3])));
    // Built before the input starts (never while the probes run in this process), only when measured.
    const pages = 'attach a 150,000-page PDF';
    if (wanted(pages)) await measure(pages, attach('pages.pdf', manyPagesPdf(150_000)));
    const bomb = 'attach a flate bomb (300 MB of operators)';
    if (wanted(bomb)) await measure(bomb, attach('bomb.pdf', await flateBombPdf(300)));
    return { root, figures };
  } finally {
    killGroup(fake.child);
    rmSync(temp, { recursive: true, force: true });
  }
}

interface Server extends BenchServer {
  /** The longest gap and CPU stretch loopCpu.mjs logged between two epoch times (ms), or null. */
  loop: (from: number, to: number) => HostileFigure['loop'];
}

/** A bench server whose request thread loopCpu.mjs watches (its gaps and CPU stretches, logged to a file). */
async function startLoopServer(root: string, llmUrl: string, dir: string): Promise<Server> {
  const loopCpuFile = join(dir, 'loop-cpu.txt');
  const server = await startServer(root, llmUrl, dir, {
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${pathToFileURL(join(import.meta.dirname, 'loopCpu.mjs')).href}`,
    THREADLINE_BENCH_LOOP_CPU: loopCpuFile,
  });
  const cpuWatched = typeof process.threadCpuUsage === 'function';
  const loop = (from: number, to: number): HostileFigure['loop'] => {
    if (!cpuWatched) return null;
    const longest = { gapMs: 0, cpuMs: 0 };
    const lines = existsSync(loopCpuFile) ? readFileSync(loopCpuFile, 'utf8').split('\n') : [];
    for (const line of lines) {
      const [at, cpu, gap] = line.split(' ').map(Number);
      // A gap is logged when it ends: one that ended within the input's time was part of it.
      if (at! < from || at! > to) continue;
      longest.gapMs = Math.max(longest.gapMs, gap!);
      longest.cpuMs = Math.max(longest.cpuMs, cpu!);
    }
    return longest;
  };
  return { ...server, loop };
}

export function printHostile(f: HostileFigures): void {
  console.log(`## Request loop under hostile input (${f.root})`);
  console.log('another session asks chat.state in a loop while each input runs (goal: longest stall < 100 ms);');
  console.log(
    "the server's request thread: its longest gap between two ticks of a 1 ms timer, and the most CPU time of its own in one",
  );
  for (const x of f.figures) {
    const end =
      x.doneMs === null ? `did not end in ${INPUT_LIMIT_MS / 1000} s` : `ended in ${(x.doneMs / 1000).toFixed(1)} s`;
    const ms = (v: number, floor: number) => (v < floor ? `< ${floor} ms` : `${v.toFixed(0)} ms`);
    const own = x.loop === null ? 'not measured' : `${ms(x.loop.gapMs, 20)} (${ms(x.loop.cpuMs, 5)} of CPU)`;
    console.log(
      `- ${x.input}: longest stall ${x.longestMs.toFixed(0)} ms (${x.probes} answers), the server's request thread ${own}, ${end}, server peak ${x.peakRssMb} MB`,
    );
  }
}
