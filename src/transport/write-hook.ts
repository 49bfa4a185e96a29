/**
 * When a request was really issued: undici holds a request it was handed in a queue while its
 * connection is being made (or every connection is busy), and one aborted there is never written
 * — the server never sees it (basic.utilities.cancellation#1: only requests previously issued
 * may be cancelled). `writeHooked(dispatcher)` is the dispatcher for requests that want to know:
 * a request whose options carry `[ON_WRITE]` gets that callback called once, right before undici
 * writes it to a socket (its handler's `onConnect`, which undici calls just before it writes the
 * head), never when the request was aborted by then. Requests without it go to the dispatcher
 * untouched; one with it costs one small handler object.
 */
import type { Dispatcher } from 'undici';

/** The key of a request's options naming its written-now callback. */
export const ON_WRITE = Symbol('mcpwire.onWrite');

/** Request options that may carry the written-now callback. */
export type HookedRequestOptions = Dispatcher.RequestOptions & { [ON_WRITE]?: () => void };

type Abort = (err?: Error) => void;
/** The handler interface undici's `request()` hands to `dispatch` (the one `onConnect` belongs to). */
interface Handler {
  onConnect?(abort: Abort, context?: unknown): void;
  onResponseStarted?(): void;
  onHeaders?(statusCode: number, headers: unknown, resume: () => void, statusText: string): boolean;
  onUpgrade?(statusCode: number, headers: unknown, socket: unknown): void;
  onData?(chunk: Buffer): boolean;
  onComplete?(trailers: unknown): void;
  onError?(err: Error): void;
}

/** `inner` with `written` called as undici is about to write the request. */
class WriteHook implements Handler {
  constructor(
    private readonly inner: Handler,
    private written: (() => void) | undefined,
    private readonly signal: AbortSignal | undefined,
  ) {}

  onConnect(abort: Abort, context?: unknown): void {
    this.inner.onConnect?.(abort, context);
    const written = this.written;
    this.written = undefined;
    // undici's request handler aborts at once when its signal fired while the request was
    // queued: such a request is not written.
    if (written !== undefined && this.signal?.aborted !== true) written();
  }
  onResponseStarted(): void {
    this.inner.onResponseStarted?.();
  }
  onHeaders(statusCode: number, headers: unknown, resume: () => void, statusText: string): boolean {
    return this.inner.onHeaders!(statusCode, headers, resume, statusText);
  }
  onUpgrade(statusCode: number, headers: unknown, socket: unknown): void {
    this.inner.onUpgrade?.(statusCode, headers, socket);
  }
  onData(chunk: Buffer): boolean {
    return this.inner.onData!(chunk);
  }
  onComplete(trailers: unknown): void {
    this.inner.onComplete!(trailers);
  }
  onError(err: Error): void {
    this.inner.onError!(err);
  }
}

/**
 * `dispatcher` for requests that may carry `[ON_WRITE]` (see the module comment): its own
 * methods (`request` above all) with `dispatch` wrapping the handler of such a request.
 */
export function writeHooked(dispatcher: Dispatcher): Dispatcher {
  const hooked = Object.create(dispatcher) as Dispatcher;
  hooked.dispatch = (opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean => {
    const o = opts as HookedRequestOptions;
    const written = o[ON_WRITE];
    return dispatcher.dispatch(opts, written === undefined ? handler : (new WriteHook(handler as Handler, written, o.signal as AbortSignal | undefined) as unknown as Dispatcher.DispatchHandler));
  };
  return hooked;
}
