/**
 * One upstream client of the gateway: the server side of a `Connection` (basic/lifecycle,
 * server/*). Before `initialize` only `ping` is served (-32600 otherwise); `initialize` starts the
 * host on first use (the gateway's `ensureHost`) and answers with the gateway's capabilities. A
 * request whose `_meta` names a version is a 2026-07-28 one, served without `initialize` (modern.ts).
 * Lists are the aggregate over ready servers, one opaque-cursor page at a time (pages.ts).
 */
import type { NameTable, NamingMode } from './names.js';
import { appOnlyTools, declaresApps, gatewayReadResult, gatewayToolMeta, upstreamViewUri } from './apps.js';
import type { IncomingHttpHeaders } from 'node:http';
import { JsonRpcError } from '../errors.js';
import { excerpt } from '../jsonrpc/types.js';
import { sanitizeText, TOOL_SEARCH_NAMES, type AdaptedTool, type McpHost, type ToolSearchMode } from '../host/index.js';
import { LOGGING_LEVELS, type ClientCapabilities, type LoggingLevel } from '../mcp/types.js';
import { Connection } from '../protocol/connection.js';
import type { IncomingRequestContext } from '../protocol/incoming.js';
import type { RequestId } from '../jsonrpc/types.js';
import type { Transport } from '../transport/types.js';
import { invalidParams, type Downstream } from './downstream.js';
import { page } from './pages.js';
import { STATUS_RESOURCE, STATUS_TOOL, STATUS_TOOL_DEFINITION, STATUS_URI, namesStatus, statusRows } from './status.js';
import { calledToolName, gatewayToolCall } from './tool-call.js';
import type { Tracer } from '../trace/tracer.js';
import { correlation } from './trace.js';
import { Subscriptions, type ListKind, type ResourceWatcher } from './subscriptions.js';
import { discoverResult, modernCapabilities, modernError, modernLogLevel, modernRefusal, modernResult, modernVersionOf } from './modern.js';
import type { HeldCall } from './held-call.js';
import type { RequestInputOptions } from '../mcp/client-options.js';
import type { InputRounds } from './input-rounds.js';
import { asksForInput, withInputRounds } from './input-call.js';
import { handshakeInput } from './handshake-input.js';
import { StatelessPostTransport, StatelessRequests } from './http-stateless.js';
import { paramHeaderProblem } from './param-headers.js';
import type { StoreHealth } from '../store/redis-connection.js';

/** The handshake-era revision served to `initialize` (basic.lifecycle#10: the server answers a version it supports); 2026-07-28 is modern.ts's. */
export const GATEWAY_PROTOCOL_VERSION = '2025-11-25';

export const GATEWAY_CAPABILITIES = {
  tools: { listChanged: true },
  resources: { listChanged: true, subscribe: true },
  prompts: { listChanged: true },
  logging: {},
  completions: {},
};

/** What a session needs from its gateway. */
export interface SessionGateway {
  readonly down: Downstream;
  readonly version: string;
  readonly pageSize: number;
  /** Set: tools/list shows the tool-search tools and the pinned ones only. */
  readonly toolSearch?: ToolSearchMode;
  readonly instructions?: string;
  /** The host, started on first use with `caps` (else the session's `initialize` capabilities) offered downstream. */
  ensureHost(session: GatewaySession, caps?: ClientCapabilities): Promise<McpHost>;
  /** The session's connection closed. */
  ended(session: GatewaySession): void;
  /** The client said its roots changed. */
  rootsChanged(session: GatewaySession): void;
  log(line: string): void;
  /** Runs a tool call of `session` on `server`, marking it as the one a server's request goes to. */
  whileCalling<T>(server: string | undefined, caller: GatewaySession | HeldCall, run: () => Promise<T>): Promise<T>;
  /** Serves a modern client's `resourceSubscriptions` downstream (resource-watch.ts). */
  readonly resourceWatch?: ResourceWatcher;
  /** The held calls of modern clients waiting for their input (input-rounds.ts). */
  readonly inputRounds: InputRounds;
  /** Whether the user trusts this server's tool annotations (`trust_annotations`). */
  annotationsTrusted(server: string): boolean;
  /** The directories the config gives this server as its roots (`roots`), if any: the gateway answers them itself. */
  configuredRoots(server: string): readonly string[] | undefined;
  /** How downstream tools and prompts are named, and the current tools' names (names.ts). */
  readonly names: NamingMode;
  toolNames(host: McpHost): NameTable;
  /** With replicas (`serve --http --store`): the shared store's health, for status. */
  storeHealth?(): StoreHealth | undefined;
}

