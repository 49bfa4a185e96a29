/**
 * HTTP sessions of the handshake era (basic.transports#44–#46): a request refused for an
 * expired session (SessionExpiredError, 404) gets a new session, what the old one had (log
 * level, resource subscriptions) restored, and is replayed once — safe, since a request refused
 * for an unknown session was never processed (basic.transports#45). A 404 outside a request
 * (GET stream, notification) renews the same way. A request carrying a list cursor is not
 * replayed: the cursor died with its session (server.utilities.pagination#4).
 *
 * One flight: every renewal — automatic, or asked for by `reinitialize()` — is the same promise
 * while it runs; requests made meanwhile go out on the new session. A renewal that fails closes
 * the connection with the reason (state `failed`, `close` event).
 */
import { ConnectionClosedError, SessionExpiredError, StateError, type McpWireError, type Phase } from '../errors.js';
import type { Connection, ErrorMap, RequestOptions, ResultMap } from '../protocol/connection.js';
import { bareMessage } from '../protocol/error-text.js';
import type { Transport } from '../transport/types.js';
import type { LifecycleState } from './lifecycle.js';
import { paginate, type Page } from './pagination.js';
import type { LoggingLevel, ServerCapabilities } from './types.js';

/**
 * The paginated list methods: their cursors belong to the session that issued them
 * (server.utilities.pagination#4), so a request carrying one is never replayed on a new session.
 */
const PAGINATED: ReadonlySet<string> = new Set(['tools/list', 'resources/list', 'resources/templates/list', 'prompts/list', 'tasks/list']);

/** What the session keeper needs from the client. */
export interface SessionHost {
  readonly serverId: string;
  state(): LifecycleState;
  phase(): Phase;
  /** Why `method` cannot be sent now (lifecycle, capabilities), or undefined. */
  refusal(method: string): McpWireError | undefined;
  /** The client's whole request path (a request made during a renewal goes out after it). */
  request<T>(method: string, params: Record<string, unknown> | undefined, options: RequestOptions | undefined): Promise<T>;
  /** Runs the initialization phase on the current transport. */
  initialize(signal: AbortSignal | undefined): Promise<void>;
  /** The negotiated state of the old session is void. */
  forgetSession(): void;
  serverCapabilities(): ServerCapabilities | undefined;
  /** close() was called. */
  closing(): boolean;
  emit(event: 'sessionExpired' | 'sessionRenewed' | 'diagnostic', payload: unknown): void;
  traceEvent(event: { type: string; [key: string]: unknown }): void;
}

export class SessionKeeper {
  /** Bumped by every new session after the first: a listing that spans two restarts. */
  epoch = 0;
  /** What a session holds that a new session must be told again. */
  readonly state = { logLevel: undefined as LoggingLevel | undefined, subscriptions: new Set<string>() };
  private renewing: Promise<void> | undefined;
  /** Errors that mean "this listing's cursor is stale: start over". */
  private readonly staleCursors = new WeakSet<object>();
  private transport: Transport | undefined;
  private connection: Connection | undefined;

  constructor(
    private readonly host: SessionHost,
    private readonly recovery: 'auto' | 'off',
  ) {}

  /** The transport and connection sessions live on (set once, at connect). */
  attach(transport: Transport, connection: Connection): void {
    this.transport = transport;
    this.connection = connection;
  }

  /**
   * Sends on the current session, renewing it (and replaying once) when it turns out expired.
   * `mapError`: what the caller makes of any error (the era's typed errors); without sessions
   * to renew it is applied where the request settles (connection.ts), with no promise chained;
   * so is `mapResult` (what the caller makes of the result: connection.ts `ResultMap`).
   */
  send<T>(method: string, params: Record<string, unknown> | undefined, options: RequestOptions | undefined, mapError?: ErrorMap, mapResult?: ResultMap): Promise<T> {
    if (this.renewing !== undefined) return resultMapped(mapped(this.afterRenewal<T>(this.renewing, method, params, options), mapError), mapResult);
    const refused = this.host.refusal(method);
    if (refused !== undefined) return Promise.reject(mapError === undefined ? refused : mapError(refused));
    const transport = this.transport!;
    // Only session-based transports can expire; stdio pays nothing here.
    if (transport.resetSession === undefined || this.recovery === 'off') return this.connection!.request<T>(method, params, options, mapError, mapResult);
    const session = transport.sessionId;
    const p = this.connection!.request<T>(method, params, options);
    return resultMapped(
      mapped(
        p.catch((err: unknown) => this.recover<T>(err, session, method, params, options)),
        mapError,
      ),
      mapResult,
    );
  }

  /**
   * A new session asked for by the caller: the old one is ended on the server first (DELETE,
   * basic.transports#46) — its id stays a secret of the trace until then — and the
   * initialization phase runs again. Joins a renewal under way instead of starting another.
   */
  reinitialize(signal: AbortSignal | undefined): Promise<void> {
    const connection = this.connection;
    if (connection === undefined || connection.isClosed) {
      return Promise.reject(new StateError('cannot re-initialize: the connection is closed', { serverId: this.host.serverId, phase: this.host.phase() }));
    }
    return this.flight(() => this.startNewSession(signal, true));
  }

  /** The transport saw a 404 for our session outside a request's own POST (basic.transports#45). */
  onTransportSessionExpired(err: Error): void {
    if (this.renewing !== undefined || this.host.state() !== 'ready') return;
    if (this.recovery === 'off') {
      this.host.emit('sessionExpired', err);
      return;
    }
    this.renew(err).catch(() => {
      /* reported: the connection closed with the reason (`close` event) */
    });
  }

