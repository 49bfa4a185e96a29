/**
 * The host supervisor: many MCP servers behind one tool catalog. `createHost(config)` takes the
 * loaded config (`loadConfig`), `start()` connects every enabled server in parallel (one slow or
 * broken server delays or breaks no other), and from then on the host keeps each one connected
 * (`server-slot.ts`), keeps the adapted tool catalog current (`tools.ts`), runs agent tool calls
 * (`calls.ts`) and reports status for the `/mcp` view.
 *
 * Events: `status` (a `ServerStatus` changed), `stateChange` ({ server, from, to, status }: a
 * server's state changed), `serverAdded` / `serverRemoved` ({ server }), `reloaded`
 * (`ReloadResult`), `toolsChanged` (the catalog's tools changed), `listChanged` ({ server, kind:
 * 'resources' | 'prompts' }), `diagnostic` (`HostDiagnostic`: { server?, message, method? }),
 * `notification` (`HostNotification`: { server, method, params }: one no call's listener received).
 *
 * Runtime management: `addServer(id, entry)`, `removeServer(id)`,
 * `stopServer(id)` / `startServer(id)`, `restart(id)` and `reload(config)`, which applies only the
 * differences (`runtime.ts`): a changed entry restarts, an unchanged one keeps its connection.
 */
import { EventEmitter } from 'node:events';
import { ConfigError } from '../errors.js';
import { connect as connectClient, type ClientOptions } from '../mcp/client.js';
import { authorizedDirectoryRoots } from '../mcp/roots.js';
import type { TokenStore } from '../auth/types.js';
import { CallState, executeToolCall, type AgentCallOptions } from './calls.js';
import type { ConfigLoadResult, HostSettings, ResolvedServer } from './config/types.js';
import { slotStatus } from './host-status.js';
import { traceWithConfiguredSecrets } from './redaction.js';
import { hostToolDefinitions, HOST_TOOL_NAMES, type HostToolDefinition } from './host-tools.js';
import type { HostDiagnostic, HostNotification, HostOptions, HostStateChange, ServerStatus, StatusOptions } from './host-types.js';
import { authStore, connectionAuthProvider, loginServer, logoutServer, storeHealth, usesOAuth, type LoginOptions, type LogoutResult } from './oauth.js';
import type { StoreHealth } from '../store/redis-connection.js';
import { sharedErasOf, sharedResultsOf } from '../store/open.js';
import type { EraMemory } from './era-memory.js';
import { withSharedEras } from './era-shared.js';
import type { RedisResults } from '../store/redis-results.js';
import type { HostCallResult } from './outcome.js';
import { NO_RETRY } from './retry.js';
import { diffServers, serverFromEntry, trusted, unavailableReason, type ReloadResult, type RuntimeServerEntry, type UnavailableTool } from './runtime.js';
import { ServerSlot, type ConnectFn, type HostClient, type ServerState } from './server-slot.js';
import { sanitizeText } from './text.js';
import { redactData } from './tool-result.js';
import { adaptTools, type AdaptedTool, type ToolCatalog } from './tools.js';
import { isPinnedHostTool, isToolSearchName, parseCallArgs, pinnedTools, searchToolDefinitions, TOOL_SEARCH_NAMES, type SearchToolDefinition, type ToolSearchMode } from './search/agent-tools.js';
import { isModelVisible } from '../mcp/ui-meta.js';
import { CatalogSearch } from './search/catalog-search.js';
import type { ToolSearchHit, ToolSearchOptions } from './search/tool-index.js';
import { hostToolError } from './host-tool-results.js';
import { OUTCOME_CODES, typedResult } from './outcome.js';

export type { HostDiagnostic, HostNotification, HostOptions, HostStateChange, ServerStatus, StatusOptions } from './host-types.js';

