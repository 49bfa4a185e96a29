/**
 * The listen manager (2026-07-28, basic/patterns/subscriptions): server notifications come on
 * one long-lived `subscriptions/listen` request that opted into exactly what the client's users
 * listen to — `toolsListChanged` / `promptsListChanged` / `resourcesListChanged` while the client
 * has listeners of the events of those names, `resourceSubscriptions` for the URIs given to
 * `subscribeResource`. When that changes the manager listens again with the new filter (the old
 * subscription is cancelled once the new one is acknowledged, so no change falls in between);
 * notifications are accepted only when their `io.modelcontextprotocol/subscriptionId` names a
 * subscription of ours (basic.patterns.subscriptions#4); a subscription that ends or breaks is
 * opened again after a backoff, which starts over only once a subscription proved itself: it
 * stayed open `stableMs` after its acknowledgement, or delivered a notification (a server that
 * acknowledges every listen and ends it at once is asked again less and less often, not every
 * half second forever); `stop()` cancels it (its request aborted: `notifications/cancelled`
 * on stdio, the stream closed on HTTP — the request path's business, not this file's).
 *
 * Knows no transport: it sends through the client's request function with `longLived` set.
 */
import type { EventEmitter } from 'node:events';
import { CapabilityError, JsonRpcError, StateError } from '../errors.js';
import { wait } from '../util/sleep.js';
import { canonicalJson } from './result-cache.js';

export const SUBSCRIPTION_ID_META = 'io.modelcontextprotocol/subscriptionId';

/** The `notifications` filter of `subscriptions/listen`. */
export interface ListenFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
}

/** The client events a filter flag stands for (the events the handshake era emits for them). */
const LIST_EVENTS = ['toolsListChanged', 'promptsListChanged', 'resourcesListChanged'] as const;

/** Events that come only on a subscription (others — progress, log — are request-scoped). */
const SUBSCRIBED_EVENTS: ReadonlySet<string> = new Set([...LIST_EVENTS, 'resourceUpdated']);

export interface ListenRequestOptions {
  signal: AbortSignal;
  /** A listen is not bounded by time: it lasts until cancelled or ended. */
  timeoutMs: number;
  onRequestId: (id: string | number) => void;
  /** The transport keeps the response stream open (HTTP: no idle bound on the POST's stream). */
  longLived: true;
}

export interface ListenBackoff {
  /** Delay before the first re-listen (default 500 ms). */
  initialDelayMs?: number;
  /** Upper bound of the un-jittered delay (default 30 000 ms). */
  maxDelayMs?: number;
  /** Growth per failed attempt (default 2). */
  factor?: number;
  /** Relative jitter (default 0.2). */
  jitter?: number;
  /**
   * How long an acknowledged subscription must stay open before its end no longer counts as a
   * failure in a row (default 10 000 ms); one that delivered a notification counts as stable at once.
   */
  stableMs?: number;
}

export interface ListenDeps {
  serverId: string;
  /** Sends a request through the client's request path (its `_meta` envelope, its checks). */
  request(method: string, params: Record<string, unknown>, options: ListenRequestOptions): Promise<unknown>;
  /** How many listeners the client has of `event`. */
  listenerCount(event: string): number;
  /** Whether the client can send now (ready); when not, nothing is (re)opened. */
  usable(): boolean;
  diagnostic(code: string, message: string): void;
  backoff?: ListenBackoff;
  /** For the jitter; default Math.random. */
  random?: () => number;
}

interface Subscription {
  id: string | number | undefined;
  filter: ListenFilter;
  key: string;
  controller: AbortController;
  /** What the server agreed to honour (its acknowledgement); undefined until acknowledged. */
  agreed: ListenFilter | undefined;
  /** `Date.now()` at the acknowledgement (0 before). */
  agreedAt: number;
  /** It delivered a notification of ours. */
  delivered: boolean;
}

interface Waiter {
  uri: string;
  resolve(): void;
  reject(err: Error): void;
}

export class ListenManager {
  /** Open subscriptions by `idKey` of their request id (the old one lives until the new one is acknowledged). */
  private readonly subs = new Map<string, Subscription>();
  private current: Subscription | undefined;
  private readonly uris = new Set<string>();
  private waiters: Waiter[] = [];
  private stopped = true;
  private scheduled = false;
  /** Failed or ended listens in a row: the backoff's exponent (a stable subscription resets it, `ended`). */
  private attempt = 0;
  private retry: AbortController | undefined;

  constructor(private readonly deps: ListenDeps) {}

  /** The filter the open subscription was acknowledged with, if any. */
  get acknowledged(): ListenFilter | undefined {
    return this.current?.agreed;
  }
  /** The URIs given to `subscribeResource`. */
  get resourceSubscriptions(): string[] {
    return [...this.uris];
  }

  /** Starts listening (the client is ready); idempotent. */
  start(): void {
    this.stopped = false;
    this.update();
  }

