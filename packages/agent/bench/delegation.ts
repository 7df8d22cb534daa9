// Helpers as compaction (issue 39): an exploration-heavy session replayed from a real transcript
// of fixtures/transcripts, through the real runtime (createAppApi over a real SQLite file) and
// fake-llm over real HTTP, twice: the agent reads everything itself, or hands the reading to three
// helpers and reads their reports. What the provider received gives the parent's peak context in
// each. Deterministic: no clock is read; auto compaction is off, so the peak is the raw one.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startFakeLlm, type ChatRequestView, type FakeReply, type RecordedRequest } from '@threadline/fake-llm';
import * as z from 'zod/mini';
import { ChatMessageSchema, type ChatMessage, type HelperSummary } from '@threadline/protocol';
import { openStore } from '@threadline/store';
import { createAppApi } from '../src/index';

/** A transcript of fixtures/transcripts: `{ id, source, messages }`. */
const TranscriptSchema = z.object({ messages: z.array(ChatMessageSchema) });

/** One read of the transcript: what the agent said before it, and what the command printed. */
export interface ExplorationStep {
  thought: string;
  output: string;
}

/** The transcripts replayed (the exploration-heaviest of the fixtures); `quick`: the first. */
export const EXPLORATION_TRANSCRIPTS = [
  'mini-swe-django__django-11138',
  'mini-swe-scikit-learn__scikit-learn-12682',
  'mini-swe-sphinx-doc__sphinx-9229',
];

/** A command that only reads: listing, searching, printing files (no redirect, no heredoc). */
const READ_COMMAND =
  /^\s*(?:cd\s+\S+\s*&&\s*)?(?:ls|find|grep|nl|cat\s|sed -n|head|tail|wc|rg|git (?:log|show|diff|status|grep))\b/;

/** Every read of a transcript, in order: its exploration, without what it wrote or ran. */
export function explorationSteps(messages: readonly ChatMessage[]): ExplorationStep[] {
  const results = new Map(messages.filter((m) => m.role === 'tool').map((m) => [m.tool_call_id, m.content ?? '']));
  const steps: ExplorationStep[] = [];
  for (const m of messages) {
    for (const c of m.role === 'assistant' ? (m.tool_calls ?? []) : []) {
      let command = '';
      try {
        const args = JSON.parse(c.function.arguments) as { command?: unknown };
        command = typeof args.command === 'string' ? args.command : '';
      } catch {
        continue;
      }
      const reads = READ_COMMAND.test(command) && !command.replace(/2>/g, '').includes('>') && !command.includes('<<');
      const output = results.get(c.id);
      if (reads && output !== undefined) steps.push({ thought: (m.content ?? '').trim(), output });
    }
  }
  return steps;
}

export interface DelegationRun {
  /** Requests of the parent session (its own context). */
  requests: number;
  /** The largest prompt the parent sent, in tokens (fake-llm's count, o200k). */
  peak: number;
  /** Its last prompt: what its context holds after the exploration. */
  last: number;
}

export interface DelegationFigures {
  transcript: string;
  steps: number;
  outputChars: number;
  without: DelegationRun;
  with: DelegationRun & {
    helpers: number;
    /** Tokens the helpers' requests took (prompts and answers), apart from the parent's. */
    helperTokens: number;
    /** Tokens of their reports in the parent's context. */
    returned: number;
  };
}

const HELPERS = 3;
const isHelper = (req: { messages: { content?: unknown }[] }): boolean =>
  String(req.messages[0]?.content ?? '').includes('# You are a helper');
const taskOf = (req: ChatRequestView): string =>
  String(req.messages.find((m) => m.role === 'user' && !String(m.content).startsWith('[CFPM_'))?.content ?? '');
const stepFile = (i: number): string => `explore/step-${String(i).padStart(3, '0')}.txt`;

/** The files of helper `h`'s share of the steps (consecutive, about equal). */
function shareOf(steps: number, h: number): number[] {
  const per = Math.ceil(steps / HELPERS);
  return Array.from({ length: steps }, (_, i) => i).slice(h * per, (h + 1) * per);
}

/**
 * The fake model. Without delegation the agent reads step after step (the transcript's thought,
 * then read_file of that step's output) and answers. With it, the agent delegates the reading in
 * three tasks; each helper reads its share the same way and reports the first line of what each
 * read showed (what a model's report would keep: where things are, not their whole text).
 */
function model(steps: ExplorationStep[], delegate: boolean): (req: ChatRequestView) => FakeReply {
  const read = new Map<string, number>();
  return (req) => {
    const last = req.messages.at(-1);
    if (isHelper(req)) {
      const task = taskOf(req);
      const mine = [...task.matchAll(/explore\/step-(\d+)\.txt/g)].map((m) => Number(m[1]));
      const done = read.get(task) ?? 0;
      if (done < mine.length) {
        read.set(task, done + 1);
        const i = mine[done]!;
        return { content: steps[i]!.thought, toolCalls: [{ name: 'read_file', arguments: { path: stepFile(i) } }] };
      }
      const lines = mine.map((i) => `- ${stepFile(i)}: ${firstLine(steps[i]!.output)}`);
      return { content: `What the reads showed:\n${lines.join('\n')}` };
    }
    if (delegate) {
      if (last?.role === 'tool') return { content: 'The exploration is done; the reports say where to look.' };
      const tasks = Array.from({ length: HELPERS }, (_, h) => ({
        task: `Read ${shareOf(steps.length, h).map(stepFile).join(', ')} and report what each shows.`,
      }));
      return { toolCalls: [{ name: 'delegate', arguments: { tasks } }] };
    }
    const done = read.get('') ?? 0;
    if (done >= steps.length) return { content: 'The exploration is done.' };
    read.set('', done + 1);
    return { content: steps[done]!.thought, toolCalls: [{ name: 'read_file', arguments: { path: stepFile(done) } }] };
  };
}

