/**
 * JSON-RPC 2.0 message types, guards and classification (https://www.jsonrpc.org/specification).
 * MCP (basic/index) narrows JSON-RPC: request ids are strings or integers, never null, and
 * notifications carry no id.
 */

export type RequestId = string | number;

export interface JSONRPCRequest {
  jsonrpc: '2.0';
  id: RequestId;
  method: string;
  params?: Record<string, unknown>;
}

export interface JSONRPCNotification {
  jsonrpc: '2.0';
  method: string;
  params?: Record<string, unknown>;
}

export interface JSONRPCResultResponse {
  jsonrpc: '2.0';
  id: RequestId;
  result: Record<string, unknown>;
}

export interface JSONRPCErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export interface JSONRPCErrorResponse {
  jsonrpc: '2.0';
  /**
   * Absent when the request id could not be read (parse error / invalid request): the MCP schema
   * has no `"id": null` (basic#8), so we never send one; JSON-RPC 2.0 peers may, and we read it.
   */
  id?: RequestId | null;
  error: JSONRPCErrorObject;
}

export type JSONRPCResponse = JSONRPCResultResponse | JSONRPCErrorResponse;
export type JSONRPCMessage = JSONRPCRequest | JSONRPCNotification | JSONRPCResponse;

/** Standard JSON-RPC 2.0 error codes, and the MCP-specific ones the spec defines. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** MCP: resource not found (server/resources). */
  ResourceNotFound: -32002,
  /** MCP: URL elicitation required (client/elicitation). */
  UrlElicitationRequired: -32042,
} as const;

export type MessageKind = 'request' | 'notification' | 'result' | 'error' | 'invalid';

/** Classifies a parsed JSON value; `invalid` names why in `reason`. Hot path: no allocation on success. */
export function classify(msg: unknown): MessageKind {
  if (msg === null || typeof msg !== 'object' || Array.isArray(msg)) return 'invalid';
  const m = msg as Record<string, unknown>;
  if (m.jsonrpc !== '2.0') return 'invalid';
  const method = m.method;
  if (method !== undefined) {
    if (typeof method !== 'string') return 'invalid';
    if (m.params !== undefined && (m.params === null || typeof m.params !== 'object')) return 'invalid';
    if (!('id' in m)) return 'notification';
    return isRequestId(m.id) ? 'request' : 'invalid';
  }
  if ('result' in m) {
    if ('error' in m || !isRequestId(m.id)) return 'invalid';
    return 'result';
  }
  if ('error' in m) {
    const e = m.error as Record<string, unknown> | null;
    if (e === null || typeof e !== 'object' || typeof e.code !== 'number' || typeof e.message !== 'string') return 'invalid';
    if (m.id !== null && !isRequestId(m.id)) return 'invalid';
    return 'error';
  }
  return 'invalid';
}

/** Why `classify` said `invalid` (only called off the hot path, for diagnostics). */
export function invalidReason(msg: unknown): string {
  if (msg === null || typeof msg !== 'object') return `not a JSON object (${msg === null ? 'null' : typeof msg})`;
  if (Array.isArray(msg)) return 'a JSON array (batch) where a single message was expected';
  const m = msg as Record<string, unknown>;
  if (m.jsonrpc !== '2.0') return `"jsonrpc" must be "2.0" (got ${m.jsonrpc === undefined ? 'nothing' : excerptOf(m.jsonrpc, 60)})`;
  if (m.method !== undefined && typeof m.method !== 'string') return '"method" must be a string';
  if (m.method !== undefined && m.params !== undefined && (m.params === null || typeof m.params !== 'object'))
    return '"params" must be an object or array';
  if (m.method !== undefined) return '"id" must be a string or an integer (never null) in a request';
  if ('result' in m && 'error' in m) return 'a response must not have both "result" and "error"';
  if ('result' in m) return '"id" of a result must be a string or an integer';
  if ('error' in m) return '"error" must be an object with a numeric "code" and a string "message"';
  return 'neither a request, a notification nor a response';
}

export function isRequestId(id: unknown): id is RequestId {
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id));
}


/** A bounded, single-line excerpt of untrusted text for diagnostics and logs. */
export function excerpt(text: string, max = 200): string {
  const flat = text.length > max * 4 ? text.slice(0, max * 4) : text;
  // Escape control characters so nothing from a peer can forge log lines or terminal sequences.
  // eslint-disable-next-line no-control-regex
  const safe = flat.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return safe.length > max ? `${safe.slice(0, max)}… (${text.length} chars)` : safe;
}

/**
 * `excerpt` of a parsed value's JSON. A peer's value may nest deeper than `JSON.stringify` can
 * recurse (`[[[[…]]]]` 100k deep parses fine and is well under the size limit): that must not
 * throw out of the layer reporting it.
 */
export function excerptOf(value: unknown, max = 200): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch (err) {
    text = `[unserialisable value: ${(err as Error)?.message ?? String(err)}]`;
  }
  return excerpt(text, max);
}
