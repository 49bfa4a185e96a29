/**
 * What the peer sent that is not a JSON-RPC message the engine processes: a batch (an array,
 * allowed only in protocol revision 2025-03-26), and invalid messages that still name one of our
 * requests (an answer to fail at once) or are requests of the peer (an answer it waits for).
 */
import { excerptOf, isRequestId, type RequestId } from '../jsonrpc/types.js';
import type { TransportDiagnostic } from '../transport/types.js';

/** Why a batch is not processed (refused, or empty), or undefined when its members are. */
export function batchRefusal(values: unknown[], accepted: boolean): TransportDiagnostic | undefined {
  if (!accepted) {
    return {
      code: 'MCPWIRE_BATCH_REJECTED',
      message: 'JSON-RPC batch (array) rejected: batching exists only in protocol revision 2025-03-26 and was removed in 2025-06-18',
      excerpt: excerptOf(values),
    };
  }
  if (values.length === 0) return { code: 'MCPWIRE_BATCH_EMPTY', message: 'empty JSON-RPC batch ignored' };
  return undefined;
}

/** The id of an invalid message shaped as a response (a result or error beside an id, no method). */
export function invalidResponseId(value: unknown): RequestId | undefined {
  const r = value as Record<string, unknown> | null;
  if (r === null || typeof r !== 'object' || Array.isArray(r) || 'method' in r || !('result' in r || 'error' in r)) return undefined;
  return isRequestId(r.id) ? r.id : undefined;
}

/**
 * An invalid message shaped as a request (a method and an id): it is answered -32600 with its
 * id, or without one when that cannot be read (basic#8; the MCP schema has no `"id": null`).
 */
export function invalidRequest(value: unknown): { id: RequestId | undefined } | undefined {
  const m = value as Record<string, unknown> | null;
  if (m === null || typeof m !== 'object' || Array.isArray(m) || !('method' in m) || !('id' in m)) return undefined;
  return { id: isRequestId(m.id) ? m.id : undefined };
}
