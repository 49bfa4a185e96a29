/**
 * Typed host call results: what happened to a call, as fields the
 * embedding agent can branch on — not only as text for the model. `outcome` tells apart:
 *
 * | outcome | meaning | `code` |
 * | --- | --- | --- |
 * | `ok` | the tool ran and answered | `OK` |
 * | `tool_error` | the tool ran and reported an error (`isError: true`) | `TOOL_ERROR` |
 * | `rpc_error` | the server answered the request with a JSON-RPC error (`rpcError`) | `MCPWIRE_JSONRPC_ERROR` |
 * | `transport` | the connection failed or closed, or was not usable (lifecycle) | the error's code (`MCPWIRE_CONNECTION_CLOSED`, …) |
 * | `timeout` | the call's timeout (or total ceiling, or its queue wait) passed | `MCPWIRE_TIMEOUT`, `MCPWIRE_QUEUE_TIMEOUT` |
 * | `cancelled` | the caller's signal aborted the call | `MCPWIRE_ABORTED` |
 * | `denied` | the permission hook or config refused it; nothing was sent | `MCPWIRE_PERMISSION_DENIED` |
 * | `unavailable` | the server is not connected (or needs login) | `MCPWIRE_SERVER_UNAVAILABLE`, `MCPWIRE_AUTH_REQUIRED` |
 * | `invalid_arguments` | refused locally: arguments do not match the tool's inputSchema | `MCPWIRE_INVALID_ARGUMENTS` |
 * | `unknown_tool` | no such tool in the catalog | `MCPWIRE_UNKNOWN_TOOL` |
 * | `protocol_error` | the server's answer broke the protocol or the tool's outputSchema | the error's code |
 *
 * `retryable` says whether trying the same call again later could help: transport failures,
 * timeouts and an unavailable server, for a tool whose `idempotentHint`/`readOnlyHint` comes from
 * a server the user marked `trust_annotations` (server.tools#6: otherwise a hint is an untrusted
 * claim) or when the server's retry config allows non-idempotent ones; never a tool error or a denial.
 * Everything a server sent (rpc error message/data, `_meta`) is redacted and bounded.
 */
import { AuthRequiredError, CapabilityError, JsonRpcError, ProtocolError, TimeoutError, ValidationError, AbortError, McpWireError } from '../errors.js';
import { sanitizeText } from './text.js';
import type { ToolResultForAgent } from './tool-result.js';
import type { SandboxStatus } from './sandbox-note.js';

/** What happened to a call (see the module comment). */
export type CallOutcome =
  | 'ok'
  | 'tool_error'
  | 'rpc_error'
  | 'transport'
  | 'timeout'
  | 'cancelled'
  | 'denied'
  | 'unavailable'
  | 'invalid_arguments'
  | 'unknown_tool'
  | 'protocol_error';

/** A JSON-RPC error the server answered with (message and data redacted and bounded). */
export interface RpcErrorInfo {
  code: number;
  message: string;
  data?: unknown;
}

/** The result of `host.callTool`: the agent's view (`content`, `isError`) plus typed fields. */
export interface HostCallResult extends ToolResultForAgent {
  outcome: CallOutcome;
  /** Stable machine-readable code (see the module comment). */
  code: string;
  /** Whether the same call may succeed if tried again later (see the module comment). */
  retryable: boolean;
  /** The server id, when the call resolved to a server. */
  server?: string;
  /** The tool's name on its server. */
  tool?: string;
  /** How many times the request was sent (0: refused or failed before sending). */
  attempts: number;
  /** Present when `outcome` is `rpc_error`. */
  rpcError?: RpcErrorInfo;
  /** The result's `_meta` (redacted; dropped when larger than the cap, see `metaDropped`). */
  _meta?: Record<string, unknown>;
  /** Bytes of a `_meta` that was over the cap and left out. */
  metaDropped?: number;
  /** Handle of the full result when content was cut: read the rest with `mcp_result_read`. */
  resultId?: string;
  /** A failed call to a sandboxed server: its grants and what the sandbox refused (`sandbox-note.ts`). */
  sandbox?: SandboxStatus;
  /**
   * Wall-clock milliseconds from `callTool` to this result: permission, queue waits, every
   * attempt, retry delays and reconnect waits included.
   */
  durationMs: number;
}

