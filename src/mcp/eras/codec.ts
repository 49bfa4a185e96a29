/**
 * The seam between the client and a protocol era. Everything about a request that one revision
 * writes or reads differently from another goes through an `EraCodec`: how the conversation
 * opens, what each request carries, how a result and an error are read, what the era has. The
 * client asks its codec and never tests a version itself.
 *
 * Eras:
 * - handshake (2024-11-05 … 2025-11-25, `handshake.ts`): `initialize` → `notifications/initialized`
 *   opens a session; requests carry nothing of the negotiation; results are read against the
 *   negotiated revision's shapes; HTTP sessions can expire and be renewed.
 * - modern (2026-07-28, `modern.ts`): no handshake — `open` is `server/discover`;
 *   `requestParams` puts `io.modelcontextprotocol/protocolVersion`, `…/clientCapabilities` and
 *   `…/clientInfo` in every request's `_meta`; `result` reads the required `resultType`;
 *   `interim` tells an `input_required` result (multi round-trip) from a final one, for the
 *   client to fulfil its input requests and retry the request with `inputResponses` (mrtr.ts);
 *   `error` maps `UnsupportedProtocolVersion` (-32022) and its kin; no sessions.
 *
 * Which era a server speaks is decided per server by `select.ts` (itself an EraCodec that
 * delegates to the era it chose).
 */
import type { RequestOptions } from '../../protocol/connection.js';
import type { ClientCapabilities, Implementation, LoggingLevel, ServerCapabilities } from '../types.js';

/** What opening the conversation established (the handshake's InitializeResult, modern's discovery). */
export interface Negotiated {
  protocolVersion: string;
  capabilities: ServerCapabilities;
  serverInfo?: Implementation;
  instructions?: string;
}

/** What a codec needs from the client to open: sends without lifecycle checks, diagnostics. */
export interface EraIo {
  request<T>(method: string, params: Record<string, unknown> | undefined, options: RequestOptions): Promise<T>;
  notify(method: string, params?: Record<string, unknown>): Promise<void>;
  diagnostic(code: string, message: string): void;
  /** The server's answer was accepted: told before anything else is sent (HTTP: the version header). */
  negotiated(result: Negotiated): void;
  /** `stdio`, `streamable-http`, … of the transport the conversation runs on now. */
  transportKind(): string | undefined;
  /**
   * Replaces a transport whose server process ended with a fresh one from the same config
   * (select.ts: a legacy server that exits on a request before `initialize`). False when the
   * client was given its transport and cannot make another.
   */
  restart(): Promise<boolean>;
  /**
   * HTTP: makes the transport stateless (the 2026-07-28 era: no session, GET or DELETE) or
   * session-based again. False when the transport has no such mode (stdio, legacy SSE).
   */
  stateless(on: boolean): boolean;
  /** Calls `listener` on every notification the server sends and its stderr output (select.ts: signs of life during the probe); undefined removes it. */
  onActivity?(listener: ((what: 'notification' | 'stderr') => void) | undefined): void;
}

export interface OpenOptions {
  /** Aborts opening. */
  signal?: AbortSignal;
  /** The whole opening exchange is bounded by this (ms). */
  timeoutMs?: number;
}

/**
 * Features an era (and, within it, the negotiated revision) may or may not have. `taskHandles`:
 * the server decides which requests become tasks and answers with a task handle the client
 * follows (2026-07-28, the `io.modelcontextprotocol/tasks` extension the client declared).
 */
export type EraFeature = 'tasks' | 'batching' | 'taskHandles';

/** An `input_required` interim result (basic/patterns/mrtr): what to fulfil, what to echo. */
export interface InputRequired {
  inputRequests?: Record<string, { method?: unknown; params?: unknown }>;
  requestState?: string;
}

export interface EraCodec {
  /** `handshake` or `modern`: for status and traces, never for branching. */
  readonly era: string;
  /** Whether the conversation lives in a session that can expire and be renewed (HTTP). */
  readonly sessions: boolean;
  /** The request `ping()` and the health check send: `ping`, or (2026-07-28, which removed it) `server/discover`. */
  readonly liveness: string;
  /** What opening established; undefined before, and after `forget`. */
  readonly negotiated: Negotiated | undefined;

  /** Opens the conversation (the handshake, or discovery). Rejects with a typed error. */
  open(io: EraIo, options: OpenOptions): Promise<Negotiated>;
  /** The session is gone: what was negotiated no longer holds (a new `open` follows). */
  forget(): void;
  /**
   * The params a request goes out with (modern: its negotiation `_meta`, with `capabilities` for
   * the client's own when the caller gives the request's). Hot path: no copy when nothing changes.
   * `fresh`: `params` was made for this one request and nothing else holds it (callTool's), so
   * the codec may add to it in place instead of copying it; a caller's own object never is.
   */
  requestParams(method: string, params: Record<string, unknown> | undefined, capabilities?: ClientCapabilities, fresh?: boolean): Record<string, unknown> | undefined;
  /**
   * The JSON text of a request whose params `requestParams` just made, when the codec can write
   * it cheaper than a walk of the whole message (modern: its constant `_meta` spliced in as text
   * built once); undefined: serialize as usual.
   */
  requestText?(message: { jsonrpc: '2.0'; id: number | string; method: string; params?: Record<string, unknown> }): string | undefined;
  /** The final result of `method`, its shape checked; throws a ProtocolError when malformed. */
  result<T>(method: string, raw: unknown): T;
  /**
   * `raw` is an interim result of `method` to fulfil and retry (modern: `input_required`), or
   * undefined for a final one. Hot path: one property read for a final result.
   */
  interim(method: string, raw: unknown): InputRequired | undefined;
  /** Whether a result of `method` may be an interim one (modern: tools/call, prompts/get, resources/read). */
  roundTrips(method: string): boolean;
  /** A request's error as this era means it (typed errors for the codes it defines). */
  error(err: unknown): unknown;
  /** Whether the negotiated revision has `feature`. */
  has(feature: EraFeature): boolean;
  /** Takes the log level without a request (modern: it travels in `_meta`): true; false when it must be sent. */
  setLogLevel(level: LoggingLevel): boolean;
  /** While true, the server's process may end without the connection failing (select.ts: the stdio probe). */
  readonly probing?: boolean;
}
