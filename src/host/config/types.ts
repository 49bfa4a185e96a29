/**
 * Types shared by the host configuration modules: where a server entry came from, its
 * normalized shape, and the diagnostics the loader reports instead of throwing.
 */

import type { SandboxSettings } from './sandbox.js';

/** The two transports a configured server can use. */
export type TransportKind = 'stdio' | 'http';

/** A native config layer: the user's global file or the project's `.mcpwire/config.json`. */
export type Scope = 'project' | 'global';

/** Where a resolved entry came from: a native layer or an imported file (`import:<path>`). */
export type ConfigSource = Scope | `import:${string}`;

/** OAuth endpoints and client credentials for an HTTP server (camelCase of the native keys). */
export interface OAuthSettings {
  authorizationUrl?: string;
  tokenUrl?: string;
  registrationUrl?: string;
  clientId?: string;
  clientSecret?: string;
  scope?: string;
  /** Log in on `auth_required` through the host's hooks (overrides the host's `auth.autoLogin`). */
  autoLogin?: boolean;
  /** DPoP-bound tokens (RFC 9449): true always, false never; default when the server asks for them. */
  dpop?: boolean;
  /** Workload identity (jwt-bearer grant): the platform's JWT, read on each use from a file… */
  assertionFile?: string;
  /** …an environment variable… */
  assertionEnv?: string;
  /** …or a command's output (argv, no shell). */
  assertionCommand?: string[];
  /** Enterprise-managed authorization: the user's ID token buys an ID-JAG at the enterprise IdP. */
  enterprise?: EnterpriseAuthSettings;
}

/**
 * Enterprise-managed authorization (`oauth.enterprise`): token exchange at the IdP for an ID-JAG,
 * redeemed with the jwt-bearer grant. The ID token comes from exactly one of file, env, command.
 */
export interface EnterpriseAuthSettings {
  /** The IdP's token endpoint (https, or http on loopback). */
  idpTokenUrl: string;
  /** The client's id at the IdP… */
  clientId: string;
  /** …and its secret there, when it is a confidential client. */
  clientSecret?: string;
  /** The user's ID token, read on each use from a file (relative: to the config file)… */
  idTokenFile?: string;
  /** …an environment variable… */
  idTokenEnv?: string;
  /** …or a command's output (argv, no shell). */
  idTokenCommand?: string[];
}

/** Tool-level allow/deny lists for the permission hook (tool names as the server reports them). */
export interface PermissionSettings {
  allow: string[];
  deny: string[];
}

/** `from_registry` of an entry: the registry, server name and version it was built from, the kind chosen. */
export interface RegistryProvenance {
  registry: string;
  name: string;
  version: string;
  package: string;
  /** Non-secret values the user gave (an update gives them again). */
  inputs?: Record<string, string[]>;
}

/** A server entry after validation, with defaults filled in and keys in camelCase. */
export interface NormalizedServerConfig {
  command?: string;
  args: string[];
  cwd?: string;
  env: Record<string, string>;
  url?: string;
  headers: Record<string, string>;
  /** Env and header names whose values are secrets whatever they look like (`secret_names`; src/trace/configured-secrets.ts). */
  secretNames?: string[];
  /** Where the entry came from when `mcp add --from-registry` wrote it (`from_registry`). */
  fromRegistry?: RegistryProvenance;
  requestTimeoutMs: number;
  oauth?: OAuthSettings;
  /** The 2024-11-05 HTTP+SSE transport (imported `type: "sse"`). */
  legacySse: boolean;
  permissions: PermissionSettings;
  /** client/roots: absolute directories the user authorized this server to see. */
  roots?: string[];
  /** Tool calls in flight to this server at once; more wait in a queue (default: no limit). */
  maxParallel?: number;
  /** Retry policy of this server's tool calls (default: no retries). */
  retry?: RetrySettings;
  /** Default of a call's `resetTimeoutOnProgress` (default false). */
  resetTimeoutOnProgress?: boolean;
  /** Default ceiling of a whole call, queue, retries and reconnect waits included (default 10 × requestTimeoutMs). */
  maxTotalTimeoutMs?: number;
  /** Check a call's arguments against the tool's inputSchema before sending (default true). */
  validateInput?: boolean;
  /** `trust_annotations` (server.tools#6): the user trusts this server's tool annotations, so the host's retry may rely on its `idempotentHint`/`readOnlyHint` (default: untrusted claims). */
  trustAnnotations?: boolean;
  /** `keep_alive`: `mcpwire daemon start` holds only the servers marked so, when any is. */
  keepAlive?: boolean;
  /** `protocol_version`: pins the version and its era (no probe); default: found per server. */
  protocolVersion?: string;
  /** `sandbox`: the server runs sandboxed with these grants (./sandbox.ts); absent: unsandboxed. */
  sandbox?: SandboxSettings;
}

