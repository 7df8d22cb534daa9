import { describe, expect, it } from 'vitest';
import { STRATEGIES, type StoredMessage } from '@threadline/protocol';
import { buildLedger, buildView, messagesText, pairViolations } from '../..';
import { apply, fakeSummarizer, HistoryBuilder, MODEL, run } from './fixtures';

/**
 * Every strategy keeps a ledger of what it hid; a strategy that cannot reach
 * its target returns its best result; nothing grows the view or is inserted below the threshold.
 */

/** A session whose early work edits files by several tools and shell forms, then long later work. */
function editingSession(): HistoryBuilder {
  const h = new HistoryBuilder();
  h.system();
  h.user('Please refactor the parser and keep the public API.\nDetails follow.');
  h.tool('shell', 'done', JSON.stringify({ command: "sed -i 's/a/b/' src/parser/lexer.py" }));
  h.tool('shell', 'done', JSON.stringify({ command: 'cat > docs/notes#1.md <<EOF\nhello\nEOF' }));
  h.tool('shell', 'done', JSON.stringify({ command: 'git mv old/api.py src/api.py && rm -f build/tmp.o' }));
  h.tool('shell', 'done', JSON.stringify({ command: 'mkdir -p "out dir/报告" && touch "out dir/报告/列表.txt"' }));
  h.tool('write_file', 'ok', JSON.stringify({ file_path: 'src/parser/ast.py', content: 'x = 1' }));
  // An edit call that carries no path: the path the assistant named for it.
  const m = h.add({
    role: 'assistant',
    content: 'Now I patch tests/test_parser.py to cover the new token.',
    tool_calls: [{ id: 'edit_1', type: 'function', function: { name: 'edit', arguments: '{"old":"a","new":"b"}' } }],
  });
  h.add({ role: 'tool', content: 'ok', tool_call_id: 'edit_1', name: 'edit' });
  void m;
  h.tool(
    'todo_write',
    'ok',
    JSON.stringify({
      todos: [
        { content: 'port the old tests', status: 'completed' },
        { content: 'update the changelog', status: 'pending' },
      ],
    }),
  );
  h.user("Don't touch the CLI module.");
  for (let i = 0; i < 6; i++) h.segment(`later task ${i} with a long enough request`, 3, 3000);
  return h;
}

const EDITED = [
  'src/parser/lexer.py',
  'docs/notes#1.md',
  'src/api.py',
  'old/api.py',
  'build/tmp.o',
  'out dir/报告/列表.txt',
  'src/parser/ast.py',
  'tests/test_parser.py',
];

function viewText(history: StoredMessage[], r: Awaited<ReturnType<typeof run>>): string {
  const next = apply(history, [], r);
  return messagesText(buildView({ history: next.history, compactions: next.compactions, model: MODEL }).messages);
}

describe('the ledger of the hidden range', () => {
  it('names files changed by tool arguments, shell writes, moves, deletions and path-less edits', () => {
    const h = editingSession();
    const ledger = buildLedger(h.messages);
    const byPath = new Map(ledger.files.map((f) => [f.path, f.op]));
    for (const p of EDITED) expect(byPath.has(p), p).toBe(true);
    expect(byPath.get('build/tmp.o')).toBe('delete');
    expect(byPath.get('old/api.py')).toBe('delete');
    expect(byPath.get('src/api.py')).toBe('move');
    // The user's messages, whole, each once; chit-chat is none. Without task ids, none is a task.
    expect(ledger.users.slice(0, 2).map(({ text, task }) => ({ text, task }))).toEqual([
      { text: 'Please refactor the parser and keep the public API.\nDetails follow.', task: false },
      { text: "Don't touch the CLI module.", task: false },
    ]);
    // Open todos only.
    expect(ledger.todos).toEqual(['update the changelog']);
  });

  it.each(STRATEGIES.map((s) => [s]))(
    '%s: what the model reads afterwards names every changed file, the instructions and the open todo',
    async (strategy) => {
      const h = editingSession();
      const before = buildView({ history: h.messages, model: MODEL }).tokens;
      const r = await run({
        history: h.messages,
        strategy,
        window: Math.ceil(before / 0.97),
        target: Math.floor(before * 0.4),
        trigger: 'manual',
      });
      expect(r.ok, r.reason ?? '').toBe(true);
      expect(r.hiddenIds.length).toBeGreaterThan(0);
      const text = viewText(h.messages, r);
      for (const p of EDITED) expect(text, `${strategy}: ${p}`).toContain(p);
      expect(text).toContain("Don't touch the CLI module.");
      expect(text).toContain('update the changelog');
      expect(text).not.toContain('- port the old tests');
    },
  );

  it('a model summary that names a file does not get it again; what it missed is appended', async () => {
    const h = editingSession();
    const r = await run({
      history: h.messages,
      strategy: 'legacy_segmented',
      summarizer: fakeSummarizer(undefined, 'We edited src/parser/lexer.py and src/parser/ast.py.'),
    });
    expect(r.ok).toBe(true);
    const summary = r.inserted.find((m) => m.kind === 'summary')!.content!;
    expect(summary.match(/src\/parser\/lexer\.py/g)).toHaveLength(1);
    expect(summary).toContain('[Ledger of the hidden range]');
    expect(summary).toContain('- tests/test_parser.py');
    expect(summary).toContain('- build/tmp.o (deleted)');
  });

  it('a second compaction carries the first ledger forward without stacking', async () => {
    const h = editingSession();
    const first = await run({ history: h.messages, strategy: 'priority_chain', target: 1 });
    const next = apply(h.messages, [], first);
    // More work after the first compaction (ids and seqs after everything stored so far).
    const more = new HistoryBuilder();
    for (let i = 0; i < 5; i++) more.segment(`second round task ${i} with words`, 3, 3000);
    const base = Math.max(...next.history.map((m) => m.seq)) + 1;
    next.history.push(...more.messages.map((m, i) => ({ ...m, id: `y${m.id}`, seq: base + i })));
    const second = await run({
      history: next.history,
      compactions: next.compactions,
      strategy: 'legacy_segmented',
      target: 1,
    });
    expect(second.ok, second.reason ?? '').toBe(true);
    const after = buildView({
      history: [...next.history, ...second.inserted],
      compactions: [...next.compactions, ...apply([], [], second).compactions],
      model: MODEL,
    });
    expect(after.entries.filter((e) => e.kind === 'summary' || e.kind === 'memory_snapshot')).toHaveLength(1);
    const text = messagesText(after.messages);
    for (const p of EDITED) expect(text, p).toContain(p);
  });
});