const NOT_INITIALIZED = () => new JsonRpcError(-32600, 'Server not initialized: send initialize first');

/** What a handler knows of its request beyond the params: a modern request's own log level. */
interface Served {
  /** The request's id on this connection. */
  id: RequestId;
  /** 2026-07-28: the request's `_meta` names a version. */
  modern: boolean;
  /** The threshold for log messages of this request (a modern one without a level: none). */
  level: LoggingLevel | null | undefined;
  /** A modern request's `_meta` client capabilities. */
  caps?: ClientCapabilities;
}
type Handler = (params: Record<string, unknown> | undefined, ctx: IncomingRequestContext, served: Served) => Promise<Record<string, unknown>> | Record<string, unknown>;

export class GatewaySession {
  readonly conn: Connection;
  /** What the client declared in `initialize`. */
  clientCapabilities: ClientCapabilities | undefined;
  initialized = false;
  /** A modern client's `subscriptions/listen` requests (subscriptions.ts). */
  readonly subscriptions: Subscriptions;
  /** The tracer of this client's leg, when tracing is on (trace.ts). */
  tracer: Tracer | undefined;
  /** The session tag its trace lines carry (HTTP sessions). */
  traceSession: string | undefined;
  /** The client opened with `initialize` (the handshake era); a modern client never does. */
  private handshake = false;
  private host: McpHost | undefined;
  /** The host while `initialize` waits for it: requests sent right behind initialize wait too. */
  private starting: Promise<McpHost> | undefined;
  private level: LoggingLevel | undefined;
  /** The HTTP headers of a stateless 2026-07-28 POST (its one request's). */
  private readonly requestHeaders: IncomingHttpHeaders | undefined;
  /** The session of the stateless requests (http-stateless.ts): each request's POST is its own. */
  private readonly requests: StatelessRequests | undefined;

  constructor(
    private readonly gateway: SessionGateway,
    transport: Transport,
  ) {
    this.conn = new Connection(transport, {
      onClose: () => gateway.ended(this),
      onDiagnostic: (d) => gateway.log(`upstream: ${d.message}`),
    });
    this.subscriptions = new Subscriptions((method, params) => this.conn.notify(method, params), gateway.resourceWatch);
    this.requestHeaders = transport instanceof StatelessPostTransport ? transport.requestHeaders : undefined;
    this.requests = transport instanceof StatelessRequests ? transport : undefined;
    this.install();
  }

  /**
   * Told each `resources/subscribe` / `resources/unsubscribe` this client sent here: replicas
   * tell the others, so one replica alone holds the session's subscription to a URI (http-shared.ts).
   */
  onSubscription?: (what: 'sub' | 'unsub', uri: string) => Promise<void>;

  /** The client subscribed to `uri` (or unsubscribed) through another replica: this copy lets go of its own. */
  releaseSubscription(uri: string): void {
    this.subscriptions.unsubscribe(uri);
  }

  /** Told the level this client set (`logging/setLevel`): replicas keep it in the session's record (http-shared.ts). */
  onLevel?: (level: LoggingLevel) => Promise<void>;

  /**
   * The level this client set through another replica (or before this replica re-created the
   * session): its log messages are filtered by it here too, and the servers behind hear it, as
   * when it is set here.
   */
  adoptLevel(level: string): void {
    if (!LOGGING_LEVELS.includes(level as LoggingLevel) || this.level === level) return;
    this.level = level as LoggingLevel;
    if (this.host !== undefined) this.gateway.down.setLevel(this.level).catch(() => {});
  }

