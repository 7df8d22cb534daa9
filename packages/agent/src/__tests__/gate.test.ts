import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeReply } from '@threadline/fake-llm';
import { parseNotice } from '@threadline/protocol';
import { lastIsTool, startHarness, type Harness } from './harness';

let h: Harness;
afterEach(async () => h?.close());

async function cfpmSession(
  approvalPolicy: 'auto' | 'ask' = 'auto',
  visibility: 'off' | 'brief' | 'debug' = 'debug',
): Promise<string> {
  h = await startHarness({
    settings: {
      approvalPolicy,
      compaction: { strategy: 'cfpm_memory_v1' },
      cfpm: { runtimeVisibility: visibility },
    },
    llm: {
      defaultReply: (req): FakeReply =>
        lastIsTool(req)
          ? { content: 'listed the desktop' }
          : { toolCalls: [{ name: 'shell', arguments: { command: 'ls ~/Desktop' } }] },
    },
  });
  const desktop = path.join(h.dir, 'home', 'Desktop');
  mkdirSync(desktop, { recursive: true });
  writeFileSync(path.join(desktop, 'marker-file.txt'), 'x');
  return desktop;
}

describe('CFPM memory and the pre-tool gate in a turn', () => {
  it('rewrites a Desktop probe to the known path, with its notice', async () => {
    const desktop = await cfpmSession();
    // A user-made fact is trusted.
    const fact = await h.api['memory.facts.upsert']({ sessionId: h.sessionId, category: 'artifact', content: desktop });
    expect(fact.source).toBe('user');
    await h.turn('what is on my desktop?');
    const history = h.history();
    const gate = history.find((m) => m.kind === 'gate_notice')!;
    expect(gate.visibility).toEqual({ user: true, agent: false });
    const parsed = parseNotice(gate.content);
    expect(parsed?.type).toBe('gate');
    if (parsed?.type !== 'gate') throw new Error('not a gate notice');
    expect(parsed.payload.target).toBe('Desktop');
    expect(parsed.payload.originalCommand).toBe('ls ~/Desktop');
    expect(parsed.payload.rewrittenCommand).toContain(desktop);
    // The rewritten command is what ran.
    const tool = history.find((m) => m.role === 'tool')!;
    expect(tool.content).toContain('marker-file.txt');
    // Announced before it runs: the model's call, and beside it what will run and why.
    const requested = h.events.find((e) => e.type === 'tool.requested');
    if (requested?.type !== 'tool.requested') throw new Error('no tool.requested');
    expect(JSON.parse(requested.toolCall.function.arguments)).toEqual({ command: 'ls ~/Desktop' });
    expect(requested.gate?.target).toBe('Desktop');
    expect(requested.gate?.path).toBe(desktop);
    expect(requested.gate?.rewrittenArguments).toContain(desktop);
    expect(tool.meta?.gate).toEqual({ target: 'Desktop', path: desktop, declined: false });
    // History keeps the model's call; the result records what actually ran, for "ran: …".
    expect(JSON.parse(history.find((m) => m.role === 'assistant')!.tool_calls![0].function.arguments)).toEqual({
      command: 'ls ~/Desktop',
    });
    expect(typeof tool.meta?.ranArguments).toBe('string');
    expect(JSON.parse(tool.meta!.ranArguments as string).command).toBe(parsed.payload.rewrittenCommand);
    expect(h.events.some((e) => e.type === 'notice' && e.message.kind === 'gate_notice')).toBe(true);
    // The memory block went to the model; the notices did not.
    const body = JSON.stringify(h.llm.chatRequests()[0].body);
    expect(body).toContain('[CFPM_RUNTIME_MEMORY_V1]');
    expect(body).not.toContain('[CFPM_TOOL_GATE_V1]');
    // The runtime notice of the refresh (debug: always shown) is persisted user-only.
    const runtime = history.filter((m) => m.kind === 'runtime_notice' && parseNotice(m.content)?.type === 'runtime');
    expect(runtime.length).toBeGreaterThan(0);
    expect(runtime[0].visibility.agent).toBe(false);
  });

  it('a forgotten fact is not used: the command runs unchanged', async () => {
    const desktop = await cfpmSession();
    const fact = await h.api['memory.facts.upsert']({ sessionId: h.sessionId, category: 'artifact', content: desktop });
    const forgotten = await h.api['memory.facts.setStatus']({ id: fact.id, status: 'forgotten' });
    expect(forgotten.status).toBe('forgotten');
    await h.turn('what is on my desktop?');
    expect(h.history().some((m) => m.kind === 'gate_notice')).toBe(false);
    expect(h.history().find((m) => m.role === 'tool')?.content).not.toContain('marker-file.txt');
    expect(h.history().find((m) => m.role === 'tool')?.meta?.ranArguments).toBeUndefined();
  });

  it('refresh turns tool outputs into facts and candidates', async () => {
    const desktop = await cfpmSession();
    h.llm.setRules([], (req): FakeReply =>
      lastIsTool(req)
        ? { content: `Created ${desktop}/report.md successfully.` }
        : { toolCalls: [{ name: 'write_file', arguments: { path: `${desktop}/report.md`, content: '# r' } }] },
    );
    await h.turn('write the report');
    await h.turn('thanks');
    const candidates = await h.api['memory.candidates.list']({ sessionId: h.sessionId });
    expect(candidates.length).toBeGreaterThan(0);
    const facts = await h.api['memory.facts.list']({ sessionId: h.sessionId });
    expect(facts.some((f) => f.content.includes('report.md'))).toBe(true);
  });
});

