/**
 * A cross-process lock beside a file (`<file>.lock`, a directory made atomically by
 * proper-lockfile), so that two processes sharing one token store serialize their
 * read-modify-write cycles and their refreshes: the second one in waits, re-reads the store and
 * finds the first one's result instead of spending the (rotated) refresh token again.
 *
 * Inside one process, callers of the same file queue on a promise chain first, so the lock
 * directory is only ever contended between processes. A holder that dies leaves a lock whose
 * mtime stops moving; after `staleMs` another process takes it over (proper-lockfile keeps the
 * mtime fresh while the holder lives).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { AbortError, McpWireError } from '../errors.js';
import { KeyedSerial } from '../util/serial.js';
import { sleep } from '../util/sleep.js';

/** Options of `withFileLock`. */
export interface FileLockOptions {
  /** Gives up waiting (rejects with AbortError); the lock is never taken after it fired. */
  signal?: AbortSignal;
  /** Most time to wait for another process's lock (default 60 000 ms). */
  waitMs?: number;
  /** A lock not touched for this long is taken as abandoned (default 10 000 ms, at least 2 000). */
  staleMs?: number;
  /** Called once, when another process holds the lock and this call starts waiting for it. */
  onWait?: () => void;
}

/** The lock could not be taken in time, or was lost while held. */
export class TokenStoreLockError extends McpWireError {
  readonly file: string;
  constructor(message: string, file: string, cause?: unknown) {
    super('MCPWIRE_TOKEN_STORE_LOCK', message, { phase: 'auth', ...(cause !== undefined ? { cause } : {}) });
    this.name = 'TokenStoreLockError';
    this.file = file;
  }
}

const queues = new KeyedSerial<string>();
/** The lock files held by the current async context: taking one again there runs at once (re-entrant). */
const held = new AsyncLocalStorage<ReadonlySet<string>>();

/** The lock path used for `file`. */
export function lockPathFor(file: string): string {
  return `${path.resolve(file)}.lock`;
}

/**
 * Runs `fn` holding the lock of `file` (in this process and across processes), releasing it
 * however `fn` ends. The directory of `file` is created (0700) when missing. Re-entrant: code
 * that runs inside `fn` (in its async context) and asks for the same lock gets it at once.
 */
export async function withFileLock<T>(file: string, fn: () => Promise<T>, options: FileLockOptions = {}): Promise<T> {
  const key = path.resolve(file);
  const mine = held.getStore();
  if (mine?.has(key)) return fn();
  const inside = (): Promise<T> => held.run(new Set([...(mine ?? []), key]), fn);
  return queues.run(key, () => lockedRun(key, inside, options));
}

async function lockedRun<T>(file: string, fn: () => Promise<T>, options: FileLockOptions): Promise<T> {
  if (options.signal?.aborted) throw new AbortError('waiting for the token store lock was aborted', { phase: 'auth' });
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  let compromised: Error | undefined;
  const release = await acquire(file, options, (err) => {
    compromised = err;
  });
  try {
    const out = await fn();
    if (compromised) throw new TokenStoreLockError(`the lock of ${file} was lost while held`, file, compromised);
    return out;
  } finally {
    await release().catch(() => {});
  }
}

/**
 * proper-lockfile is loaded on first use only: it brings signal-exit, which adds process
 * listeners for SIGINT/SIGTERM/SIGHUP as it loads — a CLI run that never refreshes a token
 * must not carry them (they would also count as "the program's own" signal listeners).
 */
let lockfileModule: Promise<typeof import('proper-lockfile')> | undefined;
function loadLockfile(): Promise<typeof import('proper-lockfile')> {
  lockfileModule ??= import('proper-lockfile').then((m) => ((m as { default?: typeof import('proper-lockfile') }).default ?? m) as typeof import('proper-lockfile'));
  return lockfileModule;
}

async function acquire(file: string, options: FileLockOptions, onCompromised: (err: Error) => void): Promise<() => Promise<void>> {
  const lockfile = await loadLockfile();
  const deadline = Date.now() + (options.waitMs ?? 60_000);
  const stale = Math.max(2_000, options.staleMs ?? 10_000);
  for (let attempt = 0; ; attempt++) {
    try {
      return await lockfile.lock(file, { realpath: false, lockfilePath: lockPathFor(file), stale, retries: 0, onCompromised });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ELOCKED') throw new TokenStoreLockError(`cannot lock ${file}: ${(err as Error).message}`, file, err);
      if (Date.now() >= deadline) throw new TokenStoreLockError(`timed out waiting for the lock of ${file}`, file, err);
      if (attempt === 0) options.onWait?.();
      await sleep(Math.min(25 * 2 ** Math.min(attempt, 5), 500) * (0.5 + Math.random() / 2), options.signal, lockAborted);
    }
  }
}

function lockAborted(): AbortError {
  return new AbortError('waiting for the token store lock was aborted', { phase: 'auth' });
}
