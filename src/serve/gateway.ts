/**
 * The gateway: one MCP server in front of the configured ones. It owns one `McpHost` (config,
 * trust, OAuth, reconnects, retries, permissions, redaction, traces: docs/host.md), started when
 * the first client sends `initialize`, and any number of upstream sessions (one over stdio; one
 * per MCP session over Streamable HTTP).
 *
 * What flows up: the host's list changes become `notifications/{tools,resources,prompts}/
 * list_changed` (coalesced over a short window; a server coming or going changes every list);
 * downstream log messages outside a call become `notifications/message`. What flows down:
 * sampling, elicitation and roots requests of a downstream server are forwarded to a client
 * that declared the capability — the one whose tool call on that server is running (no other
 * client stands in for it), else the newest — and only declared downstream when the first client declared it (client.sampling#5,
 * client.elicitation#4, client.roots#1: never promise what nobody can answer; a 2026-07-28 client
 * that starts the gateway declares them in its first request's `_meta`). A 2026-07-28 client
 * gets such a request during its call as an `input_required` result (held-call.ts), if its
 * request declared the feature; else the server's request is refused. That is a handshake-era
 * server's side: a 2026-07-28 server is told each request's own client's capabilities and its
 * input requests go back to that client (session.ts, handshake-input.ts).
 */
import { appsClientOptions } from './apps.js';
import { connect as connectClient } from '../mcp/client.js';
import { createHost, type ConfigLoadResult, type ConnectFn, type HostOptions, type McpHost, type ResolvedServer, type ToolSearchMode } from '../host/index.js';
import type { ClientOptions } from '../mcp/client-options.js';
import type { ClientCapabilities, CreateMessageResult, ElicitResult, Root } from '../mcp/types.js';
import type { Transport } from '../transport/types.js';
import { AuthRequiredError, JsonRpcError } from '../errors.js';
import { Downstream } from './downstream.js';
import { DEFAULT_PAGE_SIZE } from './pages.js';
import { GatewaySession, type SessionGateway } from './session.js';
import { sessionTag } from '../trace/session-tag.js';
import { traceFile, upstreamTracer } from './trace.js';
import { HeldCall } from './held-call.js';
import { InputRounds, type InputRoundsOptions } from './input-rounds.js';
import { ResourceWatch } from './resource-watch.js';
import { assignNames, defaultNaming, sharedNameLine, type NameTable, type NamingMode } from './names.js';
import { STATUS_TOOL } from './status.js';
import type { StoreHealth } from '../store/redis-connection.js';

/** The gateway's own tools: a downstream tool of that name is offered prefixed (as-is mode). */
const GATEWAY_TOOLS: ReadonlySet<string> = new Set([STATUS_TOOL, 'mcp_result_read']);

/** The session id of a stateless (2026-07-28) HTTP request's session: no session to tag. */
export const STATELESS = 'stateless';

export interface GatewayOptions {
  /** The gateway's version in `serverInfo`. */
  version?: string;
  /** Items per list page (default 100). */
  pageSize?: number;
  /** Host options (permission hook, backoff, trust…); `connect` stays the engine's (the gateway talks MCP to each server's `McpClient`). */
  host?: Omit<HostOptions, 'connect'>;
  /** Where log lines go (default: stderr). */
  log?: (line: string) => void;
  /** Window in which list changes are coalesced into one notification (default 50 ms). */
  listChangedDelayMs?: number;
  /**
   * Trace file of the upstream leg (trace.ts); default: the host client options' trace file, so
   * one trace holds both legs of a call.
   */
  trace?: string;
  /** More values never to write to the trace (the HTTP bearer token). */
  secrets?: string[];
  /** Bounds of the calls held for a 2026-07-28 client's input (input-rounds.ts): how many, how long. */
  inputRounds?: InputRoundsOptions;
  /**
   * List only the tool-search tools (`mcp_tools_search`, `mcp_tool_call`), the pinned tools and
   * the gateway's own instead of every server's tools (`serve --tool-search`; docs/serve.md).
   */
  toolSearch?: boolean | ToolSearchMode;
  /** The names of downstream tools and prompts (names.ts); default: the config's `mcp.serve_names`, else `as-is` for one server, `prefixed` for more. */
  names?: NamingMode;
  /** The shared store's health, for status (`serve --http --store`). */
  storeHealth?: () => StoreHealth;
}

/** Requests that change nothing: a replica that takes over a stream of a replica gone runs them again (http-shared-session.ts). */
const RERUNNABLE: ReadonlySet<string> = new Set(['ping', 'tools/list', 'resources/list', 'resources/templates/list', 'resources/read', 'prompts/list', 'prompts/get', 'completion/complete']);

