// The permission rules end to end, as one scenario a test runs in its own process and, through
// rulesScenarioMain.ts, as an unprivileged user: the runtime as a shell wires it, a real SQLite
// file (closed and opened again, as at a restart), fake-llm over real HTTP, real files and links.
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startFakeLlm, type ChatRequestView, type FakeReply } from '@threadline/fake-llm';
import type { AppEvent, PendingToolCall, RuleMatch, StoredMessage } from '@threadline/protocol';
import { openStore, type Store } from '@threadline/store';
import { createAppApi, type AppRuntime } from '../index';

type Requested = Extract<AppEvent, { type: 'tool.requested' }>;
interface Call {
  name: string;
  arguments: Record<string, unknown>;
}

/** What the scenario saw; the test compares it with what must hold. */
export interface ScenarioResult {
  uid: number;
  makefile: { asked: boolean; blocked: string | undefined; rememberRefused: string | null; edited: boolean };
  outsideEditAsked: boolean;
  folderRule: { offered: RuleMatch | undefined; saved: boolean };
  throughLinkAsked: boolean;
  siblingAsked: boolean;
  deny: { asked: boolean; status: unknown; modelRead: string; fileKept: boolean };
  afterRestart: { asked: boolean; status: unknown; ruleNamed: boolean; inForce: number };
  sandboxOnly: { asked: boolean; why: unknown };
}

/** One runtime on the scenario's data folder, and a session working in its project folder. */
async function open(
  root: string,
  llmUrl: string,
  emit: (e: AppEvent) => void,
): Promise<{ api: AppRuntime; store: Store }> {
  const store = openStore({ file: path.join(root, 'data', 'threadline.sqlite'), allowPlaintextKeys: true, env: {} });
  if (store.providers.list().length === 0)
    store.providers.upsert({
      preset: 'custom',
      name: 'fake',
      baseUrl: llmUrl,
      model: 'fake-model',
      contextWindow: 128_000,
      compactionModel: null,
      apiKey: 'test-key',
    });
  const api = createAppApi({
    store,
    dataDir: path.join(root, 'data'),
    homeDir: path.join(root, 'home'),
    cwd: path.join(root, 'project'),
    loginShell: false,
    // Commands run outside any sandbox here: the sandbox-only rule must not hold.
    sandbox: { force: 'none' },
    emit,
  });
  return { api, store };
}

