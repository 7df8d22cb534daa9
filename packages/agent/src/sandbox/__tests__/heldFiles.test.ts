// HeldFiles with a real store and real files: a hold moves the entry itself (a link as a link),
// across file systems too (/dev/shm is another one here when it exists); Keep puts it back;
// the copies of a deleted session go at the next start.
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AppEvent } from '@threadline/protocol';
import { openStore, type Store } from '@threadline/store';
import { HeldFiles } from '../heldFiles';

let root: string;
let store: Store;
const events: AppEvent[] = [];
/** Folders made outside `root` (on another file system). */
const made: string[] = [];

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'tl-held-'));
  store = openStore({ file: path.join(root, 'threadline.db'), allowPlaintextKeys: true, env: {} });
  events.length = 0;
});
afterEach(() => {
  store.close();
  for (const p of [root, ...made.splice(0)]) rmSync(p, { recursive: true, force: true });
});

const held = () => new HeldFiles(store, (e) => events.push(e), path.join(root, 'data'));

/** A working folder on the data folder's file system, or on another one (/dev/shm) where there is one. */
function folderOn(other: boolean): string {
  const base = other && existsSync('/dev/shm') && statSync('/dev/shm').dev !== statSync(root).dev ? '/dev/shm' : root;
  const dir = mkdtempSync(path.join(base, 'tl-held-work-'));
  if (base !== root) made.push(dir);
  return dir;
}

describe('HeldFiles', () => {
  for (const other of [false, true])
    it(`holds the entry itself and puts it back on Keep (${other ? 'another' : 'the same'} file system)`, async () => {
      const folder = folderOn(other);
      const s = store.sessions.create('s', folder);
      const outside = path.join(root, 'outside');
      mkdirSync(outside);
      writeFileSync(path.join(outside, 'keep.txt'), 'theirs');
      mkdirSync(path.join(folder, 'sub', '.vscode'), { recursive: true });
      writeFileSync(path.join(folder, 'sub', '.vscode', 'tasks.json'), '{}');
      symlinkSync(outside, path.join(folder, 'out'));
      execFileSync('mkfifo', [path.join(folder, 'pipe')]);
      const h = held();
      const taken = await h.hold(s.id, folder, [
        { path: 'sub/.vscode', kind: 'dir', reason: 'editor_tasks', when: 'now' },
        { path: 'out', kind: 'link', reason: 'link_outside', when: 'now' },
        { path: 'pipe', kind: 'fifo', reason: 'special_file', when: 'now' },
        { path: 'gone', kind: 'file', reason: 'envrc', when: 'now' },
      ]);
      expect(taken.map((f) => [f.path, f.entries, f.target, f.keepable])).toEqual([
        ['sub/.vscode', 1, null, true],
        ['out', null, outside, true],
        ['pipe', null, null, !other],
      ]);
      expect(events.at(-1)).toMatchObject({ type: 'held.updated', sessionId: s.id });
      expect(readdirSync(folder).sort()).toEqual(['sub']);
      expect(readFileSync(path.join(outside, 'keep.txt'), 'utf8')).toBe('theirs');
      // The folder that held the .vscode is gone meanwhile: Keep makes it again.
      rmSync(path.join(folder, 'sub'), { recursive: true });
      const out = await h.resolve(s.id, 'keep');
      expect(out.failed).toEqual(other ? [{ path: 'pipe', why: 'not_keepable' }] : []);
      expect(readFileSync(path.join(folder, 'sub', '.vscode', 'tasks.json'), 'utf8')).toBe('{}');
      expect(readlinkSync(path.join(folder, 'out'))).toBe(outside);
      if (!other) expect(lstatSync(path.join(folder, 'pipe')).isFIFO()).toBe(true);
      expect(h.list(s.id).map((f) => f.path)).toEqual(other ? ['pipe'] : []);
    });

  it('never puts a file back through a link, and removes the copies of a deleted session at the next start', async () => {
    const folder = folderOn(false);
    const s = store.sessions.create('s', folder);
    mkdirSync(path.join(folder, 'sub'));
    writeFileSync(path.join(folder, 'sub', '.envrc'), 'x');
    const h = held();
    await h.hold(s.id, folder, [{ path: 'sub/.envrc', kind: 'file', reason: 'envrc', when: 'now' }]);
    rmSync(path.join(folder, 'sub'), { recursive: true });
    const elsewhere = path.join(root, 'elsewhere');
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, path.join(folder, 'sub'));
    expect((await h.resolve(s.id, 'keep')).failed).toEqual([{ path: 'sub/.envrc', why: 'occupied' }]);
    expect(readdirSync(elsewhere)).toEqual([]);
    const copies = path.join(root, 'data', 'held', s.id);
    expect(readdirSync(copies)).toHaveLength(1);
    const other = store.sessions.create('t', folder);
    writeFileSync(path.join(folder, 'AGENTS.md'), 'x');
    await h.hold(other.id, folder, [{ path: 'AGENTS.md', kind: 'file', reason: 'agent_config', when: 'now' }]);
    store.sessions.delete(s.id);
    await held().sweep();
    expect(existsSync(copies)).toBe(false);
    expect(readdirSync(path.join(root, 'data', 'held', other.id))).toHaveLength(1);
  });
});
