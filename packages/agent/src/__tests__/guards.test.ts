import { afterEach, describe, expect, it } from 'vitest';
import type { FakeReply } from '@threadline/fake-llm';
import { compactionNotices, startHarness, type Harness } from './harness';

let h: Harness;
afterEach(async () => h?.close());

const bigOutput = (n: number) => ({
  name: 'shell',
  arguments: { command: `for i in $(seq 1 120); do echo "run ${n} line $i xxxxxxxx"; done` },
});

describe('auto compaction guards', () => {
  it('pauses auto compaction for the session after 3 consecutive failures, and says so', async () => {
    let n = 0;
    h = await startHarness({
      window: 6000,
      // Progressive folds with a summary whatever the count of messages (legacy prunes below 20).
      settings: { approvalPolicy: 'auto', compaction: { strategy: 'progressive' } },
      llm: {
        // The summarizer's calls fail, so every auto compaction fails.
        rules: [
          { match: { summaryRequest: true }, reply: { error: { status: 400, message: 'summaries are broken today' } } },
        ],
        defaultReply: (): FakeReply => (n < 16 ? { toolCalls: [bigOutput(++n)] } : { content: 'done' }),
      },
    });
    await h.turn('go on');
    const history = h.history();
    expect(compactionNotices(history, 'compaction_failed').length).toBe(3);
    expect(compactionNotices(history, 'auto_paused').length).toBe(1);
    expect(await h.api['compaction.list']({ sessionId: h.sessionId })).toEqual([]);
    // The failures named the provider's own sentence.
    expect(compactionNotices(history, 'compaction_failed')[0]!.content).toContain('summaries are broken today');
    const usage = await h.api['context.usage']({ sessionId: h.sessionId });
    expect(usage.autoPaused).toBe(true);
    // Paused means no more attempts: exactly 3 summary requests reached the provider.
    expect(h.llm.chatRequests().filter((r) => r.isSummaryRequest).length).toBe(3);
  }, 120_000);
});
