/**
 * The core of McpClient (client.ts): one connection to one MCP server through the lifecycle
 * (basic/lifecycle) — the wiring of its parts, its state, opening and closing, the request path
 * and the server's notifications as events. The typed methods of the spec's server pages are
 * McpClient's own (client.ts). What a protocol era writes or reads differently goes through its
 * codec (eras/); HTTP session renewal is session.ts, the health check keepalive.ts, the trace
 * client-trace.ts, tasks tasks.ts.
 */
import { EventEmitter } from 'node:events';
import { CapabilityError, ConfigError, StateError, type McpWireError, type Phase } from '../errors.js';
import type { ProtocolObserver } from '../protocol/observer.js';
import type { Connection, RequestOptions, ResultMap } from '../protocol/connection.js';
import { createTransport, type ServerConfig } from '../transport/create.js';
import type { MessageExtra, Transport } from '../transport/types.js';
import { missingCapability } from './capabilities.js';
import { clientCapabilities, createClientFeatureState, type ClientFeatureState } from './client-features.js';
import type { ClientOptions, McpRequestOptions } from './client-options.js';
import { clientObserver, type ClientTrace } from './client-trace.js';
import type { EraFeature, EraIo } from './eras/codec.js';
import { eraSelector, type EraSelector } from './eras/select.js';
import { screenCodecIcons } from './icons.js';
import { installModernHttp, reissueOnBrokenStream } from './eras/http-modern.js';
import { DEFAULT_MAX_INPUT_ROUNDS, followInputRounds, type RoundTripDeps } from './mrtr.js';
import { Keepalive } from './keepalive.js';
import { Lifecycle, type LifecycleState } from './lifecycle.js';
import type { RootsSource } from './roots.js';
import { SessionKeeper } from './session.js';
import { listenManagerFor, type ListenManager } from './subscriptions.js';
import { authContextSource, ResultCache, type ReadOptions, type ResultStore } from './result-cache.js';
import { ToolCatalog } from './tool-catalog.js';
import type { ToolCallDeps } from './tool-calls.js';
import type { TaskReceiver } from './task-receiver.js';
import { TaskRequester } from './tasks.js';
import type { Implementation, ServerCapabilities, Tool } from './types.js';
import { ended, Telemetry, type TelemetryTarget } from './telemetry.js';

const DEFAULT_CLIENT_INFO: Implementation = { name: 'mcpwire', version: '0.1.0' };

