/**
 * The request registry: the single owner of in-flight outgoing requests. One entry per request
 * (resolve/reject, timeout timer, caller-signal listener, progress callback). Every way out —
 * response, error, timeout, abort, close — goes through `settle`, which removes the entry, its
 * timer and its listener, so `pendingCount` returns to zero and nothing leaks.
 *
 * Timeouts: no Node timer per request. Each entry has a deadline and sits in a list of entries
 * with the same duration, which is therefore ordered by deadline (appended as time goes on);
 * settling unlinks it in O(1). One timer per registry fires at the earliest deadline and
 * re-arms; it holds the event loop open only while some request has a deadline, as the
 * per-request timers did. (A timer per request cost ~10 µs of client CPU per sequential call
 * on a loaded machine: Timeout + list allocation, priority queue, three native calls.)
 *
 * A caller's AbortSignal gets one 'abort' listener however many requests use it (many requests
 * in flight on one long-lived signal would otherwise pile up listeners and trip Node's
 * MaxListenersExceededWarning); the listener aborts those requests in the order they were sent
 * and is removed when the last of them settles.
 *
 * basic.lifecycle#16/#18: every request has a timeout, configurable per request.
 * basic.lifecycle#19: a hard maximum total timeout applies even when progress resets the timer.
 * basic.utilities.progress#2: progress tokens are unique across active requests: the registry
 * indexes every active request's token (ours or the caller's), so the connection can refuse a
 * token already in use and route each progress notification to the request that owns it.
 */
import type { RequestId } from '../jsonrpc/types.js';
import { IdTable } from '../util/id-table.js';
import { Cancel, type CancelOwner, type CancelSignal } from '../util/cancel.js';

export interface ProgressParams {
  progressToken: string | number;
  progress: number;
  total?: number;
  message?: string;
  [key: string]: unknown;
}

export type ProgressCallback = (progress: ProgressParams) => void;

/** basic.utilities.progress#1: a string or an integer. */
export type ProgressToken = string | number;

/**
 * Progress delivery of one request that has an `onProgress` callback (allocated only for those).
 * basic.utilities.progress#10: at most one callback per `intervalMs`; the latest notification
 * waits in `pending` and is delivered when the interval is over, or before the request settles.
 */
export interface ProgressState {
  readonly onProgress: ProgressCallback;
  readonly intervalMs: number;
  /** performance.now() before which the next callback waits. */
  nextAt: number;
  /** The latest notification not yet delivered. */
  pending: ProgressParams | undefined;
  /** The last `progress` value seen (basic.utilities.progress#3). */
  last: number;
}

export type SettleReason = 'response' | 'error' | 'timeout' | 'abort' | 'close' | 'send-failed';

export interface PendingRequest {
  readonly id: RequestId;
  readonly method: string;
  /** Aborts the transport's work for this request (HTTP: the POST) when it is given up on. */
  sendAbort?: AbortController;
  /** performance.now() when it was sent. */
  readonly sentAt: number;
  resolve: (value: unknown) => void;
  /** Settles the caller's promise as rejected; errors reach it through `mapError` (connection.ts `rejectEntry`). */
  reject: (reason: unknown) => void;
  /** What the caller makes of the request's error (undefined: the error as it is). */
  mapError: ((err: unknown) => unknown) | undefined;
  /** What the caller makes of the request's result (undefined: the result as it is); connection.ts `resolveMapped`. */
  mapResult: ((result: unknown) => unknown) | undefined;
  /** performance.now() at which the request times out; Infinity = no timeout. */
  deadline: number;
  /** The duration `deadline` was set with (the list it is in); set by `schedule`. */
  dueMs: number;
  /** The deadline is the hard total ceiling (basic.lifecycle#19), set by `schedule(…, true)`. */
  deadlineIsTotal: boolean;
  /** Whether running out of time sends notifications/cancelled. */
  cancellable: boolean;
  /**
   * Whether the transport handed the request to the wire (always, for transports without
   * `wantsRequestSignal`). One never dispatched gets no notifications/cancelled
   * (basic.utilities.cancellation#1).
   */
  dispatched: boolean;
  /** Registry-private links of the deadline list. */
  dueList: DueList | undefined;
  duePrev: PendingRequest | undefined;
  dueNext: PendingRequest | undefined;
  timeoutMs: number;
  maxTotalMs: number;
  resetOnProgress: boolean;
  /**
   * The caller's signal: watched while the request is registered (a `Cancel` directly, an
   * AbortSignal through one shared listener); its abort goes to the registry's `onAbort`.
   */
  signal: CancelSignal | undefined;
  /** The `_meta.progressToken` the request carries (ours or the caller's), indexed while active. */
  progressToken: ProgressToken | undefined;
  /** Set when the caller wants progress callbacks. */
  progress: ProgressState | undefined;
  /** Gets the result of a response that arrives after the request was given up on (timeout/abort). */
  onLateResult: ((result: unknown) => void) | undefined;
}

