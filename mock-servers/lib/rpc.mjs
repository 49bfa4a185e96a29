// JSON-RPC 2.0 building blocks for the scripted mock servers: error codes, an error class the
// handlers throw, message shape checks and an abortable sleep. No MCP knowledge here.

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;
/** MCP: resources/read of an unknown URI (server/resources.md, "Error Handling"). */
export const RESOURCE_NOT_FOUND = -32002;

/** Thrown by a handler to answer with a JSON-RPC error instead of a result. */
export class RpcError extends Error {
  constructor(code, message, data) {
    super(message);
    this.code = code;
    if (data !== undefined) this.data = data;
  }

  toJSON() {
    const e = { code: this.code, message: this.message };
    if (this.data !== undefined) e.data = this.data;
    return e;
  }
}

export const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
export const isId = (v) => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));
export const hasOwn = (o, k) => Object.prototype.hasOwnProperty.call(o, k);

/** Classifies one decoded message: 'request' | 'notification' | 'response' | 'invalid'. */
export function kindOf(msg) {
  if (!isObject(msg)) return 'invalid';
  if (typeof msg.method === 'string') return hasOwn(msg, 'id') ? 'request' : 'notification';
  if (hasOwn(msg, 'id') && (hasOwn(msg, 'result') || hasOwn(msg, 'error'))) return 'response';
  return 'invalid';
}

/** Two ids are the same request id only if type and value match (1 and "1" differ). */
export const sameId = (a, b) => typeof a === typeof b && a === b;

/** Resolves after ms; rejects with signal.reason when the signal aborts first. */
export function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, Math.max(0, Number(ms) || 0));
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Never settles unless the signal aborts (then rejects with its reason). */
export function forever(signal) {
  return new Promise((_, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}
