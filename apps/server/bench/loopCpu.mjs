// Preloaded into the bench's server (NODE_OPTIONS=--import, hostile.ts): the CPU time the server's
// request thread spends between two ticks of a 1 ms timer, i.e. what it does in one stretch while
// a request waits. On a busy machine a probe's round trip is mostly the wait for a core (the
// bench's first row, the probes alone, shows that floor); this thread's own CPU time
// (process.threadCpuUsage: neither the workers nor other processes) is not. Each stretch of 5 ms
// or more is appended to the file as `<epoch ms> <cpu ms> <wall ms>`. Plain JS: it runs before
// tsx's loader, in the server only (not tsx's parent process, not a worker).
import { appendFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';

const file = process.env.THREADLINE_BENCH_LOOP_CPU;
const isServer = (process.argv[1] ?? '').replaceAll('\\', '/').endsWith('apps/server/src/cli.ts');
if (file && isServer && isMainThread && typeof process.threadCpuUsage === 'function') {
  const cpuMs = () => {
    const u = process.threadCpuUsage();
    return (u.user + u.system) / 1000;
  };
  let cpu = cpuMs();
  let wall = performance.now();
  setInterval(() => {
    const spent = cpuMs() - cpu;
    if (spent >= 5)
      appendFileSync(file, `${Date.now()} ${spent.toFixed(1)} ${(performance.now() - wall).toFixed(1)}\n`);
    cpu = cpuMs();
    wall = performance.now();
  }, 1).unref();
}
