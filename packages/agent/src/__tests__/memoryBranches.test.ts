import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeReply, RequestMessage } from '@threadline/fake-llm';
import { lastIsTool, startHarness, type Harness } from './harness';

let h: Harness;
afterEach(async () => h?.close());

const SHARED = 'Next step: read the onboarding guide first.';
const ABANDONED = 'Next step: deploy the alpha build to staging.';

/** The memory block of the newest request the fake provider received ('' when none was sent). */
function lastMemoryBlock(h: Harness): string {
  const body = h.llm.chatRequests().at(-1)!.body as { messages: RequestMessage[] };
  const block = body.messages.find((m) => String(m.content).includes('[CFPM_RUNTIME_MEMORY_V1]'));
  return block ? String(block.content) : '';
}

describe('CFPM memory belongs to its branch', () => {
  it("an edit leaves the abandoned branch's auto fact behind; switching back brings it again", async () => {
    h = await startHarness({
      settings: { compaction: { strategy: 'cfpm_memory_v1' } },
      llm: {
        defaultReply: (req): FakeReply => {
          if (req.lastUserText === 'hello') return { content: SHARED };
          if (req.lastUserText === 'make a plan') return { content: ABANDONED };
          return { content: 'ok' };
        },
      },
    });
    await h.turn('hello');
    await h.turn('make a plan');
    await h.turn('continue');
    // Both facts are the memory of the branch that learned them. The requests keep the block they
    // started with until it is rebuilt (a compaction, the user's edit, a reloaded branch), so the
    // provider's cached prefix holds: neither is in it yet.
    const learned = await h.api['memory.facts.list']({ sessionId: h.sessionId });
    expect(learned.map((f) => f.content)).toEqual(expect.arrayContaining([SHARED, ABANDONED]));
    expect(lastMemoryBlock(h)).not.toContain(ABANDONED);

    const list = await h.api['messages.list']({ sessionId: h.sessionId });
    const plan = list.find((m) => m.role === 'user' && m.content === 'make a plan')!;
    await h.api['chat.edit']({ sessionId: h.sessionId, messageId: plan.id, text: 'never mind' });
    await h.api.idle(h.sessionId);
    // The edited branch is read again and its block built anew: the fact learned before the fork
    // is kept, the abandoned one is not.
    expect(lastMemoryBlock(h)).toContain(SHARED);
    expect(lastMemoryBlock(h)).not.toContain(ABANDONED);
    const listed = await h.api['memory.facts.list']({ sessionId: h.sessionId });
    // The Memory panel lists the branch shown by default; every branch on request.
    expect(listed.map((f) => f.content)).toContain(SHARED);
    expect(listed.map((f) => f.content)).not.toContain(ABANDONED);
    const every = await h.api['memory.facts.list']({ sessionId: h.sessionId, allBranches: true });
    expect(every.map((f) => f.content)).toEqual(expect.arrayContaining([SHARED, ABANDONED]));

    await h.api['branches.switch']({ sessionId: h.sessionId, messageId: plan.id });
    await h.turn('go on');
    expect(lastMemoryBlock(h)).toContain(SHARED);
    expect(lastMemoryBlock(h)).toContain(ABANDONED);
  });

  it("the gate knows only the active branch's paths", async () => {
    h = await startHarness({
      settings: { approvalPolicy: 'auto', compaction: { strategy: 'cfpm_memory_v1' } },
      llm: {
        defaultReply: (req): FakeReply => {
          if (lastIsTool(req)) return { content: 'listed' };
          if (req.lastUserText.includes('desktop'))
            return { toolCalls: [{ name: 'shell', arguments: { command: 'ls ~/Desktop' } }] };
          return { content: 'ok' };
        },
      },
    });
    const desktop = path.join(h.dir, 'home', 'Desktop');
    mkdirSync(desktop, { recursive: true });
    await h.turn('hello');
    await h.turn('my desk folder is known');
    // A trusted automatic fact of this branch (confidence ≥ 0.85), stored as a refresh stores it.
    const now = Date.now();
    h.store.memory.refresh(h.sessionId, {
      facts: [
        ...h.store.memory.facts(h.sessionId),
        {
          id: 'desk',
          sessionId: h.sessionId,
          category: 'artifact',
          content: desktop,
          status: 'active',
          pinned: false,
          source: 'cfpm_auto',
          confidence: 0.9,
          evidenceCount: 1,
          lastValidatedAt: null,
          validationCommand: null,
          createdAt: now,
          updatedAt: now,
        },
      ],
      candidates: [],
    });
    const known = h.history().find((m) => m.content === 'my desk folder is known')!;
    await h.api['chat.edit']({ sessionId: h.sessionId, messageId: known.id, text: 'never mind' });
    await h.api.idle(h.sessionId);
    const gateNotices = () => h.store.messages.listAll(h.sessionId).filter((m) => m.kind === 'gate_notice');

    await h.turn('what is on my desktop?');
    expect(gateNotices()).toHaveLength(0);

    await h.api['branches.switch']({ sessionId: h.sessionId, messageId: known.id });
    await h.turn('what is on my desktop now?');
    expect(gateNotices()).toHaveLength(1);
    expect(gateNotices()[0]!.content).toContain(desktop);
  });
});
