import { afterEach, describe, expect, it } from 'vitest';
import { workPool } from '@threadline/context';
import { startHarness, type Harness } from './harness';

// Issue 25: a turn's heavy work on a large session runs on the work pool's worker (started from
// the TypeScript sources here): the memory refresh that parses a long message and the compaction, whose summary request still goes from this thread to the provider over
// HTTP. What the user gets is what the in-thread run gives (packages/context worker tests).
let h: Harness;
afterEach(async () => h?.close());

const ran = (task: string): number => workPool().ran.tasks[task] ?? 0;
/** A long message with facts in it (paths the refresh recognizes), about `chars` long. */
const longMessage = (n: number, chars: number): string =>
  `Task ${n}: look at src/module${n}/index.ts and docs/part${n}.md.\n` +
  `The log of run ${n} follows.\n`.concat('line of the log with words in it\n'.repeat(Math.ceil(chars / 33)));

describe('a large session on the work pool', () => {
  it('refreshes memory (CFPM) of a long message on a worker, and stores what it found', async () => {
    h = await startHarness({
      settings: { compaction: { strategy: 'cfpm_memory_v1' } },
      llm: { defaultReply: { content: 'ok' } },
    });
    const before = ran('refreshMemory');
    await h.turn(longMessage(1, 120_000));
    expect(ran('refreshMemory')).toBeGreaterThan(before);
    expect(workPool().ran.inThread).toBe(0);
    // The refresh's outcome was applied here: its runtime notice is in the history.
    expect(h.history().some((m) => m.kind === 'runtime_notice')).toBe(true);
  });

  it('compacts a long history on a worker; the summary request goes to the provider from here', async () => {
    h = await startHarness({ llm: { defaultReply: { content: 'ok' } } });
    for (let t = 1; t <= 4; t++) await h.turn(longMessage(t, 60_000));
    const before = ran('compact');
    const summaries = h.llm.chatRequests().filter((r) => r.isSummaryRequest).length;
    await h.turn('/compact');
    expect(ran('compact')).toBe(before + 1);
    const [record] = await h.api['compaction.list']({ sessionId: h.sessionId });
    expect(record).toMatchObject({ trigger: 'manual', active: true });
    expect(record!.hiddenIds.length).toBeGreaterThan(0);
    expect(h.llm.chatRequests().filter((r) => r.isSummaryRequest).length).toBeGreaterThan(summaries);
    // Progress reached the renderers while it ran on the worker.
    expect(h.events.some((e) => e.type === 'compaction.progress' && e.step === 'summarize')).toBe(true);
    expect(workPool().ran.inThread).toBe(0);
  });
});