/** When and how often a failed tool call is sent again (`src/host/retry.ts`). */
export interface RetrySettings {
  /** Retries after the first attempt (default 0). */
  maxRetries: number;
  /** Delay before the first retry, then × `multiplier` each time, ±20 % jitter (default 200 ms). */
  baseDelayMs: number;
  /** Cap of the un-jittered delay (default 5000 ms). */
  maxDelayMs: number;
  /** Growth of the delay per retry (default 2). */
  multiplier?: number;
  /**
   * Which failures retry: outcomes (`timeout`, `transport`, `unavailable`, `rpc_error`,
   * `tool_error`, `protocol_error`), result codes (`MCPWIRE_CONNECTION_CLOSED`…) or JSON-RPC
   * error codes (-32603…). Default: `DEFAULT_RETRY_ON`.
   */
  retryOn?: readonly (string | number)[];
  /** Also retry tools without `idempotentHint`/`readOnlyHint` (default false). */
  retryNonIdempotent: boolean;
}

/** Settings of the whole host a config file may hold (`mcp.max_parallel`, `mcp.secret_names`). */
export interface HostSettings {
  /** Tool calls in flight at once across every server; more wait in a queue (default: no limit). */
  maxParallel?: number;
  /**
   * Env and header names whose values are secrets in every server's entry, whatever they look
   * like (`mcp.secret_names`; added to each entry's own `secret_names` when the config is loaded).
   */
  secretNames?: string[];
  /** `mcp.serve_names`: how `mcpwire serve` names the servers' tools and prompts (`as-is`, `prefixed`, `host`). */
  serveNames?: 'as-is' | 'prefixed' | 'host';
  /** `mcp.registry` (global config only): the MCP registry's URL when no `--registry`/`MCPWIRE_REGISTRY` says. */
  registry?: string;
  /**
   * `mcp.store`: where shared state lives (`file`, `memory`, `redis://…`, `rediss://…`; src/store),
   * `${VAR}` expanded. Carries the Redis password: never printed as is (`shownUrl`).
   * Read from the user's own layers only: a project's file cannot choose where tokens go.
   */
  store?: string;
}

/** One server as the host sees it after all layers are merged. */
export interface ResolvedServer {
  id: string;
  source: ConfigSource;
  /** The file the winning entry was read from. */
  file: string;
  /** False when disabled by config (`enabled: false`) or because the entry is invalid. */
  enabled: boolean;
  /** `unknown` only for an invalid entry whose transport could not be determined. */
  transport: TransportKind | 'unknown';
  config: NormalizedServerConfig;
  /** Why the entry is unusable (names the field, never a value). Absent when valid. */
  error?: string;
  /**
   * The project's real path when the entry comes from a project-level file (the project's
   * `.mcpwire/config.json`, `.mcp.json`, `.cursor/mcp.json`, `.vscode/mcp.json`); absent for the
   * user's own files (global config, `~/.cursor/mcp.json`, Claude Desktop) and `--config` files.
   */
  project?: string;
  /**
   * Set when the entry is project-level and the trust decision (`loadConfig`'s `trust` option)
   * did not allow it: the host never starts it (state `untrusted`) and `toConnectConfig`
   * refuses it. `changed`: an entry with this id (in this file) was trusted, but not as it is now.
   */
  untrusted?: { project: string; changed: boolean };
  /**
   * The native entry as written, when it holds `${…}` references (`config` has them resolved).
   * Trust fingerprints hash this: the repository chose the text, the values are the user's.
   */
  written?: unknown;
}

/** Something the loader noticed. Messages name layer, file, server id and field, never values. */
export interface ConfigDiagnostic {
  severity: 'error' | 'warning';
  source: ConfigSource;
  file: string;
  serverId?: string;
  /** Dotted path inside the server entry (e.g. `oauth.token_url`), when one field is at fault. */
  field?: string;
  message: string;
}

/** What `loadConfig` returns: every configured server (valid or not) and every diagnostic. */
export interface ConfigLoadResult {
  servers: ResolvedServer[];
  diagnostics: ConfigDiagnostic[];
  /** Host-wide settings, from the highest layer that sets each (absent when none does). */
  host?: HostSettings;
}

/** Default per-request timeout when an entry sets none (30 s). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** Default delay before a tool call's first retry (`retry.base_delay_ms`). */
export const DEFAULT_RETRY_BASE_DELAY_MS = 200;
/** Default cap of a tool call's retry delay (`retry.max_delay_ms`). */
export const DEFAULT_RETRY_MAX_DELAY_MS = 5000;
/** Default growth of a tool call's retry delay (`retry.multiplier`). */
export const DEFAULT_RETRY_MULTIPLIER = 2;
/** Default of `retry.retry_on`: the transient outcomes. */
export const DEFAULT_RETRY_ON: readonly string[] = Object.freeze(['transport', 'timeout', 'unavailable']);
/** Outcomes `retry.retry_on` may name (what no retry can change is left out). */
export const RETRYABLE_OUTCOMES: readonly string[] = Object.freeze(['transport', 'timeout', 'unavailable', 'rpc_error', 'tool_error', 'protocol_error']);

/** Server ids: 1–64 characters of `[a-zA-Z0-9_-]`. */
export const SERVER_ID_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/** True when `id` is a valid server id. */
export function isValidServerId(id: string): boolean {
  return SERVER_ID_PATTERN.test(id);
}

/** A fresh normalized config with every default (used for invalid entries too). */
export function emptyNormalizedConfig(): NormalizedServerConfig {
  return {
    args: [],
    env: {},
    headers: {},
    requestTimeoutMs: DEFAULT_REQUEST_TIMEOUT_MS,
    legacySse: false,
    permissions: { allow: [], deny: [] },
  };
}
