import { describe, expect, it } from 'vitest';
import { STRATEGIES, type CompactionRecord, type StoredMessage } from '@threadline/protocol';
import {
  buildLedger,
  buildView,
  carriedSet,
  instructionSentences,
  LEDGER_HEADER,
  messagesText,
  taskMessageIds,
  USER_WORDS_HEADER,
} from '../..';
import { loadTranscripts } from '../../cli/transcripts';
import { intentTotals } from '../../../bench/intent';
import { apply, fakeSummarizer, HistoryBuilder, MODEL, run } from './fixtures';

/**
 * Every strategy: the user's task and standing instructions survive every
 * compaction verbatim, are presented as the user's instructions, and what a compaction carried
 * is carried by every later one.
 */

const TASK = [
  'Fix the date parser in src/dates/parse.py so ISO week dates work.',
  'DO NOT MODIFY: tests or any file under tests/.',
  'Background: the parser was written years ago and has grown by accretion.',
].join('\n');

/** A task, a correction later on, then enough work that every strategy hides both. */
function session(rounds = 8): HistoryBuilder {
  const h = new HistoryBuilder();
  h.system();
  h.user(TASK);
  h.tool('write_file', 'ok', JSON.stringify({ path: 'src/dates/parse.py', content: 'x = 1' }));
  h.tool('shell', 'ok', JSON.stringify({ command: 'ls src/dates' }));
  h.user('Always run the linter before you say you are done. Use pathlib instead of os.path.');
  h.tool('shell', 'ok', JSON.stringify({ command: 'sed -i s/a/b/ src/dates/week.py' }));
  for (let i = 0; i < rounds; i++) h.segment(`step ${i}: look at the next failing case`, 3, 3000);
  return h;
}

function viewAfter(h: { history: StoredMessage[]; compactions: CompactionRecord[] }): string {
  return messagesText(buildView({ history: h.history, compactions: h.compactions, model: MODEL }).messages);
}

describe('the user words every strategy carries', () => {
  it.each(STRATEGIES.map((s) => [s]))(
    '%s: the task and the later instruction are in the view whole, as the user’s words, not as data',
    async (strategy) => {
      const h = session();
      const before = buildView({ history: h.messages, model: MODEL }).tokens;
      const r = await run({ history: h.messages, strategy, window: Math.ceil(before / 2), trigger: 'recovery' });
      expect(r.ok, r.reason ?? '').toBe(true);
      const ALWAYS = 'Always run the linter before you say you are done. Use pathlib instead of os.path.';
      expect(r.hiddenIds).toContain('m6');
      const text = viewAfter(apply(h.messages, [], r));
      expect(text).toContain(TASK);
      expect(text).toContain(ALWAYS);
      // Inside the message that carries them: the user's words, under their own header, before the data framing.
      const carrier = r.inserted.find((m) => (m.content ?? '').includes(ALWAYS))!;
      const c = carrier.content!;
      expect(c.indexOf(ALWAYS)).toBeGreaterThan(c.indexOf(USER_WORDS_HEADER));
      expect(c.indexOf(USER_WORDS_HEADER)).toBeGreaterThanOrEqual(0);
      const data = c.indexOf(LEDGER_HEADER);
      if (data >= 0) expect(c.indexOf(ALWAYS)).toBeLessThan(data);
      // The task too, when this strategy hid it.
      if (r.hiddenIds.includes('m1')) expect(c).toContain(`--- The user (task):\n${TASK}`);
    },
  );

  it('a message too long for the budget keeps its instruction sentences first, verbatim', () => {
    const bulk = Array.from({ length: 400 }, (_, i) => `Line ${i} of the pasted log with some words.`).join('\n');
    const long = `${bulk}\nYou must keep the public API stable.\n${bulk}\nNever push to main.`;
    const h = new HistoryBuilder();
    h.user('Short task message.');
    h.user(long);
    h.user('Prefer small commits.');
    const ledger = buildLedger(h.messages, new Set(['m0']));
    const set = carriedSet(ledger, { model: MODEL, userTokens: 300, taskTokens: 300 });
    expect(set.users.map((u) => u.task)).toEqual([true, false, false]);
    expect(set.users[0]!.text).toBe('Short task message.');
    expect(set.users[2]!.text).toBe('Prefer small commits.');
    const cut = set.users[1]!.text;
    expect(cut.length).toBeLessThan(long.length);
    expect(cut.startsWith('You must keep the public API stable.\nNever push to main.')).toBe(true);
    expect(instructionSentences(long)).toEqual(['You must keep the public API stable.', 'Never push to main.']);
  });

  it('newest first: when the budget ends, the oldest non-task messages are the ones left out', () => {
    const h = new HistoryBuilder();
    h.user('The task: port the parser.');
    for (let i = 0; i < 30; i++) h.user(`Instruction number ${i}: only touch module ${i}.`);
    const set = carriedSet(buildLedger(h.messages, new Set(['m0'])), { model: MODEL, userTokens: 60, taskTokens: 50 });
    const texts = set.users.map((u) => u.text);
    expect(texts[0]).toBe('The task: port the parser.');
    expect(texts).toContain('Instruction number 29: only touch module 29.');
    expect(texts).not.toContain('Instruction number 0: only touch module 0.');
  });
});

