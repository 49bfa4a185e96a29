/**
 * An HTTP transport's lifetime: `close()` aborts it, and with it every exchange under way, each of
 * which has a signal of its own that aborts when either the lifetime or the request's own signal
 * does (`linkSignals`, `boundSignals`).
 *
 * The exchanges are kept in a table here, not added as 'abort' listeners to the lifetime's
 * long-lived signal. Two ways that cost, both measured at 64 requests in flight:
 * - `AbortSignal.any([lifetime, request])` (Node 20) keeps every signal it makes registered on
 *   the lifetime until that aborts: a leak over a long session (found by the soak).
 * - A listener added and removed per exchange: Node's EventTarget leaves a removed listener still
 *   pointing at its neighbours, so once one of them reached the old generation, every listener
 *   added after it — and the exchange each one aborts — stayed reachable from it until the next
 *   full collection: the young generation promoted ~1.5 KB a call it should have freed
 *   (docs/performance.md).
 */
import { setMaxListeners } from 'node:events';
import { IdTable } from '../util/id-table.js';
import { timerMs } from '../util/sleep.js';

export class Lifetime {
  private readonly controller = new AbortController();
  /** What to do when the lifetime ends, by link number. */
  private readonly linked = new IdTable<number, () => void>();
  private nextLink = 0;

  constructor() {
    // (the long-lived streams and waits of a transport may each listen to it)
    setMaxListeners(0, this.controller.signal);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Exchanges linked now. */
  get linkCount(): number {
    return this.linked.size;
  }

  get aborted(): boolean {
    return this.controller.signal.aborted;
  }

  /** Ends the lifetime: its signal aborts, then every linked exchange, in the order linked. */
  abort(reason?: unknown): void {
    if (this.controller.signal.aborted) return;
    this.controller.abort(reason);
    for (const [n, onAbort] of this.linked.entries()) {
      this.linked.delete(n);
      onAbort();
    }
  }

  /** Calls `onAbort` when the lifetime ends, until `unlink` of the number returned. */
  link(onAbort: () => void): number {
    const n = this.nextLink++;
    this.linked.set(n, onAbort);
    return n;
  }

  unlink(n: number): void {
    this.linked.delete(n);
  }
}

/** A signal that aborts when either input does, and `dispose()` to unlink it once the exchange is over. */
export interface LinkedSignal {
  signal: AbortSignal;
  dispose(): void;
  /** `boundSignals` only: true once the bound passed (the signal aborted because of it). */
  readonly timedOut?: boolean;
}

const noop = (): void => {};

/**
 * The signal of one exchange: aborted with the lifetime's reason or the request's, whichever
 * comes first. Without a request signal, the lifetime's own.
 */
export function linkSignals(lifetime: Lifetime, request: AbortSignal | undefined): LinkedSignal {
  if (request === undefined || lifetime.aborted) return { signal: lifetime.signal, dispose: noop };
  if (request.aborted) return { signal: request, dispose: noop };
  const c = new AbortController();
  const n = lifetime.link(() => c.abort(lifetime.signal.reason));
  const fromRequest = (): void => c.abort(request.reason);
  request.addEventListener('abort', fromRequest, { once: true });
  return {
    signal: c.signal,
    dispose: () => {
      lifetime.unlink(n);
      request.removeEventListener('abort', fromRequest);
    },
  };
}

/**
 * Like `linkSignals`, and the signal also aborts after `ms` (then `timedOut` is true): for a POST
 * that carries no signal of the protocol layer (a notification, a response), whose wait would
 * otherwise end only with the transport. `dispose()` clears the timer and unlinks.
 */
export function boundSignals(lifetime: Lifetime, request: AbortSignal | undefined, ms: number): LinkedSignal {
  const c = new AbortController();
  let timedOut = false;
  const abort = (): void => c.abort();
  const timer = setTimeout(() => {
    timedOut = true;
    c.abort();
  }, timerMs(ms));
  if (lifetime.aborted || request?.aborted === true) c.abort();
  const n = lifetime.link(abort);
  request?.addEventListener('abort', abort, { once: true });
  return {
    signal: c.signal,
    get timedOut() {
      return timedOut;
    },
    dispose: () => {
      clearTimeout(timer);
      lifetime.unlink(n);
      request?.removeEventListener('abort', abort);
    },
  };
}
