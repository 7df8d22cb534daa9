import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROUTE_NAMES, dispatchRoute } from '@threadline/protocol';
import { openStore, type Store } from '@threadline/store';
import { startFakeLlm } from '@threadline/fake-llm';
import { ensureEnvProvider } from '../index';
import { startHarness, type Harness } from './harness';

let h: Harness;
afterEach(async () => h?.close());

describe('AppApi routes', () => {
  it('implements every route of the protocol', async () => {
    h = await startHarness();
    for (const r of ROUTE_NAMES) expect(typeof h.api[r]).toBe('function');
  });

  it('sessions: create, list, rename, export (Markdown and JSON), delete', async () => {
    h = await startHarness();
    await h.turn('export me');
    const renamed = await h.api['sessions.rename']({ id: h.sessionId, title: 'Renamed session' });
    expect(renamed.title).toBe('Renamed session');
    const list = await h.api['sessions.list']({});
    expect(list.find((s) => s.id === h.sessionId)?.messageCount).toBe(2);
    const md = await h.api['sessions.export']({ id: h.sessionId, format: 'markdown' });
    expect(md.mime).toBe('text/markdown');
    expect(md.filename).toBe('renamed-session.md');
    expect(md.content).toContain('# Renamed session');
    expect(md.content).toContain('## User\n\nexport me');
    const json = await h.api['sessions.export']({ id: h.sessionId, format: 'json' });
    const parsed = JSON.parse(json.content) as { messages: { content: string }[]; session: { id: string } };
    expect(parsed.session.id).toBe(h.sessionId);
    expect(parsed.messages.map((m) => m.content)).toEqual(h.history().map((m) => m.content));
    expect(await h.api['sessions.delete']({ id: h.sessionId })).toEqual({ deleted: true });
    expect(h.events.some((e) => e.type === 'session.updated' && e.session === null)).toBe(true);
    await expect(h.api['messages.list']({ sessionId: h.sessionId })).rejects.toMatchObject({ code: 'not_found' });
    await expect(h.api['sessions.export']({ id: h.sessionId, format: 'json' })).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it('errors are clear codes through the router', async () => {
    h = await startHarness();
    expect(await dispatchRoute(h.api, 'sessions.rename', { id: 'missing', title: 'x' })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    });
    expect(await dispatchRoute(h.api, 'memory.facts.setStatus', { id: 'missing', status: 'forgotten' })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    });
    expect(await dispatchRoute(h.api, 'providers.setActive', { id: 'missing' })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    });
  });

  it('settings: get and set with a validated patch', async () => {
    h = await startHarness();
    const s = await h.api['settings.set']({
      patch: { compaction: { strategy: 'cfpm_memory_v1' }, toolOutput: { maxTokens: 1234 } },
    });
    expect(s.compaction.strategy).toBe('cfpm_memory_v1');
    expect(s.compaction.autoThreshold).toBe(0.8);
    expect((await h.api['settings.get']({})).toolOutput.maxTokens).toBe(1234);
    // Over the router (IPC and HTTP alike) a typo in a nested key is refused with its name.
    const typo = await dispatchRoute(h.api, 'settings.set', { patch: { compaction: { autoThresold: 0.5 } } });
    expect(typo).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(typo.ok === false && typo.error.message).toMatch(/autoThresold/);
    // …and as data: the object that holds the unknown key, by its path.
    expect(typo.ok === false && typo.error.details?.issues).toEqual([
      { path: ['patch', 'compaction'], code: 'unrecognized_keys', message: expect.stringMatching(/autoThresold/) },
    ]);
    expect((await h.api['settings.get']({})).compaction.autoThreshold).toBe(0.8);
  });

  it('truncates a big tool output for the model and keeps the full text for read_tool_output', async () => {
    h = await startHarness({
      settings: { approvalPolicy: 'auto', toolOutput: { maxTokens: 200 } },
      llm: {
        defaultReply: (req) => {
          const last = req.messages.at(-1);
          if (last?.role !== 'tool') return { toolCalls: [{ name: 'shell', arguments: { command: 'seq 1 5000' } }] };
          if (String(last.content).includes('truncated')) {
            return {
              toolCalls: [
                {
                  name: 'read_tool_output',
                  arguments: { id: req.messages.at(-2)?.tool_calls?.[0]?.id ?? '', offset: 0, limit: 20 },
                },
              ],
            };
          }
          return { content: 'paged' };
        },
      },
    });
    await h.turn('count');
    const tools = h.history().filter((m) => m.role === 'tool');
    expect(tools[0].content).toMatch(/truncated/);
    // The marker names the id the model passes to read_tool_output.
    expect(tools[0].content).toContain(`read_tool_output(id: "${tools[0].tool_call_id}"`);
    expect(tools[0].content!.length).toBeLessThan(2000);
    expect(tools[0].fullOutput).toContain('\n4999\n5000');
    expect(tools[1].content!.startsWith('1\n2\n3')).toBe(true);
  });

  it('providers: upsert (key never returned), list, setActive, test against the server', async () => {
    h = await startHarness();
    const p = await h.api['providers.upsert']({
      preset: 'ollama',
      name: 'Local',
      baseUrl: h.llm.url,
      model: 'fake-model',
      contextWindow: 8192,
      apiKey: 'secret-key',
    });
    expect(p.hasKey).toBe(true);
    expect(JSON.stringify(await h.api['providers.list']({}))).not.toContain('secret-key');
    expect((await h.api['providers.setActive']({ id: p.id })).active).toBe(true);
    const ok = await h.api['providers.test']({ id: p.id });
    expect(ok.ok).toBe(true);
    expect(ok.latencyMs).not.toBeNull();
    // What the server lists, for the form's picker.
    expect(ok.models).toEqual(['fake-model']);
    const unknownModel = await h.api['providers.upsert']({
      id: p.id,
      preset: 'ollama',
      name: 'Local',
      baseUrl: h.llm.url,
      model: 'nope',
      contextWindow: 8192,
    });
    expect(unknownModel.hasKey).toBe(true);
    expect((await h.api['providers.test']({ id: p.id })).message).toMatch(
      /does not offer model "nope"; it offers fake-model\./,
    );
    const dead = await h.api['providers.upsert']({
      preset: 'custom',
      name: 'Dead',
      baseUrl: 'http://127.0.0.1:9/v1',
      model: 'm',
      contextWindow: 1000,
    });
    expect((await h.api['providers.test']({ id: dead.id })).ok).toBe(false);
    // One name, one profile (case aside): refused on the name field, through the router.
    const taken = await dispatchRoute(h.api, 'providers.upsert', {
      preset: 'custom',
      name: 'dead',
      baseUrl: 'http://127.0.0.1:9/v1',
      model: 'm',
      contextWindow: 1000,
    });
    expect(taken).toMatchObject({
      ok: false,
      error: { code: 'invalid_input', details: { issues: [{ path: ['name'], code: 'duplicate' }] } },
    });
    // A profile keeps its own name when saved again.
    expect(
      (
        await h.api['providers.upsert']({
          id: dead.id,
          preset: 'custom',
          name: 'Dead',
          baseUrl: 'http://127.0.0.1:9/v1',
          model: 'm',
          contextWindow: 1000,
        })
      ).name,
    ).toBe('Dead');
  });

  it('tests an unsaved draft without saving it, using the stored key of the profile it edits', async () => {
    h = await startHarness({ llm: { apiKey: 'right-key' } });
    const before = await h.api['providers.list']({});
    const draft = {
      preset: 'custom' as const,
      name: 'Draft',
      baseUrl: h.llm.url,
      model: 'fake-model',
      contextWindow: 8000,
    };
    expect((await h.api['providers.test']({ draft: { ...draft, apiKey: 'right-key' } })).ok).toBe(true);
    expect((await h.api['providers.test']({ draft: { ...draft, apiKey: 'wrong-key' } })).ok).toBe(false);
    expect(await h.api['providers.list']({})).toEqual(before);
    // Editing a saved profile: no key typed means "the stored one".
    const saved = await h.api['providers.upsert']({ ...draft, apiKey: 'right-key' });
    expect((await h.api['providers.test']({ draft: { ...draft, id: saved.id, model: 'fake-model' } })).ok).toBe(true);
    expect((await h.api['providers.test']({ draft: { ...draft, id: saved.id, apiKey: null } })).ok).toBe(false);
    // An edited address does not get the stored key (it would go to a host nobody saved).
    const elsewhere = h.llm.url.replace('127.0.0.1', 'localhost');
    expect((await h.api['providers.test']({ draft: { ...draft, id: saved.id, baseUrl: elsewhere } })).ok).toBe(false);
    expect(
      (await h.api['providers.test']({ draft: { ...draft, id: saved.id, baseUrl: elsewhere, apiKey: 'right-key' } }))
        .ok,
    ).toBe(true);
  });

  it('a hosted preset without a key fails the test at once, naming the field to fix', async () => {
    h = await startHarness();
    const r = await h.api['providers.test']({
      draft: { preset: 'openai', name: 'OpenAI', baseUrl: h.llm.url, model: 'fake-model', contextWindow: 8000 },
    });
    expect(r).toEqual({ ok: false, message: 'OpenAI needs an API key.', latencyMs: null, problem: 'missing_key' });
    // No request was made: nothing can be learned without the key.
    expect(h.llm.requests.filter((q) => q.path.endsWith('/models'))).toHaveLength(0);
  });
});

