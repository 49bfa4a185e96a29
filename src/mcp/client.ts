/**
 * McpClient: one connection to one MCP server, through the lifecycle (basic/lifecycle), with a
 * typed method per client→server request of the spec's server pages, and events for the
 * server's notifications.
 */
import { EventEmitter } from 'node:events';
import {
  CapabilityError,
  ConfigError,
  ConnectionClosedError,
  ProtocolError,
  SessionExpiredError,
  TimeoutError,
  StateError,
  ValidationError,
  McpWireError,
  type Phase,
} from '../errors.js';
import type { RequestId } from '../jsonrpc/types.js';
import { Connection, type RequestOptions } from '../protocol/connection.js';
import type { ProtocolObserver } from '../protocol/observer.js';
import type { ProgressCallback } from '../protocol/registry.js';
import { createTransport, type ServerConfig, type TransportFactoryOptions } from '../transport/create.js';
import type { MessageExtra, Transport, TransportDiagnostic } from '../transport/types.js';
import { missingCapability } from './capabilities.js';
import { installClientFeatures, clientCapabilities, createClientFeatureState, type ClientFeatureOptions, type ClientFeatureState } from './client-features.js';
import { Lifecycle, type LifecycleState } from './lifecycle.js';
import type { RootsSource } from './roots.js';
import { validateAgainst } from './output-schema.js';
import { paginate, type Page } from './pagination.js';
import { checkResult, type ShapeTable } from './result-shapes.js';
import { createTaskReceiver, type TaskReceiver } from './task-receiver.js';
import { relatedTaskEchoing, TaskRequester, toolCallMode, type TaskPollOptions } from './tasks.js';
import type {
  CallToolResult,
  ClientCapabilities,
  CompleteReference,
  CompleteResult,
  GetPromptResult,
  Implementation,
  InitializeResult,
  ListPromptsResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ListToolsResult,
  LoggingLevel,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  ServerCapabilities,
  CancelTaskResult,
  ListTasksResult,
  Task,
  TaskSupport,
  Tool,
} from './types.js';
import {
  features,
  isSupportedVersion,
  LATEST_PROTOCOL_VERSION,
  resultShapes,
  SUPPORTED_PROTOCOL_VERSIONS,
  unsupportedRequestedVersion,
} from './versions.js';
import { Telemetry, type RequestSpan, type TelemetryOption, type TelemetryTarget } from './telemetry.js';

export interface ClientOptions extends ClientFeatureOptions, TransportFactoryOptions {
  clientInfo?: Implementation;
  /** Extra capabilities to declare (e.g. `experimental`); handlers add their own. */
  capabilities?: ClientCapabilities;
  /**
   * The version to request (default: the latest, 2025-11-25; basic.lifecycle#8). Must be one
   * mcpwire supports (basic.lifecycle#7): anything else is a ConfigError before connecting.
   */
  protocolVersion?: string;
  /** Default per-request timeout in ms (default 60 000). */
  timeoutMs?: number;
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
   * named by `MCPWIRE_TRACE`, if set. `strict` also checks every message against schema.json.
   */
  trace?: string | { file: string; strict?: boolean; secrets?: string[] } | false;
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

export interface CallToolOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  onProgress?: ProgressCallback;
  /**
   * At most one `onProgress` call per this many ms (default 50; 0 = every notification). The
   * first and the last notification are always delivered (basic.utilities.progress#10).
   */
  progressIntervalMs?: number;
  resetTimeoutOnProgress?: boolean;
  /** Hard ceiling of the call; for a task-augmented call, of the whole task (default 10 × timeoutMs). */
  maxTotalTimeoutMs?: number;
  _meta?: Record<string, unknown>;
  /**
   * Task augmentation (basic/utilities/tasks): `'auto'` (default) runs the call as a task exactly
   * when the tool's `execution.taskSupport` is `"required"`; `true` also for `"optional"` tools;
   * `false` never (a task-required tool is then refused). A task-augmented call is still one
   * awaited result; aborting it (or its `maxTotalTimeoutMs` passing) sends `tasks/cancel`.
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

/** callTool's default options: read only, so one shared object instead of one per call. */
const NO_OPTIONS: CallToolOptions = Object.freeze({});

const DEFAULT_CLIENT_INFO: Implementation = { name: 'mcpwire', version: '0.1.0' };

/**
 * The paginated list methods: their cursors belong to the session that issued them
 * (server.utilities.pagination#4), so a request carrying one is never replayed on a new session.
 */
const PAGINATED: ReadonlySet<string> = new Set(['tools/list', 'resources/list', 'resources/templates/list', 'prompts/list', 'tasks/list']);

export class McpClient extends EventEmitter {
  readonly serverId: string;
  private readonly config: ServerConfig;
  private readonly options: ClientOptions;
  private readonly lifecycle: Lifecycle;
  private transport: Transport | undefined;
  private connection: Connection | undefined;
  private init: InitializeResult | undefined;
  private outputSchemas = new Map<string, object>();
  /** Each listed tool's `execution.taskSupport`; `toolsListed` once a listing has been seen. */
  private taskSupport = new Map<string, TaskSupport | undefined>();
  private toolsListed = false;
  /** The client as task requestor (tasks.ts). */
  private readonly tasks: TaskRequester;
  /** The client as task receiver (task-receiver.ts), per connection; undefined unless enabled. */
  private taskReceiver: TaskReceiver | undefined;
  private closePromise: Promise<void> | undefined;
  private tracer: { close(): Promise<void>; setSessionId(id: string | undefined): void } | undefined;
  /** What a session holds that a new session must be told again. */
  private readonly sessionState = { logLevel: undefined as LoggingLevel | undefined, subscriptions: new Set<string>() };
  private renewing: Promise<void> | undefined;
  /** Bumped by every new session after the first: a listing that spans two restarts. */
  private sessionEpoch = 0;
  /** Errors that mean "this listing's cursor is stale: start over" (see `staleCursor`). */
  private readonly staleCursors = new WeakSet<object>();
  /** Result shapes of the negotiated revision (result-shapes.ts). */
  private shapes: ShapeTable = resultShapes(undefined);
  private keepalive: NodeJS.Timeout | undefined;
  /** Why the connection closed, when it failed: the `cause` of later refusals. */
  private closeReason: Error | undefined;
  private pinging = false;
  /** Roots and URL elicitations in flight (client-features.ts), kept across sessions. */
  private readonly features: ClientFeatureState;
  /** OpenTelemetry spans (telemetry.ts); undefined when off or @opentelemetry/api is not installed. */
  private telemetry: Telemetry | undefined;