  /** Cancels every subscription; nothing is reopened until `start()`. Idempotent. */
  stop(reason: Error = new StateError('the client stopped listening', { serverId: this.deps.serverId })): void {
    this.stopped = true;
    this.retry?.abort();
    this.retry = undefined;
    for (const sub of this.subs.values()) sub.controller.abort(reason);
    this.subs.clear();
    this.current = undefined;
    this.settleWaiters(() => reason);
  }

  /** What the client listens to changed (a listener added or removed): listen again if the filter differs. */
  update(): void {
    if (this.scheduled || this.stopped) return;
    this.scheduled = true;
    // one re-listen for many changes in the same tick (`on()` several events in a row)
    queueMicrotask(() => {
      this.scheduled = false;
      this.reconcile();
    });
  }

  /**
   * Adds `uri` to `resourceSubscriptions`; resolves once a subscription carrying it is
   * acknowledged with it, rejects (and forgets it) when the server does not honour it or the
   * listen fails.
   */
  subscribeResource(uri: string): Promise<void> {
    if (this.stopped) return Promise.reject(new StateError(`cannot subscribe to ${uri}: not listening`, { serverId: this.deps.serverId }));
    // already in force: the filter does not change, so no acknowledgement will come for it
    if (this.uris.has(uri) && this.current?.agreed?.resourceSubscriptions?.includes(uri) === true) return Promise.resolve();
    this.uris.add(uri);
    const done = new Promise<void>((resolve, reject) => this.waiters.push({ uri, resolve, reject }));
    this.update();
    return done;
  }

  /** Removes `uri` from `resourceSubscriptions` (listening again without it). */
  unsubscribeResource(uri: string): Promise<void> {
    this.uris.delete(uri);
    this.settleWaiters((w) => (w.uri === uri ? new StateError(`unsubscribed from ${uri} before the server acknowledged it`, { serverId: this.deps.serverId }) : undefined));
    this.update();
    return Promise.resolve();
  }

  /**
   * Whether a notification the client is about to turn into `event` belongs to one of our
   * subscriptions (basic.patterns.subscriptions#4). Request-scoped events always do.
   */
  accept(event: string, params: unknown): boolean {
    if (!SUBSCRIBED_EVENTS.has(event)) return true;
    const sub = this.subs.get(idKey(subscriptionIdOf(params)));
    if (sub === undefined || sub.agreed === undefined) return false;
    sub.delivered = true;
    return true;
  }

  /** `notifications/subscriptions/acknowledged`: the subscription it names is open. */
  onAcknowledged(params: unknown): void {
    const sub = this.subs.get(idKey(subscriptionIdOf(params)));
    if (sub === undefined || sub.agreed !== undefined) return;
    const n = (params as { notifications?: unknown } | undefined)?.notifications;
    sub.agreed = readFilter(n);
    sub.agreedAt = Date.now();
    if (sub === this.current) {
      // the new filter is in force: older subscriptions are cancelled now, not before
      for (const other of [...this.subs.values()]) if (other !== sub) this.cancel(other);
      this.checkAgreed(sub);
    }
  }

  private reconcile(): void {
    if (this.stopped || !this.deps.usable()) return;
    const filter = this.wanted();
    const key = canonicalJson(filter);
    if (this.current !== undefined && this.current.key === key) return;
    if (Object.keys(filter).length === 0) {
      for (const sub of [...this.subs.values()]) this.cancel(sub);
      this.current = undefined;
      return;
    }
    this.open(filter, key);
  }

  /** The filter of what the client's users listen to now. */
  private wanted(): ListenFilter {
    const filter: ListenFilter = {};
    for (const event of LIST_EVENTS) if (this.deps.listenerCount(event) > 0) filter[event] = true;
    if (this.uris.size > 0) filter.resourceSubscriptions = [...this.uris];
    return filter;
  }

  private open(filter: ListenFilter, key: string): void {
    const sub: Subscription = { id: undefined, filter, key, controller: new AbortController(), agreed: undefined, agreedAt: 0, delivered: false };
    this.current = sub;
    const options: ListenRequestOptions = {
      signal: sub.controller.signal,
      timeoutMs: Infinity,
      longLived: true,
      onRequestId: (id) => {
        sub.id = id;
        this.subs.set(idKey(id), sub);
      },
    };
    let sent: Promise<unknown>;
    try {
      sent = this.deps.request('subscriptions/listen', { notifications: filter }, options);
    } catch (err) {
      sent = Promise.reject(err);
    }
    sent.then(
      () => this.ended(sub, undefined),
      (err: unknown) => this.ended(sub, err),
    );
  }

