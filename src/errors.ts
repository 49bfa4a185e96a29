/**
 * One error base class and its subclasses. Every error carries a stable string `code`,
 * the server id and lifecycle phase it happened in (when known), and an optional `cause`.
 * This module imports nothing.
 */

/** Where in a connection's life an error happened. */
export type Phase =
  | 'config'
  | 'spawn'
  | 'connect'
  | 'initialize'
  | 'ready'
  | 'request'
  | 'close'
  | 'auth'
  | 'transport';

export interface McpWireErrorOptions {
  cause?: unknown;
  serverId?: string;
  phase?: Phase;
}

export class McpWireError extends Error {
  /** Stable machine-readable code, e.g. `MCPWIRE_TIMEOUT`. */
  readonly code: string;
  readonly serverId?: string;
  readonly phase?: Phase;

  constructor(code: string, message: string, options: McpWireErrorOptions = {}) {
    super(decorate(message, options), options.cause !== undefined ? { cause: options.cause } : undefined);
    this.name = 'McpWireError';
    this.code = code;
    if (options.serverId !== undefined) this.serverId = options.serverId;
    if (options.phase !== undefined) this.phase = options.phase;
  }
}

function decorate(message: string, o: McpWireErrorOptions): string {
  if (o.serverId === undefined && o.phase === undefined) return message;
  const where = [o.serverId !== undefined ? `server "${o.serverId}"` : '', o.phase ? `during ${o.phase}` : '']
    .filter(Boolean)
    .join(' ');
  return `[${where}] ${message}`;
}

/** A JSON-RPC error response from the peer (numeric code, optional data). */
export class JsonRpcError extends McpWireError {
  readonly rpcCode: number;
  readonly data?: unknown;
  constructor(rpcCode: number, message: string, data?: unknown, options: McpWireErrorOptions = {}) {
    super('MCPWIRE_JSONRPC_ERROR', `JSON-RPC error ${rpcCode}: ${message}`, options);
    this.name = 'JsonRpcError';
    this.rpcCode = rpcCode;
    if (data !== undefined) this.data = data;
  }
}

/** A request did not settle within its timeout (or its hard maximum total). */
export class TimeoutError extends McpWireError {
  readonly method: string;
  readonly timeoutMs: number;
  constructor(method: string, timeoutMs: number, options: McpWireErrorOptions & { total?: boolean } = {}) {
    super(
      'MCPWIRE_TIMEOUT',
      `request "${method}" timed out after ${timeoutMs} ms${options.total ? ' (maximum total timeout)' : ''}`,
      options,
    );
    this.name = 'TimeoutError';
    this.method = method;
    this.timeoutMs = timeoutMs;
  }
}

/** The caller aborted a request (its AbortSignal fired). */
export class AbortError extends McpWireError {
  constructor(message: string, options: McpWireErrorOptions = {}) {
    super('MCPWIRE_ABORTED', message, options);
    this.name = 'AbortError';
  }
}

/** The connection closed (or failed) while a request was pending, or before it was sent. */
export class ConnectionClosedError extends McpWireError {
  readonly exitCode?: number | null;
  readonly signal?: string | null;
  readonly stderrTail?: string;
  constructor(
    message: string,
    options: McpWireErrorOptions & { exitCode?: number | null; signal?: string | null; stderrTail?: string } = {},
  ) {
    super('MCPWIRE_CONNECTION_CLOSED', message, options);
    this.name = 'ConnectionClosedError';
    if (options.exitCode !== undefined) this.exitCode = options.exitCode;
    if (options.signal !== undefined) this.signal = options.signal;
    if (options.stderrTail !== undefined) this.stderrTail = options.stderrTail;
  }
}

/** Spawning, reading, writing or an HTTP exchange failed at the transport level. */
export class TransportError extends McpWireError {
  readonly status?: number;
  constructor(message: string, options: McpWireErrorOptions & { status?: number; code?: string } = {}) {
    super(options.code ?? 'MCPWIRE_TRANSPORT', message, options);
    this.name = 'TransportError';
    if (options.status !== undefined) this.status = options.status;
  }
}

