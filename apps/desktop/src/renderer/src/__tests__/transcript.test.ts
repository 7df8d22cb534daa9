import { describe, expect, it } from 'vitest';
import { AGENT_ONLY, USER_ONLY } from '@threadline/protocol';
import { buildRows, hiddenIdSet, latestActive, pendingSteps } from '../lib/transcript';
import { compaction, msg } from './fixtures';

describe('buildRows', () => {
  const call = { id: 'call1', type: 'function' as const, function: { name: 'shell', arguments: '{"command":"ls"}' } };
  const history = [
    msg({ id: 'u1', seq: 1, role: 'user', content: 'list files' }),
    msg({ id: 'a1', seq: 2, role: 'assistant', content: null, tool_calls: [call] }),
    msg({ id: 't1', seq: 3, role: 'tool', content: 'a\nb', tool_call_id: 'call1' }),
    msg({ id: 'sum', seq: 4, role: 'user', content: 'summary', kind: 'summary', visibility: AGENT_ONLY }),
    msg({
      id: 'n1',
      seq: 5,
      role: 'assistant',
      content: '[CFPM_RUNTIME_V1] {}',
      kind: 'runtime_notice',
      visibility: USER_ONLY,
    }),
    msg({ id: 'a2', seq: 6, role: 'assistant', content: 'done' }),
  ];

  it('folds tool results into their call, skips agent-only messages, keeps notices', () => {
    const rows = buildRows(history, []);
    expect(rows.map((r) => r.kind)).toEqual(['user', 'assistant', 'notice', 'assistant']);
    const a1 = rows[1];
    expect(a1?.kind === 'assistant' && a1.tools[0]?.result?.id).toBe('t1');
  });

  it('places a divider after the last message the compaction saw and marks hidden messages', () => {
    const c = compaction({ hiddenIds: ['u1', 'a1'], insertedIds: ['sum'], afterSeq: 3 });
    const rows = buildRows(history, [c]);
    expect(rows.map((r) => r.kind)).toEqual(['user', 'assistant', 'divider', 'notice', 'assistant']);
    const d = rows[2];
    expect(d?.kind === 'divider' && d.latest).toBe(true);
    expect(d?.kind === 'divider' && d.inserted.map((m) => m.id)).toEqual(['sum']);
    expect(rows[0]?.kind === 'user' && rows[0].hidden).toBe(true);
    expect(rows[4]?.kind === 'assistant' && rows[4].hidden).toBe(false);
  });

  it('ignores undone compactions for hiding and undo, but still shows their divider', () => {
    const old = compaction({ id: 'old', hiddenIds: ['u1'], active: false, afterSeq: 1, createdAt: 1 });
    const cur = compaction({ id: 'cur', hiddenIds: ['a1'], active: true, afterSeq: 3, createdAt: 2 });
    expect([...hiddenIdSet([old, cur])]).toEqual(['a1']);
    expect(latestActive([old, cur])?.id).toBe('cur');
    const rows = buildRows(history, [old, cur]);
    expect(rows.filter((r) => r.kind === 'divider')).toHaveLength(2);
  });
});

describe('pendingSteps', () => {
  const call = { id: 'c1', type: 'function' as const, function: { name: 'shell', arguments: '{"command":"ls"}' } };
  const history = [msg({ id: 'u1', seq: 1, role: 'user', content: 'list files' })];

  it('draws a call waiting for approval before its assistant message is committed', () => {
    const tools = [
      { sessionId: 's1', status: 'waiting' as const, needsApproval: true, durationMs: null, call, messageId: 'a1' },
    ];
    const streams = [{ sessionId: 's1', messageId: 'a1', text: 'Let me look.' }];
    expect(pendingSteps(history, streams, tools)).toEqual([
      { messageId: 'a1', text: 'Let me look.', reasoning: '', calls: [call] },
    ]);
    expect(pendingSteps(history, [], tools)).toEqual([{ messageId: 'a1', text: '', reasoning: '', calls: [call] }]);
  });

  it('drops a step once its message is in history (the row draws it then)', () => {
    const committed = [...history, msg({ id: 'a1', seq: 2, role: 'assistant', content: null, tool_calls: [call] })];
    const tools = [
      { sessionId: 's1', status: 'ok' as const, needsApproval: false, durationMs: 3, call, messageId: 'a1' },
    ];
    expect(pendingSteps(committed, [{ sessionId: 's1', messageId: 'a1', text: 'x' }], tools)).toEqual([]);
    // Tool states rebuilt from history after a reload carry no call and draw nothing.
    expect(pendingSteps(history, [], [{ sessionId: 's1', status: 'ok', needsApproval: false, durationMs: 3 }])).toEqual(
      [],
    );
  });
});

describe('buildRows: versions', () => {
  const v = (index: number, ids: string[]) => ({ index, count: ids.length, ids });

  it('a reply whose first message is not drawn (a runtime notice) shows its versions on the answer', () => {
    const rows = buildRows(
      [
        msg({ id: 'u1', seq: 1, role: 'user', content: 'q', versions: v(2, ['u0', 'u1']) }),
        msg({
          id: 'n1',
          seq: 2,
          role: 'user',
          content: '[CFPM_RUNTIME_V1] {}',
          kind: 'runtime_notice',
          visibility: USER_ONLY,
          versions: v(1, ['n1', 'e1']),
        }),
        msg({ id: 'a1', seq: 3, role: 'assistant', content: 'answer' }),
      ],
      [],
    );
    const user = rows.find((r) => r.kind === 'user');
    const answer = rows.find((r) => r.kind === 'assistant');
    expect(user?.kind === 'user' && user.versions).toEqual(v(2, ['u0', 'u1']));
    expect(answer?.kind === 'assistant' && answer.versions).toEqual(v(1, ['n1', 'e1']));
    // The last answer, with nothing asked after it, can be regenerated.
    expect(answer?.kind === 'assistant' && answer.last).toBe(true);
  });

  it('an answer followed by a new request is not the one to regenerate', () => {
    const rows = buildRows(
      [
        msg({ id: 'u1', seq: 1, role: 'user', content: 'q' }),
        msg({ id: 'a1', seq: 2, role: 'assistant', content: 'a' }),
        msg({ id: 'u2', seq: 3, role: 'user', content: 'q2' }),
      ],
      [],
    );
    expect(rows.some((r) => r.kind === 'assistant' && r.last)).toBe(false);
  });
});
