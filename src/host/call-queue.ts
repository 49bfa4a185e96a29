/**
 * Concurrency limit of tool calls (`max_parallel`): a FIFO queue in front of each
 * server, and one in front of the whole host. A call waits for a free place; its wait counts against its own timeout (the
 * caller gives the deadline) and is abortable with its signal. The limit is read on every
 * acquire, so a changed config applies to the next call.
 */
import { AbortError, TimeoutError } from '../errors.js';

interface Waiter {
  grant: (release: () => void) => void;
  fail: (err: Error) => void;
}

/** One server's queue. */
export class CallQueue {
  private running = 0;
  private readonly waiting: Waiter[] = [];

  /** `serverId`: the server of a per-server queue (none for the host-wide one); `what` names the queue in errors. */
  constructor(
    private readonly limit: () => number,
    private readonly serverId: string | undefined,
    private readonly what = 'the max_parallel queue',
  ) {}

  /** Calls holding a place now. */
  get inFlight(): number {
    return this.running;
  }

  /** Calls waiting for a place. */
  get queued(): number {
    return this.waiting.length;
  }

  /** A release function when a place is free now (nobody waiting before), else undefined. */
  tryAcquire(): (() => void) | undefined {
    return this.running < this.max() && this.waiting.length === 0 ? this.take() : undefined;
  }

  /**
   * Resolves with a release function once a place is free. Rejects with TimeoutError when
   * `waitMs` passes first and with AbortError when `signal` fires first (the place is never taken).
   */
  acquire(waitMs: number, signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(this.aborted(signal));
    if (this.running < this.max() && this.waiting.length === 0) return Promise.resolve(this.take());
    if (waitMs <= 0) return Promise.reject(this.timedOut(waitMs));
    return new Promise((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const done = (): void => {
        if (timer !== undefined) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const i = this.waiting.indexOf(waiter);
        if (i >= 0) this.waiting.splice(i, 1);
      };
      const waiter: Waiter = {
        grant: (release) => {
          done();
          resolve(release);
        },
        fail: (err) => {
          done();
          reject(err);
        },
      };
      const onAbort = (): void => {
        waiter.fail(this.aborted(signal!));
        this.pump();
      };
      timer = setTimeout(() => {
        waiter.fail(this.timedOut(waitMs));
        this.pump();
      }, waitMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
      this.pump(); // the limit may have been raised since the last release
    });
  }

  private max(): number {
    const n = this.limit();
    return Number.isFinite(n) && n >= 1 ? Math.floor(n) : Infinity;
  }

  private take(): () => void {
    this.running++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running--;
      this.pump();
    };
  }

  private pump(): void {
    while (this.waiting.length > 0 && this.running < this.max()) {
      const next = this.waiting[0];
      next.grant(this.take());
    }
  }

  private timedOut(waitMs: number): TimeoutError {
    return new TimeoutError(`tools/call (waiting in ${this.what})`, Math.max(0, Math.round(waitMs)), this.errorOptions());
  }

  private aborted(signal: AbortSignal): AbortError {
    const why = signal.reason instanceof Error ? signal.reason.message : signal.reason === undefined ? 'aborted' : String(signal.reason);
    return new AbortError(`tools/call aborted while waiting in ${this.what}: ${why}`, this.errorOptions());
  }

  private errorOptions(): { serverId?: string; phase: 'request' } {
    return this.serverId === undefined ? { phase: 'request' } : { serverId: this.serverId, phase: 'request' };
  }
}