/** The supervisor (see the module comment). */
export class McpHost extends EventEmitter {
  private readonly slots = new Map<string, ServerSlot>();
  private current: ToolCatalog = { tools: [], byName: new Map(), diagnostics: [] };
  private toolsKey = '';
  private readonly reported = new Set<string>();
  private closed = false;
  private started = false;
  private readonly tokens: TokenStore | undefined;
  /** The 2026-07-28 result cache shared through the store (Redis), else undefined: each client keeps its own. */
  private readonly results: RedisResults | undefined;
  /** Era verdicts kept beyond this host: the store's (Redis) when shared, else what the options give. */
  private readonly eras: EraMemory | undefined;
  /** Last state reported per server, for `stateChange`. */
  private readonly lastState = new Map<string, ServerState>();
  private unavailable: UnavailableTool[] = [];
  /** addServer/removeServer/reload run one at a time: each sees what the previous one left. */
  private changing: Promise<unknown> = Promise.resolve();

  /** Host-wide settings of the config (`mcp.max_parallel`); a reload with a loaded config replaces them. */
  private settings: HostSettings;

  constructor(
    servers: readonly ResolvedServer[],
    private readonly options: HostOptions = {},
    settings: HostSettings = {},
  ) {
    super();
    this.settings = { ...settings };
    this.tokens = options.auth === false ? undefined : authStore(options.auth);
    this.results = sharedResultsOf(this.tokens);
    this.eras = options.eraMemory === false ? undefined : withSharedEras(options.eraMemory, sharedErasOf(this.tokens), options.eraPrint);
    for (const server of trusted(servers, options.trust)) {
      if (this.slots.has(server.id)) throw new ConfigError(`server id "${server.id}" given twice`, { serverId: server.id });
      this.slots.set(server.id, this.makeSlot(server));
    }
  }

  private makeSlot(server: ResolvedServer): ServerSlot {
    const options = this.options;
    const given = typeof options.clientOptions === 'function' ? options.clientOptions(server) : (options.clientOptions ?? {});
    // A host keeps connections for long: detect a silent server (basic.utilities.ping#2).
    const co: ClientOptions = { pingIntervalMs: 30_000, ...given, ...(options.closeOnExit !== undefined ? { closeOnExit: options.closeOnExit } : {}) };
    if (given.trace !== undefined && given.trace !== false) co.trace = traceWithConfiguredSecrets(given.trace, server);
    // client/roots: the directories the config authorizes for this server (unless the embedder gives roots).
    if (co.roots === undefined && server.config.roots !== undefined) co.roots = authorizedDirectoryRoots(server.config.roots);
    // Fail closed, visibly: a sampling/elicitation/roots request the host does not handle is
    // refused (-32601) and raises a diagnostic naming the server and the method.
    const theirs = co.onUnsupportedRequest;
    co.onUnsupportedRequest = (info) => {
      const what = info.method === 'roots/list' ? 'roots' : info.method === 'sampling/createMessage' ? 'sampling' : 'elicitation';
      const d: HostDiagnostic = { server: server.id, method: info.method, message: `server "${server.id}" sent ${info.method}, but this host does not handle ${what}: refused (-32601)` };
      this.emit('diagnostic', d);
      theirs?.(info);
    };
    return new ServerSlot(server, {
      connect: this.withResults(this.withAuth(server, options.connect ?? connectClient)),
      clientOptions: co,
      backoff: options.backoff ?? {},
      random: options.random ?? Math.random,
      now: options.now ?? Date.now,
      ...(this.eras !== undefined ? { eraMemory: this.eras } : {}),
      onChange: (s) => this.slotChanged(s),
      onListChanged: (s, kind) => this.emit('listChanged', { server: s.server.id, kind }),
      onDiagnostic: (s, message) => this.emit('diagnostic', { server: s.server.id, message }),
      onNotification: (s, method, params) => {
        const event: HostNotification = { server: s.server.id, method, params: params === undefined ? undefined : redactData(params, s.redaction) };
        this.emit('notification', event);
      },
    });
  }

  /** Connects every enabled server; resolves when each has finished its first attempt. */
  async start(): Promise<void> {
    this.started = true;
    await Promise.all([...this.slots.values()].map((s) => s.start()));
  }

