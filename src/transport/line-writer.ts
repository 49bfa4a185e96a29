/**
 * The write side of NDJSON over a pipe (basic/transports, stdio), for both ends: the client's
 * stdio transport writing to its server's stdin, and the gateway (`mcpwire serve`) writing to its
 * own stdout. The lines sent in one turn of the microtask queue go out as one chunk: one write
 * (one syscall) for every message settled together, which is what 64 calls in flight produce.
 * While the stream is over its high-water mark, senders wait for 'drain' (backpressure).
 *
 * Hot path: one string append per message and one promise job per batch; no array, no closure.
 */
import type { JSONRPCMessage } from '../jsonrpc/types.js';

const RESOLVED: Promise<void> = Promise.resolve();

export class LineWriter {
  /** Where the lines go; undefined until there is one (the client's server not spawned yet). */
  stream: NodeJS.WritableStream | undefined;
  /** The lines sent in this tick, not yet written (one string: no array per flush). */
  private out = '';
  private scheduled = false;
  private awaitingDrain = false;
  private drainWaiters: Array<() => void> = [];
  private ended = false;

  constructor(stream?: NodeJS.WritableStream) {
    this.stream = stream;
  }

  /**
   * Queues `message` as one line (`serialized`: its JSON text, when the caller has it already).
   * Resolves at once, or when the stream drains while it is full; nothing is written once ended.
   */
  send(message: JSONRPCMessage | object, serialized?: string): Promise<void> {
    if (this.ended) return RESOLVED;
    const line = (serialized ?? JSON.stringify(message)) + '\n';
    this.out = this.out === '' ? line : this.out + line;
    if (!this.scheduled) {
      this.scheduled = true;
      // A promise job, not queueMicrotask: same queue and order, without queueMicrotask's
      // per-call AsyncResource (a measurable cost at one flush per request).
      void RESOLVED.then(this.flush);
    }
    if (this.awaitingDrain) return new Promise<void>((resolve) => this.drainWaiters.push(resolve));
    return RESOLVED;
  }

  /** Writes everything queued as one chunk (also called directly before a close). */
  readonly flush = (): void => {
    this.scheduled = false;
    const data = this.out;
    const stream = this.stream;
    if (data === '' || stream === undefined) return;
    this.out = '';
    if ((stream as { destroyed?: boolean }).destroyed === true || (stream as { writableEnded?: boolean }).writableEnded === true) return;
    if (!stream.write(data) && !this.awaitingDrain) {
      this.awaitingDrain = true;
      stream.once('drain', this.release);
    }
  };

  /** Lets every sender waiting for 'drain' go on (the stream drained, or it is gone). */
  readonly release = (): void => {
    this.awaitingDrain = false;
    if (this.drainWaiters.length === 0) return;
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const w of waiters) w();
  };

  /** Writes what is queued, then drops every later line and lets waiting senders go. */
  end(): void {
    this.flush();
    this.ended = true;
    this.release();
  }
}
