// Browser mode's address kept per data folder, so a restart gives the open tab the same address
// and key: it reconnects by itself instead of dying with "wrong token". `browser.json` beside the
// database (mode 0600, like secret.key): the token, and the port last used when none was asked for.
// The file is in the data folder, which file tools refuse and the sandbox hides.
import { randomBytes } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';

const FILE = 'browser.json';

/** A token given with --token: URL-safe, long enough not to be guessed. */
export const TokenSchema = z.string().regex(/^[A-Za-z0-9_-]{16,200}$/);

const KeptSchema = z.object({
  token: TokenSchema,
  port: z.number().int().min(1).max(65535).optional(),
});
export type KeptAddress = z.infer<typeof KeptSchema>;

/** What the last start kept, or null (none yet, unreadable, or not ours). */
export function readKeptAddress(dataDir: string): KeptAddress | null {
  try {
    const parsed = KeptSchema.safeParse(JSON.parse(readFileSync(join(dataDir, FILE), 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Keeps it for the next start (written whole, readable only by this user). */
export function keepAddress(dataDir: string, kept: KeptAddress): void {
  const file = join(dataDir, FILE);
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(kept)}\n`, { mode: 0o600 });
  renameSync(temp, file);
}

export const newToken = (): string => randomBytes(24).toString('base64url');
