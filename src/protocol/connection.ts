/**
 * The MCP-agnostic request engine over any Transport: assigns ids, owns in-flight requests
 * through the RequestRegistry (timeouts, cancellation, progress), and dispatches incoming
 * requests and notifications to handlers. It knows two method names that JSON-RPC-level
 * machinery needs: `notifications/cancelled` and `notifications/progress` (basic/utilities).
 */
import {
  AbortError,
  ConnectionClosedError,
  JsonRpcError,
  McpWireError,
  ProtocolError,
  TimeoutError,
  type Phase,
} from '../errors.js';
import {
  classify,
  excerpt,
  excerptOf,
  invalidReason,
  type JSONRPCErrorObject,
  type JSONRPCMessage,
  type MessageKind,
  type RequestId,
} from '../jsonrpc/types.js';
import type { MessageExtra, SendOptions, Transport, TransportDiagnostic } from '../transport/types.js';
import { Incoming, serialize, type NotificationHandler, type RequestHandler } from './incoming.js';
import { batchRefusal, invalidRequest, invalidResponseId } from './malformed.js';
import type { ProtocolObserver } from './observer.js';
import { DEFAULT_PROGRESS_INTERVAL_MS, DEFAULT_REQUEST_TIMEOUT_MS, UNKNOWN_PROGRESS, type ConnectionOptions, type RequestOptions } from './options.js';
import { ProgressGate, routeProgress } from './progress.js';
import {
  RequestRegistry,
  type PendingRequest,
  type ProgressToken,
} from './registry.js';
import { abortError, callbackFailed, closedFor, reasonText, sendFailed, tokenInUse } from './request-errors.js';
import type { CancelSignal } from '../util/cancel.js';

export { type IncomingRequestContext, type NotificationHandler, type RequestHandler } from './incoming.js';

export {
  type ConnectionDiagnostic,
  type ConnectionOptions,
  type RequestOptions,
} from './options.js';

/** What a caller makes of a request's error (e.g. an era's typed errors); applied once, where the request settles. */
export type ErrorMap = (err: unknown) => unknown;

/**
 * What a caller makes of a request's result (e.g. a tool call's checks), applied where the
 * request settles, so no promise or async frame is chained after the request's own. A throw
 * rejects the request with the error as thrown (not through `ErrorMap`: it is no error of the
 * request); a promise returned is adopted.
 */
export type ResultMap = (result: unknown) => unknown;

/** The settle functions of the promise `captureSettlers` was last given (read at once). */
let capturedResolve: (value: unknown) => void = () => {};
let capturedReject: (reason: unknown) => void = () => {};

/** The executor of every request's promise: one function for all, no closure per request. */
function captureSettlers(resolve: (value: never) => void, reject: (reason: unknown) => void): void {
  capturedResolve = resolve as (value: unknown) => void;
  capturedReject = reject;
}

/** Settles a request with `err`, as its caller reads errors (`mapError`). */
function rejectEntry(entry: PendingRequest, err: Error): void {
  const mapError = entry.mapError;
  entry.reject(mapError === undefined ? err : mapError(err));
}

/** Settles a request with what `mapResult` makes of its result; a throw rejects it (as thrown). */
function resolveMapped(entry: PendingRequest, mapResult: ResultMap, result: unknown): void {
  let value: unknown;
  try {
    value = mapResult(result);
  } catch (err) {
    entry.reject(err);
    return;
  }
  entry.resolve(value);
}

/** A request refused before it was registered: its error, as the caller reads it. */
function refused<T>(err: Error, mapError: ErrorMap | undefined): Promise<T> {
  return Promise.reject(mapError === undefined ? err : mapError(err));
}