describe('a key belongs to its host', () => {
  it('providers.upsert to another origin without a key drops it, so providers.test sends nothing there', async () => {
    h = await startHarness();
    const other = await startFakeLlm({});
    try {
      const saved = await h.api['providers.upsert']({
        preset: 'custom',
        name: 'Mine',
        baseUrl: h.llm.url,
        model: 'fake-model',
        contextWindow: 8000,
        apiKey: 'stored-key-77',
      });
      const moved = await h.api['providers.upsert']({
        id: saved.id,
        preset: 'custom',
        name: 'Mine',
        baseUrl: other.url,
        model: 'fake-model',
        contextWindow: 8000,
      });
      expect(moved.hasKey).toBe(false);
      await h.api['providers.test']({ id: saved.id });
      expect(other.requests.length).toBeGreaterThan(0);
      for (const r of other.requests) expect(String(r.headers.authorization ?? '')).not.toContain('stored-key-77');
    } finally {
      await other.close();
    }
  });
});

/** A store in a temp dir for the duration of `fn`. */
function withStore(fn: (store: Store) => void): void {
  const dir = mkdtempSync(path.join(tmpdir(), 'tl-env-'));
  const store = openStore({ file: path.join(dir, 'db.sqlite'), allowPlaintextKeys: true, env: {} });
  try {
    fn(store);
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('ensureEnvProvider', () => {
  it('preconfigures an active profile from the environment once', () =>
    withStore((store) => {
      expect(ensureEnvProvider(store, {})).toBeNull();
      const env = {
        THREADLINE_PROVIDER_URL: 'http://127.0.0.1:11434/v1/',
        THREADLINE_MODEL: 'qwen2.5',
        THREADLINE_CONTEXT_WINDOW: '32768',
        OPENAI_API_KEY: 'sk-x',
      };
      const p = ensureEnvProvider(store, env)!;
      expect(p).toMatchObject({
        preset: 'ollama',
        baseUrl: 'http://127.0.0.1:11434/v1',
        model: 'qwen2.5',
        contextWindow: 32768,
        hasKey: true,
        active: true,
      });
      expect(store.providers.secret(p.id)).toBe('sk-x');
      // A second start finds it again instead of adding another.
      ensureEnvProvider(store, env);
      expect(store.providers.list()).toHaveLength(1);
    }));

  it('applies a rotated OPENAI_API_KEY; keeps the user window when THREADLINE_CONTEXT_WINDOW is unset', () =>
    withStore((store) => {
      const env = {
        THREADLINE_PROVIDER_URL: 'http://127.0.0.1:11434/v1',
        THREADLINE_MODEL: 'qwen2.5',
        OPENAI_API_KEY: 'sk-old',
      };
      const p = ensureEnvProvider(store, env)!;
      ensureEnvProvider(store, { ...env, OPENAI_API_KEY: 'sk-new' });
      expect(store.providers.secret(p.id)).toBe('sk-new');
      // The user widened the window in Settings; a start without the variable leaves it.
      store.providers.upsert({
        id: p.id,
        preset: p.preset,
        name: p.name,
        baseUrl: p.baseUrl,
        model: p.model,
        contextWindow: 65_536,
      });
      expect(ensureEnvProvider(store, { ...env, OPENAI_API_KEY: 'sk-new' })?.contextWindow).toBe(65_536);
      expect(
        ensureEnvProvider(store, { ...env, OPENAI_API_KEY: 'sk-new', THREADLINE_CONTEXT_WINDOW: '32768' })
          ?.contextWindow,
      ).toBe(32_768);
      expect(store.providers.list()).toHaveLength(1);
    }));

  it('refuses an invalid THREADLINE_CONTEXT_WINDOW with an error naming the variable', () =>
    withStore((store) => {
      for (const bad of ['abc', '0', '-5', '12.5', '128k']) {
        const env = { THREADLINE_PROVIDER_URL: 'http://127.0.0.1:11434/v1', THREADLINE_CONTEXT_WINDOW: bad };
        expect(() => ensureEnvProvider(store, env)).toThrow(/THREADLINE_CONTEXT_WINDOW/);
      }
      // Nothing was created from a refused environment.
      expect(store.providers.list()).toHaveLength(0);
    }));
});
