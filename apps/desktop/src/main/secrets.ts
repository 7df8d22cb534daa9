/**
 * API keys at rest go through Electron's safeStorage (OS keychain / DPAPI / libsecret), as the
 * store's `Encryptor`. When no real keychain is available the encryptor says so and the store
 * refuses to save a key: it never falls back to plaintext.
 */
import type { Encryptor } from '@threadline/agent';

/** The few members of Electron's `safeStorage` this module uses (a fake in tests). */
export interface SafeStorageLike {
  isEncryptionAvailable(): boolean;
  encryptString(plain: string): Buffer;
  decryptString(encrypted: Buffer): string;
  getSelectedStorageBackend?(): string;
}

export const KEYCHAIN_UNAVAILABLE_MESSAGE =
  'No secure key storage is available on this system (the OS keychain or Secret Service is missing or locked), ' +
  'so Threadline will not save API keys. Unlock or install a keyring (e.g. GNOME Keyring or KWallet) and restart Threadline, ' +
  'or provide the key through the OPENAI_API_KEY environment variable.';

export function safeStorageEncryptor(safeStorage: SafeStorageLike, platform: NodeJS.Platform): Encryptor {
  const available = (): boolean => {
    if (!safeStorage.isEncryptionAvailable()) return false;
    // On Linux without a Secret Service, Chromium's "basic_text" backend encrypts with a
    // hard-coded password: that is plaintext in disguise, so treat it as unavailable.
    if (platform === 'linux' && safeStorage.getSelectedStorageBackend?.() === 'basic_text') return false;
    return true;
  };
  return {
    available,
    encrypt(plain) {
      if (!available()) throw new Error(KEYCHAIN_UNAVAILABLE_MESSAGE);
      return safeStorage.encryptString(plain).toString('base64');
    },
    decrypt(cipher) {
      if (!safeStorage.isEncryptionAvailable()) throw new Error(KEYCHAIN_UNAVAILABLE_MESSAGE);
      return safeStorage.decryptString(Buffer.from(cipher, 'base64'));
    },
  };
}