  /**
   * Follows `nextCursor` to the end. A listing that a new session interrupts starts over from
   * the first page: its cursors belonged to the old session (server.utilities.pagination#4).
   */
  listing<T>(method: string, fetchPage: (cursor: string | undefined) => Promise<Page<T>>, diagnostic: (code: string, message: string) => void): Promise<T[]> {
    let epoch = this.epoch;
    return paginate(
      (cursor) => {
        if (cursor === undefined) epoch = this.epoch;
        else if (epoch !== this.epoch) return Promise.reject(this.staleCursor(method, { cursor }));
        return fetchPage(cursor);
      },
      {
        onProblem: (code, message) => diagnostic(code, `${method}: ${message}`),
        isRestart: (err) => typeof err === 'object' && err !== null && this.staleCursors.has(err),
      },
    );
  }

  /**
   * server.utilities.pagination#4: a cursor does not outlive its session. A paginated request
   * carrying one is not replayed on a new session: the caller gets this error (SessionExpired),
   * and a listing (`listTools`…) starts over from the first page.
   */
  staleCursor(method: string, params: Record<string, unknown> | undefined): SessionExpiredError | undefined {
    if (params?.cursor === undefined || !PAGINATED.has(method)) return undefined;
    const err = new SessionExpiredError(
      `${method}: the cursor belongs to the expired session and is not valid on the new one; list again from the first page`,
      { serverId: this.host.serverId, phase: 'request' },
    );
    this.staleCursors.add(err);
    return err;
  }

  /** basic.transports#45: a new session, its state restored, then the request once more. */
  private async recover<T>(err: unknown, sentOnSession: string | undefined, method: string, params: Record<string, unknown> | undefined, options: RequestOptions | undefined): Promise<T> {
    if (!(err instanceof SessionExpiredError)) throw err;
    // Renew only the session the request was refused on; if another request already renewed
    // it, just replay on the new one.
    if (this.transport?.sessionId === sentOnSession || this.renewing !== undefined) {
      if (this.host.state() !== 'ready' && this.renewing === undefined) throw err;
      await this.renew(err);
    }
    const stale = this.staleCursor(method, params);
    if (stale !== undefined) throw stale;
    const refused = this.host.refusal(method);
    if (refused !== undefined) throw refused;
    return this.connection!.request<T>(method, params, options);
  }

  /** A request made while the session is being renewed goes out on the new session. */
  private async afterRenewal<T>(renewing: Promise<void>, method: string, params: Record<string, unknown> | undefined, options: RequestOptions | undefined): Promise<T> {
    await renewing;
    const stale = this.staleCursor(method, params);
    if (stale !== undefined) throw stale;
    return this.host.request<T>(method, params, options);
  }

  /** The automatic renewal after an expiry: events, a new session, its state restored. */
  private renew(cause: Error): Promise<void> {
    return this.flight(async () => {
      this.host.emit('sessionExpired', cause);
      this.host.traceEvent({ type: 'session-expired', message: cause.message });
      await this.startNewSession(undefined, false);
      await this.restoreSessionState();
      this.host.emit('sessionRenewed', { sessionId: this.transport?.sessionId });
    });
  }

  /** Runs `run` unless a renewal is under way already (then that one is the answer). */
  private flight(run: () => Promise<void>): Promise<void> {
    this.renewing ??= run().then(
      () => {
        this.renewing = undefined;
      },
      (err: unknown) => {
        this.renewing = undefined;
        return this.renewalFailed(err);
      },
    );
    return this.renewing;
  }

  /**
   * `terminate`: the old session may still be alive (the caller asked for a new one), so it is
   * DELETEd; after an expiry it is merely forgotten.
   */
  private async startNewSession(signal: AbortSignal | undefined, terminate: boolean): Promise<void> {
    const transport = this.transport!;
    if (terminate && transport.terminateSession !== undefined) await transport.terminateSession();
    else transport.resetSession?.();
    this.host.forgetSession();
    // Cursors of the old session are void from here on (server.utilities.pagination#4).
    this.epoch++;
    await this.host.initialize(signal);
  }

  /** Tells the new session what the old one had. A refusal is reported, not fatal. */
  private async restoreSessionState(): Promise<void> {
    const { logLevel, subscriptions } = this.state;
    const caps = this.host.serverCapabilities();
    const connection = this.connection!;
    try {
      if (logLevel !== undefined && caps?.logging) await connection.request('logging/setLevel', { level: logLevel });
      if (caps?.resources?.subscribe === true) await Promise.all([...subscriptions].map((uri) => connection.request('resources/subscribe', { uri })));
    } catch (err) {
      this.host.emit('diagnostic', {
        code: 'MCPWIRE_SESSION_RESTORE',
        message: `the new session could not be given the log level / subscriptions of the old one: ${bareMessage(err)}`,
        serverId: this.host.serverId,
      });
    }
  }

  private async renewalFailed(err: unknown): Promise<never> {
    const connection = this.connection;
    // close() during the renewal: nothing to report beyond what close() does.
    if (this.host.closing() || connection === undefined) throw err;
    const reason = new ConnectionClosedError(`the session expired and a new one could not be started: ${bareMessage(err)}`, {
      serverId: this.host.serverId,
      phase: 'initialize',
      cause: err,
    });
    // → the client's onConnectionClose: state `failed`, `close` event with the reason; pending requests reject.
    await connection.fail(reason);
    throw reason;
  }
}

/** `p` with its result read by `mapResult`. */
function resultMapped<T>(p: Promise<T>, mapResult: ResultMap | undefined): Promise<T> {
  return mapResult === undefined ? p : (p.then(mapResult) as Promise<T>);
}

/** `p` with its error read by `mapError`. */
function mapped<T>(p: Promise<T>, mapError: ErrorMap | undefined): Promise<T> {
  return mapError === undefined
    ? p
    : p.catch((err: unknown) => {
        throw mapError(err);
      });
}
