/**
 * The options of a client (`connect`) and of a tool call: what a caller may set, documented in
 * one place; client.ts and its helpers read them.
 */
import type { RequestId } from '../jsonrpc/types.js';
import type { ProtocolObserver } from '../protocol/observer.js';
import type { RequestOptions } from '../protocol/connection.js';
import type { TransportFactoryOptions } from '../transport/create.js';
import type { Transport, TransportDiagnostic } from '../transport/types.js';
import type { ClientFeatureOptions } from './client-features.js';
import type { TelemetryOption } from './telemetry.js';
import type { ClientCapabilities, Implementation, Task } from './types.js';
import type { ResultStore } from './result-cache.js';

/** How a task-augmented call polls `tasks/get` (basic/utilities/tasks). */
export interface TaskPollOptions {
  /** When the server suggests no `pollInterval` (default 1000 ms). */
  defaultPollIntervalMs?: number;
  /** Floor for any interval, the server's included: a server cannot make us spin (default 100 ms). */
  minPollIntervalMs?: number;
  /** Ceiling of the backoff and of the server's `pollInterval` (untrusted; default 30 000 ms). */
  maxPollIntervalMs?: number;
  /** The interval grows by this factor while the status stays the same (default 1.5). */
  backoffFactor?: number;
}

export interface ClientOptions extends ClientFeatureOptions, TransportFactoryOptions {
  clientInfo?: Implementation;
  /**
   * Extra capabilities to declare (e.g. `experimental`); handlers add their own.
   * `extensions: { 'io.modelcontextprotocol/tasks': {} }` enables 2026-07-28's tasks extension:
   * `callTool` then follows any task handle a server returns (eras/modern-tasks.ts).
   */
  capabilities?: ClientCapabilities;
  /**
   * Pins the protocol version (and so the era): `2026-07-28` speaks the stateless revision
   * (`server/discover`, `_meta` on every request), a handshake-era version (2024-11-05 …
   * 2025-11-25) opens with `initialize` requesting it (basic.lifecycle#8). Default: the era is
   * found per server (eras/select.ts: the stdio probe), each at its newest version. Must be one
   * mcpwire supports (basic.lifecycle#7): anything else is a ConfigError before connecting.
   */
  protocolVersion?: string;
  /** Default per-request timeout in ms (default 60 000). */
  timeoutMs?: number;
  /**
   * The stdio era probe (`server/discover` before anything else, eras/select.ts): how long to
   * wait for an answer before treating the server as handshake-era (default 10 000, never more
   * than the initialize timeout). Not used when `protocolVersion` pins the era.
   */
  eraProbeTimeoutMs?: number;
  /**
   * The era an earlier connection found for this same server configuration (`client.era`), so
   * that this one need not probe again (basic.versioning#7: a client MAY keep the verdict across
   * restarts of the same server configuration). Not a pin: an opening that fails forgets it, so
   * the next opening probes; a modern-only server that refuses `initialize` naming its versions
   * is spoken to as modern at once. Ignored when `protocolVersion` pins the era.
   */
  knownEra?: 'modern' | 'handshake';
  /**
   * 2026-07-28: where cacheable results live (result-cache.ts `ResultStore`): by default this
   * client's own in-process cache; a host on a shared store (src/store: Redis) gives each client
   * one scoped to its server, so that many processes share the results.
   */
  resultStore?: ResultStore;
  /**
   * Multi round-trip requests (2026-07-28, mrtr.ts): how many `input_required` rounds one
   * request may take before it fails (default 8).
   */
  maxInputRounds?: number;
  /** Timeout for `initialize` (default: `timeoutMs`). */
  initializeTimeoutMs?: number;
  /** Sees every message and event (tracing, strict checks). */
  observer?: ProtocolObserver;
  /** Use this transport instead of building one from the config (tests, custom transports). */
  transport?: Transport;
  /** What to do when structuredContent does not match the tool's outputSchema. Default 'error'. */
  validateStructuredContent?: 'error' | 'warn' | 'off';
  /**
   * Assert `format` (email, uri, date-time…) when validating structuredContent. Default false:
   * in JSON Schema 2020-12 (the default dialect, basic#15/#16) `format` is an annotation, so a
   * conforming server may return `"not-an-email"` for `format: "email"`.
   */
  assertFormats?: boolean;
  /**
   * Aborts connecting: the transport start and the first `initialize` only. Later session
   * renewals are not tied to it.
   */
  signal?: AbortSignal;
  /**
   * HTTP sessions: on SessionExpiredError (404 for our session id) start a new session, restore
   * what the old one had (log level, resource subscriptions) and replay the failed request once
   * — safe, since a request refused for an unknown session was never processed
   * (basic.transports#45). A 404 outside a request (GET stream, notification) renews the same
   * way. A request carrying a list cursor is not replayed (the cursor died with the session;
   * `listTools()` and the other listings start over). A renewal that fails closes the client
   * (`failed`, `close` event with the cause). Events: `sessionExpired`, `sessionRenewed`.
   * 'off' surfaces the error (and only emits `sessionExpired` for a 404 outside a request).
   * Default 'auto'.
   */
  sessionRecovery?: 'auto' | 'off';
  /**
   * Health check (basic.utilities.ping#2/#3/#6): send `ping` this often while ready (default:
   * off). A ping unanswered within `pingTimeoutMs` (default: the interval, at most 10 s) is a
   * connection failure: the connection closes and pending requests reject naming the reason.
   */
  pingIntervalMs?: number;
  pingTimeoutMs?: number;
  /**
   * Trace every message and event to a JSON-lines file (secrets redacted). Default: the file
   * named by `MCPWIRE_TRACE`, if set. `strict` also checks every message against schema.json;
   * `maxFileBytes` bounds the file (past it, it moves to `<file>.1` and a new one starts).
   */
  trace?: string | { file: string; strict?: boolean; secrets?: string[]; maxFileBytes?: number } | false;
  /** Polling of `tasks/get` while a task-augmented call runs (tasks.ts). */
  taskPolling?: TaskPollOptions;
  /**
   * OpenTelemetry (telemetry.ts): `'auto'` (default) makes a CLIENT span per request, following
   * the semantic conventions for MCP, and puts W3C trace context in `params._meta`, when an
   * OpenTelemetry SDK registered a global tracer provider before `connect` (@opentelemetry/api,
   * an optional peer dependency, is loaded only then); `{ tracer }` uses that tracer; `false`
   * turns it off.
   */
  telemetry?: TelemetryOption;
}