/** Remembers the ids we gave up on (timeout/abort) so a late response is told from a bogus one. */
const LATE_MEMORY = 1024;

/** Entries with the same timeout duration, in deadline order. */
interface DueList {
  head: PendingRequest | undefined;
  tail: PendingRequest | undefined;
}

/** Node clamps longer timer delays to 1 ms; longer deadlines are reached in steps. */
const MAX_TIMER_DELAY = 2 ** 31 - 1;
/** Timers fire on the event loop's millisecond clock: a deadline less than 1 ms away is due. */
const DUE_SLACK_MS = 1;
/** Empty duration lists are kept for reuse up to this many lists. */
const KEEP_LISTS = 4;

/**
 * The requests waiting on one caller signal, and the single listener they share. Most signals
 * carry one request (a gateway's or a host's per-call signal): it is kept in `one`, and a table
 * (three arrays) is made only when a second request waits on the same signal.
 */
interface SignalWatch {
  one: PendingRequest | undefined;
  /** By request id, in the order sent (the first request moved here from `one`). */
  members: IdTable<RequestId, PendingRequest> | undefined;
  readonly listener: () => void;
}

export class RequestRegistry implements CancelOwner {
  /** (Not a Map: settled requests would stay reachable through its old tables, see IdTable.) */
  private readonly entries = new IdTable<RequestId, PendingRequest>();
  /**
   * The request id of each active progress token. (Ids, not the requests: a token is often a
   * string, so this stays a Map, and what its old tables hold must be small, see IdTable.)
   */
  private readonly tokens = new Map<ProgressToken, RequestId>();
  /** Ids given up on (timeout/abort), each with who wants its late result, if anyone. */
  private readonly abandoned = new Map<RequestId, ((result: unknown) => void) | undefined>();
  /** (Weak: a caller's signal per call would otherwise churn a Map, see IdTable.) */
  private readonly watches = new WeakMap<AbortSignal, SignalWatch>();
  private readonly due = new Map<number, DueList>();
  /** Entries with a deadline (the timer holds the event loop open while > 0). */
  private scheduled = 0;
  private timer: NodeJS.Timeout | undefined;
  /** When `timer` fires (performance.now() ms); Infinity when not armed. */
  private timerAt = Infinity;

  /**
   * `onDue`: called for each entry whose deadline has passed; `onAbort`: for each entry whose
   * caller's signal aborted (both while it is still registered).
   */
  constructor(
    private readonly onDue: (entry: PendingRequest) => void = () => {},
    private readonly onAbort: (entry: PendingRequest, reason: unknown) => void = () => {},
  ) {}

  get pendingCount(): number {
    return this.entries.size;
  }

  get(id: RequestId): PendingRequest | undefined {
    return this.entries.get(id);
  }

