// The one home of secrets at rest: every repository that keeps a secret seals and opens it here,
// through the Encryptor (types.ts) its shell handed to openStore.
import { StoreError, type Encryptor, type KeyStorage } from '../types';

export interface KeyPolicy {
  encryptor?: Encryptor;
  allowPlaintextKeys: boolean;
}

export interface Sealer {
  /**
   * A secret as its row keeps it: encrypted when a usable encryptor is there, else in plain text
   * when that was allowed; else StoreError('no_encryptor', refusal).
   */
  seal(plain: string, refusal: string): { cipher: string; storage: Exclude<KeyStorage, 'none'> };
  /** What `seal` kept, opened; an encrypted one without a usable encryptor: StoreError('no_encryptor', refusal). */
  open(cipher: string, storage: KeyStorage, refusal: string): string;
}

export function createSealer(keys: KeyPolicy): Sealer {
  return {
    seal(plain, refusal) {
      if (keys.encryptor?.available()) return { cipher: keys.encryptor.encrypt(plain), storage: 'encrypted' };
      if (keys.allowPlaintextKeys) return { cipher: plain, storage: 'plaintext' };
      throw new StoreError('no_encryptor', refusal);
    },
    open(cipher, storage, refusal) {
      if (storage === 'plaintext') return cipher;
      if (!keys.encryptor?.available()) throw new StoreError('no_encryptor', refusal);
      return keys.encryptor.decrypt(cipher);
    },
  };
}
