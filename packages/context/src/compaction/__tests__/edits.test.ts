import { describe, expect, it } from 'vitest';
import { STRATEGIES } from '@threadline/protocol';
import { buildLedger, buildView } from '../..';
import { HistoryBuilder, MODEL, apply, run } from './fixtures';

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

describe('the file an edit is about, whatever message names it (issue 36)', () => {
  it('the call’s own message, else the assistant’s text just before it, else the last file read', () => {
    const h = new HistoryBuilder();
    // An older Cursor export: the words in one assistant message, the path-less edit in the next.
    h.assistant('I will add the retry loop to src/net/client.ts now.');
    h.add({
      role: 'assistant',
      content: '',
      tool_calls: [
        {
          id: 'e1',
          type: 'function',
          function: {
            name: 'edit_file',
            arguments: '{"old_string":"fetch(url)","new_string":"retry(() => fetch(url))"}',
          },
        },
      ],
    });
    h.add({ role: 'tool', content: 'ok', tool_call_id: 'e1', name: 'edit_file' });
    h.assistant('Next, the timeout: see src/net/timeout.ts.');
    h.add({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'e2', type: 'function', function: { name: 'apply_diff', arguments: '{"diff":"-a\\n+b"}' } }],
    });
    h.add({ role: 'tool', content: 'applied', tool_call_id: 'e2', name: 'apply_diff' });
    // Its own message names a file: that one, not the one named before.
    h.assistant('Also lib/ignored_here.py is fine.');
    h.add({
      role: 'assistant',
      content: 'Editing src/own/named.ts.',
      tool_calls: [{ id: 'e3', type: 'function', function: { name: 'modify', arguments: '{"old":"x","new":"y"}' } }],
    });
    h.add({ role: 'tool', content: 'ok', tool_call_id: 'e3', name: 'modify' });
    // A user message in between: what was said before it is no longer "just before".
    h.assistant('The parser lives in src/not/this.ts.');
    h.user('go on');
    h.tool('read_file', 'x = 1', JSON.stringify({ path: 'src/last/read.py' }));
    h.tool('modify', 'ok', JSON.stringify({ old: 'x = 1', new: 'x = 2' }));
    const files = filesOf(h);
    expect(files['src/net/client.ts']).toBe('write');
    expect(files['src/net/timeout.ts']).toBe('write');
    expect(files['src/own/named.ts']).toBe('write');
    expect(files['src/last/read.py']).toBe('write');
    expect(files['lib/ignored_here.py']).toBeUndefined();
    expect(files['src/not/this.ts']).toBeUndefined();
  });

  it('after a compaction both files of the Cursor shape are still in the view', async () => {
    const h = new HistoryBuilder();
    h.system();
    h.user('Make the client retry and time out.');
    for (const [file, id] of [
      ['src/net/client.ts', 'c1'],
      ['src/net/timeout.ts', 'c2'],
    ] as const) {
      h.assistant(`Now editing ${file}.`);
      h.add({
        role: 'assistant',
        content: '',
        tool_calls: [
          { id, type: 'function', function: { name: 'edit_file', arguments: '{"old_string":"a","new_string":"b"}' } },
        ],
      });
      h.add({ role: 'tool', content: 'The file was edited.', tool_call_id: id, name: 'edit_file' });
    }
    for (let i = 0; i < 12; i++) h.segment(`check ${i}`, 1, 300);
    for (const strategy of STRATEGIES) {
      const r = await run({ history: h.messages, strategy, window: 3_000 });
      expect(r.ok, `${strategy}: ${r.reason}`).toBe(true);
      const after = apply(h.messages, [], r);
      const text = buildView({ ...after, model: MODEL })
        .messages.map((m) => m.content ?? '')
        .join('\n');
      expect(text, strategy).toContain('src/net/client.ts');
      expect(text, strategy).toContain('src/net/timeout.ts');
    }
  });
});
