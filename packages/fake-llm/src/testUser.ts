/**
 * An unprivileged user for tests of boundaries (the sandbox, the file tools' reach): CI runs as
 * root, and root reads every file and ignores most permission bits, so a boundary checked as root
 * proves nothing. `testUser()` gives a separate system user (created once with `useradd`, reused
 * after) and the argv that runs a child as it; when the tests already run as an ordinary user, it
 * is that user and nothing is switched.
 *
 * Only node built-ins and util-linux/shadow programs (setpriv, useradd, flock, chown), so a child
 * can load this file with `node --experimental-strip-types` too.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, chownSync, statSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';

export interface TestUser {
  name: string;
  uid: number;
  gid: number;
  /** The user's home folder from the password database (tests usually give a fake HOME instead). */
  home: string;
  /** true: the tests run as root and children run as this other user; false: it is the current user. */
  switched: boolean;
  /** The argv that runs `command args` as the user (setpriv in front of it when switched). */
  argv(command: string, args?: readonly string[]): { command: string; args: string[] };
  /** `base` with HOME, USER and LOGNAME of the user (HOME: `home`, default the user's own). */
  env(base?: NodeJS.ProcessEnv, home?: string): NodeJS.ProcessEnv;
  /**
   * Makes each path reachable by the user: every folder above it searchable (the search bit for
   * others, never the read bit, is added where it is missing), and the path itself readable (and
   * searchable or runnable where its owner's is). A no-op when not switched.
   */
  reach(...paths: string[]): void;
  /** A new folder in the system temp folder, owned by the user (mode 0700), reachable by it. */
  tempDir(prefix?: string): string;
  /** Gives the user `p` and everything under it (chown -R). A no-op when not switched. */
  own(p: string): void;
}

export const TEST_USER_NAME = 'tltest';

/** Held while a user is looked up and created, so concurrent test files do not race in useradd. */
const LOCK_FILE = path.join(tmpdir(), 'threadline-test-user.lock');
/** useradd's exit codes: 9 = the name is taken (another process made it first). */
const USERADD_NAME_IN_USE = 9;

interface Account {
  name: string;
  uid: number;
  gid: number;
  home: string;
}

function lookUp(name: string): Account | null {
  const r = spawnSync('getent', ['passwd', name], { encoding: 'utf8' });
  if (r.status !== 0) return null;
  const [, , uid, gid, , home] = r.stdout.trim().split(':');
  return { name, uid: Number(uid), gid: Number(gid), home: home ?? '/' };
}

function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * The account, created when missing. Creation is serialized by flock on LOCK_FILE (test files of
 * one run), and a busy /etc/passwd lock (another program, another run) is retried.
 */
function ensureAccount(name: string): Account {
  const found = lookUp(name);
  if (found) return found;
  let last = '';
  for (let attempt = 0; attempt < 60; attempt++) {
    const r = spawnSync(
      'flock',
      ['-w', '120', LOCK_FILE, 'useradd', '--create-home', '--user-group', '--shell', '/bin/bash', name],
      { encoding: 'utf8' },
    );
    // 0: made it; USERADD_NAME_IN_USE: another process made it first. Either way it is there now.
    const made = lookUp(name);
    if (made) return made;
    if (r.status === USERADD_NAME_IN_USE) continue;
    last = `${r.stderr ?? ''}${r.error?.message ?? ''}`.trim();
    // "cannot lock /etc/passwd; try again later": someone else is writing the password files.
    if (!/lock/i.test(last)) break;
    pause(100 + Math.floor(Math.random() * 200));
  }
  throw new Error(`could not create the test user ${name}: ${last || 'useradd failed'}`);
}

function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/** The folders from `/` down to the one holding `p`. */
function ancestors(p: string): string[] {
  const out: string[] = [];
  let dir = path.dirname(path.resolve(p));
  for (;;) {
    out.unshift(dir);
    const up = path.dirname(dir);
    if (up === dir) return out;
    dir = up;
  }
}

/** The permission bits `who` gets on a file with this owner, group and mode (0–7). */
function bitsFor(st: { uid: number; gid: number; mode: number }, who: Account): number {
  if (st.uid === who.uid) return (st.mode >> 6) & 7;
  if (st.gid === who.gid) return (st.mode >> 3) & 7;
  return st.mode & 7;
}

function addOtherBits(p: string, bits: number): void {
  const st = statSync(p);
  chmodSync(p, (st.mode & 0o7777) | bits);
}

function makeReachable(who: Account, p: string): void {
  for (const dir of ancestors(p)) {
    const st = statSync(dir);
    if ((bitsFor(st, who) & 1) === 0) addOtherBits(dir, 0o001);
  }
  const st = statSync(p);
  const have = bitsFor(st, who);
  const ownerX = (st.mode & 0o100) !== 0;
  const need = 4 | (st.isDirectory() || ownerX ? 1 : 0);
  if ((have & need) !== need) addOtherBits(p, need);
}

const cache = new Map<string, TestUser>();

/**
 * The unprivileged user tests run children as: `name` (default `tltest`) created or reused when
 * the tests run as root, else the current user. Throws when root cannot create it (no useradd).
 */
export function testUser(opts: { name?: string } = {}): TestUser {
  const root = isRoot();
  const key = root ? (opts.name ?? TEST_USER_NAME) : '';
  const hit = cache.get(key);
  if (hit) return hit;
  let account: Account;
  if (root) account = ensureAccount(key);
  else {
    const me = userInfo();
    account = { name: me.username, uid: me.uid, gid: me.gid, home: me.homedir };
  }
  const user: TestUser = {
    ...account,
    switched: root,
    argv(command, args = []) {
      if (!root) return { command, args: [...args] };
      return {
        command: 'setpriv',
        args: [`--reuid=${account.uid}`, `--regid=${account.gid}`, '--init-groups', '--', command, ...args],
      };
    },
    env(base = process.env, home = account.home) {
      return { ...base, HOME: home, USER: account.name, LOGNAME: account.name };
    },
    reach(...paths) {
      if (!root) return;
      for (const p of paths) makeReachable(account, p);
    },
    tempDir(prefix = 'threadline-user-') {
      const dir = mkdtempSync(path.join(tmpdir(), prefix));
      if (root) {
        chownSync(dir, account.uid, account.gid);
        makeReachable(account, dir);
      }
      return dir;
    },
    own(p) {
      if (!root) return;
      const r = spawnSync('chown', ['-R', `${account.uid}:${account.gid}`, p], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`chown -R ${p} failed: ${r.stderr.trim()}`);
    },
  };
  cache.set(key, user);
  return user;
}
