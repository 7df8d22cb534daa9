import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '@threadline/fake-llm';
import { createAppApi, ensureEnvProvider, openStore, type AppRuntime, type Encryptor, type Store } from '../index';

/** An OS keychain the user can lock: decrypting then fails, as safeStorage does. */
function lockableKeychain(): Encryptor & { locked: boolean } {
  return {
    locked: false,
    encrypt: (plain) => `sealed:${Buffer.from(plain).toString('base64')}`,
    decrypt(cipher) {
      if (this.locked) throw new Error('the keychain is locked');
      return Buffer.from(cipher.slice('sealed:'.length), 'base64').toString();
    },
    available: () => true,
  };
}

let cleanup: (() => Promise<void>) | null = null;
afterEach(async () => {
  await cleanup?.();
  cleanup = null;
});

describe('a locked keychain', () => {
  it('does not break context.usage nor compaction.preview (they need no API key)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tl-keys-'));
    const keychain = lockableKeychain();
    const store: Store = openStore({ file: path.join(dir, 'db.sqlite'), encryptor: keychain, env: {} });
    const llm: FakeLlm = await startFakeLlm({});
    const api: AppRuntime = createAppApi({ store, dataDir: dir, cwd: dir, loginShell: false, emit: () => undefined });
    cleanup = async () => {
      await api.dispose();
      await llm.close();
      store.close();
      rmSync(dir, { recursive: true, force: true });
    };
    store.providers.upsert({
      preset: 'custom',
      name: 'fake',
      baseUrl: llm.url,
      model: 'fake-model',
      contextWindow: 8000,
      compactionModel: null,
      apiKey: 'sk-sealed',
    });
    const session = await api['sessions.create']({ title: 'locked' });
    await api['chat.send']({ sessionId: session.id, text: 'hello before the lock' });
    await api.idle(session.id);
    keychain.locked = true;
    const usage = await api['context.usage']({ sessionId: session.id });
    expect(usage.total).toBeGreaterThan(0);
    const preview = await api['compaction.preview']({ sessionId: session.id });
    expect(preview.strategy).toBe('legacy_segmented');
    // A model call does need the key: it fails with the keychain's reason, not silently.
    await expect(api['chat.send']({ sessionId: session.id, text: 'after the lock' })).rejects.toThrow(
      /locked|secure storage/,
    );
  });

  it('still applies a new THREADLINE_CONTEXT_WINDOW at start when the stored key cannot be read', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tl-keys-'));
    const keychain = lockableKeychain();
    const store: Store = openStore({ file: path.join(dir, 'db.sqlite'), encryptor: keychain, env: {} });
    cleanup = async () => {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    };
    const env = {
      THREADLINE_PROVIDER_URL: 'http://127.0.0.1:9/v1',
      THREADLINE_MODEL: 'm',
      OPENAI_API_KEY: 'sk-1',
      THREADLINE_CONTEXT_WINDOW: '8000',
    };
    ensureEnvProvider(store, env);
    keychain.locked = true;
    const p = ensureEnvProvider(store, { ...env, THREADLINE_CONTEXT_WINDOW: '16000' });
    expect(p?.contextWindow).toBe(16000);
    expect(p?.hasKey).toBe(true);
  });
});
