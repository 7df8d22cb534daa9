// A damaged database at start-up (issue 25): the desktop's offer, with the dialog injected and the
// real runtime on a real SQLite file with garbage written over some of its pages.
import { afterEach, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { dispatchRoute } from '@threadline/protocol';
import { offerFreshDatabase, type ShowMessageBox } from '../damagedDatabase';
import { dataFiles } from '../paths';
import { openDesktopRuntime } from '../runtime';
import { safeStorageEncryptor } from '../secrets';
import type { DesktopRuntime, DesktopRuntimeOptions } from '../runtimeTypes';

const sha = (f: string): string => createHash('sha256').update(readFileSync(f)).digest('hex');
let dir: string | null = null;
const runtimes: DesktopRuntime[] = [];
afterEach(async () => {
  for (const r of runtimes.splice(0)) await r.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = null;
});

function options(dataDir: string): DesktopRuntimeOptions {
  const keychain = {
    isEncryptionAvailable: () => true,
    getSelectedStorageBackend: () => 'gnome_libsecret',
    encryptString: (s: string) => Buffer.from(s, 'utf8').reverse(),
    decryptString: (b: Buffer) => Buffer.from(b).reverse().toString('utf8'),
  };
  return {
    dataDir,
    encryptor: safeStorageEncryptor(keychain, 'linux'),
    emit: () => {},
    env: {},
    cwd: dataDir,
    log: () => {},
  };
}

/** The desktop's real database with a session in it, then damaged; the error the runtime throws. */
async function damaged(): Promise<{ dataDir: string; file: string; error: unknown; before: string }> {
  dir = mkdtempSync(join(tmpdir(), 'tl-damaged-'));
  const dataDir = join(dir, 'data');
  const first = openDesktopRuntime(options(dataDir));
  const s = await dispatchRoute(first.api, 'sessions.create', { title: 'before the damage' });
  expect(s.ok).toBe(true);
  for (let i = 0; i < 30; i++) await dispatchRoute(first.api, 'sessions.create', { title: `filler ${i} `.repeat(100) });
  await first.close();
  const file = dataFiles(dataDir).database;
  const fd = openSync(file, 'r+');
  writeSync(fd, Buffer.from('garbage '.repeat(1536)), 0, 4096 * 3, 4096 * 2);
  closeSync(fd);
  const before = sha(file);
  let error: unknown = null;
  try {
    runtimes.push(openDesktopRuntime(options(dataDir)));
  } catch (err) {
    error = err;
  }
  expect(error).not.toBeNull();
  return { dataDir, file, error, before };
}

/** A dialog that answers with one button and remembers what it was shown. */
function dialogAnswering(response: number): ShowMessageBox & { shown: Parameters<ShowMessageBox>[0][] } {
  const shown: Parameters<ShowMessageBox>[0][] = [];
  const show = async (o: Parameters<ShowMessageBox>[0]) => {
    shown.push(o);
    return { response };
  };
  return Object.assign(show, { shown });
}

describe('a damaged database at desktop start-up', () => {
  it('offers one sentence and two buttons; Start fresh keeps the damaged file as named and the new database works', async () => {
    const { dataDir, file, error, before } = await damaged();
    const dialog = dialogAnswering(0);
    const choice = await offerFreshDatabase(error, file, 'en', dialog);
    expect(dialog.shown).toHaveLength(1);
    const shown = dialog.shown[0]!;
    expect(shown.message).toBe(`The database ${file} is damaged and cannot be opened.`);
    expect(shown.buttons).toEqual([expect.stringMatching(/^Start fresh — keep the damaged copy as /), 'Quit']);
    expect(choice).toEqual({ startFresh: true, keepAs: expect.stringContaining(`${file}.corrupt-`) });
    const keepAs = (choice as { keepAs: string }).keepAs;
    expect(shown.buttons[0]).toBe(`Start fresh — keep the damaged copy as ${basename(keepAs)}`);
    // Nothing was touched before the choice.
    expect(sha(file)).toBe(before);
    expect(existsSync(keepAs)).toBe(false);

    const fresh = openDesktopRuntime({ ...options(dataDir), keepDamagedAs: keepAs });
    runtimes.push(fresh);
    expect(sha(keepAs)).toBe(before);
    expect(await dispatchRoute(fresh.api, 'sessions.list', {})).toEqual({ ok: true, data: [] });
    const created = await dispatchRoute(fresh.api, 'sessions.create', { title: 'after the fresh start' });
    expect(created.ok).toBe(true);
    const listed = await fresh.api['sessions.list']({});
    expect(listed.map((x) => x.title)).toEqual(['after the fresh start']);
  }, 60_000);

  it('says it in Chinese too; Quit (or closing the dialog) changes nothing', async () => {
    const { dataDir, file, error, before } = await damaged();
    const dialog = dialogAnswering(1);
    expect(await offerFreshDatabase(error, file, 'zh-CN', dialog)).toEqual({ startFresh: false });
    const shown = dialog.shown[0]!;
    expect(shown.message).toBe(`数据库 ${file} 已损坏，无法打开。`);
    expect(shown.buttons).toEqual([expect.stringMatching(/^重新开始 — 将损坏的副本保留为 threadline\./), '退出']);
    expect(shown.cancelId).toBe(1);
    expect(sha(file)).toBe(before);
    expect(readdirSync(dataDir).filter((f) => f.includes('.corrupt-'))).toEqual([]);
  }, 60_000);

  it('is no offer for other start-up failures', async () => {
    const dialog = dialogAnswering(0);
    expect(
      await offerFreshDatabase(new Error('The data folder /x is on a read-only disk.'), '/x/db', 'en', dialog),
    ).toBe(null);
    expect(dialog.shown).toEqual([]);
  });
});