  /** Every configured server's status, sorted by id: the table view unless `detail` (see `ServerStatus.instructions`). */
  status(options: StatusOptions = {}): ServerStatus[] {
    return [...this.slots.values()].map((s) => this.statusOf(s, options.detail === true)).sort((a, b) => (a.id < b.id ? -1 : 1));
  }

  /** The token store's health: for a Redis store, whether it is reachable (`degraded` while not). */
  storeStatus(): StoreHealth | undefined {
    return storeHealth(this.tokens);
  }

  /** One server's status in detail (`/mcp <server-id>`): whole instructions, the capabilities object. */
  serverStatus(id: string): ServerStatus | undefined {
    const slot = this.slots.get(id);
    return slot && this.statusOf(slot, true);
  }

  /** Listed tools of ready servers that the host does not offer to the model, with the reason. */
  unavailableTools(): UnavailableTool[] {
    return this.unavailable.map((u) => ({ ...u }));
  }

  /**
   * Adds server `id` at run time: `entry` is a native config entry (snake_case as in the config
   * file; `transport` inferred from `command`/`url` when left out) or a `ResolvedServer`. It is
   * validated like a file entry (`ConfigError` naming the server and the fields otherwise) and,
   * once the host is started, connected; resolves with its status after the first attempt. The
   * embedder's entry is its own decision: no project trust applies, unless it passes a
   * `ResolvedServer` carrying the `untrusted` mark.
   */
  addServer(id: string, entry: RuntimeServerEntry | ResolvedServer): Promise<ServerStatus> {
    return this.oneAtATime(() => this.add(id, entry));
  }

  private async add(id: string, entry: RuntimeServerEntry | ResolvedServer): Promise<ServerStatus> {
    this.assertOpen(id);
    const server = serverFromEntry(id, entry);
    if (this.slots.has(id)) throw new ConfigError(`server "${id}" already exists (reload() or removeServer() first)`, { serverId: id, phase: 'config' });
    const [resolved] = trusted([server], this.options.trust);
    const slot = this.makeSlot(resolved!);
    this.slots.set(id, slot);
    this.slotChanged(slot);
    this.emit('serverAdded', { server: id });
    if (this.started && !this.closed) await slot.start();
    return this.statusOf(slot, true);
  }

  /** Closes server `id` (its calls in flight fail) and forgets it; its tools leave the catalog. False when unknown. */
  removeServer(id: string): Promise<boolean> {
    return this.oneAtATime(() => this.remove(id));
  }

  private async remove(id: string): Promise<boolean> {
    const slot = this.slots.get(id);
    if (slot === undefined) return false;
    await slot.close(); // stateChange → closed
    if (this.slots.get(id) === slot) this.slots.delete(id);
    this.lastState.delete(id);
    this.rebuildCatalog();
    this.emit('serverRemoved', { server: id });
    return true;
  }

  /** Closes server `id` on purpose: state `stopped`, no reconnects until `startServer(id)`. */
  async stopServer(id: string): Promise<ServerStatus> {
    const slot = this.slotOf(id);
    await slot.stop();
    return this.statusOf(slot, true);
  }

  /**
   * Connects server `id` now (a stopped, failed or config-disabled one too; a ready one stays as it
   * is) and resolves with its status after the attempt. An invalid or untrusted entry is refused
   * with a `ConfigError` that says why.
   */
  async startServer(id: string): Promise<ServerStatus> {
    this.assertOpen(id);
    const slot = this.slotOf(id);
    if (slot.server.error !== undefined) throw new ConfigError(`server "${id}" cannot start: invalid configuration: ${slot.server.error}`, { serverId: id, phase: 'config' });
    if (slot.server.untrusted !== undefined) throw new ConfigError(`server "${id}" cannot start: ${slot.lastError ?? 'untrusted'}`, { serverId: id, phase: 'config' });
    await slot.startNow();
    return this.statusOf(slot, true);
  }

