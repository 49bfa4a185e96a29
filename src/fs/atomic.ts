/**
 * Atomic file replacement for config and credential files (host config, trust store, token store): write a temporary file beside the target (mode
 * 0600 — config can hold secrets), flush it, then rename it over the target, so a reader sees
 * either the old or the new file, never half of one. Missing directories are created (0700).
 * A symlinked config file is followed: the link stays and its target is replaced.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, realpath, rename, rm } from 'node:fs/promises';
import path from 'node:path';

/** Replaces `file` with `text` atomically, creating parent directories. */
export async function writeFileAtomic(file: string, text: string): Promise<void> {
  const target = await realpath(file).catch(() => file);
  await mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
  const tmp = `${target}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const fh = await open(tmp, 'wx', 0o600);
  try {
    try {
      await fh.writeFile(text, 'utf8');
      await fh.chmod(0o600);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, target);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

/** Reads `file`, or returns `undefined` when it does not exist. */
export async function readIfExists(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}