export class Connection {
  private readonly transport: Transport;
  private readonly registry = new RequestRegistry((e) => this.onTimeout(e), (e, reason) => this.cancel(e.id, reason));
  /** The peer's requests and notifications (incoming.ts). */
  private readonly incoming: Incoming;
  private readonly opts: ConnectionOptions;
  private readonly defaultTimeoutMs: number;
  private nextId = 0;
  private closedError: Error | undefined;
  private closed = false;
  private failReason: Error | undefined;
  /** The last send() promise seen fulfilled (see request()). */
  private fulfilledSend: Promise<void> | undefined;
  /**
   * Our progress tokens: strings with a per-connection prefix, so they can equal neither a
   * request id (integers) nor, in practice, a caller's token (basic.utilities.progress#2).
   */
  private readonly tokenPrefix = `mcpwire-${Math.random().toString(36).slice(2, 8)}-`;
  /** Delivers progress callbacks, coalesced (basic.utilities.progress#10). */
  private readonly progressGate = new ProgressGate((err) =>
    this.diagnostic({ code: 'MCPWIRE_HANDLER_FAILED', message: `onProgress callback threw: ${(err as Error)?.message ?? String(err)}` }),
  );
  observer: ProtocolObserver | undefined;
  /**
   * A request's JSON text when someone can write it cheaper than a walk of the message (the
   * client's era codec: a 2026-07-28 request's constant `_meta` spliced in as text); undefined
   * from it, or unset: serialized as usual. The same bytes go to the observer and the transport.
   */
  requestText: ((message: { jsonrpc: '2.0'; id: number | string; method: string; params?: Record<string, unknown> }) => string | undefined) | undefined;

  constructor(transport: Transport, options: ConnectionOptions = {}) {
    this.transport = transport;
    this.opts = options;
    this.observer = options.observer;
    this.defaultTimeoutMs = options.defaultTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.incoming = new Incoming({
      transport,
      observer: () => this.observer,
      closed: () => this.closed,
      diagnostic: (d) => this.diagnostic(d),
      onOtherNotification: options.onOtherNotification,
    });
    transport.onmessage = (m, extra, text) => this.receive(m, extra, text);
    transport.onclose = (err) => this.handleClose(err);
    transport.ondiagnostic = (d) => this.transportDiagnostic(d);
    transport.onevent = (e) => this.observer?.event({ type: 'transport', event: e });
  }

  get pendingCount(): number {
    return this.registry.pendingCount;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  setRequestHandler(method: string, handler: RequestHandler): void {
    this.incoming.setRequestHandler(method, handler);
  }

  setNotificationHandler(method: string, handler: NotificationHandler): void {
    this.incoming.setNotificationHandler(method, handler);
  }

  /**
   * Sends a request and resolves with its `result`; rejects with a typed McpWireError, or with
   * what `mapError` makes of it (the caller's reading of errors, applied where the request
   * settles: no promise chained after this one). With `mapResult` it resolves with what that
   * makes of the result (see `ResultMap`).
   */
  request<T = Record<string, unknown>>(
    method: string,
    params?: Record<string, unknown>,
    options: RequestOptions = {},
    mapError?: ErrorMap,
    mapResult?: ResultMap,
  ): Promise<T> {
    if (this.closed) return refused(this.closedFor(method), mapError);
    const signal = options.signal;
    if (signal?.aborted) return refused(this.abortError(method, signal.reason), mapError);
    // basic.utilities.progress#1/#2: a caller's token is sent as it is, but only if no active
    // request carries it; otherwise, when progress is wanted, a token of ours.
    const meta = params?._meta as Record<string, unknown> | undefined;
    const callerToken = meta?.progressToken;
    let token: ProgressToken | undefined;
    if (callerToken !== undefined && (typeof callerToken === 'string' || typeof callerToken === 'number')) {
      if (this.registry.byToken(callerToken) !== undefined) return refused(tokenInUse(method, callerToken, this.where()), mapError);
      token = callerToken;
    }
    const id = ++this.nextId;
    if (options.onRequestId !== undefined) {
      // The caller's code runs before anything is registered: a throw or an abort from it
      // settles the request here, with nothing to clean up and nothing sent.
      const refusal = this.requestIdRefusal(method, id, options.onRequestId, signal);
      if (refusal !== undefined) return refused(refusal, mapError);
    }
    let sendParams = params;
    if (options.onProgress !== undefined && callerToken === undefined) {
      token = this.tokenPrefix + id;
      while (this.registry.byToken(token) !== undefined) token += '+';
      sendParams = { ...params, _meta: { ...meta, progressToken: token } };
    }
    const message: JSONRPCMessage =
      sendParams === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params: sendParams };
    const promise = new Promise<T>(captureSettlers);
    const reject = capturedReject;
    try {
      const entry = this.newEntry(id, method, options, token, capturedResolve, reject, mapError, mapResult);
      // the registry watches the caller's signal (one shared listener per AbortSignal) and keeps the deadline
      this.registry.add(entry, entry.timeoutMs);
      this.dispatch(entry, message, options.isInitialize === true, options.longLived === true);
    } catch (err) {
      // (as a throw in a promise executor would: the request's promise rejects with it)
      reject(err);
    }
    return promise;
  }