  /** The active request that carries progress token `token`. */
  byToken(token: ProgressToken): PendingRequest | undefined {
    const id = this.tokens.get(token);
    return id === undefined ? undefined : this.entries.get(id);
  }

  /** Registers the entry; with `timeoutMs` > 0 (finite) it times out `timeoutMs` after `sentAt`. */
  add(entry: PendingRequest, timeoutMs = 0): void {
    this.entries.set(entry.id, entry);
    if (entry.progressToken !== undefined) this.tokens.set(entry.progressToken, entry.id);
    const signal = entry.signal;
    if (signal !== undefined) {
      if (signal instanceof Cancel) signal.watch(this, entry);
      else this.watch(signal, entry);
    }
    if (timeoutMs > 0 && Number.isFinite(timeoutMs)) this.link(entry, timeoutMs, entry.sentAt + timeoutMs);
  }

  /** (Re)starts the entry's countdown: due `ms` from now (`total`: as the hard total ceiling). */
  schedule(entry: PendingRequest, ms: number, total: boolean): void {
    this.unlink(entry);
    entry.deadlineIsTotal = total;
    this.link(entry, ms, performance.now() + ms);
  }

  /**
   * Restarts the entry's countdown (progress arrived, `resetOnProgress`): its timeout again, but
   * never past its hard total ceiling (basic.lifecycle#19).
   */
  restart(entry: PendingRequest): void {
    const remainingTotal = entry.maxTotalMs - (performance.now() - entry.sentAt);
    if (remainingTotal >= entry.timeoutMs) this.schedule(entry, entry.timeoutMs, false);
    else this.schedule(entry, Math.max(0, remainingTotal), true);
  }

  /**
   * Removes the entry and everything attached to it. Returns the entry (or undefined when it was
   * already settled: the first way out wins).
   */
  take(id: RequestId, reason: SettleReason): PendingRequest | undefined {
    const entry = this.entries.get(id);
    if (entry === undefined) return undefined;
    this.entries.delete(id);
    if (entry.progressToken !== undefined && this.tokens.get(entry.progressToken) === entry.id) this.tokens.delete(entry.progressToken);
    if (entry.dueList !== undefined) this.unlink(entry);
    const signal = entry.signal;
    if (signal !== undefined) {
      if (signal instanceof Cancel) signal.unwatch(this, entry);
      else this.unwatch(signal, entry);
    }
    if (reason === 'timeout' || reason === 'abort') this.rememberAbandoned(id, entry.onLateResult);
    if (entry.sendAbort !== undefined && (reason === 'timeout' || reason === 'abort' || reason === 'close')) entry.sendAbort.abort();
    return entry;
  }

  /** True if `id` was given up on (timeout/abort) recently: its response is merely late. */
  wasAbandoned(id: RequestId): boolean {
    return this.abandoned.delete(id);
  }

  /**
   * Like `wasAbandoned`, for a late response: `false` when `id` was not given up on, else the
   * request's `onLateResult` (undefined when it had none). Forgets the id either way.
   */
  takeAbandoned(id: RequestId): false | ((result: unknown) => void) | undefined {
    if (!this.abandoned.has(id)) return false;
    const late = this.abandoned.get(id);
    this.abandoned.delete(id);
    return late;
  }

  /** Every pending entry, removed at once (connection closed). */
  drain(): PendingRequest[] {
    const all = this.entries.entries().map(([, e]) => e);
    for (const e of all) this.take(e.id, 'close');
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
    return all;
  }

  // ---- deadlines ------------------------------------------------------------------------

  private link(entry: PendingRequest, ms: number, deadline: number): void {
    let list = this.due.get(ms);
    if (list === undefined) {
      list = { head: undefined, tail: undefined };
      this.due.set(ms, list);
    }
    entry.deadline = deadline;
    entry.dueMs = ms;
    entry.dueList = list;
    entry.duePrev = list.tail;
    entry.dueNext = undefined;
    if (list.tail !== undefined) list.tail.dueNext = entry;
    else list.head = entry;
    list.tail = entry;
    if (this.scheduled++ === 0) this.timer?.ref();
    if (deadline < this.timerAt) this.arm(deadline);
  }

