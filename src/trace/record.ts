/**
 * The trace record format (version 1): one JSON object per line. Written by `tracer.ts`, read by
 * `read.ts`; documented for users' tools in `README.md`. Change only by adding fields: `exchange`
 * and then `tap` were added within version 1 (a reader that knows neither pairs tap traces by
 * session and id, as before).
 */

export const TRACE_FORMAT_VERSION = 1;

/** Fields every line carries. */
export interface TraceRecordBase {
  /** Record format version. */
  v: number;
  /** Milliseconds since this process started tracing (monotonic, 3 decimals). */
  t: number;
  /** Wall-clock time, ISO 8601. */
  ts: string;
  /** The server id from the config (or the CLI target). */
  server: string;
  /** Transport kind: `stdio`, `streamable-http`, `legacy-sse`, `memory`. */
  transport: string;
  /** `mcpwire tap` over HTTP: the tap's random tag (8 hex digits), which scopes `exchange` to one tap. */
  tap?: string;
  /** `sha256:` + 8 hex digits of the HTTP session id, once known (never the id: it is a credential). */
  session?: string;
  /** `mcpwire tap` over HTTP: the tap's number for the HTTP exchange the line belongs to (unique per `tap`). */
  exchange?: number;
}

/** One JSON-RPC message, either direction. */
export interface TraceMessageRecord extends TraceRecordBase {
  dir: 'in' | 'out';
  kind: 'request' | 'notification' | 'result' | 'error' | 'invalid';
  /** Requests/notifications: their method. Results/errors: the method of the request they answer, when known. */
  method?: string;
  id?: string | number | null;
  /** UTF-8 length of the message's compact JSON serialization (before redaction). */
  bytes: number;
  /** Results/errors coming in: milliseconds since the request they answer was sent. */
  latency_ms?: number;
  /** The message itself, redacted and with long strings truncated. */
  msg: unknown;
}

/** A lifecycle, transport, timeout, cancel, diagnostic, late-response or schema event. */
export interface TraceEventRecord extends TraceRecordBase {
  event: string;
  [field: string]: unknown;
}

export type TraceRecord = TraceMessageRecord | TraceEventRecord;

export function isMessageRecord(r: TraceRecord): r is TraceMessageRecord {
  return (r as { event?: unknown }).event === undefined && typeof (r as { dir?: unknown }).dir === 'string';
}

export function isEventRecord(r: TraceRecord): r is TraceEventRecord {
  return typeof (r as { event?: unknown }).event === 'string';
}

/** Keys an event's own fields may not take; a clashing field `k` is written as `k_`. */
export const RESERVED_KEYS: ReadonlySet<string> = new Set(['v', 't', 'ts', 'server', 'transport', 'tap', 'session', 'exchange', 'event']);