const NAMING_TEXT: Record<NamingMode, string> = {
  'as-is': "tools and prompts keep their server's names (a name two servers share is <server>__<name>)",
  prefixed: 'tools and prompts are named <server>__<name>',
  host: 'tools are named mcp_<server>_<tool>_<hash>, prompts mcp_<server>_<prompt>',
};

/** Who a downstream server's request during a call goes to: a handshake-era session, or a modern client's held call. */
type Caller = GatewaySession | HeldCall;

type ListKind = 'tools' | 'resources' | 'prompts';

export class Gateway implements SessionGateway {
  readonly down: Downstream;
  readonly version: string;
  readonly pageSize: number;
  readonly toolSearch: ToolSearchMode | undefined;
  readonly instructions: string;
  /** How downstream tools and prompts are named (names.ts). */
  readonly names: NamingMode;
  private toolTable: { catalog: object; table: NameTable } | undefined;
  /** Shared names already logged (once each). */
  private readonly reported = new Set<string>();
  private readonly sessions = new Set<GatewaySession>();
  private hostPromise: Promise<McpHost> | undefined;
  private host: McpHost | undefined;
  private readonly pending = new Set<ListKind>();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  /** Sessions with a tool call running, per server: who a server's request during that call goes to. */
  private readonly calling = new Map<string, Caller[]>();
  readonly inputRounds: InputRounds;
  /** Downstream subscriptions for modern clients' `resourceSubscriptions`. */
  readonly resourceWatch: ResourceWatch;
  /** Servers offered our client's roots (not their config's). */
  private readonly forwardedRoots = new Set<string>();

  constructor(
    private readonly config: ConfigLoadResult | readonly ResolvedServer[],
    private readonly options: GatewayOptions = {},
  ) {
    this.version = options.version ?? '0.0.0';
    this.pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
    this.toolSearch = options.toolSearch === true ? {} : options.toolSearch === false ? undefined : options.toolSearch;
    const configured = Array.isArray(config) ? undefined : (config as ConfigLoadResult).host?.serveNames;
    // --tool-search finds and calls tools by the host's names: its listed tools keep them too.
    this.names = options.names ?? configured ?? (this.toolSearch !== undefined ? 'host' : defaultNaming(this.servers().filter((s) => s.enabled).length));
    this.instructions = `One MCP server in front of several: ${NAMING_TEXT[this.names]}; mcpwire_status (or the resource mcpwire://status) shows each server.`;
    this.down = new Downstream(this.servers(), this.names, (kind, table) => this.report(kind, table));
    this.inputRounds = new InputRounds(options.inputRounds);
    this.resourceWatch = new ResourceWatch(this.down, (uri) => {
      for (const s of this.sessions) s.subscriptions.updated(uri);
    });
  }

  /**
   * Whether a downstream server's tool annotations are passed on as hints: only for a server the
   * user marked `trust_annotations` (server.tools#6). The gateway's client cannot tell whose
   * claims they are, so an untrusted server's hints would read as the gateway's own.
   */
  annotationsTrusted(id: string): boolean {
    return this.servers().some((s) => s.id === id && s.config.trustAnnotations === true);
  }

  /** The directories the config gives `id` as its roots (the host answers that server's `roots/list` from them). */
  configuredRoots(id: string): readonly string[] | undefined {
    return this.servers().find((s) => s.id === id)?.config.roots;
  }

  /**
   * Whether a request may be run a second time (its first run died with a replica): reads and
   * lists, and a tool whose server's annotations the user trusts and that says it is read-only
   * or idempotent.
   */
  rerunnable(message: Record<string, unknown>): boolean {
    const method = String(message.method);
    if (RERUNNABLE.has(method)) return true;
    const name = (message.params as Record<string, unknown> | undefined)?.name;
    if (method !== 'tools/call' || this.host === undefined || typeof name !== 'string') return false;
    const hostName = this.names === 'host' ? name : this.toolNames(this.host).byName.get(name)?.hostName;
    const tool = this.host.tools().find((t) => t.name === hostName);
    return tool !== undefined && this.annotationsTrusted(tool.server) && (tool.annotations?.readOnlyHint === true || tool.annotations?.idempotentHint === true);
  }

  /** The shared store's health (undefined: no shared store). */
  storeHealth(): StoreHealth | undefined {
    return this.options.storeHealth?.();
  }

  /** The gateway names of the host's tools, recomputed when the catalog changes (names.ts). */
  toolNames(host: McpHost): NameTable {
    const catalog = host.catalog;
    if (this.toolTable?.catalog === catalog) return this.toolTable.table;
    const requests = catalog.tools.map((t) => ({ server: t.server, name: catalog.byName.get(t.name)?.tool.name ?? t.name, hostName: t.name }));
    const table = assignNames(this.names, requests, GATEWAY_TOOLS);
    this.report('tool', table);
    this.toolTable = { catalog, table };
    return table;
  }

