// Shared set-up of the integration tests: a real SQLite file in a temp dir, fake-llm over real
// HTTP, and the AppApi wired as a shell would wire it.
import { expect } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  startFakeLlm,
  type ChatRequestView,
  type FakeLlm,
  type FakeLlmOptions,
  type FakeReply,
} from '@threadline/fake-llm';
import type { AppEvent, SettingsPatch, StoredMessage } from '@threadline/protocol';
import { openStore, type Store } from '@threadline/store';
import { createAppApi, type AppRuntime, type CreateAppApiOptions } from '../index';

export interface Harness {
  api: AppRuntime;
  store: Store;
  llm: FakeLlm;
  events: AppEvent[];
  dir: string;
  sessionId: string;
  /** chat.send, then wait for the turn to end. */
  turn(text: string): Promise<void>;
  /**
   * The first event of `type` (matching `pred`), past or to come. Without `timeoutMs` it waits as
   * long as the test may run (its timeout says a hang): a busy machine only makes it later.
   */
  waitFor<T extends AppEvent['type']>(
    type: T,
    pred?: (e: Extract<AppEvent, { type: T }>) => boolean,
    timeoutMs?: number,
  ): Promise<Extract<AppEvent, { type: T }>>;
  history(): StoredMessage[];
  close(): Promise<void>;
}

export interface HarnessOptions {
  llm?: FakeLlmOptions;
  /** The profile's context window (what the runtime believes). */
  window?: number;
  model?: string;
  settings?: SettingsPatch;
  api?: Partial<CreateAppApiOptions>;
  /** What the runtime is given instead of the store itself (a spy around it); the harness keeps the real one. */
  wrapStore?: (store: Store) => Store;
}

export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tl-agent-'));
  const store = openStore({ file: path.join(dir, 'threadline.db'), allowPlaintextKeys: true, env: {} });
  const llm = await startFakeLlm(opts.llm ?? {});
  store.providers.upsert({
    preset: 'custom',
    name: 'fake',
    baseUrl: llm.url,
    model: opts.model ?? 'fake-model',
    contextWindow: opts.window ?? 128_000,
    compactionModel: null,
    apiKey: 'test-key',
  });
  if (opts.settings) store.settings.set(opts.settings);
  const events: AppEvent[] = [];
  const listeners = new Set<(e: AppEvent) => void>();
  const api = createAppApi({
    store: opts.wrapStore ? opts.wrapStore(store) : store,
    // The app's data folder and the user's home are their own folders under the temp dir; the
    // session works in the temp dir itself, so tools find the files the tests put there.
    dataDir: path.join(dir, 'data'),
    homeDir: path.join(dir, 'home'),
    cwd: dir,
    // A login shell costs ~1 s per command on a loaded box; the tests do not need the user's PATH.
    loginShell: false,
    emit: (e) => {
      events.push(e);
      for (const l of listeners) l(e);
    },
    ...opts.api,
  });
  const session = await api['sessions.create']({ title: 'test', workingFolder: dir });
  const h: Harness = {
    api,
    store,
    llm,
    events,
    dir,
    sessionId: session.id,
    async turn(text) {
      await api['chat.send']({ sessionId: session.id, text });
      await api.idle(session.id);
    },
    // No deadline of its own unless given: a busy machine is slower, not wrong (the test's timeout ends a real hang).
    waitFor(type, pred, timeoutMs) {
      type E = Extract<AppEvent, { type: typeof type }>;
      const hit = events.find((e): e is E => e.type === type && (!pred || pred(e as E)));
      if (hit) return Promise.resolve(hit);
      return new Promise((resolve, reject) => {
        const timer =
          timeoutMs === undefined
            ? undefined
            : setTimeout(() => {
                listeners.delete(l);
                reject(new Error(`timed out waiting for ${type}`));
              }, timeoutMs);
        const l = (e: AppEvent): void => {
          if (e.type === type && (!pred || pred(e as E))) {
            clearTimeout(timer);
            listeners.delete(l);
            resolve(e as E);
          }
        };
        listeners.add(l);
      });
    },
    history: () => store.messages.list(session.id),
    async close() {
      await api.dispose();
      await llm.close();
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return h;
}

/** Notices of a given compaction type in history. */
export function compactionNotices(history: StoredMessage[], type?: string): StoredMessage[] {
  return history.filter(
    (m) =>
      (m.content ?? '').startsWith('[THREADLINE_COMPACTION_V1]') &&
      (!type || (m.content ?? '').includes(`"type":"${type}"`)),
  );
}

/** A request whose last message is a tool result (the model is answering after a call). */
export const lastIsTool = (req: ChatRequestView): boolean => req.messages.at(-1)?.role === 'tool';

/**
 * A model that runs one shell `seq` per turn (a sizeable tool output: something for a compaction to
 * hide) and then answers `<word> <turn>`.
 */
export function seqToolModel(word: string): (req: ChatRequestView) => FakeReply {
  let n = 0;
  return (req) =>
    lastIsTool(req)
      ? { content: `${word} ${n}` }
      : { toolCalls: [{ name: 'shell', arguments: { command: `seq 1 ${1500 + ++n}` } }] };
}

/** fake-llm's reply when the user's text is a tool call as JSON (`{"name", "arguments"}`): it makes that call. */
export const callFromText = (req: ChatRequestView): FakeReply =>
  lastIsTool(req) ? { content: 'done' } : { toolCalls: [JSON.parse(req.lastUserText) as { name: string }] };

/**
 * One tool call at a time through `callFromText`, on the harness `h()` returns (a test file's
 * current one): `send` it, `runs` (a call that needs no approval: its result), `asks` (a call that
 * must ask: the request event, then the user's answer, then the result).
 */
export function toolCallsOf(h: () => Harness) {
  const send = (name: string, args: Record<string, unknown>) =>
    h().api['chat.send']({ sessionId: h().sessionId, text: JSON.stringify({ name, arguments: args }) });
  const resultSince = (before: number): StoredMessage | undefined =>
    h()
      .history()
      .slice(before)
      .find((m) => m.role === 'tool');
  async function runs(name: string, args: Record<string, unknown>): Promise<StoredMessage> {
    const before = h().history().length;
    await send(name, args);
    await h().api.idle(h().sessionId);
    const result = resultSince(before);
    expect(result).toBeDefined();
    return result!;
  }
  async function asks(
    name: string,
    args: Record<string, unknown>,
    decision: 'approve' | 'deny',
  ): Promise<{ req: Extract<AppEvent, { type: 'tool.requested' }>; result: StoredMessage }> {
    const before = h().events.length;
    const historyBefore = h().history().length;
    await send(name, args);
    const req = await h().waitFor('tool.requested', (e) => h().events.indexOf(e) >= before && e.needsApproval);
    await h().api['chat.approve']({ sessionId: h().sessionId, toolCallId: req.toolCall.id, decision });
    await h().api.idle(h().sessionId);
    return { req, result: resultSince(historyBefore)! };
  }
  return { send, runs, asks };
}
