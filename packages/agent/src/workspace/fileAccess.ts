import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, type Stats } from 'node:fs';
import { lstat, open, type FileHandle } from 'node:fs/promises';

/**
 * Opening a file the app did not make, without ever waiting on it. `open()` of a FIFO blocks until
 * a writer comes (forever, if none does), a read of a FIFO, a socket or a terminal waits for data,
 * and a device can be endless (`/dev/zero`) or act on being opened: any of them on the thread that
 * answers requests freezes every session, and on libuv's thread pool (four threads) four of them
 * starve every file operation of the app. So a file is read only when it is a regular file:
 * `lstat` first (a special file or a link is refused before any open), then `open` with
 * O_NONBLOCK|O_NOFOLLOW (a FIFO or device swapped in after the check opens without waiting; a
 * link swapped in fails) and `fstat` of the descriptor (what was really opened). Callers pass a
 * path already resolved (workspace/resolve.ts): a link here was planted after the check.
 */

export type FileKind = 'file' | 'directory' | 'symlink' | 'fifo' | 'socket' | 'char_device' | 'block_device' | 'other';

/** What a stat (or a directory entry, which answers the same questions without a stat) says a path is. */
export function kindOf(
  st: Pick<
    Stats,
    'isFile' | 'isDirectory' | 'isSymbolicLink' | 'isFIFO' | 'isSocket' | 'isCharacterDevice' | 'isBlockDevice'
  >,
): FileKind {
  if (st.isFile()) return 'file';
  if (st.isDirectory()) return 'directory';
  if (st.isSymbolicLink()) return 'symlink';
  if (st.isFIFO()) return 'fifo';
  if (st.isSocket()) return 'socket';
  if (st.isCharacterDevice()) return 'char_device';
  if (st.isBlockDevice()) return 'block_device';
  return 'other';
}

const KIND_WORDS: Record<Exclude<FileKind, 'file'>, string> = {
  directory: 'a folder',
  symlink: 'a symbolic link',
  fifo: 'a named pipe (FIFO)',
  socket: 'a socket',
  char_device: 'a character device',
  block_device: 'a block device',
  other: 'a special file',
};

/** A path that is not a regular file, refused before anything waited on it. */
export class NotARegularFileError extends Error {
  readonly code = 'ENOTREG';
  constructor(
    readonly path: string,
    readonly kind: Exclude<FileKind, 'file'>,
  ) {
    super(
      kind === 'directory'
        ? `${path} is a folder, not a file`
        : `${path} is ${KIND_WORDS[kind]}, not a regular file: it was not opened (reading it could wait forever)`,
    );
    this.name = 'NotARegularFileError';
  }
}

/** A read that did not finish in its time (a slow or hung file system). */
export class ReadDeadlineError extends Error {
  readonly code = 'ETIMEDOUT';
  constructor(
    readonly path: string,
    ms: number,
  ) {
    super(`reading ${path} did not finish within ${Math.round(ms / 1000)} s`);
    this.name = 'ReadDeadlineError';
  }
}

/** Every read of a file the app did not make finishes within this, or fails. */
export const READ_DEADLINE_MS = 15_000;

// Not on Windows (no FIFOs or symlink races of this kind there): 0 changes nothing.
const NONBLOCK = constants.O_NONBLOCK ?? 0;
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const READ_FLAGS = constants.O_RDONLY | NONBLOCK | NOFOLLOW;

function refuse(file: string, st: Stats): void {
  const kind = kindOf(st);
  if (kind !== 'file') throw new NotARegularFileError(file, kind);
}

/** An ELOOP from O_NOFOLLOW: the last component became a link after the check. */
function linkSwapped(file: string, err: unknown): unknown {
  return (err as NodeJS.ErrnoException).code === 'ELOOP' ? new NotARegularFileError(file, 'symlink') : err;
}

