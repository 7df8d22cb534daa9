// Issue 35: the longest stall of the request loop while the runtime meets each hostile input —
// five read_file calls of a FIFO, a symlink loop, a catastrophic regular expression (grep), a FIFO
// named .gitignore (grep), a 150,000-page PDF and a flate-bomb PDF (attachments.add) — and the
// server's peak memory over the run. A real server process (tsx apps/server/src/cli.ts), fake-llm
// in a process of its own; another session asks chat.state in a loop while each input runs (the
// longest round trip is what a click or a Stop waits). Each input is given at most
// INPUT_LIMIT_MS: one that does not end by then is reported as such (a turn hung on a FIFO).
// THREADLINE_BENCH_ROOT runs another checkout's server (e.g. main's, for the figures before).
import { spawn, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { flateBombPdf, manyPagesPdf } from '@threadline/fake-llm/hostilePdfs';
import { peakRssMb } from '../src/__tests__/peakRss';

const INPUT_LIMIT_MS = 90_000;

export interface HostileFigure {
  input: string;
  /** The longest chat.state round trip while it ran (ms). */
  longestMs: number;
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

const wait = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

export async function measureHostile(): Promise<HostileFigures> {
  const root = resolve(process.env.THREADLINE_BENCH_ROOT ?? resolve(import.meta.dirname, '../../..'));
  const temp = realpathSync(mkdtempSync(join(tmpdir(), 'tl-hostile-bench-')));
  const tsx = join(root, 'node_modules/.bin/tsx');
  const rulesFile = join(temp, 'rules.json');
  // The user's text names the call: `CALL <tool> <json args>`.
  const call = (name: string, args: unknown) => `CALL ${name} ${JSON.stringify(args)}`;
  const calls = [
    ['read_file', { path: 'pipe' }],
    ['read_file', { path: 'loop' }],
    ['grep', { pattern: '^(a+)+$', path: 'redos' }],
    ['grep', { pattern: 'needle', path: 'ignored' }],
  ] as const;
  writeFileSync(
    rulesFile,
    JSON.stringify({
      rules: calls.map(([name, args]) => ({
        match: { lastUserIncludes: call(name, args) },
        reply: { toolCalls: [{ name, arguments: args }] },
      })),
    }),
  );
  const fake = spawn(tsx, [join(root, 'packages/fake-llm/src/cli.ts'), '--port', '0', '--rules', rulesFile], {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const llmUrl = await new Promise<string>((ok, fail) => {
    let out = '';
    fake.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /fake-llm listening on (http:\/\/127\.0\.0\.1:\d+\/v1)/.exec(out);
      if (m) ok(m[1]!);
    });
    fake.on('close', (code) => fail(new Error(`fake-llm exited ${code}`)));
  });
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
    let n = 0;
    /**
     * Runs one input in a server of its own (a FIFO that hangs an old checkout's thread pool must
     * not hang the next input), probing chat.state of another session while it runs.
     */
    const measure = async (
      input: string,
      load: (s: Server, folderSession: () => Promise<string>, signal: AbortSignal) => Promise<void>,
    ): Promise<void> => {
      const server = await startServer(root, tsx, llmUrl, join(temp, `server-${++n}`));
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
        const t0 = performance.now();
        const abort = new AbortController();
        let done: number | null = null;
        const running = load(server, folderSession, abort.signal).then(
          () => {
            done = performance.now() - t0;
          },
          () => undefined,
        );
        let longestMs = 0;
        let probes = 0;
        while (done === null && performance.now() - t0 < INPUT_LIMIT_MS) {
          const s = performance.now();
          await rpc('chat.state', { sessionId: probe.id });
          longestMs = Math.max(longestMs, performance.now() - s);
          probes++;
        }
        abort.abort();
        await Promise.race([running, wait(1000)]);
        figures.push({ input, longestMs, probes, doneMs: done, peakRssMb: peakRssMb(server.child.pid!) });
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
        await rpc('attachments.add', { name, mime: 'application/pdf', data: bytes.toString('base64') }, signal);
      };
    await measure('read_file of a FIFO, 5 sessions at once', turn(5, call(...calls[0])));
    await measure('read_file of a symlink loop', turn(1, call(...calls[1])));
    await measure('grep with a catastrophic pattern (^(a+)+$ on 27 a and !)', turn(1, call(...calls[2])));
    await measure('grep under a FIFO named .gitignore', turn(1, call(...calls[3])));
    await measure('attach a 150,000-page PDF', attach('pages.pdf', manyPagesPdf(150_000)));
    await measure('attach a flate bomb (300 MB of operators)', attach('bomb.pdf', await flateBombPdf(300)));
    return { root, figures };
  } finally {
    killGroup(fake);
    rmSync(temp, { recursive: true, force: true });
  }
}

interface Server {
  child: ReturnType<typeof spawn>;
  rpc: <T>(route: string, input: unknown, signal?: AbortSignal) => Promise<T>;
  close: () => Promise<void>;
}

/** Ends a process started detached and everything it started (tsx's server child with it). */
function killGroup(c: ReturnType<typeof spawn>): void {
  try {
    if (c.pid !== undefined) process.kill(-c.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

async function startServer(root: string, tsx: string, llmUrl: string, dir: string): Promise<Server> {
  const staticDir = join(dir, 'web');
  mkdirSync(staticDir, { recursive: true });
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html>');
  const child = spawn(
    tsx,
    [join(root, 'apps/server/src/cli.ts'), '--static-dir', staticDir, '--data-dir', join(dir, 'data')],
    {
      cwd: root,
      detached: true,
      env: {
        ...process.env,
        THREADLINE_PROVIDER_URL: llmUrl,
        THREADLINE_MODEL: 'gpt-4o',
        THREADLINE_CONTEXT_WINDOW: '128000',
        OPENAI_API_KEY: 'bench-key',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const url = await new Promise<string>((ok, fail) => {
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /running at (http:\/\/\S+)\n/.exec(out);
      if (m) ok(m[1]!);
    });
    child.on('close', (code) => fail(new Error(`server exited ${code}`)));
  });
  const { origin, searchParams } = new URL(url);
  const token = searchParams.get('token')!;
  const rpc = async <T>(route: string, input: unknown, signal?: AbortSignal): Promise<T> => {
    const res = await fetch(`${origin}/api/rpc/${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(input),
      ...(signal ? { signal } : {}),
    });
    const body = (await res.json()) as { ok: boolean; data: T; error?: { message: string } };
    if (!body.ok) throw new Error(`${route}: ${body.error?.message}`);
    return body.data;
  };
  return {
    child,
    rpc,
    // A server blocked on a FIFO (an old checkout) does not end on SIGTERM: the whole group is killed.
    close: async () => {
      const closed = new Promise((ok) => child.once('close', ok));
      killGroup(child);
      await closed;
    },
  };
}

export function printHostile(f: HostileFigures): void {
  console.log(`## Request loop under hostile input (${f.root})`);
  console.log('another session asks chat.state in a loop while each input runs (goal: longest stall < 100 ms)');
  for (const x of f.figures) {
    const end =
      x.doneMs === null ? `did not end in ${INPUT_LIMIT_MS / 1000} s` : `ended in ${(x.doneMs / 1000).toFixed(1)} s`;
    console.log(
      `- ${x.input}: longest stall ${x.longestMs.toFixed(0)} ms (${x.probes} answers), ${end}, server peak ${x.peakRssMb} MB`,
    );
  }
}
