// The turn trace's host (run by trace.ts under traceRegister.mjs): one chat turn in a fresh process
// — the real app runtime over a real store file, fake-llm over real HTTP — whose model asks for one
// tool call (write_file, which asks for approval; the host approves it) and then answers. Every
// function of packages/agent/src it runs records its file (traceHooks.mjs); the host sends the
// sequence, cut where the first request reached the provider and where the turn ended.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startFakeLlm, type ChatRequestView, type FakeReply } from '@threadline/fake-llm';
import { openStore } from '@threadline/store';
import type { AppEvent } from '@threadline/protocol';

export interface TraceReport {
  /** Files (relative to packages/agent/src) of the functions run, in order, from chat.send on. */
  files: string[];
  /** Index in `files` where the first chat request reached the provider. */
  firstByte: number;
}

const trace: string[] = [];
let recording = false;
(globalThis as { __tlTrace?: (file: string) => void }).__tlTrace = (file) => {
  if (recording) trace.push(file);
};

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tl-trace-'));
  let firstByte = -1;
  const lastIsTool = (req: ChatRequestView): boolean => req.messages.at(-1)?.role === 'tool';
  const llm = await startFakeLlm({
    defaultReply: (req): FakeReply => {
      if (firstByte < 0) firstByte = trace.length;
      return lastIsTool(req)
        ? { content: 'Wrote notes.txt.' }
        : { toolCalls: [{ name: 'write_file', arguments: { path: 'notes.txt', content: 'hello\n' } }] };
    },
  });
  const { createAppApi } = await import('../src/index');
  const store = openStore({ file: path.join(dir, 'trace.db'), env: {}, allowPlaintextKeys: true });
  try {
    store.providers.upsert({
      preset: 'custom',
      name: 'fake',
      baseUrl: llm.url,
      model: 'fake-model',
      contextWindow: 128_000,
      compactionModel: null,
      apiKey: 'trace-key',
    });
    const work = path.join(dir, 'work');
    const home = path.join(dir, 'home');
    mkdirSync(work);
    mkdirSync(home);
    let approve: (id: string) => void = () => {};
    const api = createAppApi({
      store,
      dataDir: path.join(dir, 'data'),
      homeDir: home,
      cwd: work,
      loginShell: false,
      emit: (e: AppEvent) => {
        if (e.type === 'tool.requested' && e.needsApproval) approve(e.toolCall.id);
      },
    });
    const session = await api['sessions.create']({ title: 'trace', workingFolder: work });
    approve = (toolCallId) => {
      // Answered outside the emitting call, as a renderer's click is.
      setImmediate(() => void api['chat.approve']({ sessionId: session.id, toolCallId, decision: 'approve' }));
    };
    recording = true;
    await api['chat.send']({ sessionId: session.id, text: 'Write hello to notes.txt.' });
    await api.idle(session.id);
    recording = false;
    const report: TraceReport = { files: [...trace], firstByte };
    await new Promise<void>((resolve) => process.send!(report, () => resolve()));
    await api.dispose();
  } finally {
    store.close();
    await llm.close();
    rmSync(dir, { recursive: true, force: true });
  }
  process.disconnect();
}

if (process.send) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
