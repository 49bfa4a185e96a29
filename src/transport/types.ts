/**
 * The Transport contract: moves whole JSON-RPC messages and nothing else. A transport knows no
 * MCP method names; the protocol layer (src/protocol) knows no processes or sockets.
 */
import type { JSONRPCMessage } from '../jsonrpc/types.js';

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
}

export interface SendOptions {
  /**
   * For HTTP transports: the id of the request this message answers or relates to, so a
   * response can go out on the right stream. Ignored by stdio.
   */
  relatedRequestId?: string | number;
  /** Set on the `initialize` request (HTTP: session setup and legacy fallback decisions). */
  isInitialize?: boolean;
  signal?: AbortSignal;
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

  /** One parsed message from the peer. Arrays (JSON-RPC batches) are delivered as-is. */
  onmessage?: (message: unknown) => void;
  /** Fires once when the transport is gone; `error` says why when it was not a clean close. */
  onclose?: (error?: Error) => void;
  /** Non-fatal read problems: the connection stays up. */
  ondiagnostic?: (diagnostic: TransportDiagnostic) => void;
  /** Transport events for tracing. */
  onevent?: (event: TransportEvent) => void;

  /**
   * True when the transport wants `SendOptions.signal` on requests, aborted when the request is
   * given up on (HTTP: to abort the POST). Transports that need no such signal cost nothing.
   */
  readonly wantsRequestSignal?: boolean;
  /** HTTP only: the negotiated protocol version to send in `MCP-Protocol-Version`. */
  setProtocolVersion?(version: string): void;
  /**
   * HTTP only: forget the current session (after SessionExpiredError) so the next `initialize`
   * starts a new one.
   */
  resetSession?(): void;
  /** HTTP only: the current session id. */
  readonly sessionId?: string | undefined;
  /** stdio only: the child's pid. */
  readonly pid?: number | undefined;
}
