import { describe, expect, it } from 'vitest';
import { buildLedger } from '../..';
import { HistoryBuilder } from './fixtures';

/**
 * Issue 22 point 3: an edit is found by the shape of what the call carries, whatever the tool is
 * called — tool arguments, patch headers, diffs without headers, shell writes.
 */

function filesOf(h: HistoryBuilder): Record<string, string> {
  return Object.fromEntries(buildLedger(h.messages).files.map((f) => [f.path, f.op]));
}

describe('edits found however they are written', () => {
  it('a path with content, a diff or old/new strings is an edit, whatever the tool is named', () => {
    const h = new HistoryBuilder();
    h.tool('edit_file', 'ok', JSON.stringify({ path: 'src/a.ts', old_string: 'x', new_string: 'y' }));
    h.tool('frobnicate', 'ok', JSON.stringify({ file: 'docs/b.md', contents: 'hello' }));
    h.tool('mcp__fs__apply', 'ok', JSON.stringify({ targetFile: 'lib/c.py', diff: '@@ -1 +1 @@\n-a\n+b' }));
    h.tool(
      'multi',
      'ok',
      JSON.stringify({
        edits: [
          { file_path: 'pkg/d.go', old_str: 'a', new_str: 'b' },
          { file_path: 'pkg/e.go', old_str: 'c', new_str: 'd' },
        ],
      }),
    );
    h.tool('rename_thing', 'ok', JSON.stringify({ path: 'old/f.txt', destination: 'new/f.txt' }));
    // Reads, searches and messages are not edits.
    h.tool('read_file', 'contents', JSON.stringify({ path: 'src/read-only.ts', offset: 1, limit: 20 }));
    h.tool('grep', 'src/g.ts:1:x', JSON.stringify({ pattern: 'TODO', path: 'src/searched' }));
    h.tool('glob', 'a\nb', JSON.stringify({ pattern: '**/*.ts' }));
    h.tool('send_message', 'sent', JSON.stringify({ text: 'see src/mentioned.ts' }));
    h.tool('str_replace_editor', 'file shown', JSON.stringify({ command: 'view', path: 'src/viewed.ts' }));
    const files = filesOf(h);
    expect(files).toEqual({
      'src/a.ts': 'write',
      'docs/b.md': 'write',
      'lib/c.py': 'write',
      'pkg/d.go': 'write',
      'pkg/e.go': 'write',
      'old/f.txt': 'delete',
      'new/f.txt': 'move',
    });
  });

  it('patch headers in any argument name their files (unified, git, apply_patch)', () => {
    const h = new HistoryBuilder();
    h.tool('apply', 'ok', JSON.stringify({ input: '--- a/src/u.c\n+++ b/src/u.c\n@@ -1 +1 @@\n-a\n+b' }));
    h.tool('apply', 'ok', JSON.stringify({ patch: 'diff --git a/src/g.rs b/src/g.rs\nindex 1..2\n@@ -1 +1 @@' }));
    h.tool(
      'patcher',
      'ok',
      JSON.stringify({
        text: '*** Begin Patch\n*** Update File: app/x.py\n@@\n-a\n+b\n*** Delete File: app/y.py\n*** End Patch',
      }),
    );
    expect(filesOf(h)).toEqual({ 'src/u.c': 'write', 'src/g.rs': 'write', 'app/x.py': 'write', 'app/y.py': 'delete' });
  });

  it('a diff with no path edits the path the assistant named for the call, else the file the preceding read opened', () => {
    const h = new HistoryBuilder();
    h.add({
      role: 'assistant',
      content: 'I will now fix the off-by-one in src/named/range.py.',
      tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'apply_diff', arguments: '{"diff":"@@ -3 +3 @@\\n-a\\n+b"}' } },
      ],
    });
    h.add({ role: 'tool', content: 'applied', tool_call_id: 'c1', name: 'apply_diff' });
    h.tool('read_file', 'def f(): pass', JSON.stringify({ path: 'src/opened/after_read.py' }));
    h.tool('modify', 'ok', JSON.stringify({ old: 'pass', new: 'return 1' }));
    h.tool('bash', 'x = 1', JSON.stringify({ command: 'cat -n lib/shown_by_cat.py' }));
    h.tool('change', 'ok', JSON.stringify({ diff: '-x = 1\n+x = 2' }));
    const files = filesOf(h);
    expect(files['src/named/range.py']).toBe('write');
    expect(files['src/opened/after_read.py']).toBe('write');
    expect(files['lib/shown_by_cat.py']).toBe('write');
  });

  it('a path-less edit whose result is a diff: headers name the file, a header-less diff is the file the call is about', () => {
    const h = new HistoryBuilder();
    h.tool('read_file', 'body', JSON.stringify({ path: 'web/page.tsx' }));
    h.tool('edit', '@@ -10,2 +10,2 @@\n-old line\n+new line', JSON.stringify({ instructions: 'rename the prop' }));
    h.tool('edit', '--- a/web/other.tsx\n+++ b/web/other.tsx\n@@ -1 +1 @@', JSON.stringify({ instructions: 'x' }));
    const files = filesOf(h);
    expect(files['web/page.tsx']).toBe('write');
    expect(files['web/other.tsx']).toBe('write');
  });

  it('shell writes: redirects, tee, sed -i, heredocs, mv, rm', () => {
    const h = new HistoryBuilder();
    h.tool('shell', '', JSON.stringify({ command: 'echo hi > out/a.txt && cat notes.md | tee -a out/b.log' }));
    h.tool('run', '', JSON.stringify({ cmd: "sed -i 's/a/b/' conf/c.ini" }));
    h.tool('terminal', '', JSON.stringify({ command: 'cat <<EOF > gen/d.py\nprint(1)\nEOF' }));
    h.tool('exec', '', JSON.stringify({ command: 'mv tmp/e.txt final/e.txt; rm -f junk/f.o' }));
    expect(filesOf(h)).toEqual({
      'out/a.txt': 'write',
      'out/b.log': 'write',
      'conf/c.ini': 'write',
      'gen/d.py': 'write',
      'tmp/e.txt': 'delete',
      'final/e.txt': 'move',
      'junk/f.o': 'delete',
    });
  });
});
