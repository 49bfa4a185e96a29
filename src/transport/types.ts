/**
 * The Transport contract: moves whole JSON-RPC messages and nothing else. A transport knows no
 * MCP method names; the protocol layer (src/protocol) knows no processes or sockets.
 */
import type { JSONRPCMessage, RequestId } from '../jsonrpc/types.js';

/** A transport-level happening worth tracing (spawn, exit, HTTP status, SSE reconnect…). */
export interface TransportEvent {
  type: string;
  [key: string]: unknown;
}

/** Non-fatal problem found while reading (malformed line, oversized message, bad batch…). */
export interface TransportDiagnostic {
  code: string;
  message: string;
  /** Bounded, escaped excerpt of the offending input, when there is one. */
  excerpt?: string;
  /**
   * When the unreadable input was recognisably a response to this request id (e.g. an
   * oversized line whose start reads `{"jsonrpc":"2.0","id":7,"result":…`), the protocol layer
   * fails that pending request at once instead of letting it wait for its timeout.
   */
  responseToId?: string | number;
}

/** Where an incoming message arrived, when the transport can tell (see `Transport.onmessage`). */
export interface MessageExtra {
  /**
   * The id of the request of ours whose stream carried the message (basic.transports#25: the
   * server's requests and notifications on a POST stream relate to that request).
   */
  readonly relatedRequestId?: RequestId;
}

export interface SendOptions {
  /**
   * For HTTP transports: the id of the request this message answers or relates to, so a
   * response can go out on the right stream. Ignored by stdio.
   */
  relatedRequestId?: string | number;
  /** Set on the `initialize` request (HTTP: session setup and legacy fallback decisions). */
  isInitialize?: boolean;
  /**
   * Aborts the send: a request given up on (HTTP: its POST, its SSE stream and any resumption
   * stop); a notification or response given this too is abandoned (HTTP: its POST is aborted and
   * `send()` rejects with AbortError — without it, its POST is bounded by `notificationTimeoutMs`).
   */
  signal?: AbortSignal;
  /**
   * Called once when the message has actually been handed to the wire (stdio: written to the
   * child's stdin queue; HTTP: the POST has been started). A request aborted before this never
   * reached the server, so no `notifications/cancelled` is sent for it
   * (basic.utilities.cancellation#1). Transports without `wantsRequestSignal` are treated as
   * dispatching synchronously inside `send()`.
   */
  onDispatched?: () => void;
  /**
   * The message's JSON text (`JSON.stringify(message)`), when the caller has it already (the
   * connection does when a tracer observes it): the transport sends these bytes instead of
   * serializing again.
   */
  serialized?: string;
  /**
   * HTTP only: headers for this message's POST alone (the 2026-07-28 request metadata:
   * `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`, computed by the protocol side — the transport knows
   * no method names). Set after the transport's own headers (so an `MCP-Protocol-Version` here
   * wins over `setProtocolVersion`'s) and before the auth provider's. Never traced; ignored by
   * stdio.
   */
  headers?: Record<string, string>;
  /**
   * HTTP only: this request's response stream is meant to stay open (a long-lived listen): it is
   * not bounded by `idleStreamTimeoutMs` nor `notificationTimeoutMs`, only by its signal, the
   * server or `close()`.
   */
  longLived?: boolean;
}

export interface Transport {
  /** Kind for status and traces: `stdio`, `streamable-http`, `legacy-sse`, `memory`. */
  readonly kind: string;
  /** Starts the transport (spawn, open streams). Rejects with a TransportError naming the phase. */
  start(): Promise<void>;
  /** Sends one message. Rejects when the transport is closed or the write fails. */
  send(message: JSONRPCMessage, options?: SendOptions): Promise<void>;
  /** Graceful, idempotent shutdown; resolves when every resource is released. */
  close(): Promise<void>;

  /**
   * One parsed message from the peer. Arrays (JSON-RPC batches) are delivered as-is. `extra` says
   * where it arrived when that ties it to one of our requests (Streamable HTTP: the request's
   * POST SSE stream, or its resumption); undefined otherwise (stdio, legacy SSE, the GET stream).
   * `text` is the JSON text the message was parsed from, when it was one message (not for the
   * elements of a batch); observers may reuse it.
   */
  onmessage?: (message: unknown, extra?: MessageExtra, text?: string) => void;
  /** Fires once when the transport is gone; `error` says why when it was not a clean close. */
  onclose?: (error?: Error) => void;
  /** Non-fatal read problems: the connection stays up. */
  ondiagnostic?: (diagnostic: TransportDiagnostic) => void;
  /** Transport events for tracing. */
  onevent?: (event: TransportEvent) => void;
  /**
   * HTTP only: the server answered 404 to a message that carried our `MCP-Session-Id` outside a
   * request's own POST (the GET stream, a notification POST, a reply to a server request): the
   * session is gone (basic.transports#45). The owner (McpClient) renews the session. A request's
   * own POST still rejects its `send()` with SessionExpiredError instead.
   */
  onsessionexpired?: (error: Error) => void;

  /**
   * True when the transport wants `SendOptions.signal` on requests, aborted when the request is
   * given up on (HTTP: to abort the POST). Transports that need no such signal cost nothing.
   */
  readonly wantsRequestSignal?: boolean;
  /** HTTP only: the negotiated protocol version to send in `MCP-Protocol-Version`. */
  setProtocolVersion?(version: string): void;
  /**
   * HTTP only: `false` makes the transport stateless (revision 2026-07-28): no `MCP-Session-Id`
   * sent or kept, no GET stream, no DELETE on close, no SSE resumption — a response stream that
   * breaks before its response fails that request with `MCPWIRE_STREAM_BROKEN` (the caller
   * re-issues it with a new id), and closing a request's stream is its cancellation. `true`
   * restores sessions (the default, or `HttpTransportOptions.sessions`). Switching forgets the
   * current session.
   */
  setSessions?(enabled: boolean): void;
  /**
   * True while giving up a request is itself its cancellation: Streamable HTTP without sessions
   * (revision 2026-07-28) closes the request's response stream, which the server treats as the
   * cancellation — the protocol side then sends no cancellation message of its own.
   */
  readonly cancelsByClosing?: boolean;
  /**
   * HTTP only: forget the current session (after SessionExpiredError) so the next `initialize`
   * starts a new one.
   */
  resetSession?(): void;
  /**
   * HTTP only: ends the current session on the server (DELETE, basic.transports#46; a refusal
   * or failure is tolerated and reported) and forgets it, like `resetSession`.
   */
  terminateSession?(): Promise<void>;
  /** HTTP only: the current session id. */
  readonly sessionId?: string | undefined;
  /** stdio only: the child's pid. */
  readonly pid?: number | undefined;
}