  /** The registry entry of a request about to be sent. */
  private newEntry(
    id: number,
    method: string,
    options: RequestOptions,
    token: ProgressToken | undefined,
    resolve: (v: unknown) => void,
    reject: (reason: unknown) => void,
    mapError: ErrorMap | undefined,
    mapResult: ResultMap | undefined,
  ): PendingRequest {
    const timeoutMs = options.timeoutMs ?? this.defaultTimeoutMs;
    const onProgress = options.onProgress;
    return {
      id,
      method,
      sentAt: performance.now(),
      resolve,
      reject,
      mapError,
      mapResult,
      deadline: Infinity,
      dueMs: 0,
      deadlineIsTotal: false,
      cancellable: options.cancellable !== false,
      dispatched: true,
      dueList: undefined,
      duePrev: undefined,
      dueNext: undefined,
      timeoutMs,
      maxTotalMs: options.maxTotalTimeoutMs ?? timeoutMs * 10,
      resetOnProgress: options.resetTimeoutOnProgress === true,
      signal: options.signal,
      progressToken: token,
      progress:
        onProgress === undefined
          ? undefined
          : { onProgress, intervalMs: options.progressIntervalMs ?? DEFAULT_PROGRESS_INTERVAL_MS, nextAt: -Infinity, pending: undefined, last: -Infinity },
      onLateResult: options.onLateResult,
    };
  }

  // Kept small: V8 inlines a callee of at most 460 bytes of bytecode (at 458 with `sendOptions`
  // in it, one more branch cost ~10% of a call at 64 in flight); the rest is in functions of its own.
  /** Hands a registered request to the observer and the transport; a failed send settles it. */
  private dispatch(entry: PendingRequest, message: JSONRPCMessage, isInitialize: boolean, longLived = false): void {
    const plain = !isInitialize && !longLived && this.requestText === undefined && this.observer === undefined && this.transport.wantsRequestSignal !== true;
    const sendOptions = plain ? undefined : this.sendOptions(entry, message, isInitialize, longLived);
    let sent: Promise<void>;
    try {
      sent = this.transport.send(message, sendOptions);
    } catch (err) {
      // e.g. params JSON cannot serialise: the request never left, nothing to cancel.
      this.registry.take(entry.id, 'send-failed');
      rejectEntry(entry, this.wrapSendError(err, entry.method));
      return;
    }
    // the very promise the transport returned before, known fulfilled (stdio's shared resolved
    // one), never rejects: nothing to watch (no closure, derived promise or job per request)
    if (sent !== this.fulfilledSend) this.watchSend(sent, entry);
  }

  /** A request's send options: its text (the request text hook, or serialized once for the observer, who is told of it here), the HTTP POST's signal, a long-lived stream. */
  private sendOptions(entry: PendingRequest, message: JSONRPCMessage, isInitialize: boolean, longLived: boolean): SendOptions | undefined {
    let sendOptions: SendOptions | undefined = isInitialize ? { isInitialize: true } : undefined;
    let text: string | undefined;
    if (this.requestText !== undefined) {
      try {
        text = this.requestText(message as { jsonrpc: '2.0'; id: number; method: string; params?: Record<string, unknown> });
      } catch {
        text = undefined; // (the transport's own serialization throws it where it is caught)
      }
      if (text !== undefined) sendOptions = { isInitialize, serialized: text };
    }
    if (this.observer !== undefined) {
      // Serialized once, for the observer (a tracer writes these very bytes) and the transport.
      text ??= serialize(message);
      this.observer.message('out', message, { kind: 'request', method: entry.method, id: entry.id, text, at: entry.sentAt });
      if (text !== undefined) sendOptions = { isInitialize, serialized: text };
    }
    if (this.transport.wantsRequestSignal === true) {
      // HTTP: the POST of a request we give up on (timeout, abort, close) is aborted too, and
      // a request given up on before its POST started is not cancelled (never dispatched).
      entry.dispatched = false;
      entry.sendAbort = new AbortController();
      sendOptions = {
        isInitialize,
        serialized: text,
        signal: entry.sendAbort.signal,
        onDispatched: () => {
          entry.dispatched = true;
        },
      };
    }
    // a request answered only when it ends (subscriptions/listen): its stream is not idle-bounded
    if (longLived) sendOptions = { ...sendOptions, longLived: true };
    return sendOptions;
  }