  constructor(config: ServerConfig, options: ClientOptions = {}) {
    super();
    this.config = config;
    this.options = options;
    this.serverId = config.id ?? (config.transport === 'stdio' ? config.command : config.url);
    this.features = createClientFeatureState(options, this.serverId);
    this.lifecycle = new Lifecycle(this.serverId, (from, to) => {
      this.connection?.observer?.event({ type: 'lifecycle', from, to });
      this.emit('stateChange', { from, to });
    });
    this.tasks = new TaskRequester({
      serverId: this.serverId,
      request: (method, params, options) => this.request(method, params, options),
      check: (method, result) => checkResult(this.shapes, method, result, this.serverId),
      capabilities: () => this.serverCapabilities,
      negotiated: () => features(this.protocolVersion)?.tasks === true,
      emit: (event, payload) => this.emit(event, payload),
      onProgress: (listener) => {
        this.on('progress', listener);
        return () => this.off('progress', listener);
      },
      defaultTimeoutMs: options.timeoutMs ?? 60_000,
      poll: options.taskPolling,
    });
  }

  // ---- state ------------------------------------------------------------------------------

  get state(): LifecycleState {
    return this.lifecycle.state;
  }
  get phase(): Phase {
    return this.lifecycle.phase;
  }
  get serverInfo(): Implementation | undefined {
    return this.init?.serverInfo;
  }
  get serverCapabilities(): ServerCapabilities | undefined {
    return this.init?.capabilities;
  }
  get instructions(): string | undefined {
    return this.init?.instructions;
  }
  /** The negotiated protocol version. */
  get protocolVersion(): string | undefined {
    return this.init?.protocolVersion;
  }
  /** `stdio`, `streamable-http` or `legacy-sse` (after a fallback). */
  get transportKind(): string | undefined {
    return this.transport?.kind;
  }
  get pid(): number | undefined {
    return this.transport?.pid;
  }
  get sessionId(): string | undefined {
    return this.transport?.sessionId;
  }
  get pendingCount(): number {
    return this.connection?.pendingCount ?? 0;
  }

  // ---- lifecycle --------------------------------------------------------------------------

  /** Starts the transport and runs the initialization phase. Called by `connect()`. */
  async connect(): Promise<this> {
    this.lifecycle.transition('connecting');
    try {
      // basic.lifecycle#7: only a version we support may be requested; refused before any I/O.
      const unsupported = unsupportedRequestedVersion(this.options.protocolVersion);
      if (unsupported !== undefined) {
        throw new ConfigError(unsupported, { serverId: this.serverId, phase: 'config', field: 'protocolVersion' });
      }
      this.options.signal?.throwIfAborted();
      const transport = this.options.transport ?? (await createTransport(this.config, this.options));
      this.transport = transport;
      // basic.transports#45: a 404 outside a request's own POST (GET stream, notification, reply).
      transport.onsessionexpired = (err) => this.onTransportSessionExpired(err);
      const observer = await this.makeObserver(transport.kind);
      this.telemetry = await Telemetry.create(this.options.telemetry, this.telemetryTarget(), (this.options.clientInfo ?? DEFAULT_CLIENT_INFO).version);
      this.connection = new Connection(transport, {
        serverId: this.serverId,
        defaultTimeoutMs: this.options.timeoutMs,
        observer,
        phase: () => this.lifecycle.phase,
        acceptBatches: () => features(this.init?.protocolVersion)?.batching === true,
        // a task's progress outlives its creating request: not an unknown token (tasks.ts)
        onDiagnostic: (d) => !this.tasks.ownsDiagnostic(d) && this.emit('diagnostic', d),
        onClose: (err) => this.onConnectionClose(err),
        // notifications the engine gives no meaning to (custom methods): a `notification` event
        // (`relatedRequestId`: it came on the stream of that request of ours, Streamable HTTP)
        onOtherNotification: (method, params, extra) =>
          this.emit('notification', extra?.relatedRequestId === undefined ? { method, params } : { method, params, relatedRequestId: extra.relatedRequestId }),
      });
      // task-augmented sampling/elicitation from the server run as tasks the client owns
      this.taskReceiver = createTaskReceiver(this.connection, this.options, () => features(this.init?.protocolVersion)?.tasks === true);
      const echoing = relatedTaskEchoing(this.connection);
      installClientFeatures(this.taskReceiver?.augmenting(echoing) ?? echoing, this.options, (event, payload, extra) => this.onFeatureEvent(event, payload, extra), this.features);
      // `taskStatus` events come from the task requester: notifications and polls, deduplicated.
      this.connection.setNotificationHandler('notifications/tasks/status', (params) => this.tasks.onStatusNotification(params));
      await transport.start();
      await this.initialize(this.options.signal);
      this.startKeepalive();
      return this;
    } catch (err) {
      await this.fail(err);
      throw err;
    }
  }

