/**
 * What the parts of one Streamable HTTP transport share: the endpoint, the undici dispatcher, the
 * limits, the auth helper, the open/closing/closed state with the lifetime signal that `close()`
 * aborts, and the owner's callbacks (the Transport object itself) — plus the typed errors every
 * part raises the same way. The POST exchange (http-post.ts), the SSE streams (sse-streams.ts)
 * and the session (http-session.ts) each get this one object.
 */
import type { Dispatcher, Pool } from 'undici';
import { ConnectionClosedError, isMcpWireError, type Phase } from '../errors.js';
import { excerpt } from '../jsonrpc/types.js';
import { HttpAuth } from './http-auth.js';
import { Lifetime } from './lifetime.js';
import {
  DEFAULT_IDLE_STREAM_TIMEOUT_MS,
  DEFAULT_MAX_MESSAGE_BYTES,
  createPool,
  networkError,
  parseTarget,
  type ErrWhere,
  type HttpTransportOptions,
  type Target,
} from './http-common.js';
import type { MessageExtra, TransportDiagnostic, TransportEvent } from './types.js';
import { writeHooked } from './write-hook.js';

/** The owner's callbacks, read at each use (the Transport's public `on…` properties). */
export interface LinkCallbacks {
  onmessage?: (message: unknown, extra?: MessageExtra, text?: string) => void;
  ondiagnostic?: (d: TransportDiagnostic) => void;
  onevent?: (e: TransportEvent) => void;
  onsessionexpired?: (error: Error) => void;
}

export class HttpLink {
  readonly target: Target;
  readonly dispatcher: Dispatcher;
  /** `dispatcher` for the POSTs of requests: tells when one is written (write-hook.ts). */
  readonly postDispatcher: Dispatcher;
  /** The transport's own keep-alive pool (destroyed on close), unless a dispatcher was given. */
  readonly ownPool: Pool | undefined;
  /** Aborted by `close()`: every exchange and wait links to it. */
  readonly lifetime = new Lifetime();
  readonly where: ErrWhere;
  readonly maxBytes: number;
  readonly idleMs: number;
  readonly auth: HttpAuth;
  state: 'open' | 'closing' | 'closed' = 'open';

  constructor(
    readonly opts: HttpTransportOptions,
    readonly cb: LinkCallbacks,
  ) {
    this.where = opts.serverId !== undefined ? { serverId: opts.serverId } : {};
    this.target = parseTarget(opts.url);
    this.maxBytes = opts.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.idleMs = opts.idleStreamTimeoutMs ?? DEFAULT_IDLE_STREAM_TIMEOUT_MS;
    this.auth = new HttpAuth(opts.authProvider);
    if (opts.dispatcher !== undefined) {
      this.dispatcher = opts.dispatcher;
    } else {
      this.ownPool = createPool(this.target.origin, opts);
      this.dispatcher = this.ownPool;
    }
    this.postDispatcher = writeHooked(this.dispatcher);
  }

  get open(): boolean {
    return this.state === 'open';
  }

  closedError(phase: Phase): ConnectionClosedError {
    return new ConnectionClosedError('the HTTP transport is closed', { ...this.where, phase });
  }

  /** A failed undici request as a typed error (closed, already typed, or a network failure). */
  requestFailure(what: string, err: unknown, phase: Phase): Error {
    if (this.state !== 'open') return this.closedError(phase);
    if (isMcpWireError(err)) return err;
    return networkError(what, err, { ...this.where, phase });
  }

  diag(code: string, message: string, raw?: string): void {
    if (this.cb.ondiagnostic === undefined) return;
    this.cb.ondiagnostic(raw !== undefined ? { code, message, excerpt: excerpt(raw) } : { code, message });
  }
}