/** Cap on `_meta` and on `rpcError.data` (JSON bytes). */
export const MAX_META_BYTES = 8 * 1024;
const MAX_RPC_MESSAGE = 1000;

/** A typed result: `base` with its outcome and code (not retryable, no attempt, unless `extra` says). */
export function typedResult(base: ToolResultForAgent, outcome: CallOutcome, code: string, extra?: Partial<HostCallResult>): HostCallResult {
  // Object.assign and plain stores, not `{ ...base, outcome, … }`: on Node 20's V8 an object
  // literal that adds properties after a spread is built in the runtime (~1 µs a call, measured).
  const out = Object.assign({}, base) as HostCallResult;
  out.outcome = outcome;
  out.code = code;
  out.retryable = false;
  out.attempts = 0;
  out.durationMs = 0;
  if (extra !== undefined) Object.assign(out, extra);
  return out;
}

/** Codes of the outcomes that are not errors thrown by the engine. */
export const OUTCOME_CODES = {
  ok: 'OK',
  toolError: 'TOOL_ERROR',
  denied: 'MCPWIRE_PERMISSION_DENIED',
  unavailable: 'MCPWIRE_SERVER_UNAVAILABLE',
  invalidArguments: 'MCPWIRE_INVALID_ARGUMENTS',
  unknownTool: 'MCPWIRE_UNKNOWN_TOOL',
  queueTimeout: 'MCPWIRE_QUEUE_TIMEOUT',
} as const;

/** An error thrown during a call, classified. */
export interface Classified {
  outcome: CallOutcome;
  code: string;
  rpcError?: RpcErrorInfo;
}

/** Classifies an error a call failed with (`redact` takes the server's secrets out). */
export function classifyError(err: unknown, redact: { text(s: string): string; data(s: string): string }): Classified {
  if (err instanceof JsonRpcError) {
    const prefix = `JSON-RPC error ${err.rpcCode}: `;
    const at = err.message.indexOf(prefix);
    const raw = at >= 0 ? err.message.slice(at + prefix.length) : err.message;
    const info: RpcErrorInfo = { code: err.rpcCode, message: sanitizeText(redact.text(redact.data(raw)), MAX_RPC_MESSAGE) };
    if (err.data !== undefined) {
      const data = boundJson(redactJson(err.data, redact.data), MAX_META_BYTES);
      if (data !== undefined) info.data = data;
    }
    return { outcome: 'rpc_error', code: err.code, rpcError: info };
  }
  if (err instanceof TimeoutError) return { outcome: 'timeout', code: err.code };
  if (err instanceof AbortError) return { outcome: 'cancelled', code: err.code };
  if (err instanceof AuthRequiredError) return { outcome: 'unavailable', code: err.code };
  if (err instanceof ProtocolError || err instanceof ValidationError || err instanceof CapabilityError) return { outcome: 'protocol_error', code: err.code };
  if (err instanceof McpWireError) return { outcome: 'transport', code: err.code };
  if (err instanceof Error && err.name === 'AbortError') return { outcome: 'cancelled', code: 'MCPWIRE_ABORTED' };
  return { outcome: 'transport', code: 'MCPWIRE_UNKNOWN' };
}

/** `value` when its JSON fits in `max` bytes; otherwise undefined. */
export function boundJson(value: unknown, max: number): unknown {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    return undefined;
  }
  if (text === undefined) return undefined;
  return Buffer.byteLength(text, 'utf8') <= max ? value : undefined;
}

/** JSON byte size of a value (0 when it cannot be serialized). */
export function jsonBytes(value: unknown): number {
  try {
    return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
  } catch {
    return 0;
  }
}

/** Every string of a JSON value (keys too) through `fn` (depth-capped copy). */
export function redactJson(value: unknown, fn: (s: string) => string, depth = 0): unknown {
  if (typeof value === 'string') return fn(value);
  if (value === null || typeof value !== 'object' || depth > 32) return value;
  if (Array.isArray(value)) return value.map((v) => redactJson(v, fn, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[fn(k)] = redactJson(v, fn, depth + 1);
  return out;
}
