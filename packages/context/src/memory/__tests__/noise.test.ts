import { describe, expect, it } from 'vitest';
import type { ChatMessage, MemoryFact } from '@threadline/protocol';
import { isActiveFact, refreshMemory } from '..';

/**
 * Issue 36 point 4: memory records only what is true. One test per noise class seen in Cursor and
 * Claude Code exports, and the correction that supersedes an instruction.
 */
let n = 0;
const refresh = (messages: ChatMessage[], facts: MemoryFact[] = []) =>
  refreshMemory({ sessionId: 's', messages, facts, now: ++n, newId: () => `f${++n}` });
const active = (facts: MemoryFact[], category?: string) =>
  facts.filter((f) => isActiveFact(f) && (!category || f.category === category)).map((f) => f.content);
const call = (id: string, name: string, args: Record<string, unknown>): ChatMessage => ({
  role: 'assistant',
  content: '',
  tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
});
const result = (id: string, content: string): ChatMessage => ({ role: 'tool', tool_call_id: id, content });

describe('memory noise classes', () => {
  it('a verified action only from a success: a touch on a read-only file system verified nothing', () => {
    const r = refresh([
      call('t', 'shell', { command: 'touch /etc/flag; echo done' }),
      result('t', "touch: cannot touch '/etc/flag': Read-only file system\ndone\n[exit code: 0]"),
      call('w', 'shell', { command: 'touch build/ok.txt' }),
      result('w', '[exit code: 0]'),
    ]);
    expect(active(r.facts, 'verified_action')).toEqual(['edited build/ok.txt']);
    expect(active(r.facts, 'artifact')).toEqual(['build/ok.txt']);
  });

  it('a file never created is not a file: a failed write, or a file the user asks to be written', () => {
    const r = refresh([
      { role: 'user', content: 'Write the totals to out/totals.csv and keep src/report.py as it is.' },
      call('w', 'shell', { command: "cat > out/totals.csv <<'EOF'\na,b\nEOF" }),
      result('w', 'bash: out/totals.csv: No such file or directory\n[exit code: 1]'),
    ]);
    expect(active(r.facts, 'artifact')).toEqual(['src/report.py']);
  });

  it('paths as used: a mention without its @, grep context lines without their -line- suffix', () => {
    const r = refresh([
      { role: 'user', content: 'Look at @src/app.ts and @docs/guide.md please.' },
      call('g', 'grep', { pattern: 'render', path: 'src', '-C': 1 }),
      result('g', 'src/view.py-849-\nsrc/view.py:850:    def render(self):\nsrc/view.py-851-        pass'),
    ]);
    const paths = active(r.facts, 'artifact');
    expect(paths).toEqual(expect.arrayContaining(['src/app.ts', 'docs/guide.md', 'src/view.py']));
    expect(paths.some((p) => p.startsWith('@') || /-\d+-?$/.test(p))).toBe(false);
  });

  it('no paths from error text, a pasted trace, or an example', () => {
    const r = refresh([
      {
        role: 'user',
        content:
          "It fails:\n```\nError: ENOENT: no such file or directory, open '/app/config/prod.json'\n    at load (/app/src/config.ts:12:9)\n```\nFor example, config/example.yaml works.\n<example>\ncat notes/sample.txt\n</example>\nThe real file is config/app.yaml.",
      },
    ]);
    expect(active(r.facts, 'artifact')).toEqual(['config/app.yaml']);
  });

  it('paths rooted where they are: a listing of a folder, cd into one, an ls -R that lost its headers', () => {
    const r = refresh([
      call('a', 'shell', { command: 'ls src/routes' }),
      result('a', 'health.ts\nindex.ts\n[exit code: 0]'),
      call('b', 'shell', { command: 'cd web && ls' }),
      result('b', 'index.html\n[exit code: 0]'),
      call('c', 'shell', { command: 'ls -R lib | grep util' }),
      result('c', 'util.py\n[exit code: 0]'),
      call('d', 'shell', { command: 'ls -R pkg' }),
      result('d', 'pkg:\nmain.go\n\npkg/sub:\nsub.go\n[exit code: 0]'),
    ]);
    expect(active(r.facts, 'artifact').sort()).toEqual(
      ['pkg/main.go', 'pkg/sub/sub.go', 'src/routes/health.ts', 'src/routes/index.ts', 'web/index.html'].sort(),
    );
  });

  it('goals from the user, not an assistant status sentence', () => {
    const r = refresh([
      { role: 'user', content: 'My goal: make /health return 200 when the database is down.' },
      { role: 'assistant', content: 'The goal is now achieved: /health returns 200.' },
      { role: 'assistant', content: '目标已完成：日志已经归档。' },
    ]);
    expect(active(r.facts, 'goal')).toEqual(['My goal: make /health return 200 when the database is down.']);
    // The English one is read as a goal sentence and refused as a status; the Chinese one is no goal at all.
    expect(r.candidates.filter((c) => c.reason === 'goal_status_sentence').map((c) => c.content)).toEqual([
      'The goal is now achieved: /health returns 200.',
    ]);
  });

  it('finished work is not an open item: work reported done later retires it', () => {
    const first = refresh([{ role: 'assistant', content: 'Still need to add the favicon and a cache header.' }]);
    expect(active(first.facts, 'open_item')).toHaveLength(1);
    const later = refresh(
      [
        { role: 'assistant', content: 'Still need to add the favicon and a cache header.' },
        { role: 'assistant', content: 'Added the favicon and the cache header.' },
      ],
      first.facts,
    );
    expect(active(later.facts, 'open_item')).toEqual([]);
    expect(later.facts.find((f) => f.category === 'open_item')?.status).toBe('superseded');
  });

  it('a correction supersedes the instruction it contradicts, in one refresh or a later one (English and Chinese)', () => {
    const before = refresh([{ role: 'user', content: 'Use axios for the outbound health check.' }]);
    expect(active(before.facts, 'goal')).toEqual(['Use axios for the outbound health check.']);
    const after = refresh([{ role: 'user', content: "Actually, don't use axios; use fetch." }], before.facts);
    expect(active(after.facts, 'goal')).toEqual(["don't use axios; use fetch."]);
    expect(after.facts.find((f) => f.content.startsWith('Use axios'))?.status).toBe('superseded');
    const zh = refresh([
      { role: 'user', content: '请使用 gzip 压缩。' },
      { role: 'assistant', content: '好的。' },
      { role: 'user', content: '不对，不要用 gzip，改用 zstd。' },
    ]);
    expect(active(zh.facts, 'goal')).toEqual(['不要用 gzip，改用 zstd。']);
    // An instruction that does not ask for what was ruled out stays.
    const other = refresh([
      { role: 'user', content: 'Always run the linter first.' },
      { role: 'user', content: "Actually, don't use axios." },
    ]);
    expect(active(other.facts, 'goal')).toEqual(['Always run the linter first.', "don't use axios."]);
  });
});