/** The peer broke the protocol: bad version, bad message shape, undeclared capability use… */
export class ProtocolError extends McpWireError {
  constructor(message: string, options: McpWireErrorOptions & { code?: string } = {}) {
    super(options.code ?? 'MCPWIRE_PROTOCOL', message, options);
    this.name = 'ProtocolError';
  }
}

/** A request the client refused to send (capability not declared, wrong state…). */
export class CapabilityError extends McpWireError {
  constructor(message: string, options: McpWireErrorOptions = {}) {
    super('MCPWIRE_CAPABILITY', message, options);
    this.name = 'CapabilityError';
  }
}

/** The lifecycle does not allow the operation now (e.g. a request before `ready`). */
export class StateError extends McpWireError {
  constructor(message: string, options: McpWireErrorOptions = {}) {
    super('MCPWIRE_STATE', message, options);
    this.name = 'StateError';
  }
}

/** An HTTP session was refused as unknown (404): re-initialize. */
export class SessionExpiredError extends McpWireError {
  constructor(message: string, options: McpWireErrorOptions = {}) {
    super('MCPWIRE_SESSION_EXPIRED', message, options);
    this.name = 'SessionExpiredError';
  }
}

/** The server demands authorization (HTTP 401/403 with a challenge). */
export class AuthRequiredError extends McpWireError {
  readonly wwwAuthenticate?: string;
  /** The refusal's `DPoP-Nonce` header (RFC 9449 §9), for the auth provider's next proof. */
  readonly dpopNonce?: string;
  constructor(message: string, options: McpWireErrorOptions & { wwwAuthenticate?: string; dpopNonce?: string } = {}) {
    super('MCPWIRE_AUTH_REQUIRED', message, options);
    this.name = 'AuthRequiredError';
    if (options.wwwAuthenticate !== undefined) this.wwwAuthenticate = options.wwwAuthenticate;
    if (options.dpopNonce !== undefined) this.dpopNonce = options.dpopNonce;
  }
}

/** Configuration is invalid; `field` names the offending path. */
export class ConfigError extends McpWireError {
  readonly field?: string;
  constructor(message: string, options: McpWireErrorOptions & { field?: string } = {}) {
    super('MCPWIRE_CONFIG', message, options);
    this.name = 'ConfigError';
    if (options.field !== undefined) this.field = options.field;
  }
}

/** A value failed validation against a JSON Schema (e.g. structuredContent vs outputSchema). */
export class ValidationError extends McpWireError {
  readonly errors: readonly { path: string; message: string }[];
  constructor(message: string, errors: readonly { path: string; message: string }[], options: McpWireErrorOptions = {}) {
    super('MCPWIRE_VALIDATION', message, options);
    this.name = 'ValidationError';
    this.errors = errors;
  }
}

export const isMcpWireError = (e: unknown): e is McpWireError => e instanceof McpWireError;
export const isJsonRpcError = (e: unknown): e is JsonRpcError => e instanceof JsonRpcError;
export const isTimeoutError = (e: unknown): e is TimeoutError => e instanceof TimeoutError;
export const isAbortError = (e: unknown): e is AbortError => e instanceof AbortError;
export const isConnectionClosedError = (e: unknown): e is ConnectionClosedError => e instanceof ConnectionClosedError;
export const isTransportError = (e: unknown): e is TransportError => e instanceof TransportError;
export const isProtocolError = (e: unknown): e is ProtocolError => e instanceof ProtocolError;
export const isCapabilityError = (e: unknown): e is CapabilityError => e instanceof CapabilityError;
export const isStateError = (e: unknown): e is StateError => e instanceof StateError;
export const isSessionExpiredError = (e: unknown): e is SessionExpiredError => e instanceof SessionExpiredError;
export const isAuthRequiredError = (e: unknown): e is AuthRequiredError => e instanceof AuthRequiredError;
export const isConfigError = (e: unknown): e is ConfigError => e instanceof ConfigError;
export const isValidationError = (e: unknown): e is ValidationError => e instanceof ValidationError;