  /** Sends a notification if the client finished initializing (list changes, log messages); never to a modern client. */
  notify(method: string, params?: Record<string, unknown>): void {
    const listKind = /^notifications\/(tools|resources|prompts)\/list_changed$/.exec(method)?.[1] as ListKind | undefined;
    if (listKind !== undefined && this.subscriptions.size > 0) this.subscriptions.changed(listKind);
    if (!this.handshake || this.host === undefined || this.conn.isClosed) return;
    this.conn.notify(method, params).catch(() => {});
  }

  /**
   * A downstream log message, if at or above the level the client set (server.utilities.logging);
   * a modern request (`served`) has its own level (null: it asked for none), and its messages go
   * on that request's stream only.
   */
  forwardLog(server: string | undefined, params: Record<string, unknown>, served?: Served): void {
    const level = params.level as LoggingLevel;
    const threshold = served?.modern ? served.level : (this.level ?? 'debug');
    if (threshold === null || threshold === undefined) return;
    if (!LOGGING_LEVELS.includes(level) || LOGGING_LEVELS.indexOf(level) < LOGGING_LEVELS.indexOf(threshold)) return;
    const logger = typeof params.logger === 'string' ? `${server ?? 'gateway'}/${params.logger}` : (server ?? 'gateway');
    const out = { level, logger, data: params.data };
    if (served?.modern) this.notifyFor(served.id, 'notifications/message', out).catch(() => {});
    else this.notify('notifications/message', out);
  }

  /** A notification of request `id` (progress, its log messages): on its own POST's stream when the session serves stateless requests. */
  private notifyFor(id: RequestId, method: string, params: Record<string, unknown>): Promise<void> {
    return this.requests !== undefined ? this.requests.notifyFor(id, method, params) : this.conn.notify(method, params);
  }

  /**
   * Registers `handler` for `method`, for both revisions: a request whose `_meta` names a version
   * is served statelessly (modern.ts) — refused when that version is not served, the host started
   * on first use, the result in 2026-07-28's shape; any other goes to the handshake-era handler.
   */
  private on(method: string, handler: Handler): void {
    this.conn.setRequestHandler(method, async (params, ctx) => {
      const version = modernVersionOf(params);
      if (version === undefined) return handler(params, ctx, { id: ctx.id, modern: false, level: undefined });
      const refused = modernRefusal(method, version, params);
      if (refused !== undefined) throw refused;
      const caps = modernCapabilities(params);
      // server/discover answers from the gateway alone: a client's era probe is not kept waiting
      // on the servers behind starting (over HTTP a probe left unanswered long enough falls back
      // to initialize and sessions)
      if (method !== 'server/discover') this.host ??= await (this.starting ??= this.gateway.ensureHost(this, caps));
      try {
        const result = await handler(params, ctx, { id: ctx.id, modern: true, level: modernLogLevel(params) ?? null, caps });
        return modernResult(method, result, this.serverInfo());
      } catch (err) {
        throw modernError(err);
      }
    });
  }

  /**
   * A modern request whose downstream server may ask for input: served in rounds (input-call.ts);
   * while it is served, the call's progress goes out with this request's token and its log
   * messages at this request's level.
   */
  private held(method: string, params: Record<string, unknown> | undefined, ctx: IncomingRequestContext, served: Served, start: (call: HeldCall) => Promise<Record<string, unknown>>): Promise<Record<string, unknown>> {
    const token = (params?._meta as Record<string, unknown> | undefined)?.progressToken;
    const sink = {
      progress: (p: Record<string, unknown>) => {
        if (typeof token === 'string' || typeof token === 'number') this.notifyFor(ctx.id, 'notifications/progress', { ...p, progressToken: token }).catch(() => {});
      },
      log: (server: string | undefined, p: Record<string, unknown>) => this.forwardLog(server, p, served),
    };
    return withInputRounds(this.gateway.inputRounds, { method, params, caps: served.caps ?? {}, signal: ctx.signal, sink }, start);
  }

