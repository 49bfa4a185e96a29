/**
 * Config and trust-store edits run one at a time, across processes: each read-modify-write of a
 * file holds that file's lock (`<file>.lock`, the token store's lock of auth/lock.ts) and reads
 * the file inside it, so parallel `mcp add` runs (or a `trust` beside an `mcp add`) never write
 * over each other's entries. A symlinked file is locked at its target, the file actually written.
 */
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { TokenStoreLockError, withFileLock } from '../../auth/lock.js';
import { ConfigError } from '../../errors.js';

/** Runs `edit` (which reads and writes `file`) holding the lock of `file`. */
export async function lockedEdit<T>(file: string, edit: () => Promise<T>): Promise<T> {
  const target = await realpath(file).catch(() => path.resolve(file));
  try {
    return await withFileLock(target, edit);
  } catch (err) {
    if (err instanceof TokenStoreLockError) throw new ConfigError(`${file}: cannot take its lock to edit it (${err.message}); nothing written`, { phase: 'config', cause: err });
    throw err;
  }
}
