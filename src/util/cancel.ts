/**
 * `Cancel`: a cancellation handle lighter than an AbortController, for what is made per request
 * on a hot path (a peer's request, a gateway's relayed call). An AbortController is an
 * EventTarget: making one, adding an 'abort' listener and removing it cost ~10 µs on Node 20
 * (a Map of listener lists, a listener object, weak-reference checks), per request. A `Cancel`
 * is three fields and the list of who watches it; those who watch are told through one method of
 * theirs (`CancelOwner.cancelled(item, reason)`), so watching makes no closure either.
 *
 * Code that takes a standard `AbortSignal` (a caller's hook, timers, fetch) gets one from
 * `signal`: made on first use, aborted with the handle (at once, if it already was). The two
 * kinds travel together as `CancelSignal`; `abortSignalOf` gives the standard one.
 */

/** Who watches a `Cancel`: told once, with the item it watched for and the reason. */
export interface CancelOwner {
  cancelled(item: unknown, reason: unknown): void;
}

export class Cancel {
  aborted = false;
  reason: unknown = undefined;
  /** The first watcher (most handles have one), kept in fields. */
  private owner: CancelOwner | undefined = undefined;
  private item: unknown = undefined;
  /** Watchers after the first: owner, item, owner, item, … */
  private more: unknown[] | undefined = undefined;
  private controller: AbortController | undefined = undefined;

  /** A standard AbortSignal that aborts with this handle (made on first use). */
  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  /** How many watch it (0 once aborted). */
  get watchers(): number {
    return (this.owner === undefined ? 0 : 1) + (this.more === undefined ? 0 : this.more.length / 2);
  }

  /** Aborts (once): every watcher is told, in the order they came, then the AbortSignal, if one was made. */
  abort(reason: unknown = new DOMException('This operation was aborted', 'AbortError')): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const { owner, item, more } = this;
    this.owner = this.item = this.more = undefined;
    if (owner !== undefined) owner.cancelled(item, reason);
    if (more !== undefined) for (let i = 0; i < more.length; i += 2) (more[i] as CancelOwner).cancelled(more[i + 1], reason);
    this.controller?.abort(reason);
  }

  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }

  /** `owner.cancelled(item, reason)` when it aborts (not called if it already has: check `aborted`). */
  watch(owner: CancelOwner, item: unknown): void {
    if (this.aborted) return;
    if (this.owner === undefined && this.more === undefined) {
      this.owner = owner;
      this.item = item;
    } else (this.more ??= []).push(owner, item);
  }

  unwatch(owner: CancelOwner, item: unknown): void {
    if (this.owner === owner && this.item === item) {
      this.owner = this.item = undefined;
      return;
    }
    const more = this.more;
    if (more === undefined) return;
    for (let i = 0; i < more.length; i += 2) {
      if (more[i] === owner && more[i + 1] === item) {
        more.splice(i, 2);
        if (more.length === 0) this.more = undefined;
        return;
      }
    }
  }
}

/** A standard AbortSignal or a `Cancel`: what a request may be cancelled by. */
export type CancelSignal = AbortSignal | Cancel;

/** Options as they are, or with a `Cancel` made into its standard signal (for code that listens on one). */
export function withAbortSignal<T extends { signal?: CancelSignal }>(options: T): T & { signal?: AbortSignal } {
  return (options.signal instanceof Cancel ? { ...options, signal: options.signal.signal } : options) as T & { signal?: AbortSignal };
}

/** The standard AbortSignal of `s` (a `Cancel`'s, made on first use). */
export function abortSignalOf(s: CancelSignal | undefined): AbortSignal | undefined {
  return s instanceof Cancel ? s.signal : s;
}
