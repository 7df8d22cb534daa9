import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ProviderUpsert } from '@threadline/protocol';
import { StoreError } from '../types';
import { fakeEncryptor, useTempDir } from './helpers';

const tmp = useTempDir();
const KEY = 'sk-test-1234567890-SECRET';
const openai = (extra: Partial<ProviderUpsert> = {}): ProviderUpsert => ({
  preset: 'openai',
  name: 'OpenAI',
  baseUrl: 'https://api.openai.com/v1',
  model: 'gpt-4.1',
  contextWindow: 1_047_576,
  ...extra,
});

/** The database and its WAL, as bytes an attacker with the file would see. */
const rawBytes = (file: string): string =>
  ['', '-wal']
    .map((s) => {
      try {
        return readFileSync(file + s).toString('latin1');
      } catch {
        return '';
      }
    })
    .join('');

describe('provider profiles', () => {
  it('stores the key only through the encryptor and never returns it in a profile', () => {
    const enc = fakeEncryptor();
    const store = tmp.open({ encryptor: enc });
    const p = store.providers.upsert(openai({ apiKey: KEY }));
    expect(p).toMatchObject({ hasKey: true, active: true, name: 'OpenAI' });
    expect(JSON.stringify(store.providers.list())).not.toContain(KEY);
    expect(store.providers.keyStorage(p.id)).toBe('encrypted');
    expect(store.providers.secret(p.id)).toBe(KEY);
    expect(enc.calls).toBe(1);
    expect(rawBytes(store.file)).not.toContain(KEY);
  });

  it('drops the stored key when the base URL moves to another origin without a new key', () => {
    const store = tmp.open({ encryptor: fakeEncryptor() });
    const p = store.providers.upsert(openai({ apiKey: KEY }));
    // Same origin, another path: the key stays.
    expect(store.providers.upsert(openai({ id: p.id, baseUrl: 'https://api.openai.com/v2' })).hasKey).toBe(true);
    expect(store.providers.secret(p.id)).toBe(KEY);
    // Another host, port or scheme: gone, unless the same request brings a key.
    for (const baseUrl of ['https://evil.example/v1', 'https://api.openai.com:8443/v1', 'http://api.openai.com/v1']) {
      store.providers.upsert(openai({ id: p.id, apiKey: KEY }));
      const moved = store.providers.upsert(openai({ id: p.id, baseUrl }));
      expect(moved.hasKey).toBe(false);
      expect(store.providers.secret(p.id)).toBeNull();
      expect(store.providers.keyStorage(p.id)).toBe('none');
    }
    const withKey = store.providers.upsert(
      openai({ id: p.id, baseUrl: 'https://other.example/v1', apiKey: 'sk-other' }),
    );
    expect(withKey.hasKey).toBe(true);
    expect(store.providers.secret(p.id)).toBe('sk-other');
  });

  it('keeps, replaces or removes the key as the upsert says', () => {
    const store = tmp.open({ encryptor: fakeEncryptor() });
    const p = store.providers.upsert(openai({ apiKey: KEY }));
    store.providers.upsert(openai({ id: p.id, model: 'gpt-5' }));
    expect(store.providers.secret(p.id)).toBe(KEY);
    expect(store.providers.get(p.id)!.model).toBe('gpt-5');
    store.providers.upsert(openai({ id: p.id, apiKey: 'sk-new' }));
    expect(store.providers.secret(p.id)).toBe('sk-new');
    const cleared = store.providers.upsert(openai({ id: p.id, apiKey: null }));
    expect(cleared.hasKey).toBe(false);
    expect(store.providers.secret(p.id)).toBeNull();
    expect(store.providers.keyStorage(p.id)).toBe('none');
  });

  it('refuses to save a key without a usable encryptor unless plain text was allowed, and marks it', () => {
    const locked = tmp.open({ encryptor: fakeEncryptor(false) });
    let err: unknown;
    try {
      locked.providers.upsert(openai({ apiKey: KEY }));
    } catch (e) {
      err = e;
    }
    expect((err as StoreError).code).toBe('no_encryptor');
    expect(locked.providers.list()).toEqual([]);
    // A profile without a key (Ollama) is fine without any encryptor.
    expect(
      locked.providers.upsert({
        preset: 'ollama',
        name: 'Local',
        baseUrl: 'http://127.0.0.1:11434/v1',
        model: 'llama3.1',
        contextWindow: 8192,
      }).hasKey,
    ).toBe(false);
    locked.close();

    const headless = tmp.open({ allowPlaintextKeys: true });
    const p = headless.providers.upsert(openai({ apiKey: KEY }));
    expect(headless.providers.keyStorage(p.id)).toBe('plaintext');
    expect(headless.providers.secret(p.id)).toBe(KEY);
  });

  it('cannot decrypt an encrypted key when secure storage went away', () => {
    const store = tmp.open({ encryptor: fakeEncryptor() });
    const p = store.providers.upsert(openai({ apiKey: KEY }));
    store.close();
    const again = tmp.open({ allowPlaintextKeys: true });
    expect(() => again.providers.secret(p.id)).toThrow(StoreError);
  });

  it('keeps exactly one active profile: the first, then the chosen one, then the oldest after a delete', () => {
    const store = tmp.open();
    const a = store.providers.upsert(openai({ name: 'A' }));
    const b = store.providers.upsert(openai({ name: 'B' }));
    expect(store.providers.active()?.id).toBe(a.id);
    expect(store.providers.setActive(b.id).active).toBe(true);
    expect(store.providers.list().map((p) => [p.name, p.active])).toEqual([
      ['A', false],
      ['B', true],
    ]);
    store.providers.delete(b.id);
    expect(store.providers.active()?.id).toBe(a.id);
    store.providers.delete(a.id);
    expect(store.providers.active()).toBeNull();
    expect(() => store.providers.setActive('gone')).toThrow(/does not exist/);
  });

  it('validates input', () => {
    const store = tmp.open();
    expect(() => store.providers.upsert(openai({ baseUrl: 'file:///etc/passwd' }))).toThrow(
      /Invalid provider profile: baseUrl/,
    );
    expect(() => store.providers.upsert(openai({ id: 'missing' }))).toThrow(/does not exist/);
  });
});

describe('the window learned from the provider (issue 22)', () => {
  it('is stored smaller than the profile window, survives a reopen, is kept by an edit and undone by null', () => {
    const store = tmp.open({ allowPlaintextKeys: true });
    const p = store.providers.upsert(openai({ contextWindow: 100_000 }));
    expect(p.learnedContextWindow).toBeNull();
    expect(store.providers.setLearnedWindow(p.id, 16_000).learnedContextWindow).toBe(16_000);
    // Never larger than (or equal to) what the user set.
    expect(store.providers.setLearnedWindow(p.id, 100_000).learnedContextWindow).toBeNull();
    store.providers.setLearnedWindow(p.id, 16_000);
    store.close();
    const again = tmp.open({ allowPlaintextKeys: true });
    expect(again.providers.get(p.id)!.learnedContextWindow).toBe(16_000);
    // An edit that does not mention it keeps it; the form's undo (null) forgets it.
    expect(
      again.providers.upsert(openai({ id: p.id, contextWindow: 100_000, name: 'Renamed' })).learnedContextWindow,
    ).toBe(16_000);
    expect(
      again.providers.upsert(openai({ id: p.id, contextWindow: 100_000, learnedContextWindow: null }))
        .learnedContextWindow,
    ).toBeNull();
  });
});
