import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FakeReply } from '@threadline/fake-llm';
import { parseNotice } from '@threadline/protocol';
import { lastIsTool, startHarness, type Harness } from './harness';

let h: Harness;
afterEach(async () => h?.close());

describe('CFPM refresh after the final answer', () => {
  it("brings the final answer's facts and notice with its own turn, and the next turn does not count them again", async () => {
    h = await startHarness({
      settings: {
        approvalPolicy: 'auto',
        compaction: { strategy: 'cfpm_memory_v1' },
        cfpm: { runtimeVisibility: 'debug' },
      },
      llm: {
        defaultReply: (req): FakeReply => {
          if (req.lastUserText.startsWith('thanks')) return { content: 'You are welcome.' };
          return lastIsTool(req)
            ? { content: 'Next step: review the q3 summary report with the team.' }
            : { toolCalls: [{ name: 'list_dir', arguments: { path: '.' } }] };
        },
      },
    });
    await h.turn('write the report');
    // (A path in the answer's prose is no evidence since issue 13; its open item is a fact.)
    const item = 'Next step: review the q3 summary report with the team.';
    const fact = () => h.store.memory.facts(h.sessionId).find((f) => f.content === item);
    // Known when the turn ends, not only once the next one starts.
    expect(fact()).toMatchObject({ category: 'open_item', status: 'active', evidenceCount: 1 });
    const history = h.history();
    const answer = history.findLastIndex((m) => m.role === 'assistant');
    const notice = history.slice(answer + 1).find((m) => m.kind === 'runtime_notice');
    const parsed = parseNotice(notice?.content);
    expect(parsed?.type === 'runtime' && parsed.payload.acceptedCount).toBeGreaterThan(0);
    // The next turn's start refresh parses only the new user message: evidence stays 1.
    await h.turn('thanks');
    await h.turn('thanks again');
    expect(fact()?.evidenceCount).toBe(1);
    const candidates = h.store.memory.candidates(h.sessionId).filter((c) => c.content === item);
    expect(candidates).toHaveLength(1);
  });

  it('parses the partial answer of a cancelled turn once, at the next turn start', async () => {
    h = await startHarness({
      settings: { compaction: { strategy: 'cfpm_memory_v1' } },
      llm: {
        defaultReply: {
          content: `Next step: publish the draft notes. And ${'then some more words '.repeat(60)}`,
          delayMsPerChunk: 10,
          chunkSize: 20,
        },
      },
    });
    // A user fact, so the session counts as refreshed before.
    await h.api['memory.facts.upsert']({
      sessionId: h.sessionId,
      category: 'note',
      content: 'the user prefers Markdown',
    });
    await h.api['chat.send']({ sessionId: h.sessionId, text: 'draft it' });
    await h.waitFor('message.delta', () => h.events.filter((e) => e.type === 'message.delta').length >= 5);
    await h.api['chat.cancel']({ sessionId: h.sessionId });
    expect(h.history().find((m) => m.role === 'assistant')?.meta?.partial).toBe(true);
    h.llm.setRules([], { content: 'ok' });
    await h.turn('go on');
    await h.turn('and on');
    const fact = h.store.memory.facts(h.sessionId).find((f) => f.content === 'Next step: publish the draft notes.');
    expect(fact?.evidenceCount).toBe(1);
  });
});

describe('CFPM refresh of a step that stops the turn', () => {
  it('keeps what the finished tools of a cancelled step did (a file already written)', async () => {
    let asked = false;
    h = await startHarness({
      settings: { approvalPolicy: 'auto', compaction: { strategy: 'cfpm_memory_v1' } },
      llm: {
        defaultReply: (): FakeReply => {
          if (asked) return { content: 'unused' };
          asked = true;
          return {
            toolCalls: [
              { name: 'write_file', arguments: { path: 'notes/plan-2026.md', content: '# plan' } },
              { name: 'shell', arguments: { command: 'sleep 20' } },
            ],
          };
        },
      },
    });
    await h.api['chat.send']({ sessionId: h.sessionId, text: 'write the plan, then wait' });
    await h.waitFor('tool.requested', (e) => e.toolCall.function.name === 'shell');
    // Cancelled once the shell command runs (its process is recorded), the file written before it.
    await vi.waitFor(() => expect(h.store.processes.list()).toHaveLength(1), { timeout: 20_000 });
    expect(existsSync(path.join(h.dir, 'notes/plan-2026.md'))).toBe(true);
    await h.api['chat.cancel']({ sessionId: h.sessionId });
    await h.api.idle(h.sessionId);
    expect(h.history().some((m) => m.kind === 'turn_aborted')).toBe(true);
    const facts = h.store.memory.facts(h.sessionId).map((f) => f.content);
    expect(facts.some((c) => c.endsWith('notes/plan-2026.md'))).toBe(true);
  });
});

describe('CFPM candidates across turns', () => {
  it('records a rejected candidate once, however many turns name it', async () => {
    h = await startHarness({
      settings: { compaction: { strategy: 'cfpm_memory_v1' } },
      llm: { defaultReply: { content: 'ok' } },
    });
    await h.turn('please look at ~/Desktop for the reports');
    await h.turn('again: please look at ~/Desktop for the reports');
    const rows = h.store.memory.candidates(h.sessionId).filter((c) => c.content === '~/Desktop');
    expect(rows.map((c) => [c.decision, c.reason])).toEqual([['rejected', 'artifact_unhelpful']]);
  });
});

describe('memory.updated (issue 27)', () => {
  it('is pushed where memory changes: a refresh, a user edit, forget/pin, another branch shown', async () => {
    h = await startHarness({
      settings: { compaction: { strategy: 'cfpm_memory_v1' } },
      llm: { defaultReply: { content: 'Next step: review the q3 summary report with the team.' } },
    });
    const updates = () => h.events.filter((e) => e.type === 'memory.updated' && e.sessionId === h.sessionId).length;
    await h.turn('write the report');
    const afterTurn = updates();
    // The turn start's and the final answer's refreshes.
    expect(afterTurn).toBeGreaterThanOrEqual(1);
    const fact = await h.api['memory.facts.upsert']({ sessionId: h.sessionId, category: 'note', content: 'tabs' });
    expect(updates()).toBe(afterTurn + 1);
    await h.api['memory.facts.setStatus']({ id: fact.id, status: 'active', pinned: true });
    expect(updates()).toBe(afterTurn + 2);
    const first = h.history().find((m) => m.role === 'user' && m.kind === 'normal')!;
    await h.api['branches.switch']({ sessionId: h.sessionId, messageId: first.id });
    expect(updates()).toBe(afterTurn + 3);
    // Never for another session.
    expect(h.events.some((e) => e.type === 'memory.updated' && e.sessionId !== h.sessionId)).toBe(false);
  });
});