function firstLine(text: string): string {
  const line = text.split('\n').find((l) => l.trim() !== '' && !l.startsWith('<returncode>')) ?? '';
  const clean = line.replace(/<\/?output>/g, '').trim();
  return clean.length > 120 ? `${clean.slice(0, 119)}…` : clean;
}

/** One replay: the session, the fake model's requests, the helpers it had. */
async function replay(
  steps: ExplorationStep[],
  delegate: boolean,
): Promise<{ requests: RecordedRequest[]; helpers: HelperSummary[] }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tl-delegation-'));
  const work = path.join(dir, 'work');
  mkdirSync(path.join(work, 'explore'), { recursive: true });
  steps.forEach((s, i) => writeFileSync(path.join(work, stepFile(i)), s.output));
  const llm = await startFakeLlm({ defaultReply: model(steps, delegate) });
  const store = openStore({ file: path.join(dir, 'threadline.db'), allowPlaintextKeys: true, env: {} });
  const api = createAppApi({
    store,
    dataDir: path.join(dir, 'data'),
    homeDir: path.join(dir, 'home'),
    cwd: work,
    loginShell: false,
    emit: () => undefined,
  });
  try {
    store.providers.upsert({
      preset: 'openai',
      name: 'fake',
      baseUrl: llm.url,
      model: 'fake-model',
      contextWindow: 1_000_000,
      compactionModel: null,
      apiKey: 'bench-key',
    });
    // No compaction: the peak is what the reading itself puts in the context.
    store.settings.set({ compaction: { autoThreshold: 0 }, helpers: { concurrency: HELPERS } });
    const session = await api['sessions.create']({ title: 'explore', workingFolder: work });
    await api['chat.send']({ sessionId: session.id, text: 'Explore the project: find where the problem is.' });
    await api.idle(session.id);
    const helpers = await api['helpers.list']({ sessionId: session.id });
    return { requests: llm.chatRequests().filter((r) => r.status === 200), helpers };
  } finally {
    await api.dispose();
    store.close();
    await llm.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function parentRun(requests: RecordedRequest[]): DelegationRun {
  const own = requests.filter((r) => !isHelper(r.body as { messages: { content?: unknown }[] }) && !isTitle(r));
  const tokens = own.map((r) => r.promptTokens ?? 0);
  return { requests: own.length, peak: Math.max(0, ...tokens), last: tokens.at(-1) ?? 0 };
}

const isTitle = (r: RecordedRequest): boolean =>
  /^Title this conversation/.test(String((r.body as { messages: { content?: unknown }[] }).messages.at(-1)?.content));

export async function measureDelegation(opts: {
  transcriptsDir: string;
  quick?: boolean;
}): Promise<DelegationFigures[]> {
  const names = opts.quick ? EXPLORATION_TRANSCRIPTS.slice(0, 1) : EXPLORATION_TRANSCRIPTS;
  const out: DelegationFigures[] = [];
  for (const name of names) {
    const file = readFileSync(path.join(opts.transcriptsDir, `${name}.json`), 'utf8');
    const steps = explorationSteps(TranscriptSchema.parse(JSON.parse(file)).messages);
    const without = await replay(steps, false);
    const withHelpers = await replay(steps, true);
    const helperRequests = withHelpers.requests.filter((r) =>
      isHelper(r.body as { messages: { content?: unknown }[] }),
    );
    out.push({
      transcript: name,
      steps: steps.length,
      outputChars: steps.reduce((n, s) => n + s.output.length, 0),
      without: parentRun(without.requests),
      with: {
        ...parentRun(withHelpers.requests),
        helpers: withHelpers.helpers.length,
        helperTokens: helperRequests.reduce(
          (n, r) => n + (r.usage?.prompt_tokens ?? 0) + (r.usage?.completion_tokens ?? 0),
          0,
        ),
        returned: withHelpers.helpers.reduce((n, h) => n + (h.returnedTokens ?? 0), 0),
      },
    });
  }
  return out;
}

export function printDelegation(rows: DelegationFigures[]): void {
  console.log(
    'transcript'.padEnd(44),
    'reads'.padStart(6),
    'peak alone'.padStart(11),
    'peak w/ helpers'.padStart(16),
    'saved'.padStart(7),
    'helpers used'.padStart(13),
    'returned'.padStart(9),
  );
  for (const r of rows) {
    const saved = r.without.peak > 0 ? Math.round((1 - r.with.peak / r.without.peak) * 100) : 0;
    console.log(
      r.transcript.padEnd(44),
      String(r.steps).padStart(6),
      String(r.without.peak).padStart(11),
      String(r.with.peak).padStart(16),
      `${saved}%`.padStart(7),
      String(r.with.helperTokens).padStart(13),
      String(r.with.returned).padStart(9),
    );
  }
  console.log(
    "(tokens of the parent session's largest request, o200k as fake-llm counts them; auto compaction off; helpers: 3 at once)",
  );
}