  /**
   * A `tools/call`'s params with the tool's host name for its gateway name (names.ts); the host's
   * own `mcp_result_read` as it is. A name the gateway does not offer is -32602 naming the mode.
   */
  private hostToolParams(host: McpHost, params: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
    const name = params?.name;
    // host: the host's names are the gateway's (a denied tool's name still reaches the host, which refuses it).
    if (typeof name !== 'string' || name === 'mcp_result_read' || this.gateway.names === 'host') return params;
    const item = this.gateway.toolNames(host).byName.get(name);
    // the host's own tools (tool search's mcp_tools_search, mcp_tool_call) and host names (app-only tools) reach the host as they are
    if (item === undefined && name.startsWith('mcp_')) return params;
    if (item === undefined) throw invalidParams(`unknown tool "${excerpt(name, 200)}" (--names ${this.gateway.names}: ${this.gateway.names === 'prefixed' ? '<server>__<tool>' : 'as its server names it'}; see tools/list)`);
    return Object.assign({}, params, { name: item.hostName });
  }

  /** A stateless POST's `Mcp-Param-*` headers against the arguments, by the tool's schema as listed (param-headers.ts). */
  private checkParamHeaders(host: McpHost, params: Record<string, unknown> | undefined, id: RequestId): void {
    const headers = this.requestHeaders ?? this.requests?.headersOf(id);
    if (headers === undefined || typeof params?.name !== 'string') return;
    const schema = host.tools().find((t) => t.name === params.name)?.parameters;
    const bad = schema === undefined ? undefined : paramHeaderProblem(headers, schema, params.arguments);
    if (bad !== undefined) throw new JsonRpcError(bad.code, bad.message);
  }

  /**
   * A request's own client side as it goes down to `server`: a 2026-07-28 request's
   * (`modernInput`); a 2025-11-25 session's, its `initialize` capabilities and its answers to a
   * 2026-07-28 server's input rounds (handshake-input.ts).
   */
  private downstreamInput(served: Served, server: string | undefined): RequestInputOptions | undefined {
    if (served.modern) return modernInput(served);
    if (this.clientCapabilities === undefined) return undefined;
    const roots = server === undefined ? undefined : this.gateway.configuredRoots(server);
    return handshakeInput({
      declared: this.clientCapabilities,
      request: (method, params, options) => this.conn.request(method, params, options),
      redact: (value) => (server === undefined ? value : this.gateway.down.redact(server, value)),
      ...(roots !== undefined ? { configuredRoots: roots } : {}),
    });
  }

  private serverInfo(): Record<string, unknown> {
    return { name: 'mcpwire-gateway', title: 'mcpwire gateway', version: this.gateway.version };
  }

  /**
   * The host for a request: before `initialize`, -32600 (basic.lifecycle#5 asks clients to wait
   * for its answer); a request pipelined right behind `initialize` waits for the answer instead of
   * failing, so a client that writes its first lines at once (a shell pipe) is served in order.
   */
  private ready(): Promise<McpHost> {
    if (this.host !== undefined) return Promise.resolve(this.host);
    if (this.starting !== undefined) return this.starting;
    return Promise.reject(NOT_INITIALIZED());
  }