describe('the gate asks before it acts', () => {
  it('the user can run the original instead of the rewrite', async () => {
    const desktop = await cfpmSession('ask');
    await h.api['memory.facts.upsert']({ sessionId: h.sessionId, category: 'artifact', content: desktop });
    await h.api['chat.send']({ sessionId: h.sessionId, text: 'what is on my desktop?' });
    const requested = await h.waitFor('tool.requested');
    expect(requested.needsApproval).toBe(true);
    expect(requested.gate?.rewrittenArguments).toContain(desktop);
    // chat.state tells a reloading renderer the same.
    const state = await h.api['chat.state']({ sessionId: h.sessionId });
    expect(state.pending[0]?.gate?.path).toBe(desktop);
    await h.api['chat.approve']({
      sessionId: h.sessionId,
      toolCallId: requested.toolCall.id,
      decision: 'approve',
      useOriginal: true,
    });
    await h.api.idle(h.sessionId);
    const history = h.history();
    const tool = history.find((m) => m.role === 'tool')!;
    expect(tool.meta?.ranArguments).toBeUndefined();
    expect(tool.content).not.toContain('marker-file.txt');
    expect(tool.meta?.gate).toEqual({ target: 'Desktop', path: desktop, declined: true });
    const gate = parseNotice(history.find((m) => m.kind === 'gate_notice')?.content);
    expect(gate?.type === 'gate' && gate.payload.declined).toBe(true);
  });
});

describe('visibility is a view of the record', () => {
  it('notices are stored whole with visibility off, and the model gets the same either way', async () => {
    const sent: string[] = [];
    for (const visibility of ['off', 'debug'] as const) {
      const desktop = await cfpmSession('auto', visibility);
      await h.api['memory.facts.upsert']({ sessionId: h.sessionId, category: 'artifact', content: desktop });
      await h.turn('what is on my desktop?');
      const history = h.history();
      const gate = parseNotice(history.find((m) => m.kind === 'gate_notice')?.content);
      expect(gate?.type === 'gate' && gate.payload.verbosity).toBe('debug');
      const runtime = history.map((m) => parseNotice(m.content)).filter((p) => p?.type === 'runtime');
      expect(runtime.length).toBeGreaterThanOrEqual(2);
      for (const r of runtime) if (r?.type === 'runtime') expect(r.payload.added).toBeTypeOf('number');
      sent.push(
        JSON.stringify(h.llm.chatRequests().map((r) => (r.body as { messages: unknown }).messages)).replaceAll(
          h.dir,
          '<dir>',
        ),
      );
      if (visibility === 'off') await h.close();
    }
    expect(sent[0]).toBe(sent[1]);
  });
});

describe('export', () => {
  it('Markdown says notices in sentences of the user language; JSON keeps them structured', async () => {
    const desktop = await cfpmSession();
    await h.api['memory.facts.upsert']({ sessionId: h.sessionId, category: 'artifact', content: desktop });
    await h.turn('what is on my desktop?');
    // Long answers: something worth hiding behind a checkpoint.
    h.llm.setRules([], (): FakeReply => ({ content: 'A long answer about the files on the desktop. '.repeat(60) }));
    for (let i = 0; i < 3; i++) await h.turn(`tell me more about them (${i})`);
    await h.turn('/compact keep the paths');
    const en = await h.api['sessions.export']({ id: h.sessionId, format: 'markdown' });
    expect(en.content).not.toMatch(/\[(CFPM_|THREADLINE_)/);
    expect(en.content).toContain('Threadline ran `ls');
    expect(en.content).toContain('(the Desktop path memory already knows)');
    expect(en.content).toMatch(/Memory changed: \d+ added/);
    expect(en.content).toContain('Conversation compacted (manual, Memory snapshot)');
    await h.api['settings.set']({ patch: { language: 'zh-CN' } });
    const zh = await h.api['sessions.export']({ id: h.sessionId, format: 'markdown' });
    expect(zh.content).not.toMatch(/\[(CFPM_|THREADLINE_)/);
    expect(zh.content).toContain('Threadline 运行了');
    expect(zh.content).toContain('（记忆中已知的桌面路径）');
    expect(zh.content).toContain('对话已压缩（手动，记忆快照）');
    const json = await h.api['sessions.export']({ id: h.sessionId, format: 'json' });
    expect(json.content).toContain('[CFPM_TOOL_GATE_V1]');
  });
});