describe('best effort, never the unchanged overflow', () => {
  it('an unreachable target still returns the smaller view: older outputs pruned, then the kept ones cut', async () => {
    const h = new HistoryBuilder();
    h.system();
    h.segment('old work', 2, 400);
    // The active request: four huge outputs and no answer yet (every strategy keeps the last one).
    h.user('recent heavy work on the logs');
    for (let i = 0; i < 4; i++) h.tool('shell', `log ${i} `.padEnd(40_000, 'y'));
    for (const strategy of STRATEGIES) {
      const r = await run({ history: h.messages, strategy, target: 50 });
      expect(r.ok, `${strategy}: ${r.reason}`).toBe(true);
      expect(r.targetReached).toBe(false);
      expect(r.tokensAfter).toBeLessThan(r.tokensBefore);
      const names = r.steps.map((s) => s.name);
      expect(names, strategy).toContain('cut_tool_outputs');
      const next = apply(h.messages, [], r);
      const view = buildView({ history: next.history, compactions: next.compactions, model: MODEL });
      expect(view.tokens).toBe(r.tokensAfter);
      expect(pairViolations(view.messages)).toEqual({ unansweredCalls: [], orphanResults: [] });
      // The latest output is cut with the marker, not dropped; the model can page it back.
      const tools = view.messages.filter((m) => m.role === 'tool');
      expect(tools.at(-1)!.content).toMatch(/tokens truncated/);
      expect(tools.at(-1)!.content).toMatch(/read_tool_output/);
    }
  });

  it('fails, changing nothing, only when a message that may not be hidden is itself over the window', async () => {
    const h = new HistoryBuilder();
    h.system();
    h.segment('old work', 2, 400);
    h.user(`paste: ${'z '.repeat(30_000)}`); // the latest user message, ~15K tokens
    const r = await run({ history: h.messages, strategy: 'priority_chain', window: 10_000 });
    expect(r.ok).toBe(false);
    expect(r.reason).toMatch(
      /^message_over_window: the user message m\d+ \(seq \d+\) is \d+ tokens, over the window of 10000/,
    );
    expect(r.hiddenIds).toEqual([]);
    expect(r.inserted).toEqual([]);
  });
});

describe('compaction never grows the view', () => {
  it.each(STRATEGIES.map((s) => [s]))('%s: below the auto threshold nothing is inserted', async (strategy) => {
    const h = editingSession();
    const before = buildView({ history: h.messages, model: MODEL }).tokens;
    const r = await run({
      history: h.messages,
      strategy,
      window: Math.ceil(before / 0.5),
      trigger: 'auto',
      threshold: 0.8,
    });
    expect(r).toMatchObject({ ok: false, reason: 'below_threshold', hiddenIds: [], inserted: [] });
    expect(r.tokensAfter).toBe(r.tokensBefore);
  });

  it('a plan whose ledger would cost more than it hid is refused (no_reduction), not applied', async () => {
    const h = new HistoryBuilder();
    h.system();
    h.tool(
      'shell',
      'ok',
      JSON.stringify({ command: `touch ${Array.from({ length: 40 }, (_, i) => `f${i}.txt`).join(' ')}` }),
    );
    h.user('next request with enough words to not be chit-chat');
    const r = await run({
      history: h.messages,
      strategy: 'priority_chain',
      plan: [[{ name: 'brute_prune', keep: 1 }]],
      target: 1_000_000,
    });
    // Hiding the one call saves little, and its ledger (40 files) costs more: nothing changes.
    expect(r).toMatchObject({ ok: false, reason: 'no_reduction', hiddenIds: [], inserted: [] });
  });
});

describe('buildLedger: the file a path-less edit is about', () => {
  it('is the one the latest read opened, across messages of shell calls that opened none', () => {
    const h = new HistoryBuilder();
    h.user('fix the bug');
    h.tool('bash', 'src code', JSON.stringify({ command: 'cat src/first.py' }));
    h.tool('bash', 'more', JSON.stringify({ command: "nl -ba src/read.py | sed -n '1,9p'" }));
    h.tool('bash', 'ok', JSON.stringify({ command: 'python3 run.py' }));
    h.tool('bash', 'ok', JSON.stringify({ command: 'echo hi > notes.txt' }));
    const edit = h.tool('apply_diff', '@@ -1 +1 @@\n-a\n+b', JSON.stringify({ diff: '-a\n+b' }));
    h.tool('bash', 'x', JSON.stringify({ command: 'ls' }));
    h.tool('apply_diff', 'ok', JSON.stringify({ diff: '-b\n+c' }));
    const ledger = buildLedger(h.messages);
    expect(edit).toBe('call_5');
    expect(ledger.files).toEqual([
      { path: 'notes.txt', op: 'write' },
      { path: 'src/read.py', op: 'write' },
    ]);
  });
});