  private install(): void {
    const c = this.conn;
    this.on('ping', () => ({}));
    this.on('initialize', (params) => this.initialize(params));
    this.on('server/discover', () => discoverResult(GATEWAY_PROTOCOL_VERSION, this.gateway.instructions));
    this.on('subscriptions/listen', (params, ctx, served) => {
      if (!served.modern) throw new JsonRpcError(-32601, 'Method not found: subscriptions/listen is a 2026-07-28 request (this session used initialize)');
      return this.subscriptions.listen(params, ctx);
    });
    c.setNotificationHandler('notifications/initialized', () => {
      this.initialized = true;
    });
    c.setNotificationHandler('notifications/roots/list_changed', () => this.gateway.rootsChanged(this));
    this.on('tools/list', async (params, _ctx, served) => {
      const host = await this.ready();
      const appOnly = declaresApps(served.caps ?? this.clientCapabilities) ? appOnlyTools(host) : []; // apps.ts
      return page('tools', [STATUS_TOOL_DEFINITION, ...resultReadTool(host), ...listedTools(host, this.gateway), ...appOnly], params?.cursor, this.gateway.pageSize);
    });
    this.on('tools/call', async (given, ctx, served) => {
      const host = await this.ready();
      if (given?.name === STATUS_TOOL) return this.statusResult();
      const params = this.hostToolParams(host, given);
      // the client's name for the tool (through the search's call tool too: the name it was given),
      // for the host's texts about the call (they name the server's)
      const askedName = calledToolName(given);
      const asked = typeof askedName === 'string' ? { asked: askedName } : {};
      if (served.modern) this.checkParamHeaders(host, params, ctx.id);
      const called = calledToolName(params);
      const server = typeof called === 'string' ? host.catalog.byName.get(called)?.server : undefined;
      const traced = this.tracer ? { correlation: correlation(ctx.id, this.traceSession) } : {};
      const rendersApps = declaresApps(served.caps ?? this.clientCapabilities);
      if (served.modern && asksForInput(served.caps)) {
        return this.held('tools/call', params, ctx, served, (call) =>
          this.gateway.whileCalling(server, call, () => gatewayToolCall({ host, notify: (_m, p) => call.sink?.progress(p), signal: call.controller.signal, log: (s, p) => call.sink?.log(s, p), rendersApps, input: modernInput(served, call), ...asked, ...traced }, params)),
        );
      }
      const input = this.downstreamInput(served, server);
      // the request's own cancel handle goes down (no AbortSignal made); log messages only to a caller that takes them
      const log = served.modern && served.level === null ? undefined : (s: string | undefined, p: Record<string, unknown>) => this.forwardLog(s, p, served);
      return this.gateway.whileCalling(server, this, () => gatewayToolCall({ host, notify: (m, p) => void this.notifyFor(ctx.id, m, p).catch(() => {}), signal: ctx.cancel, log, rendersApps, ...(input ? { input } : {}), ...asked, ...traced }, params));
    });
    this.installResourcesAndPrompts();
  }