  /**
   * Applies a new config (a `loadConfig` result or resolved servers) by difference: servers no
   * longer configured are removed, new ones added, changed entries closed and connected again,
   * unchanged ones keep their connection (same process, same session, same tools); a stopped
   * server stays stopped, with the new entry when it changed. Resolves
   * when the added and restarted servers have made their first attempt (when the host is started).
   */
  reload(config: ConfigLoadResult | readonly ResolvedServer[]): Promise<ReloadResult> {
    return this.oneAtATime(() => this.applyConfig(config));
  }

  private async applyConfig(config: ConfigLoadResult | readonly ResolvedServer[]): Promise<ReloadResult> {
    this.assertOpen();
    const list = Array.isArray(config) ? (config as readonly ResolvedServer[]) : (config as ConfigLoadResult).servers;
    if (!Array.isArray(config)) this.settings = { ...(config as ConfigLoadResult).host };
    const next = trusted(list, this.options.trust);
    const diff = diffServers(new Map([...this.slots].map(([id, slot]) => [id, slot.server])), next);
    const byId = new Map(next.map((s) => [s.id, s]));
    await Promise.all(diff.removed.map((id) => this.remove(id)));
    const starting: ServerSlot[] = [];
    for (const id of diff.restarted) {
      const old = this.slots.get(id)!;
      const wasStopped = old.state === 'stopped';
      await old.close(); // stateChange → closed, then the new entry's states
      const slot = this.makeSlot(byId.get(id)!);
      this.slots.set(id, slot);
      // a server the embedder stopped takes the new entry but stays stopped
      if (wasStopped) await slot.stop();
      else starting.push(slot);
      this.slotChanged(slot);
    }
    for (const id of diff.added) {
      const slot = this.makeSlot(byId.get(id)!);
      this.slots.set(id, slot);
      this.slotChanged(slot);
      this.emit('serverAdded', { server: id });
      starting.push(slot);
    }
    if (this.started && !this.closed) await Promise.all(starting.map((s) => s.start()));
    this.emit('reloaded', diff);
    return diff;
  }

  private oneAtATime<T>(op: () => Promise<T>): Promise<T> {
    const run = this.changing.then(op, op);
    this.changing = run.catch(() => {});
    return run;
  }

  private slotOf(id: string): ServerSlot {
    const slot = this.slots.get(id);
    if (slot === undefined) throw new ConfigError(`unknown server "${id}"`, { serverId: id });
    return slot;
  }

  private assertOpen(id?: string): void {
    if (this.closed) throw new ConfigError('the MCP host is closed', id !== undefined ? { serverId: id } : {});
  }

  /** The current catalog: adapted tools of every ready server, reverse lookup, diagnostics. */
  get catalog(): ToolCatalog {
    return this.current;
  }

  /**
   * The client of server `id` while it is ready (undefined otherwise): for what the host does
   * not wrap — resources, prompts, completions, a raw request. It is replaced on each reconnect,
   * so ask again rather than keeping it. With the default `connect` it is an `McpClient`.
   */
  client(id: string): HostClient | undefined {
    const slot = this.slots.get(id);
    return slot?.state === 'ready' ? slot.client : undefined;
  }

  /** Adapted MCP tools of every ready server. */
  tools(): AdaptedTool[] {
    return [...this.current.tools];
  }

  /**
   * Ranks the tools offered to a model now (every ready server's, not the config's denied ones,
   * not app-only ones) against `query`: best first, with scores (docs/host.md, "Tool search").
   * The search engine loads on the first call; the index follows the catalog's changes.
   */
  searchTools(query: string, options: ToolSearchOptions = {}): Promise<ToolSearchHit[]> {
    return this.search.search(query, options);
  }

  private readonly search = new CatalogSearch({
    catalog: () => this.current,
    serverTitle: (id) => {
      const info = this.client(id)?.serverInfo;
      return info === undefined ? undefined : sanitizeText(info.title ?? info.name, 100, true);
    },
    // the resource and prompt tools are found through search; mcp_result_read stays listed (agent-tools.ts)
    hostTools: () => this.hostToolDefinitions().filter((d) => d.name !== HOST_TOOL_NAMES.resultRead),
  });

