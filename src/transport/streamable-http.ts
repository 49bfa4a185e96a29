/**
 * Streamable HTTP transport (basic/transports, "Streamable HTTP", revision 2025-11-25).
 *
 * - Every message is one POST to the MCP endpoint with `Accept: application/json,
 *   text/event-stream` (basic.transports#12–#15); a 200 answer is either one JSON body or an SSE
 *   stream carrying any number of server requests/notifications before the response
 *   (basic.transports#19); 202 acknowledges notifications and responses.
 * - Session: `MCP-Session-Id` from the initialize response goes on every later request
 *   (basic.transports#42); `MCP-Protocol-Version` after `setProtocolVersion()` (#47). An
 *   `initialize` never carries either, so a re-initialize after 404 starts fresh (#45).
 * - Server-initiated stream: `start()` opens nothing (the transport is connectionless until
 *   the first POST). The GET stream for server→client messages opens lazily, right after the
 *   first message that follows a successful initialize has been accepted (in MCP that is the
 *   client's `notifications/initialized`); 405 means the server offers none (#30).
 * - Resumability (#20–#23, #37): SSE event ids are remembered per stream; when a stream drops
 *   before its response, the transport waits the server's `retry:` and resumes with GET +
 *   `Last-Event-ID`; event ids already seen on that stream are dropped, so nothing is delivered
 *   twice. Every reconnect (POST resumption or GET stream) waits at least 250 ms, doubling (with
 *   jitter) per consecutive attempt without progress, up to `maxReconnectDelayMs`; progress is a
 *   connection that delivered a JSON-RPC message (or stayed open 10 s, a polling server) — a 200
 *   that ends empty does not count. After `maxReconnectAttempts` attempts without progress the
 *   stream is given up with an `MCPWIRE_SSE_GAVE_UP` diagnostic.
 * - Every message read from a POST's stream (or its resumption) goes to `onmessage` with
 *   `{ relatedRequestId }` of that POST's request (basic.transports#25); the GET stream's carry
 *   nothing, nor does a JSON body (it is the response itself).
 * - A POST's stream belongs to its request: when the request is given up (its
 *   `SendOptions.signal` aborts: timeout, cancel, close) the stream and any resumption stop at
 *   once; once the response arrived (on any stream) the POST stream is closed by us if the server
 *   has not ended it within a short linger (#26 says it should), so sockets do not pile up.
 * - The server-message GET stream, once given up (too many failed reconnects, 401/403, 404),
 *   is reopened after the next successful POST exchange, but not before `maxReconnectDelayMs`
 *   has passed; after 405 it is never asked for again in this session.
 * - `send()` for a request settles when its HTTP exchange is over: it resolves once the
 *   response was delivered to `onmessage` and rejects with a typed error when the POST failed,
 *   the server answered 202 with no body (a request needs a response, #18), the response is too
 *   large, or the stream could not be resumed — the protocol layer settles the request with that
 *   error. `SendOptions.onDispatched` is called right before the POST is handed to undici (after
 *   the auth headers resolved), never when the signal was aborted by then.
 * - Session expiry (#45): a 404 to a message that carried our `MCP-Session-Id` means the session
 *   is gone. On a request's own POST (or its resumption GET) `send()` rejects with
 *   SessionExpiredError. On the GET stream, a notification POST or the POST of a reply to a server
 *   request, the transport calls `onsessionexpired` — once per session, whichever 404 comes first
 *   (a request's 404 counts too) — and the notification/reply `send()` then RESOLVES when an owner
 *   listens to `onsessionexpired` (the message is lost with the session; the owner renews it), and
 *   rejects with SessionExpiredError only when nobody listens. Never a raw error.
 * - The POST of a notification or of a response has no signal of the protocol layer: it gets
 *   its own bound (`notificationTimeoutMs`, default 10 s; `MCPWIRE_POST_TIMEOUT`), and honours
 *   `SendOptions.signal` when one is given (AbortError). `close()` aborts every exchange.
 * - Auth (basic.authorization#18): a 401/403 to a POST, a resumption GET or the GET stream goes
 *   to the provider's `onUnauthorized` (with the Authorization the refused request carried); the
 *   exchange is made again when it re-authorized, at most MAX_AUTH_REPLAYS times in a row. The
 *   session DELETE on close carries the credential held now (`headers({ refresh: false })`) and
 *   has one 2 s bound, auth headers included; its 401 is not shown to the provider.
 * - A leading UTF-8 BOM (U+FEFF) on a JSON body or an SSE event's data is skipped, as stdio does.
 * - Backwards compatibility: if the initialize POST fails with 400/404/405, the transport
 *   switches to the 2024-11-05 HTTP+SSE transport against the same URL (`kind` becomes
 *   `legacy-sse`) and re-sends the initialize there.
 */