  /** Resources, prompts, completion and logging: answered by the servers behind the gateway (Downstream). */
  private installResourcesAndPrompts(): void {
    const down = this.gateway.down;
    this.on('resources/list', async (params, ctx) => {
      await this.ready();
      return page('resources', [STATUS_RESOURCE, ...(await down.resources(ctx.signal))], params?.cursor, this.gateway.pageSize);
    });
    this.on('resources/templates/list', async (params, ctx) => {
      await this.ready();
      return page('resourceTemplates', await down.templates(ctx.signal), params?.cursor, this.gateway.pageSize);
    });
    this.on('resources/read', async (params, ctx, served) => {
      await this.ready();
      const uri = params?.uri;
      if (typeof uri !== 'string') throw invalidParams('resources/read: "uri" must be a string');
      if (uri === STATUS_URI) return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(this.status()) }] };
      const view = upstreamViewUri(uri, (id) => this.host?.client(id) !== undefined); // a server's ui:// view (apps.ts)
      if (view !== undefined) return this.gateway.whileCalling(view.server, this, async () => gatewayReadResult(await down.readFrom(view.server, view.uri, ctx.signal), view.server, view.uri));
      if (served.modern && asksForInput(served.caps)) {
        return this.held('resources/read', params, ctx, served, (call) => this.gateway.whileCalling(down.serverOfUri(uri), call, () => down.readResource(uri, call.controller.signal, modernInput(served, call))));
      }
      return this.gateway.whileCalling(down.serverOfUri(uri), this, () => down.readResource(uri, ctx.signal, this.downstreamInput(served, down.serverOfUri(uri))));
    });
    this.on('resources/subscribe', async (params, _ctx, served) => {
      await this.ready();
      const uri = resourceUri('resources/subscribe', params, served.modern);
      try {
        if (!(await this.subscriptions.subscribe(uri))) throw invalidParams(`resources/subscribe: no server behind the gateway can subscribe to ${excerpt(uri, 200)}`);
      } catch (err) {
        throw err instanceof RangeError ? invalidParams(`resources/subscribe: ${err.message}`) : err;
      }
      await this.onSubscription?.('sub', uri);
      return {};
    });
    this.on('resources/unsubscribe', async (params, _ctx, served) => {
      await this.ready();
      const uri = resourceUri('resources/unsubscribe', params, served.modern);
      this.subscriptions.unsubscribe(uri);
      await this.onSubscription?.('unsub', uri);
      return {};
    });
    this.on('prompts/list', async (params, ctx) => {
      await this.ready();
      return page('prompts', await down.prompts(ctx.signal), params?.cursor, this.gateway.pageSize);
    });
    this.on('prompts/get', async (params, ctx, served) => {
      await this.ready();
      const name = params?.name;
      if (typeof name !== 'string') throw invalidParams('prompts/get: "name" must be a string');
      const args = params?.arguments as Record<string, string> | undefined;
      const server = await down.serverOfPrompt(name, ctx.signal);
      if (served.modern && asksForInput(served.caps)) {
        return this.held('prompts/get', params, ctx, served, (call) => this.gateway.whileCalling(server, call, () => down.getPrompt(name, args, call.controller.signal, modernInput(served, call))));
      }
      return this.gateway.whileCalling(server, this, () => down.getPrompt(name, args, ctx.signal, this.downstreamInput(served, server)));
    });
    this.on('completion/complete', async (params, ctx) => {
      await this.ready();
      return down.complete(params ?? {}, ctx.signal);
    });
    this.on('logging/setLevel', async (params) => {
      await this.ready();
      const level = params?.level;
      if (typeof level !== 'string' || !LOGGING_LEVELS.includes(level as LoggingLevel)) throw invalidParams(`logging/setLevel: unknown level ${excerpt(JSON.stringify(level) ?? String(level), 100)}`);
      this.level = level as LoggingLevel;
      await down.setLevel(this.level);
      await this.onLevel?.(this.level);
      return {};
    });
  }

  private async initialize(params: Record<string, unknown> | undefined): Promise<Record<string, unknown>> {
    if (this.handshake) throw new JsonRpcError(-32600, 'initialize was already received on this connection');
    this.handshake = true;
    const p = params ?? {};
    if (typeof p.protocolVersion !== 'string') throw invalidParams('initialize: "protocolVersion" must be a string');
    if (typeof p.capabilities !== 'object' || p.capabilities === null) throw invalidParams('initialize: "capabilities" must be an object');
    const info = p.clientInfo as { name?: unknown } | undefined;
    if (typeof info?.name !== 'string') throw invalidParams('initialize: "clientInfo.name" must be a string');
    this.clientCapabilities = p.capabilities as ClientCapabilities;
    this.starting ??= this.gateway.ensureHost(this);
    this.host = await this.starting;
    const out: Record<string, unknown> = {
      protocolVersion: GATEWAY_PROTOCOL_VERSION,
      capabilities: GATEWAY_CAPABILITIES,
      serverInfo: this.serverInfo(),
    };
    if (this.gateway.instructions !== undefined) out.instructions = this.gateway.instructions;
    return out;
  }

  private statusResult(): Record<string, unknown> {
    const status = this.status();
    return { content: [{ type: 'text', text: JSON.stringify(status) }], structuredContent: status };
  }

  /** Each server's row, and with replicas the shared store's health (`ok`, or `degraded` and since when). */
  private status(): Record<string, unknown> {
    const store = this.gateway.storeHealth?.();
    const tables = { ...this.gateway.down.nameTables(), ...(this.host !== undefined ? { tool: this.gateway.toolNames(this.host) } : {}) };
    return { servers: statusRows(this.host, this.gateway.down), names: namesStatus(this.gateway.names, tables, this.gateway.down), ...(store !== undefined ? { store } : {}) };
  }
}