  private unlink(entry: PendingRequest): void {
    const list = entry.dueList;
    if (list === undefined) return;
    const { duePrev: prev, dueNext: next } = entry;
    if (prev !== undefined) prev.dueNext = next;
    else list.head = next;
    if (next !== undefined) next.duePrev = prev;
    else list.tail = prev;
    entry.dueList = entry.duePrev = entry.dueNext = undefined;
    entry.deadline = Infinity;
    if (list.head === undefined && this.due.size > KEEP_LISTS) this.due.delete(entry.dueMs);
    // Nothing left to wait for: stop holding the event loop (the timer stays armed, lazily).
    if (--this.scheduled === 0) this.timer?.unref();
  }

  private arm(at: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    const delay = Math.min(MAX_TIMER_DELAY, Math.max(1, Math.ceil(at - performance.now())));
    this.timer = setTimeout(this.sweep, delay);
    this.timerAt = at;
  }

  /** Times out every entry that is due, earliest first, then re-arms for the next deadline. */
  private readonly sweep = (): void => {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = performance.now();
    let dueNow: PendingRequest[] | undefined;
    for (const list of this.due.values()) {
      for (let e = list.head; e !== undefined && e.deadline - now < DUE_SLACK_MS; e = e.dueNext) (dueNow ??= []).push(e);
    }
    if (dueNow !== undefined) {
      if (dueNow.length > 1) dueNow.sort((a, b) => a.deadline - b.deadline);
      for (const e of dueNow) if (e.dueList !== undefined && this.entries.get(e.id) === e) this.onDue(e);
    }
    let next = Infinity;
    for (const [ms, list] of this.due) {
      if (list.head === undefined) {
        if (this.due.size > KEEP_LISTS) this.due.delete(ms);
      } else if (list.head.deadline < next) next = list.head.deadline;
    }
    if (next < this.timerAt) this.arm(next);
  };

  /** A `Cancel` an entry waits on aborted (CancelOwner). */
  cancelled(entry: unknown, reason: unknown): void {
    const e = entry as PendingRequest;
    if (this.entries.get(e.id) === e) this.onAbort(e, reason);
  }

  private watch(signal: AbortSignal, entry: PendingRequest): void {
    const w = this.watches.get(signal);
    if (w === undefined) {
      const made: SignalWatch = {
        one: entry,
        members: undefined,
        listener: () => {
          if (made.members === undefined) {
            if (made.one !== undefined) this.onAbort(made.one, signal.reason);
          } else for (const [, e] of made.members.entries()) this.onAbort(e, signal.reason);
        },
      };
      this.watches.set(signal, made);
      signal.addEventListener('abort', made.listener, { once: true });
      return;
    }
    if (w.members === undefined) {
      w.members = new IdTable<RequestId, PendingRequest>();
      if (w.one !== undefined) w.members.set(w.one.id, w.one);
      w.one = undefined;
    }
    w.members.set(entry.id, entry);
  }

  private unwatch(signal: AbortSignal, entry: PendingRequest): void {
    const w = this.watches.get(signal);
    if (w === undefined) return;
    if (w.members === undefined) {
      if (w.one !== entry) return;
      w.one = undefined;
    } else {
      if (w.members.get(entry.id) !== entry) return;
      w.members.delete(entry.id);
      if (w.members.size > 0) return;
    }
    this.watches.delete(signal);
    signal.removeEventListener('abort', w.listener);
  }

  private rememberAbandoned(id: RequestId, onLateResult: ((result: unknown) => void) | undefined): void {
    this.abandoned.set(id, onLateResult);
    if (this.abandoned.size > LATE_MEMORY) {
      const oldest = this.abandoned.keys().next().value as RequestId;
      this.abandoned.delete(oldest);
    }
  }
}