import type { Dispatcher, Pool } from 'undici';
import { AbortError, AuthRequiredError, ConnectionClosedError, SessionExpiredError, TransportError, isMcpWireError, type Phase } from '../errors.js';
import { excerpt, type JSONRPCMessage, type RequestId } from '../jsonrpc/types.js';
import {
  DEFAULT_IDLE_STREAM_TIMEOUT_MS,
  DEFAULT_MAX_MESSAGE_BYTES,
  DEFAULT_MAX_RECONNECT_ATTEMPTS,
  DEFAULT_MAX_RECONNECT_DELAY_MS,
  DEFAULT_NOTIFICATION_TIMEOUT_MS,
  answers,
  boundSignals,
  isAborted,
  createPool,
  discard,
  header,
  httpError,
  isValidSessionId,
  lifetimeController,
  linkSignals,
  mediaType,
  networkError,
  parseTarget,
  postTimeout,
  readTextCapped,
  reconnectDelayMs,
  stripBom,
  tooLarge,
  type BodyReadable,
  type ErrWhere,
  type HttpTransportOptions,
  type Target,
} from './http-common.js';
import { wait } from '../util/sleep.js';
import { HttpAuth, Refused } from './http-auth.js';
import { readSse, type SseEnd } from './http-sse.js';
import { createSseStream, decodeEvent, type SseStream } from './sse-stream.js';
import { LegacySseTransport } from './legacy-sse.js';
import type { MessageExtra, SendOptions, Transport, TransportDiagnostic, TransportEvent } from './types.js';

export type StreamableHttpTransportOptions = HttpTransportOptions;

/** What every attempt of one POST shares. */
interface PostParams {
  isInit: boolean;
  requestId: RequestId | undefined;
  phase: Phase;
  /** The session the message goes out on (a 404 then means that session expired). */
  sentOn: string | undefined;
  /** The caller's signal (a request's: aborted when it is given up). */
  signal: AbortSignal | undefined;
}

const ACCEPT_BOTH = 'application/json, text/event-stream';
const DELETE_TIMEOUT_MS = 2000;
/** How long a POST stream may stay open after its response before we close it (#26: servers should). */
const POST_STREAM_LINGER_MS = 10;
/** A stream connection open this long counts as progress even without a message (polling servers). */
const STABLE_STREAM_MS = 10_000;

export class StreamableHttpTransport implements Transport {
  /** Requests get an AbortSignal from the protocol layer: a request given up on aborts its POST. */
  readonly wantsRequestSignal = true;
  onmessage?: (message: unknown, extra?: MessageExtra, text?: string) => void;
  onclose?: (error?: Error) => void;
  ondiagnostic?: (d: TransportDiagnostic) => void;
  onevent?: (e: TransportEvent) => void;
  onsessionexpired?: (error: Error) => void;

  private readonly opts: StreamableHttpTransportOptions;
  private readonly target: Target;
  private readonly dispatcher: Dispatcher;
  private readonly ownPool: Pool | undefined;
  private readonly lifetime = lifetimeController();
  private readonly where: ErrWhere;
  private readonly maxBytes: number;
  private readonly idleMs: number;
  private readonly staticHeaders: Record<string, string>;
  private readonly auth: HttpAuth;
  private readonly streams = new Set<SseStream>();
  /** POST streams by the id of the request they carry (to close one answered elsewhere). */
  private readonly postStreams = new Map<RequestId, SseStream>();

  private state: 'open' | 'closing' | 'closed' = 'open';
  private session: string | undefined;
  private protocolVersion: string | undefined;
  private initialized = false;
  private getStream: SseStream | undefined;
  /** The server answered 405 to GET: no server-message stream in this session (#30). */
  private getUnsupported = false;
  /** After the GET stream was given up: not reopened before this time (ms, performance.now()). */
  private getReopenAt = 0;
  /** The session whose expiry was reported (once per session, basic.transports#45). */
  private expiredReported: string | undefined;
  private postHeaders!: Record<string, string>;
  private initHeaders!: Record<string, string>;
  private getHeaders!: Record<string, string>;
  private legacy: LegacySseTransport | undefined;
  private closing: Promise<void> | undefined;
  private closeFired = false;