  /**
   * What to give the agent: the adapted tools plus the host tools the ready servers support. With
   * `toolSearch`, the agent mode: `mcp_tools_search` and `mcp_tool_call` instead of the adapted
   * tools, plus the pinned ones (`ToolSearchMode`), plus `mcp_result_read`: the host's resource and
   * prompt tools are found through the search and called through `mcp_tool_call` (unless pinned).
   */
  toolDefinitions(options: { toolSearch?: boolean | ToolSearchMode } = {}): (AdaptedTool | HostToolDefinition | SearchToolDefinition)[] {
    const host = this.hostToolDefinitions();
    const mode = options.toolSearch;
    if (mode === undefined || mode === false) return [...this.current.tools, ...host];
    const offered = this.current.tools.filter((t) => isModelVisible(this.current.byName.get(t.name)?.tool));
    const pinned = mode === true ? undefined : mode.pinned;
    const listedHost = host.filter((d) => d.name === HOST_TOOL_NAMES.resultRead || isPinnedHostTool(d.name, pinned));
    return [...searchToolDefinitions(), ...pinnedTools(offered, pinned), ...listedHost];
  }

  private hostToolDefinitions(): HostToolDefinition[] {
    const ready = [...this.slots.values()].filter((s) => s.state === 'ready' && s.client);
    const has = (f: 'resources' | 'prompts') => this.options.hostTools !== false && ready.some((s) => s.client!.serverCapabilities?.[f] !== undefined);
    const host = hostToolDefinitions().filter((d) =>
      d.name === HOST_TOOL_NAMES.resultRead
        ? this.options.hostTools !== false
        : d.name === HOST_TOOL_NAMES.resourcesList || d.name === HOST_TOOL_NAMES.resourceRead
          ? has('resources')
          : has('prompts'),
    );
    return host;
  }

  /**
   * Runs an agent tool call by public name (calls.ts): argument check, permission, the server's
   * `max_parallel` queue, retries, timeouts with reset on progress, log messages and other
   * notifications of the call to `onLog`/`onNotification`. Never throws: failures come back as
   * typed tool error results (`outcome`, `code`, `retryable`; outcome.ts).
   */
  callTool(name: string, args: unknown, options: AgentCallOptions = {}): Promise<HostCallResult> {
    if (isToolSearchName(name) && !this.closed) return this.searchModeCall(name, args, options);
    if (this.closed) return Promise.resolve({ content: [{ type: 'text', text: 'the MCP host is closed' }], isError: true, outcome: 'unavailable', code: 'MCPWIRE_HOST_CLOSED', retryable: false, attempts: 0, durationMs: 0 });
    this.callState ??= new CallState({ results: this.options.results, maxParallel: () => this.options.maxParallel ?? this.settings.maxParallel });
    const retry = this.options.retry === undefined ? undefined : { ...NO_RETRY, ...this.options.retry };
    return executeToolCall(
      { catalog: this.current, slots: this.slots, permission: this.options.permission, bound: this.options.bound ?? {}, state: this.callState, events: this, random: this.options.random, retry },
      name,
      args,
      options,
    );
  }
  private callState: CallState | undefined;

  /**
   * The agent mode's two tools: the search, or a found tool called by name — then exactly as a
   * direct `callTool` (the same checks, permission, queues and result), except that an app-only
   * tool is not the model's to call.
   */
  private async searchModeCall(name: string, args: unknown, options: AgentCallOptions): Promise<HostCallResult> {
    const started = Date.now();
    if (name === TOOL_SEARCH_NAMES.search) return { ...(await this.search.runSearchTool(args)), durationMs: Date.now() - started };
    const parsed = parseCallArgs(args);
    if (!parsed.ok) return typedResult(hostToolError(parsed.error), 'invalid_arguments', OUTCOME_CODES.invalidArguments);
    const inner = parsed.value.name;
    if (isToolSearchName(inner)) return typedResult(hostToolError(`${TOOL_SEARCH_NAMES.call} calls a found tool, not "${inner}"`), 'invalid_arguments', OUTCOME_CODES.invalidArguments);
    const entry = this.current.byName.get(inner);
    if (entry !== undefined && !isModelVisible(entry.tool)) {
      return typedResult(hostToolError(`unknown tool "${sanitizeText(inner, 128, true)}"`), 'unknown_tool', OUTCOME_CODES.unknownTool);
    }
    return this.callTool(inner, parsed.value.arguments, options);
  }

