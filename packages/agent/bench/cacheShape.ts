// Request shape and the provider's prompt cache (issue 24): a long session with tool calls runs
// through the real runtime (createAppApi over a real SQLite file) against fake-llm over real HTTP,
// and every request body the provider received is compared with the one before it. Used by the
// test (`cacheShape.test.ts`) and `pnpm bench -- --only cache`; deterministic (no clock is read).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { startFakeLlm, type ChatRequestView, type FakeReply, type RecordedRequest } from '@threadline/fake-llm';
import { STRATEGIES, type AppEvent, type Strategy } from '@threadline/protocol';
import { openStore } from '@threadline/store';
import { createAppApi } from '../src/index';

export interface CacheShapeOptions {
  strategy: Strategy;
  turns?: number;
  /** The profile's context window (default WINDOWS[strategy]). */
  window?: number;
}

/** The window of each strategy's session: small, so that 60 turns compact at least 4 times. */
export const WINDOWS: Record<Strategy, number> = {
  legacy_segmented: 10_000,
  progressive: 10_000,
  priority_chain: 10_000,
  cfpm_memory_v1: 10_000,
};

export interface CacheShapeFigures {
  strategy: Strategy;
  window: number;
  requests: number;
  summaryRequests: number;
  compactions: number;
  /** Consecutive request pairs with no compaction applied between them. */
  pairs: number;
  /** Of those, pairs where the later request is the earlier one plus what is new. */
  extensions: number;
  /** extensions / pairs. */
  extensionShare: number;
  /** Characters of all requests that repeat the previous request's prefix / all characters sent. */
  prefixShare: number;
  /** Of the summary requests, those that extend the request before them. */
  summaryExtensions: number;
  /** Tokens fake-llm reported cached / prompt tokens, over all requests. */
  cachedShare: number;
  /** What fake-llm reported, summed over every request (summaries included). */
  usage: { prompt: number; cached: number; completion: number };
}

interface Body {
  messages: unknown[];
  tools?: unknown[];
}

/** One request as the cache sees it: the tool definitions first, then each message. */
function parts(r: RecordedRequest): string[] {
  const b = r.body as Body;
  return [JSON.stringify(b.tools ?? []), ...b.messages.map((m) => JSON.stringify(m))];
}

function commonPrefixChars(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** Characters of `cur` that repeat `prev`'s beginning (whole parts, then the first differing part's). */
export function sharedPrefixChars(prev: string[], cur: string[]): number {
  let chars = 0;
  for (let i = 0; i < cur.length; i++) {
    if (i < prev.length && prev[i] === cur[i]) {
      chars += cur[i]!.length;
      continue;
    }
    if (i < prev.length) chars += commonPrefixChars(prev[i]!, cur[i]!);
    break;
  }
  return chars;
}

/** `cur` is `prev` plus what is new: same tools, every message of `prev` unchanged at its place. */
export function isExtension(prev: RecordedRequest, cur: RecordedRequest): boolean {
  const a = prev.body as Body;
  const b = cur.body as Body;
  if (!isDeepStrictEqual(a.tools ?? [], b.tools ?? [])) return false;
  if (b.messages.length < a.messages.length) return false;
  return a.messages.every((m, i) => isDeepStrictEqual(m, b.messages[i]));
}

const lastIsTool = (req: ChatRequestView): boolean => req.messages.at(-1)?.role === 'tool';

const FILES = ['src/app.ts', 'src/db.ts', 'src/api/routes.ts', 'README.md', 'package.json'];

/** What the user says on turn `t`: requests, constraints and files, so CFPM memory keeps changing. */
function userText(t: number): string {
  const f = FILES[t % FILES.length]!;
  const asks = [
    `Please read ${f} and tell me what it does.`,
    `Do not use any new dependencies. Look at ${f} again, step ${t}.`,
    `Update ${f}: add a comment line "step ${t}" at the end.`,
    `Run the listing of the project and check ${f}.`,
    `Thanks. Now check ${f} for the word "step" (turn ${t}).`,
  ];
  return asks[t % asks.length]!;
}