  constructor(options: StreamableHttpTransportOptions) {
    this.opts = options;
    this.where = options.serverId !== undefined ? { serverId: options.serverId } : {};
    this.target = parseTarget(options.url);
    this.maxBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.idleMs = options.idleStreamTimeoutMs ?? DEFAULT_IDLE_STREAM_TIMEOUT_MS;
    this.staticHeaders = lowerCaseKeys(options.headers);
    this.auth = new HttpAuth(options.authProvider);
    if (options.dispatcher !== undefined) {
      this.dispatcher = options.dispatcher;
    } else {
      this.ownPool = createPool(this.target.origin, options);
      this.dispatcher = this.ownPool;
    }
    this.rebuildHeaders();
  }

  get kind(): string {
    return this.legacy !== undefined ? 'legacy-sse' : 'streamable-http';
  }

  get sessionId(): string | undefined {
    return this.session;
  }

  /** Opens nothing: see the file comment (the GET stream opens after initialization). */
  start(): Promise<void> {
    if (this.state !== 'open') return Promise.reject(this.closedError('connect'));
    return Promise.resolve();
  }

  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
    this.rebuildHeaders();
    this.legacy?.setProtocolVersion(version);
  }

  resetSession(): void {
    this.session = undefined;
    this.initialized = false;
    if (this.getStream !== undefined) this.stopStream(this.getStream);
    this.getStream = undefined;
    this.getUnsupported = false;
    this.getReopenAt = 0;
    this.rebuildHeaders();
  }

  async terminateSession(): Promise<void> {
    if (this.state === 'open' && this.legacy === undefined && this.session !== undefined) await this.deleteSession();
    this.resetSession();
  }

  send(message: JSONRPCMessage, options?: SendOptions): Promise<void> {
    if (this.state !== 'open') return Promise.reject(this.closedError('transport'));
    if (this.legacy !== undefined) return this.legacy.send(message, options);
    return this.post(message, options);
  }

  close(): Promise<void> {
    if (this.closing === undefined) this.closing = this.shutdown();
    return this.closing;
  }

  // ---- POST -----------------------------------------------------------------------------

  private post(message: JSONRPCMessage, options: SendOptions | undefined): Promise<void> {
    const isInit = options?.isInitialize === true;
    const m = message as { id?: RequestId; method?: string };
    const requestId = m.method !== undefined && m.id !== undefined ? m.id : undefined;
    const phase: Phase = isInit ? 'initialize' : requestId !== undefined ? 'request' : 'transport';
    const p: PostParams = { isInit, requestId, phase, sentOn: isInit ? undefined : this.session, signal: options?.signal };
    // basic.authorization#18: a 401/403 goes to the auth provider; the POST is then made again.
    return this.auth.replaying(
      () => (isInit ? this.initHeaders : this.postHeaders),
      () => this.state === 'open',
      (headers, attempt) => this.postOnce(message, options, headers, attempt, p),
    );
  }

  /** One POST of `message` with `headers`: done, or Refused (401/403) for `post` to replay. */
  private async postOnce(message: JSONRPCMessage, options: SendOptions | undefined, headers: Record<string, string>, attempt: number, p: PostParams): Promise<void | Refused> {
    const { phase, signal } = p;
    // basic.utilities.cancellation#1: a request aborted before its POST started never reached
    // the server: it is not dispatched (and the protocol layer sends no cancellation for it).
    if (signal?.aborted === true) throw new AbortError('the request was given up before its POST was sent', { ...this.where, phase });
    if (this.state !== 'open') throw this.closedError(phase);
    if (attempt === 0) options?.onDispatched?.();
    // A request is bounded by its own signal (timeout, cancel); a notification or a response
    // carries none, so its POST gets a bound of its own.
    const boundMs = p.requestId === undefined && !p.isInit ? (this.opts.notificationTimeoutMs ?? DEFAULT_NOTIFICATION_TIMEOUT_MS) : undefined;
    const linked = boundMs === undefined ? linkSignals(this.lifetime.signal, signal) : boundSignals(this.lifetime.signal, signal, boundMs);
    try {
      return await this.exchange(message, options, linked.signal, headers, p);
    } catch (err) {
      if (this.state !== 'open') throw this.closedError(phase);
      if (linked.timedOut === true) throw postTimeout('the POST of a notification or response', boundMs!, { ...this.where, phase });
      if (isAborted(signal) && !(err instanceof AbortError)) throw new AbortError('the message was given up; its POST was aborted', { ...this.where, phase, cause: err });
      throw err;
    } finally {
      linked.dispose();
    }
  }

  /** The POST itself and its answer (`postOnce` links and unlinks the abort signals around it). */
  private async exchange(message: JSONRPCMessage, options: SendOptions | undefined, both: AbortSignal, headers: Record<string, string>, p: PostParams): Promise<void | Refused> {
    const { isInit, requestId, phase, sentOn, signal } = p;
    let res: Dispatcher.ResponseData;
    try {
      res = await this.dispatcher.request({
        origin: this.target.origin,
        path: this.target.path,
        method: 'POST',
        headers,
        body: options?.serialized ?? JSON.stringify(message),
        signal: both,
        headersTimeout: 0,
        bodyTimeout: this.idleMs,
      });
    } catch (err) {
      throw this.requestFailure('POST', err, phase);
    }
    const status = res.statusCode;
    if (this.onevent !== undefined) this.onevent({ type: 'http', method: 'POST', status });
    if (status < 200 || status >= 300) {
      if (isInit && (status === 400 || status === 404 || status === 405) && this.opts.fallbackToLegacySse !== false) {
        const original = await httpError('POST initialize', status, res.headers, res.body, { ...this.where, phase }, false);
        return this.fallBack(message, options, original, status);
      }
      const what = `POST ${requestId !== undefined ? 'request' : 'message'}`;
      const error = await httpError(what, status, res.headers, res.body, { ...this.where, phase }, sentOn !== undefined);
      if (error instanceof AuthRequiredError) return new Refused(error, status);
      if (error instanceof SessionExpiredError) {
        // A request's own 404 goes to its caller; anything else is reported to the owner.
        if (requestId !== undefined) this.markExpired(sentOn);
        else if (this.sessionLost(sentOn, error)) return;
      }
      throw error;
    }
    if (isInit) this.acceptSession(res.headers, res.body);
    await this.readPostBody(res, requestId, phase, signal);
    if (isInit) this.initialized = true;
    else this.maybeOpenGetStream();
  }

  /**
   * basic.transports#45 outside a request: reports the expiry of `sentOn` once to the owner.
   * True when an owner listens (the failed send then resolves: the owner renews the session).
   */
  private sessionLost(sentOn: string | undefined, error: SessionExpiredError): boolean {
    const owner = this.onsessionexpired;
    if (owner === undefined) return false;
    if (sentOn !== undefined && sentOn === this.session && this.expiredReported !== sentOn && this.state === 'open') {
      this.expiredReported = sentOn;
      owner(error);
    }
    return true;
  }

  /** A request's own 404 told its caller: later 404s on that session are not reported again. */
  private markExpired(sentOn: string | undefined): void {
    if (sentOn !== undefined && sentOn === this.session) this.expiredReported = sentOn;
  }

  private async readPostBody(res: Dispatcher.ResponseData, requestId: RequestId | undefined, phase: Phase, signal: AbortSignal | undefined): Promise<void> {
    const type = mediaType(header(res.headers, 'content-type'));
    if (type === 'text/event-stream') {
      const st = this.newStream('post', requestId);
      st.requestSignal = signal;
      // The stream belongs to its request: a request given up on stops it (and its resumption).
      const onAbort = (): void => this.stopStream(st);
      signal?.addEventListener('abort', onAbort, { once: true });
      if (requestId !== undefined) this.postStreams.set(requestId, st);
      try {
        await this.consumePostStream(st, res.body, phase);
      } finally {
        signal?.removeEventListener('abort', onAbort);
        if (requestId !== undefined && this.postStreams.get(requestId) === st) this.postStreams.delete(requestId);
        clearTimeout(st.linger);
        this.streams.delete(st);
      }
      return;
    }
    const where = { ...this.where, phase };
    const length = Number(header(res.headers, 'content-length'));
    if (length > this.maxBytes) {
      discard(res.body);
      throw tooLarge('the JSON response body', this.maxBytes, where);
    }
    let text: string;
    try {
      text = await readTextCapped(res.body, this.maxBytes, 'the JSON response body', where);
    } catch (err) {
      throw isMcpWireError(err) ? err : this.requestFailure('reading the POST response', err, phase);
    }
    if (text.length === 0 || /^\s*$/.test(text)) {
      if (requestId !== undefined) {
        const why =
          res.statusCode === 202
            ? '202 Accepted with no body for a request: no response can follow (basic.transports#18)'
            : `HTTP ${res.statusCode} with no JSON-RPC response`;
        throw new TransportError(`the server answered request id ${JSON.stringify(requestId)} with ${why}`, {
          ...where,
          status: res.statusCode,
          code: 'MCPWIRE_BAD_RESPONSE',
        });
      }
      return;
    }
    let parsed: unknown;
    const json = stripBom(text);
    try {
      parsed = JSON.parse(json);
    } catch {
      throw new TransportError(`the response body is not valid JSON: ${excerpt(text)}`, {
        ...where,
        status: res.statusCode,
        code: 'MCPWIRE_BAD_RESPONSE',
      });
    }
    this.onmessage?.(parsed, undefined, json);
    if (requestId !== undefined && !answers(parsed, requestId)) {
      throw new TransportError('the JSON response body does not answer the request', {
        ...where,
        status: res.statusCode,
        code: 'MCPWIRE_BAD_RESPONSE',
      });
    }
  }

  /** Reads a POST's SSE stream; resumes it with GET + Last-Event-ID if it drops unanswered. */
  private async consumePostStream(st: SseStream, body: BodyReadable, phase: Phase): Promise<void> {
    const end = await this.consume(st, body);
    if (this.state !== 'open') throw this.closedError(phase);
    if (st.tooLarge || end.kind === 'too-large') throw tooLarge('an SSE event', this.maxBytes, { ...this.where, phase });
    if (st.requestId === undefined || st.answered) return;
    if (st.stopped) {
      this.stoppedOrClosed(st, phase);
      return;
    }
    if (st.lastEventId === undefined) {
      const why = end.kind === 'error' ? `: ${end.error.message}` : '';
      throw new TransportError(`the SSE stream ended before the response arrived and cannot be resumed (no event id)${why}`, {
        ...this.where,
        phase,
        code: 'MCPWIRE_STREAM_ENDED',
      });
    }
    // basic.transports#27: a disconnection is not a cancellation; resume (basic.transports#37).
    await this.getLoop(st, true, phase);
  }

  // ---- SSE streams ----------------------------------------------------------------------

  private newStream(origin: 'post' | 'get', requestId: RequestId | undefined): SseStream {
    const st = createSseStream(origin, requestId, this.session);
    this.streams.add(st);
    return st;
  }

  private stopStream(st: SseStream): void {
    st.stopped = true;
    st.ctrl.abort();
  }

  /** The POST stream's request is answered: close the stream unless the server ends it soon. */
  private markAnswered(st: SseStream): void {
    if (st.answered) return;
    st.answered = true;
    if (st.stopped || st.linger !== undefined) return;
    st.linger = setTimeout(() => this.stopStream(st), POST_STREAM_LINGER_MS);
    st.linger.unref?.();
  }

  private consume(st: SseStream, body: BodyReadable): Promise<SseEnd> {
    const onAbort = (): void => {
      body.destroy();
    };
    // basic.transports#25: what a POST stream (or its resumption) carries relates to its request;
    // one object per connection, none for the GET stream.
    const extra: MessageExtra | undefined = st.origin === 'post' && st.requestId !== undefined ? { relatedRequestId: st.requestId } : undefined;
    st.ctrl.signal.addEventListener('abort', onAbort, { once: true });
    return readSse(body, this.maxBytes, {
      onEvent: (ev) => {
        const d = decodeEvent(st, ev);
        if (d.kind === 'duplicate') this.diag('MCPWIRE_SSE_DUPLICATE', `dropped a redelivered SSE event (id ${excerpt(d.id, 80)})`);
        else if (d.kind === 'bad-json') this.diag('MCPWIRE_SSE_BAD_JSON', 'an SSE event is not valid JSON', d.data);
        if (d.kind !== 'message') return;
        const msg = d.message;
        st.delivered++;
        this.onmessage?.(msg, extra, ev.data);
        if (st.requestId !== undefined && !st.answered && answers(msg, st.requestId)) this.markAnswered(st);
        else if (this.postStreams.size > 0) this.answeredElsewhere(msg, st);
      },
      onRetry: (ms) => {
        st.retryMs = ms;
      },
      onProblem: (code, message) => this.diag(code, message),
    }).then((end) => {
      st.ctrl.signal.removeEventListener('abort', onAbort);
      if (end.kind === 'too-large') st.tooLarge = true;
      return end;
    });
  }

  /** A response that arrived on another stream than its POST's settles that POST stream too. */
  private answeredElsewhere(msg: unknown, from: SseStream): void {
    for (const one of Array.isArray(msg) ? msg : [msg]) {
      const r = one as { id?: unknown; method?: unknown } | null;
      if (r === null || typeof r !== 'object' || r.method !== undefined) continue;
      if (typeof r.id !== 'string' && typeof r.id !== 'number') continue;
      const st = this.postStreams.get(r.id);
      // Its POST stream (or a resumption waiting to reconnect) has nothing left to fetch.
      if (st !== undefined && st !== from && answers(one, r.id)) this.markAnswered(st);
    }
  }

  /** Opens the GET stream after a successful exchange, unless refused (405) or lately given up. */
  private maybeOpenGetStream(): void {
    if (!this.initialized || this.getStream !== undefined || this.getUnsupported || this.state !== 'open') return;
    if (this.getReopenAt !== 0 && performance.now() < this.getReopenAt) return;
    this.openGetStream();
  }

  private openGetStream(): void {
    const st = this.newStream('get', undefined);
    this.getStream = st;
    const maxDelay = this.opts.maxReconnectDelayMs ?? DEFAULT_MAX_RECONNECT_DELAY_MS;
    this.getLoop(st, false, 'transport').then(
      (outcome) => {
        this.streams.delete(st);
        if (this.getStream === st) this.getStream = undefined;
        if (outcome === 'unsupported') this.getUnsupported = true;
      },
      (err: unknown) => {
        this.streams.delete(st);
        if (this.getStream === st) this.getStream = undefined;
        if (this.state !== 'open' || st.stopped) return;
        if (err instanceof SessionExpiredError) {
          this.sessionLost(st.session, err);
          return;
        }
        // Given up: reopened after a later successful POST, not sooner than the longest backoff.
        this.getReopenAt = performance.now() + maxDelay;
        if (st.gaveUp) return;
        const e = err as { code?: string; message?: string };
        this.diag(e.code ?? 'MCPWIRE_GET_STREAM', `the server-message GET stream stopped: ${e.message ?? String(err)}`);
      },
    );
  }

  /**
   * GETs `st` (with Last-Event-ID once it has one) until it is finished: answered (POST-origin),
   * refused with 405 (GET-origin, resolves `unsupported`), stopped or closed. `delayFirst` waits
   * before the first GET (a resumption honours the server's `retry:`, basic.transports#23).
   * `failures` counts consecutive attempts without progress (see the file comment).
   */
  private async getLoop(st: SseStream, delayFirst: boolean, phase: Phase): Promise<'done' | 'unsupported'> {
    const maxAttempts = this.opts.maxReconnectAttempts ?? DEFAULT_MAX_RECONNECT_ATTEMPTS;
    const maxDelay = this.opts.maxReconnectDelayMs ?? DEFAULT_MAX_RECONNECT_DELAY_MS;
    let failures = 0;
    /** Re-authorizations since the last connection that got through (basic.authorization#18). */
    let authAttempt = 0;
    let delay = delayFirst;
    for (;;) {
      if (delay) {
        const delayMs = reconnectDelayMs(Math.max(0, failures - 1), st.retryMs, maxDelay);
        if (this.onevent !== undefined) this.onevent({ type: 'sse-reconnect', lastEventId: st.lastEventId ?? null, delayMs, attempt: failures + 1 });
        if (!(await wait(delayMs, st.ctrl.signal))) return this.stoppedOrClosed(st, phase);
      }
      delay = true;
      if (this.state !== 'open' || st.stopped || (st.origin === 'post' && st.answered)) return this.stoppedOrClosed(st, phase);
      let res: Dispatcher.ResponseData;
      let headers: Record<string, string>;
      try {
        const base = await this.auth.headers(this.getHeaders);
        if (this.state !== 'open' || st.stopped) return this.stoppedOrClosed(st, phase);
        headers = st.lastEventId !== undefined ? { ...base, 'last-event-id': st.lastEventId } : base;
        res = await this.dispatcher.request({
          origin: this.target.origin,
          path: this.target.path,
          method: 'GET',
          headers,
          signal: st.ctrl.signal,
          headersTimeout: 0,
          bodyTimeout: this.idleMs,
        });
      } catch (err) {
        if (this.state !== 'open' || st.stopped) return this.stoppedOrClosed(st, phase);
        if (++failures > maxAttempts) throw this.gaveUp(st, phase, failures, this.requestFailure('GET (SSE stream)', err, phase));
        continue;
      }
      const status = res.statusCode;
      if (this.onevent !== undefined) this.onevent({ type: 'http', method: 'GET', status, resume: st.lastEventId !== undefined });
      const type = mediaType(header(res.headers, 'content-type'));
      if (status === 200 && type === 'text/event-stream') {
        st.resumed = true;
        authAttempt = 0;
        const before = st.delivered;
        const openedAt = performance.now();
        await this.consume(st, res.body);
        if (st.tooLarge) throw tooLarge('an SSE event', this.maxBytes, { ...this.where, phase });
        if (st.origin === 'post' && st.answered) return 'done';
        if (this.state !== 'open' || st.stopped) return this.stoppedOrClosed(st, phase);
        // A 200 that ends without a message is no progress (a `retry: 0` + instant close storm).
        if (st.delivered > before || performance.now() - openedAt >= STABLE_STREAM_MS) failures = 0;
        else if (++failures > maxAttempts) {
          throw this.gaveUp(st, phase, failures, new TransportError('every reconnect ended without a message', { ...this.where, phase, code: 'MCPWIRE_SSE_GAVE_UP' }));
        }
        continue;
      }
      if (status === 405) {
        discard(res.body);
        if (st.origin === 'get') {
          if (this.onevent !== undefined) this.onevent({ type: 'sse-unsupported', method: 'GET', status });
          return 'unsupported';
        }
      }
      const hadSession = this.session !== undefined;
      const error = await httpError('GET (SSE stream)', status, res.headers, res.body, { ...this.where, phase }, hadSession);
      if (error instanceof SessionExpiredError && st.origin === 'post') this.markExpired(st.session);
      // A refused GET goes to the auth provider like a refused POST; re-authorized, it is made again at once.
      if (error instanceof AuthRequiredError && (await this.auth.again(new Refused(error, status), authAttempt++, headers, this.state === 'open' && !st.stopped))) {
        delay = false;
        continue;
      }
      if (status === 405 || status === 404 || status === 401 || status === 403) throw error;
      if (++failures > maxAttempts) throw this.gaveUp(st, phase, failures, error);
    }
  }

  /** The reconnect cap was reached: one diagnostic, and the error (it keeps its HTTP status). */
  private gaveUp(st: SseStream, phase: Phase, attempts: number, error: Error): Error {
    if (this.state !== 'open') return this.closedError(phase);
    st.gaveUp = true;
    const which = st.origin === 'get' ? 'the server-message GET stream' : `the resumption of request ${JSON.stringify(st.requestId)}`;
    this.diag('MCPWIRE_SSE_GAVE_UP', `${which} was given up after ${attempts} reconnects without progress: ${error.message}`);
    return error;
  }

  private stoppedOrClosed(st: SseStream, phase: Phase): 'done' {
    if (this.state !== 'open') throw this.closedError(phase);
    if (st.origin === 'post' && !st.answered) {
      if (st.requestSignal?.aborted === true) {
        throw new AbortError('the request was given up; its SSE stream and any resumption were stopped', { ...this.where, phase });
      }
      throw new TransportError('the SSE stream was stopped before the response arrived', { ...this.where, phase, code: 'MCPWIRE_STREAM_ENDED' });
    }
    return 'done';
  }

  // ---- session, headers -----------------------------------------------------------------

  private acceptSession(headers: Record<string, string | string[] | undefined>, body: BodyReadable): void {
    const id = header(headers, 'mcp-session-id');
    if (id === undefined) return;
    if (!isValidSessionId(id)) {
      discard(body);
      throw new TransportError(`the server sent an invalid MCP-Session-Id (${excerpt(id, 60)}): visible ASCII only`, {
        ...this.where,
        phase: 'initialize',
        code: 'MCPWIRE_BAD_SESSION_ID',
      });
    }
    if (id !== this.session) {
      this.session = id;
      this.rebuildHeaders();
      // The session id is a bearer secret (basic.transports#41): events carry a short prefix only.
      if (this.onevent !== undefined) this.onevent({ type: 'session', sessionId: `${id.slice(0, 8)}…` });
    }
  }

  private rebuildHeaders(): void {
    const common: Record<string, string> = { ...this.staticHeaders };
    this.initHeaders = { ...common, accept: ACCEPT_BOTH, 'content-type': 'application/json' };
    if (this.session !== undefined) common['mcp-session-id'] = this.session;
    if (this.protocolVersion !== undefined) common['mcp-protocol-version'] = this.protocolVersion;
    this.postHeaders = { ...common, accept: ACCEPT_BOTH, 'content-type': 'application/json' };
    this.getHeaders = { ...common, accept: 'text/event-stream' };
  }

  // ---- legacy fallback ------------------------------------------------------------------

  private async fallBack(message: JSONRPCMessage, options: SendOptions | undefined, original: Error, status: number): Promise<void> {
    const legacy = new LegacySseTransport({ ...this.opts, dispatcher: this.dispatcher });
    legacy.onmessage = (m, _extra, text) => this.onmessage?.(m, undefined, text);
    legacy.ondiagnostic = (d) => this.ondiagnostic?.(d);
    legacy.onevent = (e) => this.onevent?.(e);
    legacy.onclose = (err) => {
      if (this.state === 'open') {
        this.state = 'closed';
        this.lifetime.abort();
        this.fireClose(err);
      }
    };
    try {
      await legacy.start();
    } catch (err) {
      // The failed fallback must not close this transport first: the request then fails with
      // the HTTP status below, not a bare "connection closed".
      legacy.onclose = undefined;
      await legacy.close().catch(() => {});
      const legacyStatus = (err as { status?: unknown }).status;
      const text =
        status === 404 || status === 405
          ? `no MCP endpoint at ${endpointText(this.opts.url)} (HTTP ${status}) — is the path right? (e.g. /mcp); the legacy HTTP+SSE fallback failed too${typeof legacyStatus === 'number' ? ` (HTTP ${legacyStatus})` : `: ${(err as Error).message}`}`
          : `${original.message}; the legacy HTTP+SSE fallback failed too: ${(err as Error).message}`;
      throw new TransportError(
        text,
        { ...this.where, phase: 'initialize', status, cause: err },
      );
    }
    if (this.state !== 'open') {
      await legacy.close();
      throw this.closedError('initialize');
    }
    this.legacy = legacy;
    if (this.protocolVersion !== undefined) legacy.setProtocolVersion(this.protocolVersion);
    if (this.onevent !== undefined) this.onevent({ type: 'fallback', to: 'legacy-sse', status });
    // The POST that met the fallback was the dispatch: the legacy re-send does not report again.
    const { onDispatched: _dispatched, ...rest } = options ?? {};
    return legacy.send(message, rest);
  }

  // ---- close ----------------------------------------------------------------------------

  private async shutdown(): Promise<void> {
    if (this.state === 'open') this.state = 'closing';
    this.lifetime.abort();
    for (const st of this.streams) st.ctrl.abort();
    if (this.legacy !== undefined) {
      this.legacy.onclose = undefined;
      await this.legacy.close().catch(() => {});
    } else if (this.session !== undefined) {
      await this.deleteSession();
    }
    if (this.ownPool !== undefined) await this.ownPool.destroy().catch(() => {});
    this.state = 'closed';
    this.fireClose(undefined);
  }

  /**
   * basic.transports#46: DELETE the session; 405 (and any failure) is tolerated. The whole of it —
   * the auth headers too — has one bound: it carries the credential held now (`refresh: false`:
   * a close never waits for a token refresh) and a 401/403 is not shown to the provider.
   */
  private async deleteSession(): Promise<void> {
    const signal = AbortSignal.timeout(DELETE_TIMEOUT_MS);
    try {
      const headers = await untilAborted(this.auth.headers(this.getHeaders, { refresh: false, signal }), signal);
      const res = await this.dispatcher.request({
        origin: this.target.origin,
        path: this.target.path,
        method: 'DELETE',
        headers,
        signal,
        headersTimeout: DELETE_TIMEOUT_MS,
        bodyTimeout: DELETE_TIMEOUT_MS,
      });
      discard(res.body);
      if (this.onevent !== undefined) this.onevent({ type: 'http', method: 'DELETE', status: res.statusCode });
    } catch (err) {
      this.diag('MCPWIRE_DELETE_FAILED', `DELETE of the session failed: ${(err as Error).message}`);
    }
  }

  private fireClose(err: Error | undefined): void {
    if (this.closeFired) return;
    this.closeFired = true;
    this.onclose?.(err);
  }

  // ---- errors ---------------------------------------------------------------------------

  private closedError(phase: Phase): ConnectionClosedError {
    return new ConnectionClosedError('the HTTP transport is closed', { ...this.where, phase });
  }

  private requestFailure(what: string, err: unknown, phase: Phase): Error {
    if (this.state !== 'open') return this.closedError(phase);
    if (isMcpWireError(err)) return err;
    return networkError(what, err, { ...this.where, phase });
  }

  private diag(code: string, message: string, raw?: string): void {
    if (this.ondiagnostic === undefined) return;
    this.ondiagnostic(raw !== undefined ? { code, message, excerpt: excerpt(raw) } : { code, message });
  }
}

function lowerCaseKeys(h: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (h === undefined) return out;
  for (const k of Object.keys(h)) out[k.toLowerCase()] = h[k];
  return out;
}

/** `p`, or a rejection as soon as `signal` aborts (a provider that never answers cannot hold a close). */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new Error('the auth provider gave no headers in time'));
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** The URL without user info, query or fragment (they may hold credentials), for an error text. */
function endpointText(url: string | URL): string {
  try {
    const u = new URL(url.toString());
    return `${u.origin}${u.pathname}`;
  } catch {
    return '<invalid URL>';
  }
}
