import { describe, expect, it } from 'vitest';
import { toChatMessage, type StoredMessage } from '@threadline/protocol';
import { messagesText } from '../../memory/recall';
import { viewNames, type ViewNamesMemo } from '../finish';
import type { WorkEntry } from '../state';

/**
 * The ledger asks "does the view name this?" per message, memoized per message text, instead of
 * searching the joined view (a megabyte for a pasted diff) before every stop. It must answer as
 * the joined text would, and never from a stale memo.
 */
function entry(id: string, content: string, args?: string): WorkEntry {
  const msg: StoredMessage = {
    id,
    sessionId: 's',
    seq: 0,
    createdAt: 0,
    role: args === undefined ? 'user' : 'assistant',
    content,
    kind: 'normal',
    visibility: { user: true, agent: true },
    tokens: null,
  };
  if (args !== undefined)
    msg.tool_calls = [{ id: `c_${id}`, type: 'function', function: { name: 'edit', arguments: args } }];
  return { msg, pos: [0, 0, 0], tokens: 0, fresh: false };
}

describe('viewNames', () => {
  it('answers exactly as a search of the joined view text', () => {
    const entries = [
      entry('a', 'edited src/app.ts and\ndocs/readme.md'),
      entry('b', 'calling the tool', '{"path":"lib/x.py"}'),
      entry('c', 'last line'),
    ];
    const joined = `${messagesText(entries.map((e) => toChatMessage(e.msg)))}\ncarried: out/report.txt`;
    const names = viewNames(entries, new Map(), 'carried: out/report.txt');
    const needles = [
      'src/app.ts',
      'docs/readme.md',
      'lib/x.py',
      'out/report.txt',
      'missing/file.ts',
      // Across messages and across content and tool arguments: only the joined text has these.
      'docs/readme.md\ncalling',
      'tool\n{"path"',
      'x.py"}\nlast',
      'and\ndocs',
      'readme.mdcalling',
    ];
    for (const n of needles) expect(names(n), n).toBe(joined.includes(n));
  });

  it('does not answer from a memo of text that is no longer in the view', () => {
    const memo: ViewNamesMemo = new Map();
    const before = [entry('a', 'wrote src/old.ts'), entry('b', 'and more')];
    expect(viewNames(before, memo)('src/old.ts')).toBe(true);
    // The message is rewritten (a pruned output, a cut): same id, new text.
    const after = [entry('a', '[output pruned]'), before[1]!];
    expect(viewNames(after, memo)('src/old.ts')).toBe(false);
    // Hidden: no longer an entry.
    expect(viewNames([before[1]!], memo)('src/old.ts')).toBe(false);
    expect(viewNames(before, memo)('src/old.ts')).toBe(true);
  });
});