  /** Reconnects one server now (e.g. after authorizing it), resetting its retry count. */
  async restart(id: string): Promise<void> {
    const slot = this.slots.get(id);
    if (slot === undefined) throw new ConfigError(`unknown server "${id}"`, { serverId: id });
    await slot.restart();
  }

  /**
   * Authorizes HTTP server `id` now (authorization code flow: loopback redirect receiver, the
   * browser opened through `auth.openBrowser` or `options.openBrowser`), stores the grant and
   * reconnects the server: one in `auth_required` becomes `ready` without restarting the host.
   */
  async login(id: string, options: LoginOptions = {}): Promise<ServerStatus> {
    const slot = this.oauthSlot(id);
    await loginServer(slot.server, this.options.auth || {}, this.tokens!, options);
    await slot.restart();
    return this.statusOf(slot);
  }

  /** Revokes (RFC 7009, when the AS supports it) and forgets server `id`'s tokens, then reconnects it. */
  async logout(id: string, options: { signal?: AbortSignal } = {}): Promise<LogoutResult> {
    const slot = this.oauthSlot(id);
    const out = await logoutServer(slot.server, this.options.auth || {}, this.tokens!, options);
    if (slot.state !== 'disabled' && slot.state !== 'untrusted' && slot.state !== 'stopped' && !this.closed) await slot.restart();
    return out;
  }

  private oauthSlot(id: string): ServerSlot {
    const slot = this.slots.get(id);
    if (slot === undefined) throw new ConfigError(`unknown server "${id}"`, { serverId: id });
    if (this.tokens === undefined) throw new ConfigError('OAuth is turned off for this host (auth: false)', { serverId: id, phase: 'auth' });
    if (!usesOAuth(slot.server)) throw new ConfigError(`server "${id}" is not an HTTP server: OAuth does not apply (basic.authorization#2)`, { serverId: id, phase: 'auth' });
    return slot;
  }

  /** HTTP servers get a token-sending, refreshing auth provider on every connection (unless one is given). */
  private withAuth(server: ResolvedServer, connect: ConnectFn): ConnectFn {
    if (this.tokens === undefined || !usesOAuth(server)) return connect;
    const store = this.tokens;
    const auth = this.options.auth || {};
    return (config, opts) => connect(config, opts.authProvider !== undefined ? opts : { ...opts, authProvider: connectionAuthProvider(server, auth, store) });
  }

  /** With a shared store, each HTTP server's client caches its results there (scoped to that server). */
  private withResults(connect: ConnectFn): ConnectFn {
    const results = this.results;
    if (results === undefined) return connect;
    return (config, opts) => {
      const resultStore = opts.resultStore ?? results.forServer(config);
      return connect(config, resultStore !== undefined ? { ...opts, resultStore } : opts);
    };
  }

