/**
 * The request registry: the single owner of in-flight outgoing requests. One entry per request
 * (resolve/reject, timeout timer, caller-signal listener, progress callback). Every way out —
 * response, error, timeout, abort, close — goes through `settle`, which removes the entry, its
 * timer and its listener, so `pendingCount` returns to zero and nothing leaks.
 *
 * A caller's AbortSignal gets one 'abort' listener however many requests use it (many requests
 * in flight on one long-lived signal would otherwise pile up listeners and trip Node's
 * MaxListenersExceededWarning); the listener aborts those requests in the order they were sent
 * and is removed when the last of them settles.
 *
 * basic.lifecycle#16/#18: every request has a timeout, configurable per request.
 * basic.lifecycle#19: a hard maximum total timeout applies even when progress resets the timer.
 * basic.utilities.progress#2: progress tokens are unique across active requests (we use the id).
 */
import type { RequestId } from '../jsonrpc/types.js';

export interface ProgressParams {
  progressToken: string | number;
  progress: number;
  total?: number;
  message?: string;
  [key: string]: unknown;
}

export type ProgressCallback = (progress: ProgressParams) => void;

export type SettleReason = 'response' | 'error' | 'timeout' | 'abort' | 'close' | 'send-failed';

export interface PendingRequest {
  readonly id: RequestId;
  readonly method: string;
  /** Aborts the transport's work for this request (HTTP: the POST) when it is given up on. */
  sendAbort?: AbortController;
  /** performance.now() when it was sent. */
  readonly sentAt: number;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout | undefined;
  timeoutMs: number;
  maxTotalMs: number;
  resetOnProgress: boolean;
  signal: AbortSignal | undefined;
  /** Called when `signal` aborts; set before `add` (the registry attaches the listener). */
  onAbort: (() => void) | undefined;
  onProgress: ProgressCallback | undefined;
  lastProgress: number;
}

/** Remembers the ids we gave up on (timeout/abort) so a late response is told from a bogus one. */
const LATE_MEMORY = 1024;

/** The requests waiting on one caller signal, and the single listener they share. */
interface SignalWatch {
  readonly members: Set<PendingRequest>;
  readonly listener: () => void;
}

export class RequestRegistry {
  private readonly entries = new Map<RequestId, PendingRequest>();
  private readonly abandoned = new Set<RequestId>();
  private readonly watches = new Map<AbortSignal, SignalWatch>();

  get pendingCount(): number {
    return this.entries.size;
  }

  get(id: RequestId): PendingRequest | undefined {
    return this.entries.get(id);
  }

  add(entry: PendingRequest): void {
    this.entries.set(entry.id, entry);
    if (entry.onAbort !== undefined && entry.signal !== undefined) this.watch(entry.signal, entry);
  }

  /**
   * Removes the entry and everything attached to it. Returns the entry (or undefined when it was
   * already settled: the first way out wins).
   */
  take(id: RequestId, reason: SettleReason): PendingRequest | undefined {
    const entry = this.entries.get(id);
    if (entry === undefined) return undefined;
    this.entries.delete(id);
    if (entry.timer !== undefined) clearTimeout(entry.timer);
    if (entry.onAbort !== undefined && entry.signal !== undefined) this.unwatch(entry.signal, entry);
    if (reason === 'timeout' || reason === 'abort') this.rememberAbandoned(id);
    if (entry.sendAbort !== undefined && (reason === 'timeout' || reason === 'abort' || reason === 'close')) entry.sendAbort.abort();
    return entry;
  }

  /** True if `id` was given up on (timeout/abort) recently: its response is merely late. */
  wasAbandoned(id: RequestId): boolean {
    return this.abandoned.delete(id);
  }

  /** Every pending entry, removed at once (connection closed). */
  drain(): PendingRequest[] {
    const all = [...this.entries.values()];
    for (const e of all) this.take(e.id, 'close');
    return all;
  }

  private watch(signal: AbortSignal, entry: PendingRequest): void {
    let w = this.watches.get(signal);
    if (w === undefined) {
      const members = new Set<PendingRequest>();
      w = {
        members,
        listener: () => {
          for (const e of Array.from(members)) e.onAbort!();
        },
      };
      this.watches.set(signal, w);
      signal.addEventListener('abort', w.listener, { once: true });
    }
    w.members.add(entry);
  }

  private unwatch(signal: AbortSignal, entry: PendingRequest): void {
    const w = this.watches.get(signal);
    if (w === undefined || !w.members.delete(entry) || w.members.size > 0) return;
    this.watches.delete(signal);
    signal.removeEventListener('abort', w.listener);
  }

  private rememberAbandoned(id: RequestId): void {
    this.abandoned.add(id);
    if (this.abandoned.size > LATE_MEMORY) {
      const oldest = this.abandoned.values().next().value as RequestId;
      this.abandoned.delete(oldest);
    }
  }
}