/** The `uri` of a handshake-era `resources/subscribe` or `resources/unsubscribe` (a 2026-07-28 client uses `subscriptions/listen`). */
function resourceUri(method: string, params: Record<string, unknown> | undefined, modern: boolean): string {
  if (modern) throw new JsonRpcError(-32601, `Method not found: ${method} is a 2025-11-25 request (2026-07-28: subscriptions/listen with resourceSubscriptions)`);
  const uri = params?.uri;
  if (typeof uri !== 'string') throw invalidParams(`${method}: "uri" must be a string`);
  return uri;
}

/**
 * A host tool as the gateway lists it: the adapter's name, description, argument schema and
 * `outputSchema`, the server's `title` (sanitized: untrusted text) and, for a server whose hints
 * the user trusts, its annotations (server.tools#6: untrusted hints are dropped, never relabelled
 * as the gateway's). A result the
 * host cut for size has no `structuredContent`; the gateway answers it as an error result
 * (tool-call.ts), which a client does not validate against the schema.
 */
function gatewayTool(host: McpHost, t: AdaptedTool, name: string, annotationsTrusted: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = { name, description: t.description, inputSchema: t.parameters };
  const title = sanitizeText(host.catalog.byName.get(t.name)?.tool.title, 200, true);
  if (title) out.title = title;
  if (t.outputSchema) out.outputSchema = t.outputSchema;
  if (t.annotations && annotationsTrusted) out.annotations = t.annotations;
  const entry = host.catalog.byName.get(t.name);
  const meta = entry === undefined ? undefined : gatewayToolMeta(entry.server, entry.tool); // MCP Apps' _meta.ui, views mapped (apps.ts)
  if (meta !== undefined) out._meta = meta;
  return out;
}

/** The servers' tools as listed; with `--tool-search`, the two search tools and the pinned ones instead. */
function listedTools(host: McpHost, gateway: SessionGateway): Record<string, unknown>[] {
  const mode = gateway.toolSearch;
  const listed = mode === undefined ? host.tools() : host.toolDefinitions({ toolSearch: mode }).filter((d): d is AdaptedTool => 'server' in d);
  const names = new Map(gateway.toolNames(host).items.map((n) => [n.hostName, n.gateway]));
  const tools = listed.map((t) => gatewayTool(host, t, names.get(t.name) ?? t.name, gateway.annotationsTrusted(t.server)));
  return mode === undefined ? tools : [...searchTools(host), ...tools];
}

/** The tool-search mode's two tools (`mcp_tools_search` is read-only). */
function searchTools(host: McpHost): Record<string, unknown>[] {
  return host
    .toolDefinitions({ toolSearch: true })
    .filter((d) => d.name === TOOL_SEARCH_NAMES.search || d.name === TOOL_SEARCH_NAMES.call)
    .map((d) => ({ name: d.name, description: d.description, inputSchema: d.parameters, ...(d.name === TOOL_SEARCH_NAMES.search ? { annotations: { readOnlyHint: true } } : {}) }));
}

/** `mcp_result_read`, so a result the host cut for size can be read to its end. */
function resultReadTool(host: McpHost): Record<string, unknown>[] {
  const def = host.toolDefinitions().find((d) => d.name === 'mcp_result_read');
  return def === undefined ? [] : [{ name: def.name, description: def.description, inputSchema: def.parameters, annotations: { readOnlyHint: true } }];
}

/**
 * A 2026-07-28 request's own client side, passed down to the server serving it: the capabilities
 * the request declared (basic#44; a server then needing one it lacks says -32021 to this client,
 * basic#49), and a 2026-07-28 server's input rounds put to this client through its held call
 * under the server's own keys (input-call.ts). A 2025-11-25 session's: handshake-input.ts.
 */
function modernInput(served: Served, call?: HeldCall): RequestInputOptions {
  return {
    clientCapabilities: served.caps ?? {},
    onInputRequests: (requests, signal) => (call !== undefined ? call.askRound(requests, signal) : Promise.reject(new JsonRpcError(-32603, 'the server asks for input its client did not declare'))),
  };
}