  /**
   * Runs initialize → initialized (basic.lifecycle#1–#4). Also used to start a new HTTP session
   * after the old one expired (`reinitialize`). `signal` aborts this initialize only.
   */
  private async initialize(signal: AbortSignal | undefined): Promise<void> {
    this.lifecycle.transition('initializing');
    const requested = this.options.protocolVersion ?? LATEST_PROTOCOL_VERSION;
    const initParams = {
      protocolVersion: requested,
      capabilities: clientCapabilities(this.options),
      clientInfo: this.options.clientInfo ?? DEFAULT_CLIENT_INFO,
    };
    const span = this.telemetry?.start('initialize', initParams);
    const sent = this.connection!.request<InitializeResult>(
      'initialize',
      span === undefined ? initParams : span.params,
      {
        // basic.utilities.cancellation#2: initialize MUST NOT be cancelled.
        cancellable: false,
        isInitialize: true,
        timeoutMs: this.options.initializeTimeoutMs ?? this.options.timeoutMs,
        signal,
      },
    );
    const result = await (span === undefined ? sent : ended(sent, span));
    this.checkInitializeResult(result);
    this.init = result;
    this.shapes = resultShapes(result.protocolVersion);
    this.transport!.setProtocolVersion?.(result.protocolVersion);
    this.tracer?.setSessionId(this.transport!.sessionId);
    await this.connection!.notify('notifications/initialized');
    this.lifecycle.transition('ready');
  }

  private checkInitializeResult(result: InitializeResult): void {
    const where = { serverId: this.serverId, phase: 'initialize' as const };
    if (result === null || typeof result !== 'object') {
      throw new ProtocolError('initialize result is not an object', { ...where, code: 'MCPWIRE_BAD_INITIALIZE' });
    }
    // basic.lifecycle#12: a version the client does not support → disconnect.
    if (!isSupportedVersion(result.protocolVersion)) {
      throw new ProtocolError(
        `server answered with unsupported protocol version ${JSON.stringify(result.protocolVersion)}; ` +
          `mcpwire supports ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}`,
        { ...where, code: 'MCPWIRE_UNSUPPORTED_VERSION' },
      );
    }
    if (result.capabilities === null || typeof result.capabilities !== 'object') {
      throw new ProtocolError('initialize result has no "capabilities" object', { ...where, code: 'MCPWIRE_BAD_INITIALIZE' });
    }
    const info = result.serverInfo as Partial<Implementation> | undefined;
    if (!info || typeof info.name !== 'string' || typeof info.version !== 'string') {
      this.emit('diagnostic', {
        code: 'MCPWIRE_BAD_SERVER_INFO',
        message: 'initialize result lacks serverInfo {name, version}',
        serverId: this.serverId,
      });
    }
  }

  /**
   * Starts a new session after `SessionExpiredError` (Streamable HTTP): forgets the session id
   * and runs the initialization phase again on the same transport. `signal` aborts this
   * initialize only. If it fails, the client is of no more use (its session is gone): it closes
   * with a ConnectionClosedError whose `cause` says why (state `failed`, `close` event).
   */
  async reinitialize(options: { signal?: AbortSignal } = {}): Promise<void> {
    if (this.connection === undefined || this.connection.isClosed) {
      throw new StateError('cannot re-initialize: the connection is closed', { serverId: this.serverId, phase: this.phase });
    }
    await this.startNewSession(options.signal).catch((err: unknown) => this.renewalFailed(err));
  }

  private async startNewSession(signal: AbortSignal | undefined): Promise<void> {
    this.transport!.resetSession?.();
    this.init = undefined;
    // Cursors of the old session are void from here on (server.utilities.pagination#4).
    this.sessionEpoch++;
    await this.initialize(signal);
  }

  /** Closes the connection (stdio: stdin, SIGTERM, SIGKILL). Idempotent; pending requests reject. */
  close(): Promise<void> {
    this.closePromise ??= (async () => {
      if (this.lifecycle.canTransition('closing')) this.lifecycle.transition('closing');
      try {
        if (this.connection) await this.connection.close();
        else await this.transport?.close();
      } finally {
        if (this.lifecycle.canTransition('closed')) this.lifecycle.transition('closed');
        await this.tracer?.close();
      }
    })();
    return this.closePromise;
  }

