import { describe, expect, it } from 'vitest';
import type { StoredMessage } from '@threadline/protocol';
import { buildLedger, carriedSet, type LedgerBudget } from '../ledger';
import { carriedOnce } from '../finish';
import type { WorkEntry } from '../state';

/**
 * The ledger is re-applied before every stop check of a compaction; its carried set is kept for
 * the next pass while the hidden messages are the same. It must equal the set built afresh, and
 * never come from a stale pass.
 */
function shell(id: string, command: string): StoredMessage {
  return {
    id,
    sessionId: 's',
    seq: 0,
    createdAt: 0,
    role: 'assistant',
    content: 'running it',
    kind: 'normal',
    visibility: { user: true, agent: true },
    tokens: null,
    tool_calls: [
      { id: `c_${id}`, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command }) } },
    ],
  };
}
const user = (id: string, content: string): StoredMessage => ({
  ...shell(id, ''),
  role: 'user',
  content,
  tool_calls: [],
});
const entryOf = (msg: StoredMessage): WorkEntry => ({ msg, pos: [0, 0, 0], tokens: 0, fresh: false });
const budget: LedgerBudget = { model: 'test-model', userTokens: 2000, taskTokens: 2000 };

describe('carriedOnce', () => {
  it('equals the set built afresh, reused only for the same messages, task ids and budget', () => {
    const msgs = [user('u1', 'Fix the parser, please.'), shell('a1', 'touch src/a.py'), shell('a2', 'rm old.txt')];
    const original = msgs.map(entryOf);
    const taskIds = new Set(['u1']);
    const fresh = (hidden: StoredMessage[], t = taskIds, b = budget) => carriedSet(buildLedger(hidden, t), b);

    const first = carriedOnce(original, msgs.slice(0, 2), taskIds, budget);
    expect(first).toEqual(fresh(msgs.slice(0, 2)));
    // The same hidden messages: the same set.
    expect(carriedOnce(original, msgs.slice(0, 2), taskIds, budget)).toBe(first);
    // One more message hidden.
    const more = carriedOnce(original, msgs, taskIds, budget);
    expect(more).toEqual(fresh(msgs));
    expect(more.files.map((f) => f.path)).toEqual(['src/a.py', 'old.txt']);
    // A message replaced by a new object with the same id (a rewritten message) is read again.
    const rewritten = [...msgs.slice(0, 2), shell('a2', 'touch new.txt')];
    const again = carriedOnce(original, rewritten, taskIds, budget);
    expect(again).toEqual(fresh(rewritten));
    expect(again.files.map((f) => f.path)).toEqual(['src/a.py', 'new.txt']);
    // Other task ids or another budget are not answered from the kept set.
    const noTask = new Set<string>();
    expect(carriedOnce(original, rewritten, noTask, budget)).toEqual(fresh(rewritten, noTask));
    expect(carriedOnce(original, rewritten, noTask, budget).users[0]!.task).toBe(false);
    const small = { ...budget, userTokens: 0, taskTokens: 0 };
    expect(carriedOnce(original, rewritten, noTask, small)).toEqual(fresh(rewritten, noTask, small));
    // Another compaction (another `original`) keeps its own.
    expect(carriedOnce([...original], msgs.slice(0, 1), taskIds, budget)).toEqual(fresh(msgs.slice(0, 1)));
  });
});