/** The fake model: one or two tool calls per turn (read, write, shell, list), then a short answer. */
function model(): (req: ChatRequestView) => FakeReply {
  let calls = 0;
  let turn = 0;
  return (req) => {
    if (!lastIsTool(req)) {
      turn++;
      calls = 0;
    }
    const f = FILES[turn % FILES.length]!;
    if (calls >= 1 + (turn % 2)) return { content: `Done with turn ${turn}: ${f} looks fine.` };
    calls++;
    const kind = (turn + calls) % 4;
    if (kind === 0) return { toolCalls: [{ name: 'read_file', arguments: { path: f } }] };
    if (kind === 1)
      return {
        toolCalls: [
          { name: 'write_file', arguments: { path: f, content: `// ${f}\n${'line\n'.repeat(40)}// step ${turn}\n` } },
        ],
      };
    if (kind === 2) return { toolCalls: [{ name: 'shell', arguments: { command: `seq 1 ${600 + turn * 7}` } }] };
    return { toolCalls: [{ name: 'list_dir', arguments: { path: '.' } }] };
  };
}

/** Runs the session and measures what the provider received. */
export async function measureCacheShape(opts: CacheShapeOptions): Promise<CacheShapeFigures> {
  const turns = opts.turns ?? 60;
  const window = opts.window ?? WINDOWS[opts.strategy];
  const dir = mkdtempSync(path.join(tmpdir(), 'tl-cache-shape-'));
  // The session works in a folder of its own: a listing of the database's folder would change
  // with its WAL file, and the session would not be the same from run to run.
  const work = path.join(dir, 'work');
  mkdirSync(work);
  const llm = await startFakeLlm({ defaultReply: model() });
  const store = openStore({ file: path.join(dir, 'threadline.db'), allowPlaintextKeys: true, env: {} });
  // The index of the first request sent after each applied compaction.
  const boundaries = new Set<number>();
  let compactions = 0;
  // Writing package.json asks even under `auto` (code that runs later): the user approves it.
  const asks: { sessionId: string; toolCallId: string }[] = [];
  let wake: (() => void) | null = null;
  const api = createAppApi({
    store,
    dataDir: path.join(dir, 'data'),
    homeDir: path.join(dir, 'home'),
    cwd: work,
    loginShell: false,
    emit: (e: AppEvent) => {
      if (e.type === 'compaction.finished') {
        compactions++;
        boundaries.add(llm.chatRequests().length);
      }
      if (e.type === 'tool.requested' && e.needsApproval) {
        asks.push({ sessionId: e.sessionId, toolCallId: e.toolCall.id });
        wake?.();
      }
    },
  });
  try {
    for (const f of FILES) {
      mkdirSync(path.dirname(path.join(work, f)), { recursive: true });
      writeFileSync(path.join(work, f), `// ${f}\n${'export const value = compute(1, 2, 3);\n'.repeat(120)}`);
    }
    store.providers.upsert({
      preset: 'custom',
      name: 'fake',
      baseUrl: llm.url,
      model: 'fake-model',
      contextWindow: window,
      compactionModel: null,
      apiKey: 'bench-key',
    });
    store.settings.set({ approvalPolicy: 'auto', compaction: { strategy: opts.strategy } });
    const session = await api['sessions.create']({ title: 'cache', workingFolder: work });
    for (let t = 1; t <= turns; t++) {
      await api['chat.send']({ sessionId: session.id, text: userText(t) });
      // The turn ends, or stops at a call that asks: approved, and the turn goes on.
      for (;;) {
        const asked = new Promise<false>((resolve) => {
          wake = () => resolve(false);
          if (asks.length > 0) resolve(false);
        });
        const ended = await Promise.race([api.idle(session.id).then(() => true), asked]);
        wake = null;
        if (ended) break;
        for (const a of asks.splice(0)) await api['chat.approve']({ ...a, decision: 'approve' });
      }
    }
    const reqs = llm.chatRequests().filter((r) => r.status === 200);
    return figures(opts.strategy, window, reqs, llm.chatRequests(), boundaries, compactions);
  } finally {
    await api.dispose();
    await llm.close();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function figures(
  strategy: Strategy,
  window: number,
  reqs: RecordedRequest[],
  all: RecordedRequest[],
  boundaries: Set<number>,
  compactions: number,
): CacheShapeFigures {
  let pairs = 0;
  let extensions = 0;
  let summaryExtensions = 0;
  let shared = 0;
  let total = 0;
  const usage = { prompt: 0, cached: 0, completion: 0 };
  let prev: RecordedRequest | null = null;
  let prevParts: string[] = [];
  for (const r of reqs) {
    const p = parts(r);
    total += p.reduce((n, s) => n + s.length, 0);
    if (prev) {
      shared += sharedPrefixChars(prevParts, p);
      // A compaction applied between the two requests starts a new run of extensions.
      const crossed = [...boundaries].some((b) => all.indexOf(prev!) < b && all.indexOf(r) >= b);
      const ext = isExtension(prev, r);
      if (r.isSummaryRequest && ext) summaryExtensions++;
      if (!crossed) {
        pairs++;
        if (ext) extensions++;
        else if (process.env['CACHE_SHAPE_DEBUG']) debugBreak(prev, r);
      }
    }
    if (r.usage) {
      usage.prompt += r.usage.prompt_tokens;
      usage.cached += r.usage.cached_tokens;
      usage.completion += r.usage.completion_tokens;
    }
    prev = r;
    prevParts = p;
  }
  return {
    strategy,
    window,
    requests: reqs.length,
    summaryRequests: reqs.filter((r) => r.isSummaryRequest).length,
    compactions,
    pairs,
    extensions,
    extensionShare: pairs === 0 ? 0 : extensions / pairs,
    prefixShare: total === 0 ? 0 : shared / total,
    summaryExtensions,
    cachedShare: usage.prompt === 0 ? 0 : usage.cached / usage.prompt,
    usage,
  };
}

/** With CACHE_SHAPE_DEBUG set: where a pair that is no extension first differs. */
function debugBreak(prev: RecordedRequest, cur: RecordedRequest): void {
  const a = parts(prev);
  const b = parts(cur);
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  console.error(
    `break at part ${i} of ${a.length}->${b.length} summary=${cur.isSummaryRequest}:\n  - ${a[i]?.slice(0, 300)}\n  + ${b[i]?.slice(0, 300)}`,
  );
}

const pct = (x: number): string => `${(x * 100).toFixed(1)} %`;

export function printCacheShape(rows: CacheShapeFigures[]): void {
  console.log(
    'strategy            window  requests  summaries  compactions  extension pairs      prefix chars  cached tokens',
  );
  for (const r of rows) {
    console.log(
      `${r.strategy.padEnd(18)}  ${String(r.window).padStart(6)}  ${String(r.requests).padStart(8)}  ${String(r.summaryRequests).padStart(9)}  ${String(r.compactions).padStart(11)}  ${`${r.extensions}/${r.pairs} ${pct(r.extensionShare)}`.padStart(16)}  ${pct(r.prefixShare).padStart(12)}  ${pct(r.cachedShare).padStart(13)}`,
    );
  }
}

/**
 * Measured with this harness on main before issue 24 (commit 367ce7d: the same sessions, windows
 * and fake-llm, 60 turns):
 * consecutive pairs between compactions that extend, and characters repeating the previous
 * request's prefix. The bench prints them beside today's.
 */
export const BEFORE_ISSUE_24: Record<Strategy, { extensionShare: number; prefixShare: number }> = {
  legacy_segmented: { extensionShare: 142 / 149, prefixShare: 0.892 },
  progressive: { extensionShare: 143 / 149, prefixShare: 0.918 },
  priority_chain: { extensionShare: 99 / 123, prefixShare: 0.799 },
  cfpm_memory_v1: { extensionShare: 77 / 142, prefixShare: 0.599 },
};

/** `pnpm bench -- --only cache`: every strategy, today's figures beside main's before issue 24. */
export async function runCacheBench(opts: { quick?: boolean } = {}): Promise<CacheShapeFigures[]> {
  const rows: CacheShapeFigures[] = [];
  for (const strategy of STRATEGIES) {
    console.error(`cache bench: ${strategy}…`);
    rows.push(await measureCacheShape({ strategy, turns: opts.quick ? 30 : 60 }));
  }
  printCacheShape(rows);
  console.log('\nbefore issue 24 (main, same harness)   extension pairs   prefix chars');
  for (const r of rows) {
    const b = BEFORE_ISSUE_24[r.strategy];
    console.log(
      `${r.strategy.padEnd(18)}  before ${pct(b.extensionShare).padStart(8)}  ${pct(b.prefixShare).padStart(8)}   now ${pct(r.extensionShare).padStart(8)}  ${pct(r.prefixShare).padStart(8)}`,
    );
  }
  return rows;
}