  private async fail(err: unknown): Promise<void> {
    if (this.lifecycle.canTransition('failed')) this.lifecycle.transition('failed');
    try {
      if (this.connection) await this.connection.close();
      else await this.transport?.close();
    } catch {
      /* the original error is what matters */
    }
    this.connection?.observer?.event({ type: 'error', message: err instanceof Error ? err.message : String(err) });
    await this.tracer?.close();
  }

  /** The observer: the caller's, a tracer (option `trace` or MCPWIRE_TRACE), or both. */
  private async makeObserver(transportKind: string): Promise<ProtocolObserver | undefined> {
    const given = this.options.observer;
    const t = this.options.trace;
    const spec = t === false ? undefined : t ?? process.env.MCPWIRE_TRACE;
    if (spec === undefined || spec === '') return given;
    const { file, strict, secrets } = typeof spec === 'string' ? { file: spec, strict: false, secrets: [] } : spec;
    const { createTracer } = await import('../trace/tracer.js');
    const tracer = await createTracer({
      file,
      serverId: this.serverId,
      transport: transportKind,
      strict,
      secrets: [...configSecrets(this.config), ...(secrets ?? [])],
      onWarning: (w) => this.emit('diagnostic', { code: 'MCPWIRE_TRACE_WARNING', message: String((w as { message?: unknown }).message ?? 'trace warning'), serverId: this.serverId }),
    });
    this.tracer = tracer;
    // OAuth secrets (tokens, client secrets, codes, verifiers, state) are redacted from the trace.
    const auth = this.options.authProvider as { secrets?: () => string[]; onSecrets?: (l: (v: string[]) => void) => () => void } | undefined;
    if (typeof auth?.secrets === 'function' && typeof auth.onSecrets === 'function') {
      tracer.addSecrets(auth.secrets());
      auth.onSecrets((v) => tracer.addSecrets(v));
    }
    if (given === undefined) return tracer;
    return {
      message: (d, m, i) => {
        given.message(d, m, i);
        tracer.message(d, m, i);
      },
      event: (e) => {
        given.event(e);
        tracer.event(e);
      },
    };
  }

  private startKeepalive(): void {
    const every = this.options.pingIntervalMs;
    if (every === undefined || every <= 0 || this.keepalive !== undefined) return;
    const timeoutMs = this.options.pingTimeoutMs ?? Math.min(every, 10_000);
    this.keepalive = setInterval(() => {
      if (this.pinging || this.lifecycle.state !== 'ready') return;
      this.pinging = true;
      this.ping({ timeoutMs }).then(
        () => {
          this.pinging = false;
        },
        (err: unknown) => {
          this.pinging = false;
          if (!(err instanceof TimeoutError)) return; // closed meanwhile: nothing to add
          // basic.utilities.ping#6/#7: a ping timeout is a connection failure; say so.
          const reason = new ConnectionClosedError(`server did not answer ping within ${timeoutMs} ms; connection considered lost`, {
            serverId: this.serverId,
            phase: 'request',
            cause: err,
          });
          this.emit('diagnostic', { code: 'MCPWIRE_PING_TIMEOUT', message: reason.message, serverId: this.serverId });
          void this.connection?.fail(reason);
        },
      );
    }, every);
    this.keepalive.unref();
  }

  private stopKeepalive(): void {
    if (this.keepalive !== undefined) clearInterval(this.keepalive);
    this.keepalive = undefined;
  }

  private onConnectionClose(err: Error | undefined): void {
    this.stopKeepalive();
    this.taskReceiver?.dispose();
    this.closeReason = err;
    const s = this.lifecycle.state;
    if (s !== 'closing' && s !== 'closed' && s !== 'failed' && this.lifecycle.canTransition('failed')) {
      this.lifecycle.transition('failed');
    }
    this.emit('close', err);
  }

  private telemetryTarget(): TelemetryTarget {
    return {
      url: this.config.transport === 'stdio' ? undefined : this.config.url,
      transportKind: () => this.transport?.kind,
      protocolVersion: () => this.init?.protocolVersion,
      sessionId: () => this.transport?.sessionId,
    };
  }

  // ---- requests ---------------------------------------------------------------------------

  /**
   * Sends any request after the lifecycle and capability checks. The result is handed on as
   * received; the typed methods (`listTools`, `callTool`…) also check its shape.
   */
  request<T = Record<string, unknown>>(method: string, params?: Record<string, unknown>, options?: RequestOptions): Promise<T> {
    const span = this.telemetry?.start(method, params);
    // -32042 becomes a UrlElicitationRequiredError carrying the URL elicitations (client/elicitation).
    const p = this.requestOnce<T>(method, span === undefined ? params : span.params, options).catch((err: unknown) => {
      throw this.features.urlElicitations.fromError(err);
    });
    return span === undefined ? p : ended(p, span);
  }

