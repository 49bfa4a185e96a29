/**
 * The shared file destinations of traces: several tracers may append to one file. Lines are
 * batched in one buffer per file and written through pino's destination (SonicBoom); see below.
 */
import { fstatSync, renameSync, writeSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { McpWireError } from '../errors.js';

// Each line is written whole by its tracer into the file's one pending batch buffer (while the
// line is still hot in the cache), which goes to pino's destination (SonicBoom, in buffer mode: no
// further string conversion; in sync mode: a write of ~64 KiB to a local file takes tens of
// microseconds, far less CPU than handing it to libuv's thread pool, and the buffer is free
// again when the call returns) once it holds BATCH_BYTES (in the check phase of that turn:
// `drainSoon`), on the periodic flush, on
// flush()/close() and at process exit. A line is written in one piece, so lines of tracers sharing
// a file never interleave.
export interface SharedDestination {
  stream: SonicBoomLike;
  refs: number;
  buf: Buffer;
  used: number;
  /**
   * Batch buffers handed to the stream, oldest first, with the bytes of each not yet written
   * (the stream holds them all until written anyway; every batch is tracked, so the byte counts
   * stay in step with the stream's).
   */
  inflight: Buffer[];
  inflightLeft: number[];
  /** Buffers whose batch has been written, to fill again (see `written`). */
  spare: Buffer[];
  /** False once the byte counts may be out of step (see `drain`): every batch a new buffer. */
  recycle: boolean;
  timer: NodeJS.Timeout;
  /** The full batch's write, queued for the check phase of this turn (see `drainSoon`). */
  soon: NodeJS.Immediate | undefined;
  drainSoon: () => void;
  onExit: () => void;
  /** The file's path (absolute) and its size as far as we know (at open, plus the batches since). */
  path: string;
  size: number;
  /** Past this size the file moves to `<path>.1` and a new one starts (see `rotate`); none: grows. */
  maxBytes: number | undefined;
  /** Message lines held to be encoded together (held-lines.ts): they go into the batch before anything else does. */
  held: Held | undefined;
}

/** Lines held back from the batch (held-lines.ts): `n` of them; `settle` encodes them into it. */
export interface Held {
  n: number;
  settle(): void;
}

export interface SonicBoomLike extends NodeJS.EventEmitter {
  fd: number;
  flush(cb?: (err?: Error | null) => void): void;
  flushSync(): void;
  end(): void;
  write(data: Buffer): boolean;
  reopen(file?: string): void;
}

const files = new Map<string, SharedDestination>();
const FLUSH_EVERY_MS = 250;
/** A batch this full is written: few big writes cost far less CPU than many small ones (SonicBoom passes writes above its 16 KiB maxWrite as they are). */
export const BATCH_BYTES = 64 * 1024;
/** The batch buffer: room for a full batch plus the longest line that is still encoded into it. */
export const BUF_BYTES = 2 * BATCH_BYTES;

export function append(shared: SharedDestination, line: string): void {
  if (shared.held !== undefined && shared.held.n > 0) shared.held.settle();
  // UTF-8 takes at most 3 bytes per UTF-16 unit: check room without measuring the line.
  if (shared.used + line.length * 3 > BUF_BYTES) {
    drain(shared);
    if (line.length * 3 > BUF_BYTES) {
      shared.stream.write(Buffer.from(line, 'utf8'));
      return;
    }
  }
  shared.used += shared.buf.write(line, shared.used);
  if (shared.used >= BATCH_BYTES) drainSoon(shared);
}

/**
 * A full batch is written once this turn's work is done (the check phase, by `setImmediate`),
 * not inside the line that filled it: with a sequential client that line is a response's, and
 * the write (~64 KiB to the file) would stand between the response and the next request. The
 * buffer holds twice a batch, and a line that would not fit drains at once, so the pending
 * bytes stay bounded however many lines one turn writes.
 */
export function drainSoon(shared: SharedDestination): void {
  if (shared.soon === undefined) shared.soon = setImmediate(shared.drainSoon);
}

/** The held lines, then the pending batch, to the destination (the periodic flush, `flush()`, `close()`). */
export function drainAll(shared: SharedDestination): void {
  if (shared.held !== undefined && shared.held.n > 0) shared.held.settle();
  drain(shared);
}

/** Hands the pending batch to the destination (its buffer is filled again once `written` counts it). */
export function drain(shared: SharedDestination): void {
  if (shared.used > 0) {
    const full = shared.buf;
    const batch = full.subarray(0, shared.used);
    shared.buf = shared.spare.pop() ?? Buffer.allocUnsafe(BUF_BYTES);
    shared.used = 0;
    if (shared.recycle && shared.inflight.length < MAX_INFLIGHT) {
      shared.inflight.push(full);
      shared.inflightLeft.push(batch.length);
    } else if (shared.recycle) {
      // The stream reported fewer bytes than it was given (a write it retries, partial writes it
      // finished without reporting): stop reusing buffers for this file, which is always safe
      // (an untracked batch would make the count name a newer buffer as written).
      shared.inflight = [];
      shared.inflightLeft = [];
      shared.spare = [];
      shared.recycle = false;
    }
    shared.stream.write(batch);
    shared.size += batch.length;
    if (shared.maxBytes !== undefined && shared.size > shared.maxBytes) rotate(shared);
  }
}

/**
 * A file past its bound moves to `<path>.1` (replacing the older generation) and the trace goes on
 * in a new file: at most about twice the bound is kept, for a process that traces for days (the
 * daemon). Batches are whole lines, so no line is split between the two files. Any error leaves
 * the file where it is (appended to as before) and is reported as a `trace-io` warning.
 */
function rotate(shared: SharedDestination): void {
  try {
    shared.stream.flushSync();
    renameSync(shared.path, `${shared.path}.1`);
    shared.stream.reopen();
    shared.size = 0;
  } catch (err) {
    shared.maxBytes = undefined;
    shared.stream.emit('error', err);
  }
}

const MAX_SPARE = 2;
/** Batches in flight beyond which `written` stops (see `drain`): in sync mode there is ~1. */
const MAX_INFLIGHT = 16;

/**
 * SonicBoom's `write` event: `n` more bytes reached the file. Batches are written whole and in
 * order, so the oldest ones in flight are done once their bytes are counted: their buffers are
 * filled again instead of allocating new ones (a fresh 128 KiB buffer per batch costs page faults
 * and collector work in a busy client).
 */
function written(shared: SharedDestination, n: number): void {
  if (!shared.recycle) return;
  const left = shared.inflightLeft;
  while (n > 0 && left.length > 0) {
    const take = Math.min(n, left[0]);
    left[0] -= take;
    n -= take;
    if (left[0] === 0) {
      left.shift();
      const buf = shared.inflight.shift()!;
      if (shared.spare.length < MAX_SPARE) shared.spare.push(buf);
    }
  }
}

export async function openFile(pino: typeof import('pino').default, file: string, maxBytes?: number): Promise<SharedDestination> {
  const key = resolvePath(file);
  const existing = files.get(key);
  if (existing) {
    existing.refs++;
    // tracers sharing a file: the smallest bound any of them asked for
    if (maxBytes !== undefined && !(existing.maxBytes !== undefined && existing.maxBytes <= maxBytes)) existing.maxBytes = maxBytes;
    return existing;
  }
  // minLength 1: every batch is written at once (the batching is ours). sync: see above; a trace
  // on a slow or network file system blocks the event loop for each batch's write.
  // mode 0600 applies when the file is created (a trace holds the session's data); an existing
  // file keeps its mode.
  const stream = pino.destination({ dest: key, sync: true, mkdir: true, minLength: 1, contentMode: 'buffer', mode: 0o600 }) as unknown as SonicBoomLike;
  await new Promise<void>((resolve, reject) => {
    stream.once('ready', resolve);
    stream.once('error', (err: Error) => reject(new McpWireError('MCPWIRE_TRACE_OPEN', `cannot open trace file ${file}: ${err.message}`, { cause: err })));
  });
  const shared: SharedDestination = {
    stream,
    refs: 1,
    buf: Buffer.allocUnsafe(BUF_BYTES),
    used: 0,
    inflight: [],
    inflightLeft: [],
    spare: [],
    recycle: true,
    path: key,
    size: sizeOf(stream.fd),
    maxBytes,
    timer: setInterval(() => drainAll(shared), FLUSH_EVERY_MS).unref(),
    soon: undefined,
    held: undefined,
    drainSoon: () => {
      shared.soon = undefined;
      drain(shared);
    },
    onExit: () => {
      // Synchronously, in order: what SonicBoom holds, then our pending batch (handing it to
      // SonicBoom now would start an async write that the exiting process never finishes), the
      // held lines encoded into it first.
      try {
        shared.held?.settle();
        stream.flushSync();
        for (let off = 0; off < shared.used; ) off += writeSync(stream.fd, shared.buf, off, shared.used - off);
        shared.used = 0;
      } catch {
        // nothing left to do at exit
      }
    },
  };
  stream.on('write', (n: number) => written(shared, n));
  process.on('exit', shared.onExit);
  files.set(key, shared);
  return shared;
}

function sizeOf(fd: number): number {
  try {
    return fstatSync(fd).size;
  } catch {
    return 0;
  }
}

export function flushStream(stream: SonicBoomLike): Promise<void> {
  return new Promise((resolve) => stream.flush(() => resolve()));
}

export async function releaseFile(file: string, shared: SharedDestination): Promise<void> {
  drainAll(shared);
  await flushStream(shared.stream);
  if (--shared.refs > 0) return;
  files.delete(resolvePath(file));
  clearInterval(shared.timer);
  if (shared.soon !== undefined) clearImmediate(shared.soon);
  shared.soon = undefined;
  drainAll(shared);
  process.off('exit', shared.onExit);
  await new Promise<void>((resolve) => {
    shared.stream.once('close', resolve);
    shared.stream.once('error', () => resolve());
    shared.stream.end();
  });
}