/** A regular file opened for reading, never waiting on what it is (see above). Close `fh`. */
export async function openRegularFile(file: string): Promise<{ fh: FileHandle; stat: Stats }> {
  refuse(file, await lstat(file));
  let fh: FileHandle;
  try {
    fh = await open(file, READ_FLAGS);
  } catch (err) {
    throw linkSwapped(file, err);
  }
  try {
    const stat = await fh.stat();
    refuse(file, stat);
    return { fh, stat };
  } catch (err) {
    await fh.close();
    throw err;
  }
}

/**
 * The first `max` bytes of a regular file (what was read, its size, whether it was cut), with a
 * deadline: a read still running then fails (the descriptor is closed once it returns).
 */
export async function readRegularFile(
  file: string,
  max: number,
  opts: { signal?: AbortSignal; deadlineMs?: number } = {},
): Promise<{ bytes: Buffer; size: number; capped: boolean }> {
  const work = (async () => {
    const { fh, stat } = await openRegularFile(file);
    try {
      const buf = Buffer.alloc(Math.min(stat.size, max));
      let filled = 0;
      while (filled < buf.length) {
        if (opts.signal?.aborted) break;
        const { bytesRead } = await fh.read(buf, filled, buf.length - filled, filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      return { bytes: buf.subarray(0, filled), size: stat.size, capped: stat.size > max };
    } finally {
      await fh.close();
    }
  })();
  return withDeadline(
    work,
    opts.deadlineMs ?? READ_DEADLINE_MS,
    () => new ReadDeadlineError(file, opts.deadlineMs ?? READ_DEADLINE_MS),
    opts.signal,
  );
}

/**
 * The synchronous form, for the few reads the app makes of a working folder on its own behalf
 * (the project's instructions, a git config a command left): bounded by `max` bytes of a regular
 * file, so it costs a small constant on the request thread and can never wait.
 */
export function readRegularFileSync(file: string, max: number): { bytes: Buffer; size: number; capped: boolean } {
  refuse(file, lstatSync(file));
  let fd: number;
  try {
    fd = openSync(file, READ_FLAGS);
  } catch (err) {
    throw linkSwapped(file, err);
  }
  try {
    const stat = fstatSync(fd);
    refuse(file, stat);
    const buf = Buffer.alloc(Math.min(stat.size, max));
    let filled = 0;
    while (filled < buf.length) {
      const n = readSync(fd, buf, filled, buf.length - filled, filled);
      if (n === 0) break;
      filled += n;
    }
    return { bytes: buf.subarray(0, filled), size: stat.size, capped: stat.size > max };
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes `data` to a regular file (created if missing), never waiting on what is there: a FIFO
 * (whose open for writing would wait for a reader), socket or device in its place is refused,
 * as is a link planted after the path was resolved. Opened without truncating, checked, then cut.
 */
export async function writeRegularFile(file: string, data: string | Uint8Array): Promise<void> {
  try {
    refuse(file, await lstat(file));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  let fh: FileHandle;
  try {
    fh = await open(file, constants.O_WRONLY | constants.O_CREAT | NONBLOCK | NOFOLLOW, 0o666);
  } catch (err) {
    throw linkSwapped(file, err);
  }
  try {
    refuse(file, await fh.stat());
    await fh.truncate(0);
    await fh.writeFile(data, typeof data === 'string' ? 'utf8' : undefined);
  } finally {
    await fh.close();
  }
}

/** Aborted work: what a caller gets when the signal fires first. */
export class AbortedError extends Error {
  readonly code = 'ABORT_ERR';
  constructor() {
    super('aborted');
    this.name = 'AbortedError';
  }
}

/**
 * `work`, or an error once `ms` have passed or `signal` fired, whichever comes first. The work
 * itself goes on (a read in flight cannot be taken back); its result is dropped.
 */
export function withDeadline<T>(
  work: Promise<T>,
  ms: number,
  onDeadline: () => Error,
  signal?: AbortSignal,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const finish = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      fn();
    };
    const timer = setTimeout(() => finish(() => reject(onDeadline())), ms);
    timer.unref?.();
    const onAbort = (): void => finish(() => reject(new AbortedError()));
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => finish(() => resolve(v)),
      (e: unknown) => finish(() => reject(e as Error)),
    );
  });
}
