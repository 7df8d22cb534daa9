// Preloaded into the bench's server (NODE_OPTIONS=--import, hostile.ts): how long the server's
// request thread went between two ticks of a 1 ms timer (the longest a request arriving then
// waited for it), and how much of that was its own CPU time (process.threadCpuUsage: neither its
// workers nor other processes). On a busy machine a probe's round trip is mostly the wait for a
// core (the bench's first row, the probes alone, shows that floor); these two are the server's.
// Each gap of 20 ms or more, or with 5 ms of CPU or more, is appended to the file as
// `<epoch ms> <cpu ms> <wall ms>`. Plain JS: it runs before tsx's loader, in the server only (not
// tsx's parent process, not a worker).
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
    const gap = performance.now() - wall;
    if (spent >= 5 || gap >= 20) appendFileSync(file, `${Date.now()} ${spent.toFixed(1)} ${gap.toFixed(1)}\n`);
    cpu = cpuMs();
    wall = performance.now();
  }, 1).unref();
}