  /** Closes every connection and stops all retries. Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.slots.values()].map((s) => s.close()));
    // A reload or addServer under way sees `closed` and starts nothing; the slots it made
    // before noticing are closed here, so nothing runs once close() has resolved.
    await this.changing;
    await Promise.all([...this.slots.values()].map((s) => s.close()));
  }

  private slotChanged(slot: ServerSlot): void {
    if (this.slots.get(slot.server.id) !== slot) return; // a replaced or removed server's late news
    this.rebuildCatalog();
    const status = this.statusOf(slot);
    this.emit('status', status);
    const from = this.lastState.get(slot.server.id);
    if (from !== slot.state) {
      this.lastState.set(slot.server.id, slot.state);
      const change: HostStateChange = { server: slot.server.id, from, to: slot.state, status };
      this.emit('stateChange', change);
    }
  }

  private rebuildCatalog(): void {
    const ready = [...this.slots.values()].filter((s) => s.state === 'ready');
    // Tools the host cannot call (a task-required tool on a server without task-augmented
    // tools/call) are never offered to the model: listed in unavailableTools() with the reason.
    const unavailable: UnavailableTool[] = [];
    const callable = (s: ServerSlot) =>
      s.tools.filter((t) => {
        const reason = unavailableReason(t, s.client);
        if (reason !== undefined) unavailable.push({ server: s.server.id, tool: sanitizeText(t.name, 128, true), reason });
        return reason === undefined;
      });
    this.current = adaptTools(ready.map((s) => ({ server: s.server.id, tools: callable(s), deny: s.server.config.permissions?.deny })), this.options.adapt);
    this.unavailable = unavailable;
    for (const u of unavailable) {
      const key = `${u.server}\0${u.tool}\0${u.reason}`;
      if (this.reported.has(key)) continue;
      this.reported.add(key);
      this.emit('diagnostic', { server: u.server, message: `tool "${u.tool}" ${u.reason}` });
    }
    for (const d of this.current.diagnostics) {
      const key = `${d.server}\0${d.message}`;
      if (this.reported.has(key)) continue;
      this.reported.add(key);
      this.emit('diagnostic', { server: d.server, message: d.message });
    }
    const key = JSON.stringify(this.current.tools.map((t) => [t.name, t.description, t.parameters]));
    if (key !== this.toolsKey) {
      this.toolsKey = key;
      this.emit('toolsChanged', this.tools());
    }
  }

  private statusOf(s: ServerSlot, detail = false): ServerStatus {
    return slotStatus(s, {
      tools: this.current.tools.filter((t) => t.server === s.server.id).length,
      unavailable: this.unavailable.filter((u) => u.server === s.server.id).length,
      detail,
    });
  }
}

/** Builds a host from a loaded config (or a list of resolved servers). Call `start()` next. */
export function createHost(config: ConfigLoadResult | readonly ResolvedServer[], options: HostOptions = {}): McpHost {
  if (Array.isArray(config)) return new McpHost(resolvedList(config as readonly unknown[], 'the list given'), options);
  const loaded = config as Partial<ConfigLoadResult> | null | undefined;
  if (loaded === null || typeof loaded !== 'object' || !Array.isArray(loaded.servers)) {
    throw new ConfigError(`createHost expects loadConfig()'s result ({ servers, diagnostics }) or its servers array; got ${kindOf(config)}`);
  }
  return new McpHost(resolvedList(loaded.servers, 'servers'), options, loaded.host);
}

const kindOf = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? `an object with ${Object.keys(v).slice(0, 5).map((k) => JSON.stringify(k)).join(', ') || 'no keys'}` : typeof v);

/**
 * A list of resolved servers (what loadConfig() gives), checked: a plain config entry
 * (`{ id, command }`) in its place is a common mistake, said with the way to do it instead of
 * failing deep inside.
 */
function resolvedList(list: readonly unknown[], what: string): readonly ResolvedServer[] {
  list.forEach((s, n) => {
    const r = s as Partial<ResolvedServer> | null;
    if (r !== null && typeof r === 'object' && typeof r.id === 'string' && r.config !== null && typeof r.config === 'object' && typeof r.transport === 'string') return;
    const id = r !== null && typeof r === 'object' && typeof r.id === 'string' ? ` (id ${JSON.stringify(sanitizeText(r.id, 64, true))})` : '';
    throw new ConfigError(
      `createHost expects loadConfig()'s result or its servers array (resolved servers); item ${n + 1} of ${what}${id} is ${kindOf(s)}, not a resolved server — to start from plain entries, createHost({ servers: [], diagnostics: [] }) then host.addServer(id, { command, args } or { url })`,
    );
  });
  return list as readonly ResolvedServer[];
}