  /** Logs each name two servers share, once (as-is mode offers it prefixed for each). */
  private report(kind: 'tool' | 'prompt' | 'template', table: NameTable): void {
    for (const s of table.shared) {
      const key = `${kind}\0${s.name}\0${s.servers.join('\0')}`;
      if (this.reported.has(key)) continue;
      this.reported.add(key);
      this.log(sharedNameLine(kind, s, table));
    }
  }

  private servers(): readonly ResolvedServer[] {
    return Array.isArray(this.config) ? (this.config as readonly ResolvedServer[]) : (this.config as ConfigLoadResult).servers;
  }

  log(line: string): void {
    (this.options.log ?? ((l: string) => process.stderr.write(`mcpwire serve: ${l}\n`)))(line);
  }

  /** Serves one upstream client over `transport` (started here), traced when tracing is on (trace.ts). */
  async attach(transport: Transport): Promise<GatewaySession> {
    const session = new GatewaySession(this, transport);
    this.sessions.add(session);
    const file = traceFile(this.options.trace, this.options.host?.clientOptions);
    if (file !== undefined) {
      const tracer = await upstreamTracer(file, transport.kind, this.servers(), this.options.secrets ?? [], (m) => this.log(`trace: ${m}`));
      const sid = (transport as { sessionId?: unknown }).sessionId;
      if (typeof sid === 'string' && sid !== STATELESS) {
        tracer.setSessionId(sid);
        session.traceSession = sessionTag(sid);
      }
      session.conn.observer = tracer;
      session.tracer = tracer;
    }
    await transport.start();
    return session;
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  ensureHost(session: GatewaySession, caps?: ClientCapabilities): Promise<McpHost> {
    // a modern client's first request gives its capabilities; a handshake-era one has sent initialize
    this.hostPromise ??= this.startHost(caps ?? session.clientCapabilities ?? {}, caps === undefined ? 'handshake' : undefined);
    return this.hostPromise;
  }

  ended(session: GatewaySession): void {
    this.sessions.delete(session);
    session.subscriptions.releaseAll();
    void session.tracer?.close().catch(() => {});
  }

  rootsChanged(_session: GatewaySession): void {
    // Each downstream server whose roots come from our client hears that they changed
    // (client.roots#2); one with roots in its config keeps those.
    for (const [id, client] of this.down.ready()) if (this.forwardedRoots.has(id)) client.notify('notifications/roots/list_changed').catch(() => {});
  }

  /** Marks `caller` as calling `server` while `run` runs (for routing server requests). */
  async whileCalling<T>(server: string | undefined, caller: Caller, run: () => Promise<T>): Promise<T> {
    if (server === undefined) return run();
    const list = this.calling.get(server) ?? [];
    list.push(caller);
    this.calling.set(server, list);
    try {
      return await run();
    } finally {
      const i = list.indexOf(caller);
      if (i >= 0) list.splice(i, 1);
      if (list.length === 0) this.calling.delete(server);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.inputRounds.close();
    // Subscriptions end gracefully: their complete answers go out before the connections close.
    for (const s of this.sessions) s.subscriptions.endAll();
    await new Promise((resolve) => setImmediate(resolve));
    await Promise.all([...this.sessions].map((s) => s.conn.close().catch(() => {})));
    const host = this.hostPromise ? await this.hostPromise.catch(() => undefined) : undefined;
    await host?.close();
  }

  /**
   * `era`: the revision the first client speaks, tried first with each server that has no
   * `protocol_version` (a server that speaks both is spoken to as that client speaks to the
   * gateway: its handshake-era features — subscriptions, logging, sampling in a call — are not
   * those of its 2026-07-28 side). Only a preference: a modern-only server refusing `initialize`
   * is spoken to as modern (the host's `knownEra`, eras/select.ts); a modern first client keeps
   * the probe, which finds modern first.
   */
  private async startHost(caps: ClientCapabilities, era?: 'handshake'): Promise<McpHost> {
    const given = this.options.host ?? {};
    const host = createHost(this.config as ConfigLoadResult, {
      permission: 'allow',
      ...given,
      ...(era !== undefined ? { connect: preferringEra(era) } : {}),
      clientOptions: (server) => appsClientOptions({ ...(typeof given.clientOptions === 'function' ? given.clientOptions(server) : given.clientOptions), ...this.forwarding(server, caps) }, caps),
    });
    this.down.host = host;
    this.host = host;
    host.on('toolsChanged', () => this.changed('tools'));
    host.on('listChanged', (e: { kind: 'resources' | 'prompts' }) => this.changed(e.kind));
    host.on('stateChange', (e: { server: string; from?: string; to: string }) => {
      if (e.to === 'ready') {
        this.down.connected(e.server);
        this.resourceWatch.connected(e.server);
      }
      if (e.from === 'ready' || e.to === 'ready') this.changed('resources', 'prompts');
    });
    host.on('serverRemoved', () => this.changed('tools', 'resources', 'prompts'));
    host.on('diagnostic', (d: { server?: string; message: string }) => this.log(`${d.server ? `[${d.server}] ` : ''}${d.message}`));
    host.on('notification', (n: { server: string; method: string; params?: Record<string, unknown> }) => {
      if (n.method === 'notifications/message' && n.params) for (const s of this.sessions) s.forwardLog(n.server, n.params);
    });
    await host.start();
    // What changed while the servers made their first attempt is in the first answers already.
    this.pending.clear();
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.closed) await host.close();
    return host;
  }

  private changed(...kinds: ListKind[]): void {
    for (const k of kinds) this.pending.add(k);
    if (this.timer !== undefined || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const kinds = [...this.pending];
      this.pending.clear();
      for (const s of this.sessions) for (const k of kinds) s.notify(`notifications/${k}/list_changed`);
    }, this.options.listChangedDelayMs ?? 50);
    this.timer.unref();
  }

