/**
 * The incoming side of a connection: requests and notifications from the peer. Dispatches each
 * to its handler, answers requests (a handler's failure as a JSON-RPC error, never a stack
 * trace; an unknown method -32601; a malformed request -32600), lets the peer cancel what it
 * asked (basic.utilities.cancellation#4/#9) and aborts every handler when the connection closes.
 * The outgoing side (our requests, their responses, progress, timeouts) is connection.ts.
 */
import { AbortError, JsonRpcError, McpWireError } from '../errors.js';
import { ErrorCode, excerpt, type JSONRPCErrorObject, type JSONRPCMessage, type RequestId } from '../jsonrpc/types.js';
import type { MessageExtra, Transport, TransportDiagnostic } from '../transport/types.js';
import { rpcMessage } from './error-text.js';
import type { ProtocolObserver } from './observer.js';
import { IdTable } from '../util/id-table.js';
import { Cancel, type CancelSignal } from '../util/cancel.js';

export interface IncomingRequestContext {
  readonly id: RequestId;
  /** Aborts when the peer cancels the request or the connection closes (made when first read). */
  readonly signal: AbortSignal;
  /**
   * The same, as a light handle (src/util/cancel.ts): what a handler passes on to a request of
   * its own (a gateway's relayed call) without making an AbortController per request.
   */
  readonly cancel: CancelSignal;
}

/** A peer's request in flight: its id and its cancellation, one object (it is the handler's context). */
class IncomingRequest extends Cancel implements IncomingRequestContext {
  constructor(readonly id: RequestId) {
    super();
  }

  get cancel(): Cancel {
    return this;
  }
}

export type RequestHandler = (params: Record<string, unknown> | undefined, ctx: IncomingRequestContext) =>
  | Promise<Record<string, unknown>>
  | Record<string, unknown>;
/**
 * `extra.relatedRequestId`: the notification arrived on the stream of that request of ours
 * (Streamable HTTP, basic.transports#25); undefined when the transport cannot tell.
 */
export type NotificationHandler = (params: Record<string, unknown> | undefined, extra?: MessageExtra) => void;

/** What the incoming side needs from its connection. */
export interface IncomingHost {
  readonly transport: Transport;
  observer(): ProtocolObserver | undefined;
  closed(): boolean;
  diagnostic(d: TransportDiagnostic): void;
  /** A notification no handler is registered for (custom methods). */
  onOtherNotification: ((method: string, params: Record<string, unknown> | undefined, extra?: MessageExtra) => void) | undefined;
}

const EMPTY_PARAMS: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;

export class Incoming {
  private readonly requestHandlers = new Map<string, RequestHandler>();
  private readonly notificationHandlers = new Map<string, NotificationHandler>();
  /**
   * The peer's requests being handled, each its handler's context and cancellation (not a Map:
   * a busy peer's requests would stay reachable through its old tables, see IdTable).
   */
  private readonly inFlight = new IdTable<RequestId, IncomingRequest>();

  constructor(private readonly host: IncomingHost) {}

  setRequestHandler(method: string, handler: RequestHandler): void {
    this.requestHandlers.set(method, handler);
  }

  setNotificationHandler(method: string, handler: NotificationHandler): void {
    this.notificationHandlers.set(method, handler);
  }

  /**
   * A notification to its handler, or to `onOtherNotification` when none is registered
   * (`notifications/cancelled` and `notifications/progress` mean something to the engine already).
   */
  notification(method: string, params: Record<string, unknown> | undefined, extra: MessageExtra | undefined): void {
    const handler = this.notificationHandlers.get(method);
    if (handler === undefined) {
      const other = this.host.onOtherNotification;
      if (other !== undefined && method !== 'notifications/cancelled' && method !== 'notifications/progress') other(method, params, extra);
      return;
    }
    try {
      handler(params, extra);
    } catch (err) {
      this.host.diagnostic({ code: 'MCPWIRE_HANDLER_FAILED', message: `notification handler for ${method} threw: ${(err as Error).message}` });
    }
  }

  request(msg: { id: RequestId; method: string; params?: Record<string, unknown> }): void {
    const { id, method } = msg;
    const handler = this.requestHandlers.get(method);
    if (handler === undefined) {
      this.reply(id, undefined, { code: ErrorCode.MethodNotFound, message: `Method not found: ${excerpt(method, 100)}` }); // the peer's text, bounded
      return;
    }
    if (this.inFlight.has(id)) {
      this.host.diagnostic({ code: 'MCPWIRE_DUPLICATE_REQUEST_ID', message: `server reused request id ${JSON.stringify(id)} while it was in flight` });
    }
    const req = new IncomingRequest(id);
    this.inFlight.set(id, req);
    let out: Promise<Record<string, unknown>> | Record<string, unknown>;
    try {
      out = handler(msg.params, req);
    } catch (err) {
      out = Promise.reject(err);
    }
    Promise.resolve(out).then(
      (result) => this.finish(req, result ?? EMPTY_PARAMS, undefined),
      (err: unknown) => this.finish(req, undefined, toErrorObject(err)),
    );
  }