/** A multi round-trip round's input requests, keyed as the server keyed them (basic.patterns.mrtr#5). */
export type InputRequests = Record<string, { method: string; params?: Record<string, unknown> }>;

/**
 * A 2026-07-28 request's own client side, for a caller that stands for another client (the
 * gateway, serve): what the request declares and who answers its input requests. A handshake-era
 * server was told the client's capabilities at `initialize`: there these are not read.
 */
export interface RequestInputOptions {
  /**
   * The request's `io.modelcontextprotocol/clientCapabilities` (basic#44: capabilities travel on
   * every request) instead of the client's own, on every round of its multi round-trip requests.
   */
  clientCapabilities?: ClientCapabilities;
  /**
   * Answers each `input_required` round of this request instead of the client's handlers: given
   * the round's input requests together, under the server's own keys, it resolves with the
   * responses under those keys (a key left out is not answered: the server may ask again). The
   * request is then sent again with them and the server's `requestState` (mrtr.ts).
   */
  onInputRequests?: (requests: InputRequests, signal: AbortSignal) => Promise<Record<string, unknown>>;
}

/** A request's options with its own client side (`RequestInputOptions`). */
export type McpRequestOptions = RequestOptions & RequestInputOptions;

/**
 * A tool call's options: a request's (signal, timeouts, progress; `onProgress` and the timeouts
 * of a task-augmented call cover the whole task), plus the task's own.
 */
export interface CallToolOptions
  extends Pick<RequestOptions, 'signal' | 'timeoutMs' | 'onProgress' | 'progressIntervalMs' | 'resetTimeoutOnProgress'>,
    RequestInputOptions {
  /** Hard ceiling of the call; for a task-augmented call, of the whole task (default 10 × timeoutMs). */
  maxTotalTimeoutMs?: number;
  _meta?: Record<string, unknown>;
  /**
   * Task augmentation (basic/utilities/tasks): `'auto'` (default) runs the call as a task exactly
   * when the tool's `execution.taskSupport` is `"required"`; `true` also for `"optional"` tools;
   * `false` never (a task-required tool is then refused). A task-augmented call is still one
   * awaited result; aborting it (or its `maxTotalTimeoutMs` passing) sends `tasks/cancel`.
   * In 2026-07-28 with the tasks extension declared the server decides instead, and this is not
   * read: a task handle it returns is followed the same way.
   */
  task?: boolean | 'auto';
  /** Requested task lifetime in ms (`task.ttl`). */
  taskTtlMs?: number;
  /** Called on every status change of the call's task. */
  onTaskStatus?: (task: Task) => void;
  /**
   * Called with the JSON-RPC id of each `tools/call` request sent for this call (again when a
   * session renewal replays it): notifications that came on that request's stream carry it as
   * `relatedRequestId` (Streamable HTTP). Not called for a task-augmented call: what its task
   * sends names the task instead (`_meta["io.modelcontextprotocol/related-task"]`), whose id
   * `onTaskStatus` gives.
   */
  onRequestId?: (id: RequestId) => void;
}

export interface McpClientDiagnostic extends TransportDiagnostic {
  serverId?: string;
}

