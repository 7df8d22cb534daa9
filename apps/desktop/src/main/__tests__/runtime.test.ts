// The desktop runtime for real: a SQLite file in a temp data dir, the agent's AppApi, keys
// through a safeStorage-shaped encryptor (reversible fake: the real one needs an OS keychain).
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dispatchRoute, type AppEvent, type ProviderProfile } from '@threadline/protocol';
import { openDesktopRuntime } from '../runtime';
import { safeStorageEncryptor, type SafeStorageLike } from '../secrets';
import type { DesktopRuntime } from '../runtimeTypes';

function safeStorage(available: boolean): SafeStorageLike {
  return {
    isEncryptionAvailable: () => available,
    getSelectedStorageBackend: () => (available ? 'gnome_libsecret' : 'basic_text'),
    encryptString: (s) => Buffer.from(Buffer.from(s, 'utf8').map((b) => b ^ 0x33)),
    decryptString: (b) => Buffer.from(b.map((x) => x ^ 0x33)).toString('utf8'),
  };
}

const provider = {
  preset: 'custom',
  name: 'Local',
  baseUrl: 'http://127.0.0.1:9/v1',
  model: 'm',
  contextWindow: 8000,
  apiKey: 'sk-never-in-plaintext-42',
};

let dir: string | null = null;
let runtime: DesktopRuntime | null = null;

function open(keychain: boolean, env: Record<string, string> = {}) {
  dir = mkdtempSync(join(tmpdir(), 'tl-runtime-'));
  const events: AppEvent[] = [];
  const dataDir = join(dir, 'data');
  runtime = openDesktopRuntime({
    dataDir,
    encryptor: safeStorageEncryptor(safeStorage(keychain), 'linux'),
    emit: (e) => events.push(e),
    env,
    cwd: dir,
    log: () => {},
  });
  return { dataDir, events, api: runtime.api };
}

afterEach(async () => {
  await runtime?.close();
  runtime = null;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = null;
});

describe('openDesktopRuntime', () => {
  it('takes the data folder lock: a second runtime on it is refused before opening anything', async () => {
    const { dataDir } = open(true);
    const opts = {
      dataDir,
      encryptor: safeStorageEncryptor(safeStorage(true), 'linux'),
      emit: () => {},
      env: {},
      cwd: dir!,
      log: () => {},
    };
    expect(() => openDesktopRuntime(opts)).toThrow(
      `Threadline is already running with the data folder ${dataDir} (process ${process.pid}); close it first.`,
    );
    await runtime!.close();
    runtime = openDesktopRuntime(opts);
    expect(await runtime.api['sessions.list']({})).toEqual([]);
  });

  it('starts with an environment it cannot apply and says why (the shell shows it)', async () => {
    const { api } = open(true, {
      THREADLINE_PROVIDER_URL: 'http://127.0.0.1:11434/v1',
      THREADLINE_CONTEXT_WINDOW: '128k',
    });
    expect(runtime?.startupWarnings?.join('\n')).toMatch(/THREADLINE_CONTEXT_WINDOW/);
    expect((await dispatchRoute(api, 'sessions.list', {})).ok).toBe(true);
  });

  it('keeps sessions in threadline.sqlite in the data dir', async () => {
    const { dataDir, api } = open(true);
    const created = await dispatchRoute(api, 'sessions.create', { title: 'Hello' });
    expect(created.ok).toBe(true);
    expect(existsSync(join(dataDir, 'threadline.sqlite'))).toBe(true);
    const list = await dispatchRoute(api, 'sessions.list', {});
    expect(list.ok && (list.data as { title: string }[]).map((s) => s.title)).toEqual(['Hello']);
  });

  it('encrypts API keys: the renderer learns only hasKey, the file never holds the key', async () => {
    const { dataDir, api } = open(true);
    const saved = await dispatchRoute(api, 'providers.upsert', provider);
    expect(saved.ok).toBe(true);
    expect((saved as { data: ProviderProfile }).data.hasKey).toBe(true);
    expect(JSON.stringify(saved)).not.toContain('sk-never');
    await runtime!.close();
    for (const f of ['threadline.sqlite', 'threadline.sqlite-wal']) {
      const file = join(dataDir, f);
      if (existsSync(file)) expect(readFileSync(file).includes('sk-never-in-plaintext')).toBe(false);
    }
  });

  it('refuses to save a key without a keychain instead of storing plaintext', async () => {
    const { api } = open(false);
    const refused = await dispatchRoute(api, 'providers.upsert', provider);
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.error.message).toMatch(/secure storage|keychain/i);
    // The profile itself can still be saved without a key (e.g. a local Ollama).
    const keyless = await dispatchRoute(api, 'providers.upsert', { ...provider, apiKey: null });
    expect(keyless.ok).toBe(true);
  });

  it('closes once, however often it is asked', async () => {
    open(true);
    await runtime!.close();
    await expect(runtime!.close()).resolves.toBeUndefined();
  });
});