  private requestOnce<T>(method: string, params?: Record<string, unknown>, options?: RequestOptions): Promise<T> {
    if (this.renewing !== undefined) return this.afterRenewal<T>(this.renewing, method, params, options);
    const refused = this.refusal(method);
    if (refused !== undefined) return Promise.reject(refused);
    const p = this.connection!.request<T>(method, params, options);
    // Only session-based transports can expire; stdio pays nothing here.
    if (this.transport?.resetSession === undefined || this.options.sessionRecovery === 'off') return p;
    const session = this.transport.sessionId;
    return p.catch((err: unknown) => this.recoverSession<T>(err, session, method, params, options));
  }

  /** basic.transports#45: a new session, its state restored, then the request once more. */
  private async recoverSession<T>(
    err: unknown,
    sentOnSession: string | undefined,
    method: string,
    params?: Record<string, unknown>,
    options?: RequestOptions,
  ): Promise<T> {
    if (!(err instanceof SessionExpiredError)) throw err;
    // Renew only the session the request was refused on; if another request already renewed
    // it, just replay on the new one.
    if (this.transport?.sessionId === sentOnSession || this.renewing !== undefined) {
      if (this.lifecycle.state !== 'ready' && this.renewing === undefined) throw err;
      await this.renew(err);
    }
    const stale = this.staleCursor(method, params);
    if (stale !== undefined) throw stale;
    const refused = this.refusal(method);
    if (refused !== undefined) throw refused;
    return this.connection!.request<T>(method, params, options);
  }

  /** A request made while the session is being renewed goes out on the new session. */
  private async afterRenewal<T>(renewing: Promise<void>, method: string, params?: Record<string, unknown>, options?: RequestOptions): Promise<T> {
    await renewing;
    const stale = this.staleCursor(method, params);
    if (stale !== undefined) throw stale;
    return this.request<T>(method, params, options);
  }

  /**
   * server.utilities.pagination#4: a cursor does not outlive its session. A paginated request
   * carrying one is not replayed on a new session: the caller gets this error (SessionExpired),
   * and a listing (`listTools`…) starts over from the first page.
   */
  private staleCursor(method: string, params: Record<string, unknown> | undefined): SessionExpiredError | undefined {
    if (params?.cursor === undefined || !PAGINATED.has(method)) return undefined;
    const err = new SessionExpiredError(
      `${method}: the cursor belongs to the expired session and is not valid on the new one; list again from the first page`,
      { serverId: this.serverId, phase: 'request' },
    );
    this.staleCursors.add(err);
    return err;
  }

  /**
   * Renews the session once, however many requests or transport reports (onsessionexpired)
   * ask for it meanwhile. A renewal that fails is fatal: the connection closes with the reason
   * (state `failed`, `close` event), so a supervisor reconnects instead of the client hanging
   * half-initialized.
   */
  private renew(cause: Error): Promise<void> {
    this.renewing ??= this.renewSession(cause).then(
      () => {
        this.renewing = undefined;
      },
      (err: unknown) => {
        this.renewing = undefined;
        return this.renewalFailed(err);
      },
    );
    return this.renewing;
  }

  private async renewSession(cause: Error): Promise<void> {
    this.emit('sessionExpired', cause);
    this.connection?.observer?.event({ type: 'session-expired', message: cause.message });
    await this.startNewSession(undefined);
    await this.restoreSessionState();
    this.emit('sessionRenewed', { sessionId: this.transport?.sessionId });
  }

  /** Tells the new session what the old one had. A refusal is reported, not fatal. */
  private async restoreSessionState(): Promise<void> {
    const { logLevel, subscriptions } = this.sessionState;
    try {
      if (logLevel !== undefined && this.serverCapabilities?.logging) {
        await this.connection!.request('logging/setLevel', { level: logLevel });
      }
      if (this.serverCapabilities?.resources?.subscribe === true) {
        await Promise.all([...subscriptions].map((uri) => this.connection!.request('resources/subscribe', { uri })));
      }
    } catch (err) {
      this.emit('diagnostic', {
        code: 'MCPWIRE_SESSION_RESTORE',
        message: `the new session could not be given the log level / subscriptions of the old one: ${errorMessage(err)}`,
        serverId: this.serverId,
      });
    }
  }

  private async renewalFailed(err: unknown): Promise<never> {
    // close() during the renewal: nothing to report beyond what close() does.
    if (this.closePromise !== undefined || this.connection === undefined) throw err;
    const reason = new ConnectionClosedError(`the session expired and a new one could not be started: ${errorMessage(err)}`, {
      serverId: this.serverId,
      phase: 'initialize',
      cause: err,
    });
    // → onConnectionClose: state `failed`, `close` event with the reason; pending requests reject.
    await this.connection.fail(reason);
    throw reason;
  }

  /** Server notifications become events; a changed tool list also makes the tools' task support unknown again. */
  private onFeatureEvent(event: string, payload: unknown, extra?: MessageExtra): void {
    if (event === 'toolsListChanged') {
      // basic.utilities.tasks#7: a tool may have become task-required; list again before the next call.
      this.toolsListed = false;
      this.taskSupport.clear();
    }
    // a notification that came on one request's stream says which (the `log` event's second argument)
    if (extra?.relatedRequestId === undefined) this.emit(event, payload);
    else this.emit(event, payload, extra);
  }

