/**
 * The host supervisor: many MCP servers behind one tool catalog. `createHost(config)` takes the
 * loaded config (`loadConfig`), `start()` connects every enabled server in parallel (one slow or
 * broken server delays or breaks no other), and from then on the host keeps each one connected
 * (`server-slot.ts`), keeps the adapted tool catalog current (`tools.ts`), runs agent tool calls
 * (`calls.ts`) and reports status for the `/mcp` view (seed §5.4).
 *
 * Events: `status` (a `ServerStatus` changed), `toolsChanged` (the catalog's tools changed),
 * `listChanged` ({ server, kind: 'resources' | 'prompts' }), `diagnostic` ({ server?, message }).
 */
import { EventEmitter } from 'node:events';
import { ConfigError } from '../errors.js';
import { connect as connectClient, type ClientOptions } from '../mcp/client.js';
import { authorizedDirectoryRoots } from '../mcp/roots.js';
import type { BackoffOptions } from './backoff.js';
import { executeToolCall, type AgentCallOptions } from './calls.js';
import { realpathSync } from 'node:fs';
import path from 'node:path';
import type { TrustOption } from './config/trust.js';
import type { ConfigLoadResult, ConfigSource, ResolvedServer, TransportKind } from './config/types.js';
import { hostToolDefinitions, HOST_TOOL_NAMES, type HostToolDefinition } from './host-tools.js';
import { authStore, connectionAuthProvider, loginServer, logoutServer, usesOAuth, type HostAuthOptions, type LoginOptions, type LogoutResult } from './oauth.js';
import type { TokenStore } from '../auth/types.js';
import type { PermissionHook } from './permissions.js';
import { ServerSlot, type ConnectFn, type ServerState } from './server-slot.js';
import { sanitizeText } from './text.js';
import type { BoundOptions, ToolResultForAgent } from './tool-result.js';
import { adaptTools, type AdaptedTool, type AdaptOptions, type ToolCatalog } from './tools.js';

/** Options of `createHost`. */
export interface HostOptions {
  /** Opens a client (default: the engine's `connect`). */
  connect?: ConnectFn;
  /** Client options for every server, or per server (e.g. a trace file per id). */
  clientOptions?: ClientOptions | ((server: ResolvedServer) => ClientOptions);
  /** Close every stdio server when this process gets SIGINT/SIGTERM or exits (ClientOptions.closeOnExit for all). */
  closeOnExit?: boolean;
  /** Reconnect backoff (default 1 s doubling to 30 s, ±20 % jitter, 8 retries). */
  backoff?: BackoffOptions;
  /** Decides tool calls not settled by `permissions.allow/deny`; `'allow'` trusts all. Default: deny. */
  permission?: PermissionHook | 'allow';
  /** Tool adapter options (schema cap, description cap…). */
  adapt?: AdaptOptions;
  /** Result caps (default 256 KiB). */
  bound?: BoundOptions;
  /** Offer the resources/prompts host tools when a ready server supports them (default true). */
  hostTools?: boolean;
  /**
   * Which `untrusted` project servers (marked by `loadConfig`) may start anyway: `'ask'` (default)
   * — none, the config's decision stands; `'all'` — every one; a list of project directories.
   * An untrusted server is never spawned: it stays in state `untrusted`.
   */
  trust?: TrustOption;
  /**
   * OAuth for HTTP servers (basic/authorization): the token store (default `mcp-auth.json` in the
   * config dir), the browser opener `login()` uses, DCR metadata. Every HTTP connection sends the
   * stored token and refreshes it transparently; `false` turns OAuth off.
   */
  auth?: HostAuthOptions | false;
  random?: () => number;
  now?: () => number;
}

/** One server in the status view (seed §5.4). */
export interface ServerStatus {
  id: string;
  transport: TransportKind | 'unknown';
  source: ConfigSource;
  file: string;
  enabled: boolean;
  state: ServerState;
  /** Tools currently exposed from this server. */
  tools: number;
  lastError?: string;
  /** Epoch ms of the last successful connection. */
  lastConnectedAt?: number;
  retries: number;
  nextRetryAt?: number;
  serverInfo?: { name: string; version: string; title?: string };
  transportKind?: string;
  /** The server's instructions (untrusted: sanitized, capped). */
  instructions?: string;
}

/** The supervisor (see the module comment). */
export class McpHost extends EventEmitter {
  private readonly slots = new Map<string, ServerSlot>();
  private current: ToolCatalog = { tools: [], byName: new Map(), diagnostics: [] };
  private toolsKey = '';
  private readonly reported = new Set<string>();
  private closed = false;
  private readonly tokens: TokenStore | undefined;

  constructor(
    servers: readonly ResolvedServer[],
    private readonly options: HostOptions = {},
  ) {
    super();
    this.tokens = options.auth === false ? undefined : authStore(options.auth);
    for (const server of trusted(servers, options.trust)) {
      if (this.slots.has(server.id)) throw new ConfigError(`server id "${server.id}" given twice`, { serverId: server.id });
      const given = typeof options.clientOptions === 'function' ? options.clientOptions(server) : (options.clientOptions ?? {});
      // A host keeps connections for long: detect a silent server (basic.utilities.ping#2).
      const co: ClientOptions = { pingIntervalMs: 30_000, ...given, ...(options.closeOnExit !== undefined ? { closeOnExit: options.closeOnExit } : {}) };
      // client/roots: the directories the config authorizes for this server (unless the embedder gives roots).
      if (co.roots === undefined && server.config.roots !== undefined) co.roots = authorizedDirectoryRoots(server.config.roots);
      const slot = new ServerSlot(server, {
        connect: this.withAuth(server, options.connect ?? connectClient),
        clientOptions: co,
        backoff: options.backoff ?? {},
        random: options.random ?? Math.random,
        now: options.now ?? Date.now,
        onChange: (s) => this.slotChanged(s),
        onListChanged: (s, kind) => this.emit('listChanged', { server: s.server.id, kind }),
        onDiagnostic: (s, message) => this.emit('diagnostic', { server: s.server.id, message }),
      });
      this.slots.set(server.id, slot);
    }
  }

