// Turn trace (issue 41's "files a message visits"): which files of packages/agent/src one chat turn
// runs functions of, from chat.send to the first request byte at the provider and on to the end of
// the turn (one tool call that asks, approved, then the answer), and how often it comes back to a
// file it had left. traceHost.ts runs the turn in a fresh process whose agent sources are
// instrumented at load (traceHooks.mjs): every function entered records its file, in order. The
// sequence is deterministic up to the order in which I/O completes; the figures are counted on the
// sequence with consecutive repeats collapsed.
import { fork } from 'node:child_process';
import { join, resolve } from 'node:path';
import type { TraceReport } from './traceHost';

const ROOT = resolve(import.meta.dirname, '../../..');

export interface TraceFigures {
  /** Distinct files entered, and returns to a file already left, up to the first request byte. */
  toFirstByte: { files: number; returns: number; perFile: Record<string, number> };
  /** The same over the whole turn (send → tool call → approval → answer → idle). */
  wholeTurn: { files: number; returns: number; perFile: Record<string, number> };
  /** The whole turn with only the files of turn/ and session/ kept (the loop and what it owns). */
  loopOnly: { files: number; returns: number; perFile: Record<string, number> };
}

const LOOP = /^(turn|session)\//;

function runHost(): Promise<TraceReport> {
  return new Promise((resolvePromise, reject) => {
    const child = fork(join(import.meta.dirname, 'traceHost.ts'), [], {
      cwd: ROOT,
      execArgv: ['--import', 'tsx', '--import', join(import.meta.dirname, 'traceRegister.mjs')],
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    child.stdout?.pipe(process.stderr);
    child.stderr?.pipe(process.stderr);
    let report: TraceReport | null = null;
    child.on('message', (m) => (report = m as TraceReport));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (report) resolvePromise(report);
      else reject(new Error(`trace host exited (${signal ?? code}) without a report`));
    });
  });
}

/** Visits per file (a run of consecutive entries in one file is one visit) and the returns among them. */
export function countVisits(files: string[]): { files: number; returns: number; perFile: Record<string, number> } {
  const perFile: Record<string, number> = {};
  let returns = 0;
  let prev: string | null = null;
  for (const f of files) {
    if (f === prev) continue;
    if (perFile[f]) returns += 1;
    perFile[f] = (perFile[f] ?? 0) + 1;
    prev = f;
  }
  return { files: Object.keys(perFile).length, returns, perFile };
}

export async function measureTrace(): Promise<TraceFigures> {
  const r = await runHost();
  if (r.firstByte < 0) throw new Error('the turn reached no provider request');
  return {
    toFirstByte: countVisits(r.files.slice(0, r.firstByte)),
    wholeTurn: countVisits(r.files),
    loopOnly: countVisits(r.files.filter((f) => LOOP.test(f))),
  };
}

export function printTrace(t: TraceFigures): void {
  console.log('turn trace (one chat turn, one approved write_file, fake-llm over HTTP; agent functions by file)');
  for (const [label, v] of [
    ['chat.send → first request byte', t.toFirstByte],
    ['chat.send → turn idle', t.wholeTurn],
    ['chat.send → turn idle, turn/ and session/ only', t.loopOnly],
  ] as const) {
    console.log(`  ${label}: ${v.files} files, ${v.returns} returns to a file already left`);
    const top = Object.entries(v.perFile)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 12)
      .map(([f, n]) => `${f} ×${n}`);
    console.log(`    most visited: ${top.join(', ')}`);
  }
}

if (process.argv[1] === import.meta.filename) {
  const t = await measureTrace();
  printTrace(t);
  if (process.argv.includes('--json')) console.log(JSON.stringify(t, null, 1));
}
