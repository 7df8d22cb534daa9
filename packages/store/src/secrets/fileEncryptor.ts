import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Encryptor } from '../types';

/**
 * Browser mode has no OS keychain (Electron uses safeStorage). API keys are sealed with
 * AES-256-GCM under a random key kept beside the database, readable by the owner only, so the
 * database file alone never reveals a key.
 */
export function createFileEncryptor(dataDir: string): Encryptor {
  const keyFile = join(dataDir, 'secret.key');
  let key: Buffer;
  if (existsSync(keyFile)) {
    key = Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new Error(`${keyFile} is not a valid key file (expected 32 bytes, base64).`);
  } else {
    key = randomBytes(32);
    writeFileSync(keyFile, key.toString('base64'), { mode: 0o600 });
  }
  try {
    chmodSync(keyFile, 0o600);
  } catch {
    // not fatal on file systems without modes
  }
  return {
    available: () => true,
    encrypt(plain) {
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
      return ['v1', iv.toString('base64'), c.getAuthTag().toString('base64'), body.toString('base64')].join(':');
    },
    decrypt(sealed) {
      const [v, iv, tag, body] = sealed.split(':');
      if (v !== 'v1' || !iv || !tag || body === undefined) throw new Error('Unrecognized sealed secret');
      const d = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
      d.setAuthTag(Buffer.from(tag, 'base64'));
      return Buffer.concat([d.update(Buffer.from(body, 'base64')), d.final()]).toString('utf8');
    },
  };
}
