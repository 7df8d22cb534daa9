import { describe, expect, it } from 'vitest';
import { findPaths } from '../paths';
import { changedPaths, splitHeredocs, writtenPaths } from '../shellWrites';
import { callOpened, editorChanges, editorWrittenPaths, messageChanges, parsedCall, patchChanges } from '../writes';

describe('writtenPaths', () => {
  it('sed -i targets, not the script', () => {
    expect(
      writtenPaths("sed -i 's/a/b/' django/db/models/query.py && sed -i.bak -e 's/x/y/' src/a.py src/b.py"),
    ).toEqual(['django/db/models/query.py', 'src/a.py', 'src/b.py']);
    expect(writtenPaths("sed -n '1,20p' src/a.py")).toEqual([]);
  });

  it('redirects and heredocs, ignoring > inside the heredoc body and 2>/dev/null', () => {
    const cmd =
      "cat <<'EOF' > reproduce.py\nif a > b:\n    print(1)\nEOF\npython reproduce.py 2>/dev/null > /tmp/out.log";
    expect(writtenPaths(cmd)).toEqual(['reproduce.py', '/tmp/out.log']);
    expect(splitHeredocs(cmd).bodies).toEqual(['if a > b:\n    print(1)']);
    expect(writtenPaths('cat > lib/x.py << EOF\nx = 1\nEOF')).toEqual(['lib/x.py']);
  });

  it('tee, cp/mv destinations, touch', () => {
    expect(
      writtenPaths('echo hi | tee -a notes.txt; cp a.py backup/a.py; mv tmp.txt out/final.txt; touch new.md'),
    ).toEqual(['notes.txt', 'backup/a.py', 'out/final.txt', 'new.md']);
  });

  it('python writes in inline scripts and heredocs', () => {
    const cmd =
      "python3 - <<'EOF'\nwith open('sympy/core/expr.py', 'w') as f:\n    f.write(s)\nPath('docs/x.rst').write_text(t)\nopen('read.py').read()\nEOF";
    expect(writtenPaths(cmd)).toEqual(['sympy/core/expr.py', 'docs/x.rst']);
  });

  it('structured editor tools', () => {
    expect(editorWrittenPaths('str_replace_editor', { command: 'str_replace', path: '/workspace/src/a.c' })).toEqual([
      '/workspace/src/a.c',
    ]);
    expect(editorWrittenPaths('str_replace_editor', { command: 'view', path: '/workspace/src/a.c' })).toEqual([]);
    expect(editorWrittenPaths('write_file', { path: 'src/b.ts' })).toEqual(['src/b.ts']);
  });

  it('deletions, moves and creations, each with its operation', () => {
    expect(
      changedPaths(
        'rm -rf build/tmp && git mv old/a.py src/a.py && mkdir -p out/x && git rm -q legacy.py; perl -pi -e "s/a/b/" lib/p.pl',
      ),
    ).toEqual([
      { path: 'build/tmp', op: 'delete' },
      { path: 'old/a.py', op: 'delete' },
      { path: 'src/a.py', op: 'move' },
      { path: 'out/x', op: 'create' },
      { path: 'legacy.py', op: 'delete' },
      { path: 'lib/p.pl', op: 'write' },
    ]);
  });

  it('keeps #, quoted spaces and Unicode in a path; a quoted > is no redirect; code written into a file writes nothing now', () => {
    expect(writtenPaths('echo hi > "my notes/task#027.md" && touch 报告/列表.txt')).toEqual([
      'my notes/task#027.md',
      '报告/列表.txt',
    ]);
    expect(writtenPaths('python -c "import sys; print(1 > 0)"')).toEqual([]);
    expect(writtenPaths("python3 -c \"open('out.txt', 'w').write('x')\"")).toEqual(['out.txt']);
    expect(writtenPaths('sed -i \'s/x/with open("\\/tmp\\/debug.txt", "a") as f/\' src/a.py')).toEqual(['src/a.py']);
    expect(writtenPaths("cat > gen.py <<'EOF'\nopen('data.csv', 'w')\nEOF")).toEqual(['gen.py']);
  });

  it('patch texts and path-less edit calls', () => {
    expect(
      patchChanges('*** Begin Patch\n*** Update File: src/a.ts\n*** Delete File: src/b.ts\n*** Add File: src/c.ts\n'),
    ).toEqual([
      { path: 'src/a.ts', op: 'write' },
      { path: 'src/b.ts', op: 'delete' },
      { path: 'src/c.ts', op: 'create' },
    ]);
    expect(editorChanges('apply_patch', { input: '--- a/x.py\n+++ b/x.py\n@@' })).toEqual([
      { path: 'x.py', op: 'write' },
    ]);
    expect(editorChanges('edit', { old: 'a', new: 'b' }, ['README.md', 'src/named.py'])).toEqual([
      { path: 'src/named.py', op: 'write' },
    ]);
    expect(editorChanges('read_file', { path: 'src/a.py' })).toEqual([]);
  });
});