  /** Watches a send that may still fail: its failure settles the request; its success marks it dispatched. */
  private watchSend(sent: Promise<void>, entry: PendingRequest): void {
    sent.then(
      () => {
        this.fulfilledSend = sent;
        entry.dispatched = true;
      },
      (err) => {
        const e = this.registry.take(entry.id, 'send-failed');
        if (e === undefined) return;
        if (e.progress !== undefined) this.progressGate.flush(e);
        rejectEntry(e, this.wrapSendError(err, entry.method));
      },
    );
  }

  /** Sends a notification. */
  async notify(method: string, params?: Record<string, unknown>): Promise<void> {
    if (this.closed) throw this.closedFor(method);
    const message: JSONRPCMessage =
      params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
    let sendOptions: SendOptions | undefined;
    if (this.observer !== undefined) {
      const text = serialize(message);
      this.observer.message('out', message, { kind: 'notification', method, text });
      if (text !== undefined) sendOptions = { serialized: text };
    }
    try {
      await this.transport.send(message, sendOptions);
    } catch (err) {
      throw this.wrapSendError(err, method);
    }
  }

  /** Graceful close: closes the transport; every pending request rejects with ConnectionClosedError. */
  async close(): Promise<void> {
    if (!this.closed) await this.transport.close();
    // A transport must call onclose from close(); make sure we are closed even if it did not.
    this.handleClose(undefined);
  }

  /**
   * Gives up on the connection because of `reason` (e.g. the peer stopped answering pings):
   * closes the transport, and every pending request rejects naming the reason.
   */
  async fail(reason: Error): Promise<void> {
    if (this.closed) return;
    this.failReason = reason;
    await this.transport.close();
    this.handleClose(reason);
  }

  // ---- incoming -------------------------------------------------------------------------

  /** `text`: the message's JSON text as read, when the transport has it (for the observer). */
  private receive(value: unknown, extra?: MessageExtra, text?: string): void {
    if (Array.isArray(value)) {
      this.receiveBatch(value, extra);
      return;
    }
    const kind = classify(value);
    switch (kind) {
      case 'result':
      case 'error':
        this.receiveResponse(value as Record<string, unknown>, kind, text);
        return;
      case 'notification':
        this.receiveNotification(value as { method: string; params?: Record<string, unknown> }, extra, text);
        return;
      case 'request':
        this.receiveRequest(value as { id: RequestId; method: string; params?: Record<string, unknown> }, text);
        return;
      default:
        this.receiveInvalid(value);
    }
  }

  private receiveBatch(values: unknown[], extra: MessageExtra | undefined): void {
    const refused = batchRefusal(values, this.opts.acceptBatches?.() === true);
    if (refused !== undefined) this.diagnostic(refused);
    else for (const v of values) this.receive(v, extra);
  }

  private receiveInvalid(value: unknown): void {
    if (this.observer !== undefined) this.observer.message('in', value, { kind: 'invalid' });
    const reason = invalidReason(value);
    this.diagnostic({ code: 'MCPWIRE_INVALID_MESSAGE', message: `invalid JSON-RPC message ignored: ${reason}`, excerpt: excerptOf(value) });
    // An invalid response whose id is one we wait for (both result and error, no "jsonrpc"…):
    // fail that request now, not at its timeout; nothing in it is trusted.
    const responseTo = invalidResponseId(value);
    const entry = responseTo === undefined ? undefined : this.registry.take(responseTo, 'error');
    if (entry !== undefined) {
      if (entry.progress !== undefined) this.progressGate.flush(entry);
      const message = `the response to "${entry.method}" (request ${JSON.stringify(responseTo)}) is invalid: ${reason}`;
      rejectEntry(entry, new ProtocolError(message, { ...this.where(), code: 'MCPWIRE_INVALID_RESPONSE' }));
      return;
    }
    // A malformed request still expects an answer (incoming.ts); notifications and responses are
    // never answered (basic#11).
    const request = invalidRequest(value);
    if (request !== undefined) this.incoming.invalidRequest(request.id, reason);
  }