  /** The client features a downstream server may use, each answered by an upstream client. */
  private forwarding(server: ResolvedServer, caps: ClientCapabilities): ClientOptions {
    const o: ClientOptions = {};
    if (caps.sampling !== undefined) {
      o.onSampling = (params, ctx) => this.ask<CreateMessageResult>(server.id, 'sampling', 'sampling/createMessage', params as unknown as Record<string, unknown>, ctx.signal);
      const s = caps.sampling as { tools?: object; context?: object };
      o.samplingSupport = { tools: s.tools !== undefined, context: s.context !== undefined };
    }
    if (caps.elicitation !== undefined) {
      o.onElicitation = (params, ctx) => this.ask<ElicitResult>(server.id, 'elicitation', 'elicitation/create', params as unknown as Record<string, unknown>, ctx.signal);
      const e = caps.elicitation as { form?: object; url?: object };
      // An empty elicitation object means form mode (client.elicitation: backwards compatibility).
      o.elicitationModes = e.url !== undefined && e.form === undefined ? ['url'] : e.url !== undefined ? ['form', 'url'] : ['form'];
    }
    if (caps.roots !== undefined && server.config.roots === undefined) {
      this.forwardedRoots.add(server.id);
      o.roots = async () => (await this.ask<{ roots: Root[] }>(server.id, 'roots', 'roots/list', undefined)).roots;
    }
    return o;
  }

  private ask<T>(server: string, feature: 'sampling' | 'elicitation' | 'roots', method: string, given: Record<string, unknown> | undefined, signal?: AbortSignal): Promise<T> {
    // What goes up went through the server's redaction, as its results do.
    const params = given === undefined ? undefined : this.down.redact(server, given);
    const declared = (c: Caller) => (c instanceof HeldCall ? c.declares(feature) : c.clientCapabilities?.[feature] !== undefined && !c.conn.isClosed);
    // During a call the request is that call's client's: one that cannot answer it (it did not
    // declare the feature) is not stood in for by another client. A modern client's call holds it
    // for an input round (held-call.ts); outside a call only a handshake-era client is asked.
    const running = this.calling.get(server) ?? [];
    const target = running.length > 0 ? running.filter(declared).at(-1) : [...this.sessions].filter(declared).at(-1);
    if (target === undefined) return Promise.reject(new JsonRpcError(-32601, `no client of the gateway handles ${method} now`));
    if (target instanceof HeldCall) return target.ask(method, params, signal) as Promise<T>;
    return target.conn.request<T>(method, params, { ...(signal ? { signal } : {}), timeoutMs: 10 * 60_000 });
  }
}

/**
 * The engine's `connect`, opening each server in `era` first (`knownEra`: not a pin, a
 * modern-only server refusing `initialize` with its versions is spoken to as modern at once).
 * An opening so that fails (a modern-only server refusing `initialize` another way) is made
 * again at once with the host's own choice (the probe), and that server is never offered `era`
 * again; so is a server with a configured `protocol_version` or an era a connection found. An
 * authorization challenge or an abort is no verdict: it fails as it would.
 */
function preferringEra(era: 'handshake'): ConnectFn {
  const refused = new Set<string>();
  return async (config, options) => {
    const key = config.id ?? (config.transport === 'http' ? config.url : config.command);
    if (refused.has(key) || options.protocolVersion !== undefined || options.knownEra !== undefined) return connectClient(config, options);
    try {
      return await connectClient(config, { ...options, knownEra: era });
    } catch (err) {
      if (err instanceof AuthRequiredError || options.signal?.aborted === true) throw err;
      refused.add(key);
      return connectClient(config, options);
    }
  };
}
