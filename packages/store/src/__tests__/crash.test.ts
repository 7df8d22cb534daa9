// A crash (kill -9) at any moment leaves either the before or the after state of every
// transaction, and no committed message is ever lost. A child process writes as fast as it can and
// acks each commit on stdout; we SIGKILL it at random moments, reopen, and check everything.
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../openStore';
import { MEMORY_CAPS, type Store } from '../types';

const here = dirname(fileURLToPath(import.meta.url));
// Independent lanes (one file each) overlap the children's start-up and fsync waits.
const LANES = 3;
const KILLS_PER_LANE = 10;
const KILLS = LANES * KILLS_PER_LANE;
let dir: string;
let writer: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tl-crash-'));
  // Bundled once so each child starts in ~0.1 s instead of ~1 s through tsx. It lives inside the
  // package so the external better-sqlite3 resolves from the package's node_modules.
  const outDir = join(here, '..', '..', 'node_modules', '.cache', 'tl-crash');
  mkdirSync(outDir, { recursive: true });
  writer = join(outDir, `writer-${process.pid}.mjs`);
  await build({
    entryPoints: [join(here, 'fixtures', 'crashWriter.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    external: ['better-sqlite3'],
    outfile: writer,
    logLevel: 'silent',
  });
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(writer, { force: true });
});

interface Acks {
  turns: { turn: string; size: number; ids: string[] }[];
  compactions: { id: string; inserted: string[] }[];
  undos: string[];
  lines: number;
}

/** Runs the writer until a random moment after it is ready, kills it with SIGKILL, returns its acks. */
function runAndKill(file: string, tag: string, seed: number, killAfterMs: number): Promise<Acks> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [writer, file, tag, String(seed)], { stdio: ['ignore', 'pipe', 'pipe'] });
    const acks: Acks = { turns: [], compactions: [], undos: [], lines: 0 };
    let buffer = '';
    let stderr = '';
    let timer: NodeJS.Timeout | null = null;
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      buffer += d.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? ''; // a line cut by the kill has no newline: it was never acked
      for (const line of lines) {
        const [kind, a, b, c] = line.split(' ');
        acks.lines += 1;
        // The clock starts at the first commit, so every run lands at least one transaction.
        if (kind !== 'ready' && !timer) timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
        if (kind === 'turn') acks.turns.push({ turn: a!, size: Number(b), ids: c!.split(',') });
        else if (kind === 'compaction') acks.compactions.push({ id: a!, inserted: b ? b.split(',') : [] });
        else if (kind === 'undo') acks.undos.push(a!);
      }
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`writer exited on its own (${code}): ${stderr}`));
      else resolve(acks);
    });
  });
}

function checkInvariants(store: Store, all: Acks): void {
  const [session] = store.sessions.list();
  expect(session).toBeDefined();
  const history = store.messages.list(session!.id, { fullOutput: false });
  const byId = new Map(history.map((m) => [m.id, m]));

  // seqs stay contiguous: no hole left by a half-written append.
  expect(history.map((m) => m.seq)).toEqual(history.map((_, i) => i + 1));

  // Every acked message is there, with its content.
  for (const t of all.turns) {
    for (const id of t.ids) {
      const m = byId.get(id);
      expect(m, `acked message ${id} of turn ${t.turn}`).toBeDefined();
      expect(m!.meta?.turn).toBe(t.turn);
      expect(m!.content).toContain(`turn ${t.turn} message`);
    }
  }
  // Tool results kept their full output (written to its own table in the same transaction).
  for (const m of store.messages.list(session!.id))
    if (m.role === 'tool' && typeof m.meta?.turn === 'string')
      expect(m.fullOutput, `full output of ${m.id}`).not.toBeNull();

  // Every turn in the file is whole, acked or not.
  const turnCounts = new Map<string, { n: number; size: number }>();
  for (const m of history) {
    if (typeof m.meta?.turn !== 'string') continue;
    const e = turnCounts.get(m.meta.turn) ?? { n: 0, size: m.meta.size as number };
    e.n += 1;
    turnCounts.set(m.meta.turn, e);
  }
  for (const [turn, e] of turnCounts) expect(e.n, `messages of turn ${turn}`).toBe(e.size);

  // Compaction record ⇔ its inserted messages.
  const records = store.compactions.list(session!.id);
  const recordIds = new Set(records.map((r) => r.id));
  for (const r of records) {
    expect(r.insertedIds).toHaveLength(2);
    for (const id of r.insertedIds) expect(byId.get(id)?.meta?.compactionId).toBe(r.id);
  }
  for (const m of history)
    if (m.meta?.compactionId !== undefined)
      expect(recordIds.has(m.meta.compactionId as string), `orphan inserted ${m.id}`).toBe(true);
  for (const c of all.compactions) expect(recordIds.has(c.id), `acked compaction ${c.id}`).toBe(true);
  for (const u of all.undos) expect(records.find((r) => r.id === u)?.active, `acked undo ${u}`).toBe(false);

  // Memory: the facts all come from one refresh, and that refresh's snapshot is the newest one.
  const facts = store.memory.facts(session!.id);
  const origins = new Set(facts.map((f) => f.content.split('/').slice(0, 4).join('/')));
  expect(origins.size).toBeLessThanOrEqual(1);
  const snapshots = store.memory.snapshots(session!.id);
  if (facts.length > 0) expect(facts.length).toBe(Math.min(snapshots.at(-1)!.factCount, MEMORY_CAPS.autoFacts));
}

describe('crash safety', () => {
  it(`keeps every committed transaction whole across ${KILLS} SIGKILLs at random moments`, async () => {
    const lanes = await Promise.all(Array.from({ length: LANES }, (_, lane) => runLane(lane)));
    const turns = lanes.reduce((n, a) => n + a.turns.length, 0);
    const compactions = lanes.reduce((n, a) => n + a.compactions.length, 0);
    // The run exercised real work, not just start-ups: each run acked at least one commit.
    expect(turns + compactions).toBeGreaterThanOrEqual(KILLS / 2);
    expect(lanes.every((a) => a.lines >= 2 * KILLS_PER_LANE)).toBe(true);
    console.log(`crash test: ${KILLS} kills, ${turns} acked turns, ${compactions} acked compactions`);
  }, 90_000); // bounded by child start-ups and fsyncs; ~6 s on an idle 2-core box
});

async function runLane(lane: number): Promise<Acks> {
  const file = join(dir, `crash-${lane}.db`);
  const all: Acks = { turns: [], compactions: [], undos: [], lines: 0 };
  let seed = 12345 + lane * 7919;
  for (let i = 0; i < KILLS_PER_LANE; i++) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const acks = await runAndKill(file, `l${lane}r${i}`, seed, seed % 100);
    all.turns.push(...acks.turns);
    all.compactions.push(...acks.compactions);
    all.undos.push(...acks.undos);
    all.lines += acks.lines;

    const store = openStore({ file, env: {} });
    try {
      checkInvariants(store, all);
    } finally {
      store.close();
    }
    const db = new Database(file, { readonly: true });
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(db.pragma('foreign_key_check')).toEqual([]);
    db.close();
  }
  return all;
}