describe('task messages', () => {
  it('the first user message, and the first of each branch of work (an edit, a new task)', () => {
    const h = new HistoryBuilder();
    h.system();
    h.user('ok');
    h.user('Port the parser to the new grammar.');
    h.assistant('Done.');
    h.add({ role: 'user', content: 'Now rewrite it in place instead.', meta: { branchStart: true } });
    h.user('Also update the docs please.');
    h.add({ role: 'user', content: 'Different topic: fix the CI cache.', meta: { newTask: true } });
    expect([...taskMessageIds(h.messages)]).toEqual(['m2', 'm4', 'm6']);
  });
});

describe('nothing decays over repeated compactions', () => {
  it.each(STRATEGIES.map((s) => [s]))(
    '%s: a file and an instruction a summary named once are still carried after later compactions that name nothing',
    async (strategy) => {
      let state = { history: session(4).messages, compactions: [] as CompactionRecord[] };
      // The first summary names everything, so the first ledger prints nothing of it…
      const first = await run({
        history: state.history,
        strategy,
        target: 1,
        summarizer: fakeSummarizer(
          undefined,
          `Edited src/dates/parse.py and src/dates/week.py. ${TASK} Always run the linter before you say you are done. Use pathlib instead of os.path.`,
        ),
      });
      expect(first.ok, first.reason ?? '').toBe(true);
      state = apply(state.history, state.compactions, first);
      // …then three more rounds of work, each compacted by a summarizer that names nothing.
      for (let round = 0; round < 3; round++) {
        const more = new HistoryBuilder();
        for (let i = 0; i < 6; i++) more.segment(`round ${round} step ${i} with words`, 2, 3000);
        const base = Math.max(...state.history.map((m) => m.seq)) + 1;
        state.history = [
          ...state.history,
          ...more.messages.map((m, i) => ({ ...m, id: `r${round}-${m.id}`, seq: base + i })),
        ];
        const next = await run({
          history: state.history,
          compactions: state.compactions,
          strategy,
          target: 1,
          summarizer: fakeSummarizer(undefined, 'Nothing much happened.'),
        });
        expect(next.ok, next.reason ?? '').toBe(true);
        state = apply(state.history, state.compactions, next);
      }
      const text = viewAfter(state);
      expect(text).toContain('src/dates/parse.py');
      expect(text).toContain('src/dates/week.py');
      expect(text).toContain(TASK);
      expect(text).toContain('Always run the linter before you say you are done.');
    },
  );
});

describe('the 18 transcripts (quality, not timing)', () => {
  const transcripts = loadTranscripts();
  it('every strategy keeps 100 % of task messages and ≥ 99 % of standing instructions at tokens/2 and tokens/4; a replay keeps what one compaction keeps', async () => {
    const { totals } = await intentTotals(transcripts, MODEL);
    expect(totals.map((t) => t.strategy)).toEqual([...STRATEGIES]);
    for (const t of totals) {
      for (const f of [t.half, t.quarter]) {
        expect(f.tasks, t.strategy).toBeGreaterThanOrEqual(transcripts.length);
        expect(f.tasksKept, t.strategy).toBe(f.tasks);
        expect(f.instructionsKept / f.instructions, `${t.strategy}: lost ${f.lost.join(' | ')}`).toBeGreaterThanOrEqual(
          0.99,
        );
      }
      expect(t.replayed.compactions, t.strategy).toBeGreaterThanOrEqual(5 * 4);
      expect(t.replayed.instructionsKept, t.strategy).toBeGreaterThanOrEqual(t.once.instructionsKept);
      expect(t.replayed.filesNamed, t.strategy).toBeGreaterThanOrEqual(t.once.filesNamed);
      expect(t.replayed.tasksKept, t.strategy).toBe(t.replayed.tasks);
    }
  }, 240_000);
});