export async function rulesScenario(root: string): Promise<ScenarioResult> {
  const project = path.join(root, 'project');
  const other = path.join(root, 'other');
  const evil = path.join(root, 'other-evil');
  for (const d of [project, other, evil, path.join(root, 'home'), path.join(root, 'data')])
    mkdirSync(d, { recursive: true });
  writeFileSync(path.join(project, 'Makefile'), 'all:\n\techo build\n');
  writeFileSync(path.join(project, 'notes.txt'), 'keep me\n');
  writeFileSync(path.join(other, 'a.txt'), 'a\n');
  writeFileSync(path.join(other, 'b.txt'), 'b\n');
  writeFileSync(path.join(evil, 'secret.txt'), 'SECRET\n');
  // A link inside the granted folder that leads out of it.
  symlinkSync(evil, path.join(other, 'door'));

  const plan: Call[] = [];
  const llm = await startFakeLlm({});
  llm.setRules([], (req: ChatRequestView): FakeReply => {
    if (req.messages.at(-1)?.role === 'tool') return { content: 'done' };
    const next = plan.shift();
    return next ? { toolCalls: [next] } : { content: 'nothing to do' };
  });
  const events: AppEvent[] = [];
  const listeners = new Set<(e: AppEvent) => void>();
  const emit = (e: AppEvent): void => {
    events.push(e);
    for (const l of listeners) l(e);
  };

  let { api, store } = await open(root, llm.url, emit);
  let sessionId = (await api['sessions.create']({ title: 'first', workingFolder: project })).id;

  /**
   * One turn that makes `call`: `answer` decides its card when it asks. Returns the card (if it
   * asked) and the call's stored result.
   */
  const turn = async (
    call: Call,
    answer: (card: Requested) => Promise<void>,
  ): Promise<{ card: Requested | null; result: StoredMessage | undefined }> => {
    plan.push(call);
    const seen: { card: Requested | null; answered: Promise<void> } = { card: null, answered: Promise.resolve() };
    const l = (e: AppEvent): void => {
      if (e.type === 'tool.requested' && e.needsApproval && e.sessionId === sessionId) {
        seen.card = e;
        // As a renderer would: after the event, once the call waits for its answer.
        seen.answered = new Promise((r) => setImmediate(r)).then(() => answer(e));
      }
    };
    listeners.add(l);
    await api['chat.send']({ sessionId, text: `${call.name} please` });
    await api.idle(sessionId);
    listeners.delete(l);
    await seen.answered;
    const results = store.messages.list(sessionId).filter((m) => m.role === 'tool');
    return { card: seen.card, result: results.at(-1) };
  };
  const approve = (card: Requested, extra: Record<string, unknown> = {}) =>
    api['chat.approve']({ sessionId, toolCallId: card.toolCall.id, decision: 'approve', ...extra });
  const deny = async (card: Requested) => {
    await api['chat.approve']({ sessionId, toolCallId: card.toolCall.id, decision: 'deny' });
  };

  // Issue 34 item 6: "always" on a Makefile card cannot be saved; the next edit outside still asks.
  let rememberRefused: string | null = null;
  const makefile = await turn(
    { name: 'edit_file', arguments: { path: 'Makefile', old_string: 'echo build', new_string: 'echo built' } },
    async (card) => {
      const offered = card.rules?.parts[0]?.options[0];
      try {
        if (offered) await approve(card, { remember: { scope: 'session', matches: [offered] } });
      } catch (err) {
        rememberRefused = (err as { code?: string }).code ?? 'error';
      }
      await approve(card);
    },
  );
  const outside = await turn(
    { name: 'edit_file', arguments: { path: path.join(other, 'a.txt'), old_string: 'a', new_string: 'pwned' } },
    deny,
  );

  // "Allow … in this folder" on a read outside: the folder the file is in.
  let offered: RuleMatch | undefined;
  await turn({ name: 'read_file', arguments: { path: path.join(other, 'a.txt') } }, async (card) => {
    offered = card.rules?.parts[0]?.options[0];
    if (offered) await approve(card, { remember: { scope: 'folder', matches: [offered] } });
  });
  const folderRules = await api['rules.list']({ sessionId });
  const throughLink = await turn(
    { name: 'read_file', arguments: { path: path.join(other, 'door', 'secret.txt') } },
    deny,
  );
  const sibling = await turn({ name: 'read_file', arguments: { path: path.join(evil, 'secret.txt') } }, deny);

  // A deny rule, with its reason: no card, the model reads the reason.
  await api['rules.save']({
    decision: 'deny',
    match: { kind: 'command', tool: 'shell', words: ['rm'], more: true, sandbox: 'also_outside' },
    scope: { kind: 'everywhere' },
    reason: 'Move files to the trash folder instead.',
  });
  const denied = await turn({ name: 'shell', arguments: { command: 'rm -f notes.txt' } }, deny);
  const lastRequest = llm.chatRequests().at(-1)?.body as
    { messages?: { role: string; content?: unknown }[] } | undefined;
  const modelRead = String(lastRequest?.messages?.filter((m) => m.role === 'tool').at(-1)?.content ?? '');

  // A restart: the same database opened again; a new session in the same folder.
  await api.dispose();
  store.close();
  ({ api, store } = await open(root, llm.url, emit));
  sessionId = (await api['sessions.create']({ title: 'second', workingFolder: project })).id;
  const again = await turn({ name: 'read_file', arguments: { path: path.join(other, 'b.txt') } }, deny);
  const inForce = await api['rules.list']({ sessionId });

  // A rule that holds in the sandbox only, where commands would run outside it.
  await api['rules.save']({
    decision: 'allow',
    match: { kind: 'command', tool: 'shell', words: ['make', 'test'], more: true, sandbox: 'only' },
    scope: { kind: 'folder', folder: project },
  });
  const sandboxOnly = await turn({ name: 'shell', arguments: { command: 'make test' } }, deny);

  await api.dispose();
  store.close();
  await llm.close();
  const pending = (r: { card: Requested | null }): PendingToolCall['rules'] => r.card?.rules;
  return {
    uid: process.getuid?.() ?? -1,
    makefile: {
      asked: makefile.card !== null,
      blocked: pending(makefile)?.blocked,
      rememberRefused,
      edited: readFileSync(path.join(project, 'Makefile'), 'utf8').includes('echo built'),
    },
    outsideEditAsked: outside.card !== null && readFileSync(path.join(other, 'a.txt'), 'utf8') === 'a\n',
    folderRule: { offered, saved: folderRules.some((r) => r.scope.kind === 'folder' && r.decision === 'allow') },
    throughLinkAsked: throughLink.card !== null && throughLink.result?.meta?.status === 'denied',
    siblingAsked: sibling.card !== null && sibling.result?.meta?.status === 'denied',
    deny: {
      asked: denied.card !== null,
      status: denied.result?.meta?.status,
      modelRead,
      fileKept: existsSync(path.join(project, 'notes.txt')),
    },
    afterRestart: {
      asked: again.card !== null,
      status: again.result?.meta?.status,
      ruleNamed: (again.result?.meta?.rule as { decision?: string } | undefined)?.decision === 'allow',
      inForce: inForce.length,
    },
    sandboxOnly: { asked: sandboxOnly.card !== null, why: sandboxOnly.card?.sandbox },
  };
}
