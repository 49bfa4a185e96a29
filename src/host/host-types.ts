/**
 * The host's public shapes: the options of `createHost`, a server's status row, and the
 * payloads of the host's events (`diagnostic`, `notification`, `stateChange`).
 */
import type { TokenStore } from '../auth/types.js';
import type { ClientOptions } from '../mcp/client.js';
import type { ServerCapabilities } from '../mcp/types.js';
import type { BackoffOptions } from './backoff.js';
import type { TrustOption } from './config/trust.js';
import type { ConfigSource, ResolvedServer, RetrySettings, TransportKind } from './config/types.js';
import type { HostAuthOptions } from './oauth.js';
import type { PermissionHook } from './permissions.js';
import type { ResultStoreOptions } from './result-pages.js';
import type { SandboxStatus } from './sandbox-note.js';
import type { ConnectFn, ServerState } from './server-slot.js';
import type { BoundOptions } from './tool-result.js';
import type { AdaptOptions } from './tools.js';
import type { EraMemory } from './era-memory.js';

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
  /**
   * Tool calls in flight at once across every server; more wait in a FIFO queue, their wait
   * counted against their timeout like a server's `max_parallel` (default: the config's
   * `mcp.max_parallel`, else no limit).
   */
  maxParallel?: number;
  /** The retry policy of servers whose config has no `retry` (default: no retries; `retry.ts`). */
  retry?: Partial<RetrySettings>;
  /** Where cut results are kept for `mcp_result_read` (default 16 MiB, 64 results, 10 min). */
  results?: ResultStoreOptions;
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
  /**
   * Where the era verdicts of stdio servers outlive this host (`era-memory.ts`; the CLI gives
   * `eras.json` in the config dir). Default: none, the verdict lives as long as the host — except
   * on a Redis store (`auth.storeSetting`, `MCPWIRE_STORE`), where verdicts are kept in the store
   * for every host on it (era-shared.ts), this memory (an `EraFile`) the fallback while Redis is
   * away. `false`: none at all, not even in the store.
   */
  eraMemory?: EraMemory | false;
  /** The entry's fingerprint under which a shared store keeps verdicts when `eraMemory` brings none (default `entryPrint`). */
  eraPrint?: (server: ResolvedServer) => string;
  random?: () => number;
  now?: () => number;
}

/** One server in the status view. */
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
  /** `stdio`, `streamable-http` or `legacy-sse` (after a fallback), while connected. */
  transportKind?: string;
  /** The stdio server's process id, while connected. */
  pid?: number;
  /** The negotiated protocol version, while connected. */
  protocolVersion?: string;
  /** `modern` (2026-07-28: stateless, server/discover) or `handshake` (initialize), while connected. */
  era?: string;
  /** The negotiated server capabilities in one line, e.g. `logging tools resources(subscribe) prompts`. */
  capabilities?: string;
  /** Listed tools the host does not offer (`unavailableTools()` says why), when there are any. */
  toolsUnavailable?: number;
  /**
   * The server's instructions (untrusted: sanitized). In `status()` the first line, at most 60
   * characters (`…` when cut) so `console.table(host.status())` stays readable; in
   * `serverStatus(id)` and `status({ detail: true })` the whole text, capped at 2000 characters.
   */
  instructions?: string;
  /** Only in the detail view: the negotiated capabilities object (untrusted, as the server sent it). */
  serverCapabilities?: ServerCapabilities;
  /** Present when the server runs sandboxed: its grants and what the sandbox refused (`sandbox-note.ts`). */
  sandbox?: SandboxStatus;
}

/** Options of `status()`. */
export interface StatusOptions {
  /** Full instructions and the capabilities object (default false: the table view). */
  detail?: boolean;
}

/** A `diagnostic` event. `method` is set when a server asked for a client feature the host does not handle. */
export interface HostDiagnostic {
  server?: string;
  message: string;
  method?: string;
}

/**
 * A `notification` event: a server's notification that no tool call's listener received (sent
 * while no call ran, or while several did and nothing tied it to one of them; rules in
 * `call-notifications.ts`). `params` as the server sent them, its credentials taken out.
 */
export interface HostNotification {
  server: string;
  method: string;
  params: Record<string, unknown> | undefined;
}

/** A `stateChange` event. */
export interface HostStateChange {
  server: string;
  from: ServerState | undefined;
  to: ServerState;
  status: ServerStatus;
}
