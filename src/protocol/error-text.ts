/**
 * The text of an error for wrapping it in another: without the `[server "x" during y] ` prefix
 * that McpWireError puts in front (src/errors.ts), and for a JsonRpcError also without its
 * `JSON-RPC error <code>: ` (the peer's own message).
 */
import { JsonRpcError } from '../errors.js';

const WHERE = /^\[[^\]]*\] /;
const RPC = /^JSON-RPC error -?\d+: /;

/** `err`'s message without the where-prefix (any value: a non-Error is stringified). */
export function bareMessage(err: unknown): string {
  const m = err instanceof Error ? err.message : String(err);
  return m.startsWith('[') ? m.replace(WHERE, '') : m;
}

/** A JSON-RPC error's message as the peer wrote it. */
export function rpcMessage(err: JsonRpcError): string {
  return bareMessage(err).replace(RPC, '');
}
