import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { openStore } from '../openStore';
import type { MemoryFact } from '@threadline/protocol';
import type { Encryptor, OpenStoreOptions, Store } from '../types';

/** A fresh temp folder per test, removed afterwards; stores opened through it are closed first. */
export function useTempDir(): { dir: () => string; open: (opts?: Partial<OpenStoreOptions>) => Store } {
  let dir: string | null = null;
  const stores: Store[] = [];
  afterEach(() => {
    for (const s of stores.splice(0)) s.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = null;
  });
  const getDir = (): string => (dir ??= mkdtempSync(join(tmpdir(), 'tl-store-')));
  return {
    dir: getDir,
    open(opts = {}) {
      const s = openStore({ file: join(getDir(), 'threadline.db'), env: {}, ...opts });
      stores.push(s);
      return s;
    },
  };
}

/** Reversible and visibly not plain text, like safeStorage's output. */
export function fakeEncryptor(available = true): Encryptor & { calls: number } {
  const enc = {
    calls: 0,
    available: () => available,
    encrypt(plain: string): string {
      enc.calls += 1;
      return 'enc:' + Buffer.from(plain, 'utf8').toString('base64').split('').reverse().join('');
    },
    decrypt(cipher: string): string {
      return Buffer.from(cipher.slice(4).split('').reverse().join(''), 'base64').toString('utf8');
    },
  };
  return enc;
}

/** A clock that advances 1 ms per call, so ordering by time is deterministic. */
export function steppingClock(start = 1_700_000_000_000): () => number {
  let t = start;
  return () => t++;
}

/** An automatic (CFPM) fact as a refresh hands it to the store. */
export function autoFact(sessionId: string, id: string, content: string, extra: Partial<MemoryFact> = {}): MemoryFact {
  return {
    id,
    sessionId,
    category: 'artifact',
    content,
    status: 'active',
    pinned: false,
    source: 'cfpm_auto',
    confidence: 0.7,
    evidenceCount: 1,
    lastValidatedAt: null,
    validationCommand: null,
    createdAt: 1,
    updatedAt: 1,
    ...extra,
  };
}
