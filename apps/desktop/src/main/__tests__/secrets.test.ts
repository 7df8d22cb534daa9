import { describe, expect, it } from 'vitest';
import { KEYCHAIN_UNAVAILABLE_MESSAGE, safeStorageEncryptor, type SafeStorageLike } from '../secrets';

/** A stand-in for Electron's safeStorage: reversible, but visibly not plaintext. */
function fakeSafeStorage(available: boolean, backend = 'gnome_libsecret'): SafeStorageLike {
  return {
    isEncryptionAvailable: () => available,
    getSelectedStorageBackend: () => backend,
    encryptString: (plain) => Buffer.from([...Buffer.from(plain, 'utf8')].map((b) => b ^ 0x5a)),
    decryptString: (buf) => Buffer.from([...buf].map((b) => b ^ 0x5a)).toString('utf8'),
  };
}

describe('safeStorageEncryptor', () => {
  it('round-trips a key and never stores the plaintext', () => {
    const enc = safeStorageEncryptor(fakeSafeStorage(true), 'linux');
    expect(enc.available()).toBe(true);
    const cipher = enc.encrypt('sk-secret-123');
    expect(cipher).not.toContain('sk-secret');
    expect(Buffer.from(cipher, 'base64').toString('utf8')).not.toContain('sk-secret');
    expect(enc.decrypt(cipher)).toBe('sk-secret-123');
  });

  it('refuses to encrypt without a keychain, with a clear message', () => {
    const enc = safeStorageEncryptor(fakeSafeStorage(false), 'win32');
    expect(enc.available()).toBe(false);
    expect(() => enc.encrypt('sk-1')).toThrow(KEYCHAIN_UNAVAILABLE_MESSAGE);
  });

  it("treats Linux's basic_text backend as unavailable (it is plaintext in disguise)", () => {
    expect(safeStorageEncryptor(fakeSafeStorage(true, 'basic_text'), 'linux').available()).toBe(false);
    expect(() => safeStorageEncryptor(fakeSafeStorage(true, 'basic_text'), 'linux').encrypt('k')).toThrow(
      /will not save API keys/,
    );
    expect(safeStorageEncryptor(fakeSafeStorage(true, 'basic_text'), 'darwin').available()).toBe(true);
  });
});
