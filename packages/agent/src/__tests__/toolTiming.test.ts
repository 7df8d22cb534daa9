import { afterEach, describe, expect, it } from 'vitest';
import type { ChatRequestView, FakeReply } from '@threadline/fake-llm';
import { lastIsTool, startHarness, type Harness } from './harness';
import { titleFrom } from '../session/title';

let h: Harness;
afterEach(async () => h?.close());

const shellOnce = (req: ChatRequestView): FakeReply =>
  lastIsTool(req) ? { content: 'done' } : { toolCalls: [{ name: 'shell', arguments: { command: 'echo hi' } }] };

describe('tool timing', () => {
  it('a tool card gets its run time and, apart, the time it waited for approval', async () => {
    // A clock the test moves: the 11 s the user took to answer must not count as run time.
    let now = 1_700_000_000_000;
    h = await startHarness({
      settings: { approvalPolicy: 'ask' },
      llm: { defaultReply: shellOnce },
      api: { clock: () => now },
    });
    await h.api['chat.send']({ sessionId: h.sessionId, text: 'say hi' });
    const requested = await h.waitFor('tool.requested', (e) => e.needsApproval);
    now += 11_000;
    await h.api['chat.approve']({ sessionId: h.sessionId, toolCallId: requested.toolCall.id, decision: 'approve' });
    const finished = await h.waitFor('tool.finished');
    await h.api.idle(h.sessionId);
    expect(finished.message.meta?.approvalWaitMs).toBe(11_000);
    expect(finished.durationMs).toBe(0);
    expect(finished.message.meta?.durationMs).toBe(0);
  });

  it('a call that did not ask has no wait', async () => {
    h = await startHarness({ llm: { defaultReply: shellOnce }, settings: { approvalPolicy: 'auto' } });
    await h.turn('say hi');
    const result = h.history().find((m) => m.role === 'tool')!;
    expect(result.meta?.approvalWaitMs).toBeUndefined();
    expect(typeof result.meta?.durationMs).toBe('number');
  });
});

describe('titles', () => {
  it('are plain text: inline Markdown is taken out', () => {
    expect(titleFrom('Make **markdown** titles `plain` again')).toBe('Make markdown titles plain again');
    expect(titleFrom('## See [the docs](https://x.dev/a) and _this_ ~~old~~ *one*')).toBe(
      'See the docs and this old one',
    );
    expect(titleFrom('![logo](a.png) snake_case_name stays')).toBe('logo snake_case_name stays');
  });
});