  /** A listen request settled: cancelled by us (nothing to do), or ended / broken (listen again). */
  private ended(sub: Subscription, err: unknown): void {
    if (sub.controller.signal.aborted) return;
    if (sub.id !== undefined) this.subs.delete(idKey(sub.id));
    if (sub !== this.current) return;
    this.current = undefined;
    // An acknowledgement alone proves nothing (a server may acknowledge and end every listen):
    // the backoff starts over only after a subscription that lasted or delivered.
    if (sub.delivered || (sub.agreed !== undefined && Date.now() - sub.agreedAt >= (this.deps.backoff?.stableMs ?? 10_000))) this.attempt = 0;
    const why = err === undefined ? 'ended by the server' : `failed: ${err instanceof Error ? err.message : String(err)}`;
    if (err !== undefined) this.settleWaiters((w) => (sub.filter.resourceSubscriptions?.includes(w.uri) ? asError(err) : undefined));
    if (this.stopped || !this.deps.usable()) return;
    if (err instanceof JsonRpcError && err.rpcCode === -32601) {
      this.deps.diagnostic('MCPWIRE_LISTEN_UNSUPPORTED', `subscriptions/listen ${why}; not listening`);
      return;
    }
    this.deps.diagnostic('MCPWIRE_LISTEN_ENDED', `subscriptions/listen ${why}; listening again`);
    void this.relisten();
  }

  private async relisten(): Promise<void> {
    const retry = new AbortController();
    this.retry?.abort();
    this.retry = retry;
    const delay = backoffDelay(this.attempt++, this.deps.backoff, this.deps.random ?? Math.random);
    if (!(await wait(delay, retry.signal))) return;
    if (this.retry === retry) this.retry = undefined;
    this.reconcile();
  }

  private cancel(sub: Subscription): void {
    sub.controller.abort(new StateError('subscription replaced', { serverId: this.deps.serverId }));
    if (sub.id !== undefined) this.subs.delete(idKey(sub.id));
  }

  /**
   * basic.patterns.subscriptions#3: what the server did not agree to is reported once, and a
   * resource subscription it refused rejects its `subscribeResource` (graceful: the rest stays).
   */
  private checkAgreed(sub: Subscription): void {
    const agreed = sub.agreed ?? {};
    const missing = LIST_EVENTS.filter((e) => sub.filter[e] === true && agreed[e] !== true);
    const refused = (sub.filter.resourceSubscriptions ?? []).filter((u) => !agreed.resourceSubscriptions?.includes(u));
    if (missing.length > 0 || refused.length > 0) {
      this.deps.diagnostic('MCPWIRE_LISTEN_PARTIAL', `the server does not send ${[...missing, ...refused.map((u) => `updates of ${u}`)].join(', ')}`);
    }
    for (const uri of refused) this.uris.delete(uri);
    this.settleWaiters((w) => {
      if (refused.includes(w.uri)) return new CapabilityError(`the server does not send updates of ${w.uri}`, { serverId: this.deps.serverId });
      return agreed.resourceSubscriptions?.includes(w.uri) ? null : undefined;
    });
  }

  /** `outcome` per waiter: an Error rejects it, null resolves it, undefined keeps it waiting. */
  private settleWaiters(outcome: (w: Waiter) => Error | null | undefined): void {
    const keep: Waiter[] = [];
    for (const w of this.waiters) {
      const o = outcome(w);
      if (o === undefined) keep.push(w);
      else if (o === null) w.resolve();
      else {
        this.uris.delete(w.uri);
        w.reject(o);
      }
    }
    this.waiters = keep;
  }
}

/**
 * A listen manager for the client `emitter`: what it opts into follows the emitter's listeners
 * (a listener of a list event added or removed may change the filter).
 */
export function listenManagerFor(emitter: EventEmitter, deps: Omit<ListenDeps, 'listenerCount'>): ListenManager {
  const manager = new ListenManager({ ...deps, listenerCount: (event) => emitter.listenerCount(event) });
  const changed = (event: string | symbol): void => {
    if ((LIST_EVENTS as readonly (string | symbol)[]).includes(event)) manager.update();
  };
  emitter.on('newListener', changed);
  emitter.on('removeListener', changed);
  return manager;
}

/** The subscription id a notification's `_meta` names. */
export function subscriptionIdOf(params: unknown): unknown {
  const meta = (params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  return meta?.[SUBSCRIPTION_ID_META];
}

/** Ids compare by JSON value: `1` and `"1"` are different ids (JSON-RPC). */
function idKey(id: unknown): string {
  return typeof id === 'number' ? `n${id}` : typeof id === 'string' ? `s${id}` : '';
}

function readFilter(n: unknown): ListenFilter {
  const f: ListenFilter = {};
  if (typeof n !== 'object' || n === null) return f;
  const o = n as Record<string, unknown>;
  for (const e of LIST_EVENTS) if (o[e] === true) f[e] = true;
  if (Array.isArray(o.resourceSubscriptions)) f.resourceSubscriptions = o.resourceSubscriptions.filter((u): u is string => typeof u === 'string');
  return f;
}

/** The same shape as the host's reconnect backoff: min(max, initial·factor^attempt), jittered. */
export function backoffDelay(attempt: number, o: ListenBackoff = {}, random: () => number = Math.random): number {
  const initial = o.initialDelayMs ?? 500;
  const base = Math.min(o.maxDelayMs ?? 30_000, initial * (o.factor ?? 2) ** Math.max(0, attempt));
  const jitter = Math.min(1, Math.max(0, o.jitter ?? 0.2));
  return Math.max(0, Math.round(base * (1 - jitter + 2 * jitter * random())));
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}
