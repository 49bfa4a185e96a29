/**
 * The daemon's files stay bounded: it runs for days, and each server's stderr log, each trace and
 * its own log would otherwise grow without end. A file past the bound is moved to `<file>.1` (the
 * one older generation, replaced), so at most twice the bound is kept per file.
 *
 * - `BoundedLog`: a server's stderr log, rotated as it is written.
 * - `rotateIfOver`: a file someone else appends to (a trace, the daemon's own log), rotated when
 *   it is opened again: at daemon start and at each (re)connection of the server it traces.
 * - A server's trace is also rotated as it is written: the tracer's `maxFileBytes` (held.ts).
 */
import fs from 'node:fs';

/** 16 MiB a file (and its one older generation). */
export const MAX_FILE_BYTES = 16 * 1024 * 1024;

/** Moves `file` to `<file>.1` when it is over `max` bytes; any error leaves it where it is. */
export function rotateIfOver(file: string, max = MAX_FILE_BYTES): boolean {
  try {
    if (fs.statSync(file).size <= max) return false;
    fs.renameSync(file, `${file}.1`);
    return true;
  } catch {
    return false; // absent, or not ours to move: appended to as it is
  }
}

/**
 * An append-only log of at most `max` bytes (plus its one older generation). Written
 * synchronously: a server's stderr comes in small, rare chunks, and a rotation must not race a
 * stream's deferred open.
 */
export class BoundedLog {
  private fd: number | undefined;
  private size: number;

  constructor(
    private readonly file: string,
    private readonly onError: (err: Error) => void,
    private readonly max = MAX_FILE_BYTES,
  ) {
    rotateIfOver(file, max);
    this.size = sizeOf(file);
  }

  write(chunk: Buffer): void {
    try {
      if (this.size > 0 && this.size + chunk.length > this.max) {
        this.end();
        fs.renameSync(this.file, `${this.file}.1`);
        this.size = 0;
      }
      this.fd ??= fs.openSync(this.file, 'a', 0o600);
      fs.writeSync(this.fd, chunk);
      this.size += chunk.length;
    } catch (err) {
      this.onError(err as Error);
    }
  }

  end(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    fs.closeSync(fd);
  }
}

function sizeOf(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}