  private receiveResponse(msg: Record<string, unknown>, kind: MessageKind, text: string | undefined): void {
    const id = msg.id as RequestId | null;
    const entry = id === null ? undefined : this.registry.take(id, kind === 'result' ? 'response' : 'error');
    if (this.observer !== undefined) {
      const at = performance.now();
      this.observer.message('in', msg, {
        kind,
        id,
        latencyMs: entry ? at - entry.sentAt : undefined,
        requestMethod: entry?.method,
        text,
        at,
      });
    }
    if (entry === undefined) {
      this.unmatchedResponse(id, msg);
      return;
    }
    if (entry.progress !== undefined) this.progressGate.flush(entry);
    if (kind === 'result') {
      if (entry.mapResult === undefined) entry.resolve(msg.result);
      else resolveMapped(entry, entry.mapResult, msg.result);
    } else {
      const e = msg.error as JSONRPCErrorObject;
      rejectEntry(entry, new JsonRpcError(e.code, String(e.message), e.data, this.where()));
    }
  }

  private unmatchedResponse(id: RequestId | null, msg: Record<string, unknown>): void {
    const late = id === null ? false : this.registry.takeAbandoned(id);
    if (late !== false) {
      // basic.utilities.cancellation#5: a response after cancellation/timeout is ignored — but
      // for what the server did anyway (a task it created), its requester is told.
      this.observer?.event({ type: 'late-response', id });
      this.diagnostic({ code: 'MCPWIRE_LATE_RESPONSE', message: `late response to request ${id} dropped (request had been cancelled or timed out)` });
      if (late !== undefined && 'result' in msg) this.lateResult(late, msg.result);
      return;
    }
    const err = msg.error as JSONRPCErrorObject | undefined;
    this.diagnostic({
      code: 'MCPWIRE_UNKNOWN_RESPONSE',
      message:
        id === null
          ? `error response without id from server: ${err ? `${err.code} ${excerpt(String(err.message))}` : ''}`
          : `response for unknown request id ${JSON.stringify(id)} dropped (never sent, or already answered)`,
      excerpt: excerptOf(msg),
    });
  }

  private lateResult(onLateResult: (result: unknown) => void, result: unknown): void {
    try {
      onLateResult(result);
    } catch (err) {
      this.diagnostic({ code: 'MCPWIRE_HANDLER_FAILED', message: `onLateResult callback threw: ${(err as Error)?.message ?? String(err)}` });
    }
  }

  private receiveNotification(msg: { method: string; params?: Record<string, unknown> }, extra: MessageExtra | undefined, text: string | undefined): void {
    const method = msg.method;
    if (this.observer !== undefined) this.observer.message('in', msg, { kind: 'notification', method, text });
    if (method === 'notifications/progress') {
      routeProgress(msg.params, this.registry, this.progressGate, this.report);
    } else if (method === 'notifications/cancelled') {
      this.incoming.cancelled(msg.params);
    }
    this.incoming.notification(method, msg.params, extra);
  }

  private receiveRequest(msg: { id: RequestId; method: string; params?: Record<string, unknown> }, text: string | undefined): void {
    if (this.observer !== undefined) this.observer.message('in', msg, { kind: 'request', method: msg.method, id: msg.id, text });
    this.incoming.request(msg);
  }

  // ---- progress, cancellation, timeouts ---------------------------------------------------

  private onTimeout(entry: PendingRequest): void {
    const id = entry.id;
    const elapsed = performance.now() - entry.sentAt;
    const isTotal = entry.deadlineIsTotal || elapsed >= entry.maxTotalMs;
    this.registry.take(id, 'timeout');
    if (entry.progress !== undefined) this.progressGate.flush(entry);
    const limit = isTotal ? entry.maxTotalMs : entry.timeoutMs;
    const err = new TimeoutError(entry.method, limit, { ...this.where(), total: isTotal });
    this.observer?.event({ type: 'timeout', id, method: entry.method, timeoutMs: limit });
    // basic.lifecycle#17: on timeout, issue a cancellation notification and stop waiting —
    // except for initialize (basic.utilities.cancellation#2, the total ceiling included) and a
    // request that never reached the wire (basic.utilities.cancellation#1).
    rejectEntry(entry, err);
    if (entry.cancellable && entry.dispatched) this.sendCancelled(id, err.message);
  }

