import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileEncryptor } from '../secrets/fileEncryptor';

describe('file encryptor (browser mode API keys)', () => {
  it('round-trips, never stores the plain key, and survives a restart', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tl-enc-'));
    const a = createFileEncryptor(dir);
    const sealed = a.encrypt('sk-secret-value');
    expect(sealed).not.toContain('sk-secret-value');
    expect(a.encrypt('sk-secret-value')).not.toBe(sealed); // fresh IV each time
    expect(createFileEncryptor(dir).decrypt(sealed)).toBe('sk-secret-value');
    expect(statSync(join(dir, 'secret.key')).mode & 0o077).toBe(0);
    expect(readFileSync(join(dir, 'secret.key'), 'utf8')).not.toContain('sk-');
  });

  it('rejects a tampered secret', () => {
    const enc = createFileEncryptor(mkdtempSync(join(tmpdir(), 'tl-enc-')));
    const parts = enc.encrypt('abc').split(':');
    parts[3] = Buffer.from('xyz').toString('base64');
    expect(() => enc.decrypt(parts.join(':'))).toThrow();
  });
});