describe('parsedCall (each tool call parsed once)', () => {
  const call = (name: string, args: unknown) => ({
    id: 'c1',
    type: 'function' as const,
    function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) },
  });

  it('answers as changedPaths and callOpened, and again after the call is changed in place', () => {
    const tc = call('bash', { command: 'cat src/a.py && echo x > out.txt' });
    expect(parsedCall(tc).shell).toEqual(changedPaths('cat src/a.py && echo x > out.txt'));
    expect(parsedCall(tc).opened).toBe('src/a.py');
    expect(callOpened(tc)).toBe('src/a.py');
    tc.function.arguments = JSON.stringify({ command: 'head -n 3 lib/b.py; touch made.md' });
    expect(parsedCall(tc).shell).toEqual([{ path: 'made.md', op: 'create' }]);
    expect(callOpened(tc)).toBe('lib/b.py');
    // Renamed to an editor: its command is a sub-command, not a shell line.
    tc.function.name = 'str_replace_editor';
    tc.function.arguments = JSON.stringify({ command: 'view', path: 'src/c.py' });
    expect(parsedCall(tc).shell).toBeNull();
    expect(callOpened(tc)).toBe('src/c.py');
  });

  it('messageChanges gives each caller its own list, the same on every call', () => {
    const m = { content: 'x', tool_calls: [call('bash', { command: 'touch a.txt b.txt' })] };
    const first = messageChanges(m, () => []);
    first[0]!.op = 'delete';
    first.push({ path: 'c.txt', op: 'write' });
    expect(messageChanges(m, () => [])).toEqual([
      { path: 'a.txt', op: 'create' },
      { path: 'b.txt', op: 'create' },
    ]);
  });

  it('a path-less edit is about the file the latest call before it opened, however many calls came between', () => {
    const calls = [
      call('bash', { command: 'cat src/a.py' }),
      call('str_replace_editor', { command: 'view', path: 'src/b.py' }),
      call('bash', { command: 'ls -la && echo done' }),
      call('bash', { command: 'python3 run.py' }),
      call('edit', { old: 'x', new: 'y' }),
      call('bash', { command: "nl -ba src/c.py | sed -n '1,5p'" }),
      call('bash', { command: 'git status' }),
      call('edit', { old: 'y', new: 'z' }),
      call('edit', { old: 'z', new: 'w' }),
    ];
    expect(messageChanges({ content: '', tool_calls: calls }, () => [], 'src/before.py')).toEqual([
      { path: 'src/b.py', op: 'write' },
      { path: 'src/c.py', op: 'write' },
    ]);
    // Nothing opened before the edit in the message: the file opened before the message.
    const none = [
      call('bash', { command: 'ls' }),
      call('bash', { command: 'pwd' }),
      call('edit', { old: 'a', new: 'b' }),
    ];
    expect(messageChanges({ content: '', tool_calls: none }, () => [], 'src/before.py')).toEqual([
      { path: 'src/before.py', op: 'write' },
    ]);
    // The same answer as following every call's opened file in order, for every order of these calls.
    const pool = [...calls, ...none];
    for (let seed = 1; seed <= 200; seed++) {
      let x = seed;
      const pick = Array.from({ length: 2 + (seed % 7) }, () => pool[(x = (x * 48271) % 2147483647) % pool.length]!);
      const ordered = pick.map((c, i) => ({ ...c, id: `c${i}`, function: { ...c.function } }));
      const expected: { path: string; op: string }[] = [];
      let opened: string | null = 'src/before.py';
      for (const tc of ordered) {
        const p = parsedCall(tc);
        const ch = p.shell ?? editorChanges(tc.function.name, JSON.parse(tc.function.arguments), [], opened);
        for (const c of ch) if (!expected.some((e) => e.path === c.path)) expected.push({ path: c.path, op: c.op });
        opened = p.opened ?? opened;
      }
      expect(
        messageChanges({ content: '', tool_calls: ordered }, () => [], 'src/before.py'),
        `seed ${seed}`,
      ).toEqual(expected);
    }
  });

  it('a message with a huge content and no path gives the same changes as a short one', () => {
    const tool_calls = [call('bash', { command: "sed -i 's/a/b/' src/x.py" }), call('edit', { old: 'a', new: 'b' })];
    const big = { content: 'lorem ipsum '.repeat(100_000), tool_calls };
    const small = { content: 'lorem ipsum', tool_calls };
    expect(messageChanges(big, findPaths, 'src/opened.py')).toEqual(messageChanges(small, findPaths, 'src/opened.py'));
    // The path-less edit is about the file the sed before it read and wrote.
    expect(messageChanges(big, findPaths, 'src/opened.py')).toEqual([{ path: 'src/x.py', op: 'write' }]);
    const alone = { content: big.content, tool_calls: tool_calls.slice(1) };
    expect(messageChanges(alone, findPaths, 'src/opened.py')).toEqual([{ path: 'src/opened.py', op: 'write' }]);
  });
});