  /** The transport saw a 404 for our session outside a request's own POST (basic.transports#45). */
  private onTransportSessionExpired(err: Error): void {
    if (this.renewing !== undefined || this.lifecycle.state !== 'ready') return;
    if (this.options.sessionRecovery === 'off') {
      this.emit('sessionExpired', err);
      return;
    }
    this.renew(err).catch(() => {
      /* reported: the connection closed with the reason (`close` event) */
    });
  }

  /**
   * Replaces the roots offered to the server (client/roots) and, when the list changed and the
   * client is ready, sends `notifications/roots/list_changed` (client.roots#2). Needs the `roots`
   * option at connect (the capability is declared then); URIs must be `file://` (client.roots#3).
   */
  async setRoots(roots: RootsSource): Promise<void> {
    const state = this.features.roots;
    if (state === undefined) {
      throw new StateError('the roots capability was not declared: pass the `roots` option to connect', { serverId: this.serverId, phase: this.phase });
    }
    if (state.set(roots) && this.lifecycle.state === 'ready') await this.notify('notifications/roots/list_changed');
  }

  /** Sends a notification (only once ready, except `notifications/initialized`). */
  notify(method: string, params?: Record<string, unknown>): Promise<void> {
    if (this.connection === undefined || this.lifecycle.state !== 'ready') {
      return Promise.reject(new StateError(`cannot send "${method}" in state ${this.lifecycle.state}`, { serverId: this.serverId, phase: this.phase }));
    }
    return this.connection.notify(method, params);
  }

  private refusal(method: string): McpWireError | undefined {
    if (this.connection === undefined || !this.lifecycle.permitsRequest(method)) {
      return new StateError(
        `cannot send "${method}" while the connection is ${this.lifecycle.state}` +
          (this.lifecycle.state === 'initializing' ? ' (only ping is allowed before initialization completes)' : '') +
          (this.closeReason !== undefined ? `: ${errorMessage(this.closeReason)}` : ''),
        { serverId: this.serverId, phase: this.phase, cause: this.closeReason },
      );
    }
    const missing = missingCapability(method, this.init?.capabilities);
    if (missing !== undefined) return new CapabilityError(missing, { serverId: this.serverId, phase: this.phase });
    return undefined;
  }

  /** Sends a request of a typed method and checks its result's shape (result-shapes.ts). */
  private checked<T>(method: string, params: Record<string, unknown> | undefined, options: RequestOptions | undefined): Promise<T> {
    return this.request<unknown>(method, params, options).then((r) => checkResult<T>(this.shapes, method, r, this.serverId));
  }

  ping(options?: RequestOptions): Promise<void> {
    return this.checked('ping', undefined, options).then(() => undefined);
  }

  /** One page of tools/list. */
  listToolsPage(cursor?: string, options?: RequestOptions): Promise<ListToolsResult> {
    return this.checked<ListToolsResult>('tools/list', cursor === undefined ? undefined : { cursor }, options).then((r) => {
      for (const t of r.tools) this.rememberTool(t);
      if (r.nextCursor === undefined) this.toolsListed = true;
      return r;
    });
  }

  /** Every tool, following `nextCursor` to the end (stops on a cursor loop). */
  listTools(options?: RequestOptions): Promise<Tool[]> {
    return this.listing('tools/list', async (cursor) => {
      const r = await this.listToolsPage(cursor, options);
      return { items: r.tools, nextCursor: r.nextCursor };
    });
  }

  /**
   * Follows `nextCursor` to the end. A listing that a new session interrupts starts over from
   * the first page: its cursors belonged to the old session (server.utilities.pagination#4).
   */
  private listing<T>(method: string, fetchPage: (cursor: string | undefined) => Promise<Page<T>>): Promise<T[]> {
    let epoch = this.sessionEpoch;
    return paginate(
      (cursor) => {
        if (cursor === undefined) epoch = this.sessionEpoch;
        else if (epoch !== this.sessionEpoch) return Promise.reject(this.staleCursor(method, { cursor }));
        return fetchPage(cursor);
      },
      {
        onProblem: (code, message) => this.emit('diagnostic', { code, message: `${method}: ${message}`, serverId: this.serverId }),
        isRestart: (err) => typeof err === 'object' && err !== null && this.staleCursors.has(err),
      },
    );
  }

  private rememberTool(t: Tool): void {
    if (t && typeof t.name === 'string') {
      const support = t.execution?.taskSupport;
      this.taskSupport.set(t.name, support === 'required' || support === 'optional' || support === 'forbidden' ? support : undefined);
      if (t.outputSchema && typeof t.outputSchema === 'object') this.outputSchemas.set(t.name, t.outputSchema);
      else this.outputSchemas.delete(t.name);
    }
  }

