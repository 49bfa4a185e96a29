/**
 * The typed errors of the 2026-07-28 revision (basic/index.md "Error codes"): each is still a
 * JsonRpcError (its `rpcCode` and `data` as the server sent them), so code that catches
 * JsonRpcError keeps working; the subclass says what the code means in this era.
 */
import { JsonRpcError, type McpWireErrorOptions } from '../../errors.js';

export const HEADER_MISMATCH = -32020;
export const MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;
export const INVALID_PARAMS = -32602;
/** Resource not found before 2026-07-28 (basic#19: still accepted). */
export const LEGACY_RESOURCE_NOT_FOUND = -32002;

/** -32022: the server does not speak the requested version; `supported` lists what it does. */
export class UnsupportedProtocolVersionError extends JsonRpcError {
  readonly supported: string[];
  readonly requested: string | undefined;
  constructor(message: string, data: unknown, options: McpWireErrorOptions = {}) {
    super(UNSUPPORTED_PROTOCOL_VERSION, message, data, options);
    this.name = 'UnsupportedProtocolVersionError';
    this.supported = supportedOf(data) ?? [];
    const requested = (data as { requested?: unknown } | undefined)?.requested;
    if (typeof requested === 'string') this.requested = requested;
  }
}

/** -32020: an HTTP header disagreed with the body (Mcp-Method, Mcp-Name, Mcp-Param-*). */
export class HeaderMismatchError extends JsonRpcError {
  constructor(message: string, data: unknown, options: McpWireErrorOptions = {}) {
    super(HEADER_MISMATCH, message, data, options);
    this.name = 'HeaderMismatchError';
  }
}

/** -32021: the request needs a client capability it did not declare (`requiredCapabilities`). */
export class MissingRequiredClientCapabilityError extends JsonRpcError {
  readonly requiredCapabilities: unknown;
  constructor(message: string, data: unknown, options: McpWireErrorOptions = {}) {
    super(MISSING_REQUIRED_CLIENT_CAPABILITY, message, data, options);
    this.name = 'MissingRequiredClientCapabilityError';
    this.requiredCapabilities = (data as { requiredCapabilities?: unknown } | undefined)?.requiredCapabilities;
  }
}

/** `resources/read` of a URI the server does not have: -32602 (2026-07-28) or -32002 (earlier). */
export class ResourceNotFoundError extends JsonRpcError {
  readonly uri: string;
  constructor(rpcCode: number, message: string, data: unknown, uri: string, options: McpWireErrorOptions = {}) {
    super(rpcCode, message, data, options);
    this.name = 'ResourceNotFoundError';
    this.uri = uri;
  }
}

/**
 * server/resources "Error Handling": a resource not found is -32602 in 2026-07-28 and -32002
 * before (basic#19: still accepted) — a ResourceNotFoundError (a JsonRpcError still, the code
 * kept). A -32602 from a handshake-era server may mean other invalid params: left as it is.
 */
export function resourceNotFound(err: unknown, uri: string, modernEra: boolean): unknown {
  if (!(err instanceof JsonRpcError) || err.constructor !== JsonRpcError) return err;
  if (!(modernEra && err.rpcCode === INVALID_PARAMS) && err.rpcCode !== LEGACY_RESOURCE_NOT_FOUND) return err;
  return new ResourceNotFoundError(err.rpcCode, rpcMessage(err), err.data, uri, { serverId: err.serverId, phase: err.phase, cause: err.cause });
}

/** The `supported` list of a -32022 error's data, when it is a list of strings. */
export function supportedOf(data: unknown): string[] | undefined {
  const s = (data as { supported?: unknown } | null | undefined)?.supported;
  return Array.isArray(s) && s.every((v) => typeof v === 'string') ? (s as string[]) : undefined;
}

/** The bare message the server sent (JsonRpcError prefixes "[server …] JSON-RPC error N: "). */
export function rpcMessage(err: JsonRpcError): string {
  const marker = `JSON-RPC error ${err.rpcCode}: `;
  const i = err.message.indexOf(marker);
  return i < 0 ? err.message : err.message.slice(i + marker.length);
}

/** A JsonRpcError of the modern error codes as its typed subclass; anything else unchanged. */
export function typedModernError(err: unknown, serverId: string): unknown {
  if (!(err instanceof JsonRpcError) || err.constructor !== JsonRpcError) return err;
  const where = { serverId, phase: err.phase, cause: err.cause };
  switch (err.rpcCode) {
    case UNSUPPORTED_PROTOCOL_VERSION:
      return new UnsupportedProtocolVersionError(rpcMessage(err), err.data, where);
    case HEADER_MISMATCH:
      return new HeaderMismatchError(rpcMessage(err), err.data, where);
    case MISSING_REQUIRED_CLIENT_CAPABILITY:
      return new MissingRequiredClientCapabilityError(rpcMessage(err), err.data, where);
    default:
      return err;
  }
}