  /** `notifications/cancelled` from the peer: its handler's signal aborts; no answer goes out. */
  cancelled(params: Record<string, unknown> | undefined): void {
    const id = params?.requestId;
    const req = typeof id === 'string' || typeof id === 'number' ? this.inFlight.get(id) : undefined;
    if (req === undefined) return; // basic.utilities.cancellation#9: ignore unknown ids.
    this.inFlight.delete(id as RequestId);
    req.abort(new AbortError(`server cancelled request ${String(id)}: ${String(params?.reason ?? '')}`));
  }

  /**
   * A malformed request still expects an answer, or the server waits forever (basic#2, JSON-RPC
   * 2.0 §5): -32600 with its id, or without an id when that cannot be read (basic#8).
   */
  invalidRequest(id: RequestId | undefined, reason: string): void {
    this.reply(id, undefined, { code: ErrorCode.InvalidRequest, message: `Invalid Request: ${reason}` });
  }

  /** The connection closed: every handler's signal aborts. */
  abortAll(): void {
    for (const [id, c] of this.inFlight.entries()) {
      this.inFlight.delete(id);
      c.abort(new AbortError('connection closed'));
    }
  }

  private finish(req: IncomingRequest, result: Record<string, unknown> | undefined, error: JSONRPCErrorObject | undefined): void {
    const id = req.id;
    if (this.inFlight.get(id) === req) this.inFlight.delete(id);
    // A request the server cancelled gets no response (basic.utilities.cancellation#4).
    if (req.aborted || this.host.closed()) return;
    this.reply(id, result, error);
  }

  /** Answers a server request (`id` undefined: its id could not be read, basic#8). */
  private reply(id: RequestId | undefined, result: Record<string, unknown> | undefined, error: JSONRPCErrorObject | undefined, fallback = true): void {
    const message = (error
      ? id === undefined
        ? { jsonrpc: '2.0', error }
        : { jsonrpc: '2.0', id, error }
      : { jsonrpc: '2.0', id, result }) as JSONRPCMessage;
    let text: string | undefined;
    const observer = this.host.observer();
    if (observer !== undefined) {
      text = serialize(message);
      observer.message('out', message, { kind: error ? 'error' : 'result', id, text });
    }
    // A result (or error data) JSON cannot serialise is answered with -32603 instead (once).
    const retry = fallback && (error === undefined || error.data !== undefined);
    let sent: Promise<void>;
    try {
      sent = this.host.transport.send(message, id === undefined ? (text === undefined ? undefined : { serialized: text }) : { relatedRequestId: id, serialized: text });
    } catch (err) {
      this.replyFailed(id, err, retry);
      return;
    }
    sent.catch((err: unknown) => this.replyFailed(id, err, retry));
  }

  private replyFailed(id: RequestId | undefined, err: unknown, retry: boolean): void {
    // Transports fail with typed errors; anything else came from serialising the message.
    if (retry && !(err instanceof McpWireError) && !this.host.closed()) {
      this.reply(id, undefined, { code: ErrorCode.InternalError, message: `the response could not be serialised: ${(err as Error)?.message ?? String(err)}` }, false);
      return;
    }
    this.host.diagnostic({ code: 'MCPWIRE_REPLY_FAILED', message: `could not send the response to request ${JSON.stringify(id)}: ${(err as Error)?.message ?? String(err)}` });
  }
}

/** Maps a handler's failure to a JSON-RPC error object (never leaks stack traces). */
export function toErrorObject(err: unknown): JSONRPCErrorObject {
  if (err instanceof JsonRpcError) {
    const o: JSONRPCErrorObject = { code: err.rpcCode, message: rpcMessage(err) };
    if (err.data !== undefined) o.data = err.data;
    return o;
  }
  const message = err instanceof Error ? err.message : String(err);
  return { code: ErrorCode.InternalError, message };
}

/** A message's JSON text, or undefined when JSON cannot write it (the transport reports that). */
export function serialize(message: JSONRPCMessage): string | undefined {
  try {
    return JSON.stringify(message);
  } catch {
    return undefined;
  }
}
