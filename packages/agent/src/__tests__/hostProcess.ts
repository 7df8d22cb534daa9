// A host process for the crash tests: the AppApi in a child process a test can kill with SIGKILL.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestUser } from '@threadline/fake-llm/testUser';
import type { AppEvent, RpcResult } from '@threadline/protocol';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, '../../../..');

/** One host process (fixtures/host.ts) speaking JSON lines: route calls in, results and events out. */
export class Host {
  readonly child: ChildProcessWithoutNullStreams;
  private nextId = 1;
  private readonly waiting = new Map<number, (r: RpcResult<unknown>) => void>();
  private readonly eventWaiters: { pred: (e: AppEvent) => boolean; resolve: () => void }[] = [];
  readonly ready: Promise<void>;

  constructor(
    dbFile: string,
    llmUrl: string,
    dir: string,
    /** Run as another user (`@threadline/fake-llm/testUser`): its argv and environment. */
    as?: { argv: TestUser['argv']; env: NodeJS.ProcessEnv },
  ) {
    const args = ['--import', 'tsx', path.join(here, 'fixtures/host.ts'), dbFile, llmUrl, dir];
    const run = as ? as.argv(process.execPath, args) : { command: process.execPath, args };
    this.child = spawn(run.command, run.args, { cwd: repoRoot, ...(as ? { env: as.env } : {}) });
    let buf = '';
    let onReady: () => void = () => {};
    this.ready = new Promise((r) => (onReady = r));
    this.child.stdout.on('data', (chunk: Buffer) => {
      buf += chunk.toString('utf8');
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        const msg = JSON.parse(line) as { type: string; id?: number; result?: RpcResult<unknown>; event?: AppEvent };
        if (msg.type === 'ready') onReady();
        if (msg.type === 'result') this.waiting.get(msg.id!)?.(msg.result!);
        if (msg.type === 'event') for (const w of this.eventWaiters.filter((x) => x.pred(msg.event!))) w.resolve();
      }
    });
  }

  async call<T>(route: string, input: unknown): Promise<T> {
    const id = this.nextId++;
    const res = new Promise<RpcResult<unknown>>((r) => this.waiting.set(id, r));
    this.child.stdin.write(JSON.stringify({ id, route, input }) + '\n');
    const r = await res;
    if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
    return r.data as T;
  }

  event(pred: (e: AppEvent) => boolean): Promise<void> {
    return new Promise((resolve) => this.eventWaiters.push({ pred, resolve }));
  }

  kill(): Promise<void> {
    return new Promise((r) => {
      this.child.on('exit', () => r());
      this.child.kill('SIGKILL');
    });
  }
}

/** true when the process no longer runs (a zombie nobody reaped counts as gone). */
export function gone(pid: number, kill = false): boolean {
  try {
    process.kill(pid, kill ? 'SIGKILL' : 0);
  } catch {
    return true;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}