  /** Connects every enabled server; resolves when each has finished its first attempt. */
  async start(): Promise<void> {
    await Promise.all([...this.slots.values()].map((s) => s.start()));
  }

  /** Every configured server's status, sorted by id. */
  status(): ServerStatus[] {
    return [...this.slots.values()].map((s) => this.statusOf(s)).sort((a, b) => (a.id < b.id ? -1 : 1));
  }

  /** One server's status (`/mcp <server-id>`). */
  serverStatus(id: string): ServerStatus | undefined {
    const slot = this.slots.get(id);
    return slot && this.statusOf(slot);
  }

  /** The current catalog: adapted tools of every ready server, reverse lookup, diagnostics. */
  get catalog(): ToolCatalog {
    return this.current;
  }

  /** Adapted MCP tools of every ready server. */
  tools(): AdaptedTool[] {
    return [...this.current.tools];
  }

  /** What to give the agent: the adapted tools plus the host tools the ready servers support. */
  toolDefinitions(): (AdaptedTool | HostToolDefinition)[] {
    const ready = [...this.slots.values()].filter((s) => s.state === 'ready' && s.client);
    const has = (f: 'resources' | 'prompts') => this.options.hostTools !== false && ready.some((s) => s.client!.serverCapabilities?.[f] !== undefined);
    const host = hostToolDefinitions().filter((d) =>
      d.name === HOST_TOOL_NAMES.resourcesList || d.name === HOST_TOOL_NAMES.resourceRead ? has('resources') : has('prompts'),
    );
    return [...this.current.tools, ...host];
  }

  /** Runs an agent tool call by public name; failures come back as tool error results. */
  callTool(name: string, args: unknown, options: AgentCallOptions = {}): Promise<ToolResultForAgent> {
    if (this.closed) return Promise.resolve({ content: [{ type: 'text', text: 'the MCP host is closed' }], isError: true });
    return executeToolCall({ catalog: this.current, slots: this.slots, permission: this.options.permission, bound: this.options.bound ?? {} }, name, args, options);
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
    if (slot.state !== 'disabled' && slot.state !== 'untrusted' && !this.closed) await slot.restart();
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

  /** Closes every connection and stops all retries. Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.slots.values()].map((s) => s.close()));
  }

  private slotChanged(slot: ServerSlot): void {
    this.rebuildCatalog();
    this.emit('status', this.statusOf(slot));
  }

  private rebuildCatalog(): void {
    const ready = [...this.slots.values()].filter((s) => s.state === 'ready');
    this.current = adaptTools(ready.map((s) => ({ server: s.server.id, tools: s.tools })), this.options.adapt);
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

  private statusOf(s: ServerSlot): ServerStatus {
    const out: ServerStatus = {
      id: s.server.id,
      transport: s.server.transport,
      source: s.server.source,
      file: s.server.file,
      enabled: s.server.enabled,
      state: s.state,
      tools: this.current.tools.filter((t) => t.server === s.server.id).length,
      retries: s.retries,
    };
    if (s.lastError !== undefined) out.lastError = s.lastError;
    if (s.lastConnectedAt !== undefined) out.lastConnectedAt = s.lastConnectedAt;
    if (s.nextRetryAt !== undefined) out.nextRetryAt = s.nextRetryAt;
    const info = s.client?.serverInfo;
    if (info) out.serverInfo = { name: sanitizeText(info.name, 100, true), version: sanitizeText(info.version, 50, true), ...(info.title ? { title: sanitizeText(info.title, 100, true) } : {}) };
    if (s.client?.transportKind) out.transportKind = s.client.transportKind;
    if (s.client?.instructions) out.instructions = sanitizeText(s.client.instructions, 2000);
    return out;
  }
}

/** The servers with the `untrusted` mark removed where `trust` allows them. */
function trusted(servers: readonly ResolvedServer[], trust: TrustOption = 'ask'): readonly ResolvedServer[] {
  if (trust === 'ask') return servers;
  const real = (d: string): string => {
    try {
      return realpathSync(path.resolve(d));
    } catch {
      return path.resolve(d);
    }
  };
  const dirs = trust === 'all' ? undefined : new Set(trust.map(real));
  return servers.map((s) => {
    if (s.untrusted === undefined || (dirs !== undefined && !dirs.has(s.untrusted.project))) return s;
    const { untrusted: _, ...rest } = s;
    return rest;
  });
}

/** Builds a host from a loaded config (or a list of resolved servers). Call `start()` next. */
export function createHost(config: ConfigLoadResult | readonly ResolvedServer[], options: HostOptions = {}): McpHost {
  const servers = Array.isArray(config) ? (config as readonly ResolvedServer[]) : (config as ConfigLoadResult).servers;
  return new McpHost(servers, options);
}