  /**
   * Calls a tool. Returns the whole CallToolResult; `isError: true` is a result (the tool
   * failed), distinct from a JSON-RPC error (the request failed), which rejects.
   */
  async callTool(name: string, args: Record<string, unknown> = {}, options: CallToolOptions = NO_OPTIONS): Promise<CallToolResult> {
    let raw: unknown;
    if ((await this.toolCallMode(name, options)) === 'task') {
      raw = await this.tasks.callTool(name, args, options);
    } else {
      const params: Record<string, unknown> = { name, arguments: args };
      if (options._meta !== undefined) params._meta = options._meta;
      raw = await this.request<unknown>('tools/call', params, options);
    }
    const result = checkResult<CallToolResult>(this.shapes, 'tools/call', raw, this.serverId);
    const schema = this.outputSchemas.get(name);
    if (schema !== undefined && !result.isError && (this.options.validateStructuredContent ?? 'error') !== 'off') {
      await this.checkStructured(name, schema, result);
    }
    return result;
  }

  /**
   * Plain or task-augmented (tasks.ts `toolCallMode`). A server taking task-augmented calls gets
   * its tools listed once when the tool is unknown, so a task-required tool is never called as a
   * plain request (basic.utilities.tasks#7); other servers pay nothing.
   */
  private async toolCallMode(name: string, options: CallToolOptions): Promise<'task' | 'plain'> {
    const wanted = options.task ?? 'auto';
    const problem = this.tasks.toolsCallProblem();
    if (wanted === 'auto' && problem !== undefined && !this.taskSupport.has(name)) return 'plain';
    if (!this.taskSupport.has(name) && !this.toolsListed && this.refusal('tools/list') === undefined) {
      await this.listTools({ signal: options.signal, timeoutMs: options.timeoutMs });
    }
    const decided = toolCallMode(name, this.taskSupport.get(name), problem, wanted);
    if ('refuse' in decided) throw new CapabilityError(decided.refuse, { serverId: this.serverId, phase: 'request' });
    return decided.mode;
  }

  // ---- tasks (basic/utilities/tasks; the client as requestor) -------------------------------

  /**
   * `tools/call` with `task` (lower level than `callTool`, which follows the task to its
   * result): resolves with the created task. Needs the server's `tasks.requests.tools.call`.
   */
  createTask(name: string, args: Record<string, unknown> = {}, options: { ttlMs?: number; signal?: AbortSignal; timeoutMs?: number; _meta?: Record<string, unknown> } = {}): Promise<Task> {
    return this.tasks.createToolTask(name, args, { ...options, taskTtlMs: options.ttlMs });
  }
  /** `tasks/get`: the task's current state. */
  getTask(taskId: string, options?: RequestOptions): Promise<Task> {
    return this.tasks.getTask(taskId, options);
  }
  /** `tasks/result`: blocks until the task is terminal; the underlying request's result or error. */
  getTaskResult(taskId: string, options?: RequestOptions): Promise<Record<string, unknown>> {
    return this.tasks.getTaskResult(taskId, options);
  }
  /** One page of `tasks/list` (needs `tasks.list`). */
  listTasksPage(cursor?: string, options?: RequestOptions): Promise<ListTasksResult> {
    return this.tasks.listTasksPage(cursor, options);
  }
  /** Every task, following `nextCursor` to the end (needs `tasks.list`). */
  listTasks(options?: RequestOptions): Promise<Task[]> {
    return this.listing('tasks/list', async (cursor) => {
      const r = await this.tasks.listTasksPage(cursor, options);
      return { items: r.tasks, nextCursor: r.nextCursor };
    });
  }
  /** `tasks/cancel` (needs `tasks.cancel`). */
  cancelTask(taskId: string, options?: RequestOptions): Promise<CancelTaskResult> {
    return this.tasks.cancelTask(taskId, options);
  }

  private async checkStructured(name: string, schema: object, result: CallToolResult): Promise<void> {
    if (result.structuredContent === undefined) {
      return this.structuredProblem(name, [{ path: '/', message: 'structuredContent is missing although the tool declares an outputSchema' }]);
    }
    const check = await validateAgainst(schema, result.structuredContent, { assertFormats: this.options.assertFormats === true });
    if (check.schemaError !== undefined) {
      // The server's schema is unusable: nothing can be checked. Say so; do not fail the call.
      this.emit('diagnostic', {
        code: 'MCPWIRE_OUTPUT_SCHEMA_INVALID',
        message: `outputSchema of tool "${name}" cannot be used for validation: ${check.schemaError}`,
        serverId: this.serverId,
      });
      return;
    }
    if (check.problems.length > 0) this.structuredProblem(name, check.problems);
  }

  private structuredProblem(name: string, problems: { path: string; message: string }[]): void {
    const message = `tool "${name}" returned structuredContent that does not match its outputSchema: ${problems
      .slice(0, 5)
      .map((p) => `${p.path} ${p.message}`)
      .join('; ')}`;
    if (this.options.validateStructuredContent === 'warn') {
      this.emit('diagnostic', { code: 'MCPWIRE_OUTPUT_SCHEMA', message, serverId: this.serverId });
      return;
    }
    throw new ValidationError(message, problems, { serverId: this.serverId, phase: 'request' });
  }