  private cancel(id: RequestId, reason: unknown): void {
    const entry = this.registry.take(id, 'abort');
    if (entry === undefined) return;
    if (entry.progress !== undefined) this.progressGate.flush(entry);
    const err = this.abortError(entry.method, reason);
    this.observer?.event({ type: 'cancel', id, method: entry.method, reason: err.message });
    rejectEntry(entry, err);
    if (entry.cancellable && entry.dispatched) this.sendCancelled(id, reasonText(reason));
  }

  /**
   * The transport dropped an unreadable message that was the response to `d.responseToId` (e.g.
   * a line over the size limit): fail that request now rather than at its timeout, and send no
   * cancel — the server did answer (basic.utilities.cancellation#1).
   */
  private transportDiagnostic(d: TransportDiagnostic): void {
    this.diagnostic(d);
    const id = d.responseToId;
    if (id === undefined) return;
    const entry = this.registry.take(id, 'error');
    if (entry === undefined) return;
    if (entry.progress !== undefined) this.progressGate.flush(entry);
    this.observer?.event({ type: 'response-unreadable', id, method: entry.method });
    const hint = d.code === 'MCPWIRE_FRAME_OVERSIZED' ? ' (raise maxMessageBytes to accept it)' : '';
    rejectEntry(
      entry,
      new ProtocolError(`the response to "${entry.method}" (request ${JSON.stringify(id)}) could not be read: ${d.message}${hint}`, {
        ...this.where(),
        code: 'MCPWIRE_RESPONSE_UNREADABLE',
      }),
    );
  }

  /** Fire-and-forget `notifications/cancelled` (go-sdk: cancel drops the call at once, then notifies). */
  private sendCancelled(requestId: RequestId, reason: string): void {
    if (this.closed) return;
    this.notify('notifications/cancelled', { requestId, reason }).catch(() => {
      /* connection gone: nothing to cancel any more */
    });
  }

  // ---- close ------------------------------------------------------------------------------

  private handleClose(error: Error | undefined): void {
    if (this.closed) return;
    error ??= this.failReason;
    this.closed = true;
    this.closedError = error;
    this.incoming.abortAll();
    const pending = this.registry.drain();
    for (const entry of pending) {
      if (entry.progress !== undefined) this.progressGate.flush(entry);
      rejectEntry(entry, this.closedFor(entry.method));
    }
    this.opts.onClose?.(error);
  }

  private closedFor(method: string): ConnectionClosedError {
    return closedFor(method, this.closedError, this.where());
  }

  private abortError(method: string, reason: unknown): AbortError {
    return abortError(method, reason, this.where());
  }

  /** Runs the caller's `onRequestId`; the error to reject with when it threw or aborted `signal`. */
  private requestIdRefusal(method: string, id: RequestId, onRequestId: (id: RequestId) => void, signal: CancelSignal | undefined): Error | undefined {
    try {
      onRequestId(id);
    } catch (err) {
      return callbackFailed(method, 'onRequestId', err, this.where());
    }
    return signal?.aborted ? this.abortError(method, signal.reason) : undefined;
  }

  private wrapSendError(err: unknown, method: string): Error {
    if (err instanceof McpWireError) return err;
    if (this.closed) return this.closedFor(method);
    return sendFailed(method, err, this.where());
  }

  private where(): { serverId?: string; phase?: Phase } {
    return { serverId: this.opts.serverId, phase: this.opts.phase?.() };
  }

  private readonly report = (d: TransportDiagnostic, progressToken?: unknown): void => this.diagnostic(d, progressToken);

  /** `progressToken`: for UNKNOWN_PROGRESS, the token (its owner matches it by value, not by text). */
  private diagnostic(d: TransportDiagnostic, progressToken?: unknown): void {
    this.observer?.event({ type: 'diagnostic', ...d });
    const onDiagnostic = this.opts.onDiagnostic;
    if (onDiagnostic === undefined) return;
    if (progressToken === undefined) onDiagnostic({ ...d, serverId: this.opts.serverId });
    else onDiagnostic({ ...d, serverId: this.opts.serverId, progressToken });
  }
}