export abstract class ClientCore extends EventEmitter {
  readonly serverId: string;
  protected readonly config: ServerConfig;
  protected readonly options: ClientOptions;
  protected readonly lifecycle: Lifecycle;
  protected transport: Transport | undefined;
  private connection: Connection | undefined;
  /** The protocol era's reading and writing of requests (eras/codec.ts), the era chosen per server (eras/select.ts). */
  protected readonly codec: EraSelector;
  /** Multi round-trip requests of the modern era (mrtr.ts). */
  private readonly roundTrips: RoundTripDeps;
  /** What every transport of this client is observed by (kept for a transport made again, eras/select.ts). */
  private observer: ProtocolObserver | undefined;
  /** Output schemas and task support of the listed tools (tool-catalog.ts). */
  protected readonly tools = new ToolCatalog();
  /** What `callTool` needs (tool-calls.ts). */
  protected readonly toolCalls: ToolCallDeps;
  /** The client as task requestor (tasks.ts). */
  protected readonly tasks: TaskRequester;
  /** The client as task receiver (task-receiver.ts), per connection; undefined unless enabled. */
  private taskReceiver: TaskReceiver | undefined;
  private closePromise: Promise<void> | undefined;
  private trace: ClientTrace | undefined;
  /** HTTP session renewal and what a session holds (session.ts). */
  protected readonly session: SessionKeeper;
  private readonly keepalive: Keepalive;
  /** Why the connection closed, when it failed: the `cause` of later refusals. */
  private closeReason: Error | undefined;
  /** Roots and URL elicitations in flight (client-features.ts), kept across sessions. */
  protected readonly features: ClientFeatureState;
  /** OpenTelemetry spans (telemetry.ts); undefined when off or @opentelemetry/api is not installed. */
  private telemetry: Telemetry | undefined;
  /** How the era's codec sends while opening (initialize, notifications/initialized). */
  private readonly eraIo: EraIo;
  /** Told of every server notification and stderr chunk while the era probe watches for signs of life (eras/select.ts). */
  private activity: ((what: 'notification' | 'stderr') => void) | undefined;
  /** 2026-07-28: the `subscriptions/listen` of what this client's users listen to (subscriptions.ts). */
  protected readonly listen: ListenManager;
  /** 2026-07-28: cacheable results by `ttlMs` (result-cache.ts), with the current authorization context. */
  protected readonly cache: ResultStore;
  protected readonly authContext: () => Promise<string>;

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
    this.codec = eraSelector({
      serverId: this.serverId,
      pinnedVersion: options.protocolVersion,
      probeTimeoutMs: options.eraProbeTimeoutMs,
      knownEra: options.knownEra,
      capabilities: clientCapabilities(options),
      clientInfo: options.clientInfo ?? DEFAULT_CLIENT_INFO,
      urlElicitations: this.features.urlElicitations,
    });
    screenCodecIcons(this.codec, (code, message) => this.diagnostic(code, message)); // basic#28: only safe icons reach the embedder (icons.ts)
    this.roundTrips = this.roundTripDeps();
    this.eraIo = this.eraIoDeps();
    this.tasks = this.taskRequester();
    this.session = this.sessionKeeper();
    this.toolCalls = this.toolCallDeps();
    this.listen = listenManagerFor(this, {
      serverId: this.serverId,
      request: (method, params, o) => this.request(method, params, o),
      usable: () => this.lifecycle.state === 'ready' && this.codec.era === 'modern',
      diagnostic: (code, message) => this.diagnostic(code, message),
    });
    this.authContext = authContextSource(config, options.authProvider);
    this.cache = options.resultStore ?? new ResultCache();
    this.keepalive = this.keepaliveFor();
  }

  // ---- wiring: what each part of the client is given (called once, from the constructor) ----

  /** Multi round-trip requests (mrtr.ts): each round a new request through the whole path (lifecycle, era params, errors). */
  private roundTripDeps(): RoundTripDeps {
    const options = this.options;
    return {
      serverId: this.serverId,
      options,
      features: this.features,
      maxRounds: options.maxInputRounds ?? DEFAULT_MAX_INPUT_ROUNDS,
      defaultTimeoutMs: options.timeoutMs,
      send: (method, params, o) => this.session.send(method, this.codec.requestParams(method, params, o.clientCapabilities), o, this.eraError),
      interim: (method, raw) => this.codec.interim(method, raw),
    };
  }

  /** How the era's codec sends while opening (eras/codec.ts). */
  private eraIoDeps(): EraIo {
    return {
        request: (method, params, o) => this.traced(method, params, (p) => this.connection!.request(method, p, o)),
        notify: (method, params) => this.connection!.notify(method, params),
        diagnostic: (code, message) => this.diagnostic(code, message),
        negotiated: (result) => {
          this.transport!.setProtocolVersion?.(result.protocolVersion);
          this.trace?.setSessionId(this.transport!.sessionId);
        },
        transportKind: () => this.transport?.kind,
        restart: () => this.restartTransport(),
        stateless: (on) => {
          if (this.transport?.setSessions === undefined) return false;
          this.transport.setSessions(!on);
          return true;
        },
        onActivity: (listener) => {
          this.activity = listener;
        },
    };
  }

  /** The client as task requestor (tasks.ts). */
  private taskRequester(): TaskRequester {
    return new TaskRequester({
      serverId: this.serverId,
      request: (method, params, o) => this.request(method, params, o),
      check: (method, result) => this.codec.result(method, result),
      capabilities: () => this.serverCapabilities,
      negotiated: () => this.codec.has('tasks'),
      emit: (event, payload) => this.emit(event, payload),
      onProgress: (listener) => {
        this.on('progress', listener);
        return () => this.off('progress', listener);
      },
      defaultTimeoutMs: this.options.timeoutMs ?? 60_000,
      poll: this.options.taskPolling,
      inputs: { options: this.options, features: this.features },
    });
  }

  /** HTTP session renewal (session.ts). */
  private sessionKeeper(): SessionKeeper {
    return new SessionKeeper(
      {
        serverId: this.serverId,
        state: () => this.lifecycle.state,
        phase: () => this.lifecycle.phase,
        refusal: (method) => this.refusal(method),
        request: (method, params, o) => this.request(method, params, o),
        initialize: (signal) => this.initialize(signal),
        forgetSession: () => this.codec.forget(),
        serverCapabilities: () => this.serverCapabilities,
        closing: () => this.closePromise !== undefined,
        emit: (event, payload) => this.emit(event, payload),
        traceEvent: (e) => this.connection?.observer?.event(e),
      },
      this.options.sessionRecovery ?? 'auto',
    );
  }

  /** What `callTool` needs (tool-calls.ts). */
  private toolCallDeps(): ToolCallDeps {
    return {
      serverId: this.serverId,
      codec: this.codec,
      tasks: this.tasks,
      catalog: this.tools,
      request: (method, params, o, mapResult) => (mapResult === undefined ? this.request(method, params, o) : this.requestMapped(method, params, o, mapResult)),
      listTools: (o) => (this.refusal('tools/list') === undefined ? this.listTools(o).then(() => true) : Promise.resolve(false)),
      validateStructuredContent: this.options.validateStructuredContent ?? 'error',
      assertFormats: this.options.assertFormats === true,
      diagnostic: (code, message) => this.diagnostic(code, message),
    };
  }

  /** The health check (keepalive.ts). */
  private keepaliveFor(): Keepalive {
    return new Keepalive({
      serverId: this.serverId,
      everyMs: this.options.pingIntervalMs,
      timeoutMs: this.options.pingTimeoutMs,
      ready: () => this.lifecycle.state === 'ready',
      ping: (timeoutMs) => this.ping({ timeoutMs }),
      diagnostic: (code, message) => this.diagnostic(code, message),
      lost: (reason) => void this.connection?.fail(reason),
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
    return this.codec.negotiated?.serverInfo;
  }
  get serverCapabilities(): ServerCapabilities | undefined {
    return this.codec.negotiated?.capabilities;
  }
  get instructions(): string | undefined {
    return this.codec.negotiated?.instructions;
  }
  /** The era the server speaks: `modern` (2026-07-28) or `handshake` (initialize); undefined before it is known. */
  get era(): string | undefined {
    return this.codec.decided === undefined ? undefined : this.codec.era;
  }
  /** The negotiated protocol version. */
  get protocolVersion(): string | undefined {
    return this.codec.negotiated?.protocolVersion;
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
  /** Whether the negotiated revision has `feature` (eras/codec.ts); false before negotiation. */
  has(feature: EraFeature): boolean {
    return this.codec.has(feature);
  }

  // ---- lifecycle --------------------------------------------------------------------------

  /** Starts the transport and runs the initialization phase. Called by `connect()`. */
  async connect(): Promise<this> {
    this.lifecycle.transition('connecting');
    try {
      // basic.lifecycle#7: only a version we support may be requested; refused before any I/O.
      const unsupported = this.codec.unrequestable;
      if (unsupported !== undefined) {
        throw new ConfigError(unsupported, { serverId: this.serverId, phase: 'config', field: 'protocolVersion' });
      }
      this.options.signal?.throwIfAborted();
      const transport = this.options.transport ?? (await createTransport(this.config, this.transportOptions()));
      this.transport = transport;
      const { observer, trace } = await clientObserver(this.options, this.config, this.serverId, transport.kind, (code, message) => this.diagnostic(code, message));
      this.trace = trace;
      this.observer = observer;
      this.telemetry = await Telemetry.create(this.options.telemetry, this.telemetryTarget(), (this.options.clientInfo ?? DEFAULT_CLIENT_INFO).version);
      await this.attach(transport);
      await transport.start();
      await this.initialize(this.options.signal);
      this.keepalive.start();
      this.listen.start();
      return this;
    } catch (err) {
      await this.fail(err);
      throw err;
    }
  }

  /** The client's connection on `transport`: its handlers installed, sessions kept on it. */
  private async attach(transport: Transport): Promise<void> {
    this.transport = transport;
    const { openClientConnection } = await import('./client-connection.js');
    // 2026-07-28 on Streamable HTTP: each request's metadata headers (eras/http-modern.ts)
    await installModernHttp(transport, { modern: () => this.codec.era === 'modern', inputSchemaOf: (tool) => this.tools.inputSchemaOf(tool) });
    // basic.transports#45: a 404 outside a request (GET stream, notification, reply).
    transport.onsessionexpired = (err) => this.session.onTransportSessionExpired(err);
    const opened = openClientConnection(transport, this.observer, {
      serverId: this.serverId,
      options: this.options,
      codec: this.codec,
      tasks: this.tasks,
      features: this.features,
      phase: () => this.lifecycle.phase,
      emit: (event, ...args) => this.emit(event, ...args),
      onClose: (err) => this.onConnectionClose(err),
      onFeatureEvent: (event, payload, extra) => this.onFeatureEvent(event, payload, extra),
    });
    this.connection = opened.connection;
    this.taskReceiver = opened.taskReceiver;
    this.session.attach(transport, this.connection);
    this.connection.setNotificationHandler('notifications/subscriptions/acknowledged', (params) => this.listen.onAcknowledged(params));
  }

  /** The options a transport is made with: the caller's, stderr also shown to the era probe. */
  private transportOptions(): ClientOptions {
    const theirs = this.options.onStderr;
    return {
      ...this.options,
      onStderr: (chunk) => {
        this.activity?.('stderr');
        theirs?.(chunk);
      },
    };
  }

  /**
   * A fresh transport from the config, for a server whose process the era probe ended
   * (eras/select.ts). False when the caller gave the transport: another cannot be made.
   */
  private async restartTransport(): Promise<boolean> {
    if (this.options.transport !== undefined) return false;
    await this.connection?.close();
    await this.attach(await createTransport(this.config, this.transportOptions()));
    this.closeReason = undefined;
    await this.transport!.start();
    return true;
  }

  /**
   * Runs the era's opening (handshake: initialize → initialized, basic.lifecycle#1–#4). Also used
   * to start a new HTTP session (session.ts). `signal` aborts this opening only; the whole of it
   * is bounded by the initialize timeout.
   */
  private async initialize(signal: AbortSignal | undefined): Promise<void> {
    this.lifecycle.transition('initializing');
    await this.codec.open(this.eraIo, { signal, timeoutMs: this.options.initializeTimeoutMs ?? this.options.timeoutMs });
    // 2026-07-28: a request's text with the constant `_meta` spliced in (eras/modern.ts); none in
    // the handshake era, whose requests then take the connection's plain path (no hook per request)
    this.connection!.requestText = this.codec.textHook();
    this.lifecycle.transition('ready');
  }

  /**
   * Starts a new session (Streamable HTTP): the old one is ended on the server (DELETE) and the
   * initialization phase runs again on the same transport; a renewal under way is joined instead.
   * `signal` aborts this initialize only. If it fails, the client is of no more use (its session
   * is gone): it closes with a ConnectionClosedError whose `cause` says why (state `failed`,
   * `close` event).
   */
  reinitialize(options: { signal?: AbortSignal } = {}): Promise<void> {
    return this.session.reinitialize(options.signal);
  }

  /** Closes the connection (stdio: stdin, SIGTERM, SIGKILL). Idempotent; pending requests reject. */
  close(): Promise<void> {
    this.closePromise ??= (async () => {
      this.listen.stop();
      if (this.lifecycle.canTransition('closing')) this.lifecycle.transition('closing');
      try {
        if (this.connection) await this.connection.close();
        else await this.transport?.close();
      } finally {
        if (this.lifecycle.canTransition('closed')) this.lifecycle.transition('closed');
        await this.trace?.close();
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
    await this.trace?.close();
  }

  private onConnectionClose(err: Error | undefined): void {
    // the era probe ended a legacy server's process: a new one is started (eras/select.ts)
    if (this.codec.probing) return;
    this.keepalive.stop();
    this.listen.stop();
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
      protocolVersion: () => this.protocolVersion,
      sessionId: () => this.transport?.sessionId,
    };
  }

  protected diagnostic(code: string, message: string): void {
    this.emit('diagnostic', { code, message, serverId: this.serverId });
  }

  // ---- requests ---------------------------------------------------------------------------

  /**
   * Sends any request after the lifecycle and capability checks. The result is handed on as
   * received; the typed methods (`listTools`, `callTool`…) also check its shape.
   */
  request<T = Record<string, unknown>>(method: string, params?: Record<string, unknown>, options?: McpRequestOptions): Promise<T> {
    const span = this.telemetry?.start(method, params);
    const sent = span === undefined ? params : span.params;
    const caps = options?.clientCapabilities;
    // the era's reading of errors is applied where the request settles (no promise chained)
    let p = this.session.send<T>(method, this.codec.requestParams(method, sent, caps), options, this.eraError);
    // 2026-07-28 on HTTP: a response stream that broke lost the request; it MUST be re-issued
    // with a new id (changelog: SSE resumability removed) — once, then the error stands
    if (this.transport?.cancelsByClosing === true) p = p.catch((err: unknown) => reissueOnBrokenStream<T>(err, () => this.session.send<T>(method, this.codec.requestParams(method, sent, caps), options, this.eraError)));
    // basic/patterns/mrtr: an interim result is fulfilled and the request sent again (mrtr.ts)
    if (this.codec.roundTrips(method)) {
      const startedAt = Date.now();
      p = p.then((raw) => followInputRounds(this.roundTrips, method, sent, options, raw, startedAt) as Promise<T>);
    }
    return span === undefined ? p : ended(p, span);
  }

  /**
   * A request that may be answered with an interim result (`roundTrips`), read where it settles:
   * a final result goes to `mapResult` at once, an interim one is followed through its input
   * rounds (mrtr.ts) first. A chained `then` and an async function for every 2026-07-28
   * tools/call (a final result but for the rare interim one) cost three promises and their jobs.
   */
  private roundTripMap(method: string, params: Record<string, unknown> | undefined, options: McpRequestOptions | undefined, mapResult: ResultMap): ResultMap {
    const startedAt = Date.now();
    // (params without `_meta` are given the era's in place, `requestMapped`: a retry starts from the caller's own)
    const bare = params !== undefined && params._meta === undefined;
    return (raw) =>
      this.codec.interim(method, raw) === undefined
        ? mapResult(raw)
        : followInputRounds(this.roundTrips, method, bare ? withoutMeta(params) : params, options, raw, startedAt).then(mapResult);
  }

  /**
   * `request` resolving with what `mapResult` makes of the result. On the plain path (no span,
   * no re-issue) it is applied where the request settles (connection.ts `ResultMap`), after the
   * input rounds of an interim result (`roundTripMap`): no promise chained; otherwise after
   * everything `request` does.
   */
  private requestMapped<T>(method: string, params: Record<string, unknown> | undefined, options: McpRequestOptions | undefined, mapResult: ResultMap): Promise<T> {
    if (this.telemetry !== undefined || this.transport?.cancelsByClosing === true) {
      return this.request(method, params, options).then(mapResult) as Promise<T>;
    }
    const read = this.codec.roundTrips(method) ? this.roundTripMap(method, params, options, mapResult) : mapResult;
    // (the params of a mapped request are callTool's, made for it alone: `fresh`, the codec may add to them)
    return this.session.send<T>(method, this.codec.requestParams(method, params, options?.clientCapabilities, true), options, this.eraError, read);
  }

  /** The era's meaning of a request's error (-32042: a UrlElicitationRequiredError, client/elicitation). */
  private readonly eraError = (err: unknown): unknown => this.codec.error(err);

  /** `send` in an OpenTelemetry span when telemetry is on (its trace context in `params._meta`). */
  private traced<T>(method: string, params: Record<string, unknown> | undefined, send: (params: Record<string, unknown> | undefined) => Promise<T>): Promise<T> {
    const span = this.telemetry?.start(method, params);
    return span === undefined ? send(params) : ended(send(span.params), span);
  }

  /** Server notifications become events; a changed tool list also makes the tools' task support unknown again. */
  private onFeatureEvent(event: string, payload: unknown, extra?: MessageExtra): void {
    this.activity?.('notification');
    // basic.patterns.subscriptions#4: a change counts only on a subscription of ours
    if (this.codec.era === 'modern' && !this.listen.accept(event, payload)) return;
    // a shared store answers later and never rejects (ResultStore)
    void this.cache.onNotification(event, payload as Record<string, unknown> | undefined);
    if (event === 'toolsListChanged') {
      // basic.utilities.tasks#7: a tool may have become task-required; list again before the next call.
      this.tools.changed();
    }
    // a notification that came on one request's stream says which (the `log` event's second argument)
    if (extra?.relatedRequestId === undefined) this.emit(event, payload);
    else this.emit(event, payload, extra);
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
    // (not connected yet: the states `idle` and `connecting` refuse every request)
    const refused = this.lifecycle.refusal(method, this.closeReason);
    if (refused !== undefined) return refused;
    const missing = missingCapability(method, this.serverCapabilities);
    return missing === undefined ? undefined : new CapabilityError(missing, { serverId: this.serverId, phase: this.phase });
  }

  /** A liveness check: `ping`, or `server/discover` in the 2026-07-28 era (which has no ping). */
  ping(options?: RequestOptions): Promise<void> {
    const method = this.codec.liveness;
    // never from the result cache: the point is to hear from the server now
    return this.request<unknown>(method, undefined, options).then((r) => void this.codec.result(method, r));
  }

  /** Every tool (client.ts): the tool calls list them again after a change (tool-calls.ts). */
  abstract listTools(options?: ReadOptions): Promise<Tool[]>;

}

/** `params` without the `_meta` member (a retry of a request whose params were given the era's `_meta` in place). */
function withoutMeta(params: Record<string, unknown>): Record<string, unknown> {
  const { _meta: _dropped, ...rest } = params;
  return rest;
}