  listResources(options?: RequestOptions): Promise<Resource[]> {
    return this.listAll<Resource>('resources/list', 'resources', options);
  }
  listResourcesPage(cursor?: string, options?: RequestOptions): Promise<ListResourcesResult> {
    return this.checked<ListResourcesResult>('resources/list', cursor === undefined ? undefined : { cursor }, options);
  }
  listResourceTemplates(options?: RequestOptions): Promise<ResourceTemplate[]> {
    return this.listAll<ResourceTemplate>('resources/templates/list', 'resourceTemplates', options);
  }
  listResourceTemplatesPage(cursor?: string, options?: RequestOptions): Promise<ListResourceTemplatesResult> {
    return this.checked<ListResourceTemplatesResult>('resources/templates/list', cursor === undefined ? undefined : { cursor }, options);
  }
  readResource(uri: string, options?: RequestOptions): Promise<ReadResourceResult> {
    return this.checked<ReadResourceResult>('resources/read', { uri }, options);
  }
  subscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    return this.checked('resources/subscribe', { uri }, options).then(() => {
      this.sessionState.subscriptions.add(uri);
    });
  }
  unsubscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    return this.checked('resources/unsubscribe', { uri }, options).then(() => {
      this.sessionState.subscriptions.delete(uri);
    });
  }
  listPrompts(options?: RequestOptions): Promise<Prompt[]> {
    return this.listAll<Prompt>('prompts/list', 'prompts', options);
  }
  listPromptsPage(cursor?: string, options?: RequestOptions): Promise<ListPromptsResult> {
    return this.checked<ListPromptsResult>('prompts/list', cursor === undefined ? undefined : { cursor }, options);
  }
  getPrompt(name: string, args?: Record<string, string>, options?: RequestOptions): Promise<GetPromptResult> {
    return this.checked<GetPromptResult>('prompts/get', args === undefined ? { name } : { name, arguments: args }, options);
  }
  /** completion/complete (server/utilities/completion). */
  complete(
    ref: CompleteReference,
    argument: { name: string; value: string },
    context?: { arguments?: Record<string, string> },
    options?: RequestOptions,
  ): Promise<CompleteResult> {
    const params: Record<string, unknown> = { ref, argument };
    if (context !== undefined) params.context = context;
    return this.checked<CompleteResult>('completion/complete', params, options);
  }
  /** logging/setLevel (server/utilities/logging). */
  setLoggingLevel(level: LoggingLevel, options?: RequestOptions): Promise<void> {
    return this.checked('logging/setLevel', { level }, options).then(() => {
      this.sessionState.logLevel = level;
    });
  }

  private listAll<T>(method: string, key: string, options?: RequestOptions): Promise<T[]> {
    return this.listing(method, async (cursor) => {
      const r = await this.checked<Record<string, unknown>>(method, cursor === undefined ? undefined : { cursor }, options);
      return { items: r[key] as T[], nextCursor: r.nextCursor as string | undefined };
    });
  }
}

/** An error's message without the `[server "x" during y]` prefix (for wrapping it in another). */
function errorMessage(err: unknown): string {
  const m = err instanceof Error ? err.message : String(err);
  return m.startsWith('[') ? m.replace(/^\[[^\]]*\] /, '') : m;
}

/**
 * Values from a server's config that must never appear in a trace or an error: every env and
 * header value (the redactor adds their derived forms: the credentials of `Bearer X`, `Basic …`
 * decoded, URL-encoded…) and the credentials in the URL (user info, credential-like query values).
 */
export function configSecrets(config: ServerConfig | { env?: Record<string, string>; headers?: Record<string, string>; url?: string }): string[] {
  const c = config as { env?: Record<string, string>; headers?: Record<string, string>; url?: string };
  const values: string[] = [...Object.values(c.env ?? {}), ...Object.values(c.headers ?? {})];
  // The URL's credentials (not the URL: it stays readable): user info and credential-like query
  // values (the names `src/trace/redact.ts` redacts as query parameters).
  if (typeof c.url === 'string') {
    try {
      const u = new URL(c.url);
      if (u.password) values.push(u.password, decodeURIComponent(u.password), `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`);
      else if (u.username) values.push(u.username, decodeURIComponent(u.username));
      const credentialName = /^(?:code|token|password|passwd|secret|key|apikey|sig|signature|auth|credential|session_?id|[\w.-]*(?:token|secret|password|[-_]key|apikey|[-_]signature|[-_]sig|[-_]credential))$/i;
      for (const [name, value] of u.searchParams) if (credentialName.test(name)) values.push(value);
    } catch {
      // not a URL: nothing more to take
    }
  }
  return [...new Set(values.filter((v) => typeof v === 'string' && v.length > 0))];
}

/**
 * Connects to an MCP server and completes initialization. Resolves with a ready client; rejects
 * with a typed error naming the server and the phase (spawn, initialize…), after releasing
 * everything (the child process is reaped).
 */
export async function connect(config: ServerConfig, options: ClientOptions = {}): Promise<McpClient> {
  const client = new McpClient(config, options);
  await client.connect();
  return client;
}

/** Ends `span` when `p` settles, with its result or error; `p`'s outcome is unchanged. */
function ended<T>(p: Promise<T>, span: RequestSpan): Promise<T> {
  return p.then(
    (result) => {
      span.end({ result });
      return result;
    },
    (error: unknown) => {
      span.end({ error });
      throw error;
    },
  );
}
