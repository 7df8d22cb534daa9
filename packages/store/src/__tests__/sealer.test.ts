import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createFileEncryptor } from '../secrets/fileEncryptor';
import { createSealer } from '../secrets/sealer';
import { StoreError } from '../types';

const dir = mkdtempSync(join(tmpdir(), 'tl-sealer-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function refusal(fn: () => unknown): StoreError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(StoreError);
    return err as StoreError;
  }
  throw new Error('expected a refusal');
}

describe('the sealer (every secret at rest goes through it)', () => {
  it('encrypts through a usable encryptor and opens what it sealed', () => {
    const sealer = createSealer({ encryptor: createFileEncryptor(dir), allowPlaintextKeys: true });
    const { cipher, storage } = sealer.seal('sk-secret', 'no');
    expect(storage).toBe('encrypted');
    expect(cipher).not.toContain('sk-secret');
    expect(sealer.open(cipher, storage, 'no')).toBe('sk-secret');
  });

  it('keeps plain text only when allowed, and opens it without an encryptor', () => {
    const plain = createSealer({ allowPlaintextKeys: true });
    expect(plain.seal('sk-x', 'no')).toEqual({ cipher: 'sk-x', storage: 'plaintext' });
    expect(createSealer({ allowPlaintextKeys: false }).open('sk-x', 'plaintext', 'no')).toBe('sk-x');
  });

  it('refuses with the caller’s sentence when it can neither encrypt nor keep plain text, or cannot decrypt', () => {
    const locked = { encrypt: () => 'x', decrypt: () => 'x', available: () => false };
    const sealer = createSealer({ encryptor: locked, allowPlaintextKeys: false });
    const onSave = refusal(() => sealer.seal('sk-x', 'Cannot save it.'));
    expect([onSave.code, onSave.message]).toEqual(['no_encryptor', 'Cannot save it.']);
    const onOpen = refusal(() => sealer.open('v1:a:b:c', 'encrypted', 'Cannot open it.'));
    expect([onOpen.code, onOpen.message]).toEqual(['no_encryptor', 'Cannot open it.']);
  });
});
