/**
 * OAuth for configured HTTP servers: the glue between a `ResolvedServer` (its `oauth` config
 * fields), the persistent token store (`mcp-auth.json`, src/auth/file-store.ts) and the OAuth
 * provider of src/auth/. Used by the host (`host.login`, tokens on every connection) and the CLI
 * (`login`, `logout`, `auth status`, and `call`/`read`/`prompt` on a protected server).
 *
 * - A connection's provider is non-interactive: it sends the stored token, refreshes it
 *   (single-flight across processes through the store's lock), and when only a new
 *   authorization would help it lets the 401 through, so the server shows `auth_required` —
 *   unless the server publishes no OAuth metadata at all: then nobody could log in, and the 401
 *   is a connection error saying so. With `autoLogin` it runs the login itself (after the
 *   host's `confirmLogin`, through its `openBrowser`) and replays the refused request.
 * - `loginServer` runs the authorization code flow with a one-shot loopback redirect receiver
 *   (src/auth/loopback.ts); the embedding host opens the browser (`openBrowser` callback) and may
 *   also accept a pasted redirect (`paste`), whichever comes first.
 * - `logoutServer` revokes at the AS when it advertises `revocation_endpoint` (RFC 7009), then
 *   deletes the entry.
 * - The stdio transport never uses OAuth (basic.authorization#2).
 */
import { openTokenStore, type TokenStoreWithHealth } from '../store/open.js';
import type { StoreHealth } from '../store/redis-connection.js';
import { storeSettingFrom } from '../store/setting.js';
import { parseBearerChallenge } from '../auth/challenge.js';
import { discover } from '../auth/discovery.js';
import { AuthError, isAuthError } from '../auth/errors.js';
import { createOAuthProvider, revokeGrant } from '../auth/deferred.js'; // provider.ts and revoke.ts load when an OAuth flow runs
import type { RevocationOutcome } from '../auth/revoke.js';
import { unionScopes } from '../auth/scope.js';
import { jwkThumbprint } from '../auth/thumbprint.js';
import { idJagAssertion } from '../auth/id-jag.js';
import { readJwt, workloadAssertion, type WorkloadAssertionSource } from '../auth/workload.js';
import type { AuthCallOptions, AuthorizationInteraction, GrantKindName, OAuthClientProvider, OAuthProviderOptions, StoredGrant, TokenStore, UnauthorizedInfo } from '../auth/types.js';
import { Serial } from '../util/serial.js';
import { oauthOffer } from './oauth-offer.js';
import { ConfigError } from '../errors.js';
import { userConfigDir, type PathOptions } from './config/paths.js';
import type { ResolvedServer } from './config/types.js';
import path from 'node:path';
import { closeAtEnd } from '../util/at-end.js';

/**
 * The token store file: `MCPWIRE_AUTH_FILE` when set, else `mcpwire/mcp-auth.json` in the
 * platform config dir (beside the global `config.json`).
 */
export function authStorePath(o: PathOptions = {}): string {
  const env = o.env ?? process.env;
  const p = (o.platform ?? process.platform) === 'win32' ? path.win32 : path.posix;
  if (env.MCPWIRE_AUTH_FILE) return p.resolve(o.cwd ?? process.cwd(), env.MCPWIRE_AUTH_FILE);
  return p.join(userConfigDir(o), 'mcpwire', 'mcp-auth.json');
}

/** OAuth settings of a host (`HostOptions.auth`) and of the CLI. */
export interface HostAuthOptions {
  /** Where grants live (default: what `storeSetting` names, else the `mcp-auth.json` file store at `authStorePath()`). */
  store?: TokenStore;
  /** The `store` setting when `MCPWIRE_STORE` is unset: `file` (default), `memory`, `redis://…`, `rediss://…`. */
  storeSetting?: string;
  /** Opens the authorization URL for the user (the embedding host's browser opener). */
  openBrowser?: (url: URL) => unknown;
  /** How long a login waits for the browser to come back (default 300 000 ms). */
  loginTimeoutMs?: number;
  /** Extra client metadata for Dynamic Client Registration. */
  clientMetadata?: Record<string, unknown>;
  /** HTTP for the authorization server and metadata calls (default: global fetch). */
  fetch?: typeof fetch;
  /** Refresh this long before expiry (default 60 000 ms). */
  refreshSkewMs?: number;
  /**
   * Log in when a server needs it (`auth_required`) instead of waiting for `login()`: the
   * authorization code flow runs through `openBrowser` (required) after `confirmLogin` said yes
   * (when given), and the refused request is replayed. A server's config `oauth.auto_login`
   * overrides this. Default false.
   */
  autoLogin?: boolean;
  /** Asked before an automatic login; false (or a rejection) leaves the server `auth_required`. */
  confirmLogin?: (info: { serverId: string; url: string }) => boolean | Promise<boolean>;
}

/** Shared stores already opened, by URL: one Redis connection per process and store. */
const opened = new Map<string, TokenStoreWithHealth>();

/**
 * The store of `auth`; else the one the `store` setting names (`MCPWIRE_STORE`, then
 * `auth.storeSetting`): the `mcp-auth.json` file store by default, memory, or Redis.
 */
export function authStore(auth: HostAuthOptions = {}): TokenStore {
  if (auth.store !== undefined) return auth.store;
  const setting = storeSettingFrom(process.env, auth.storeSetting);
  if (setting.kind !== 'redis') return openTokenStore(setting, { file: authStorePath() });
  let s = opened.get(setting.url);
  if (s === undefined) {
    const store = (s = openTokenStore(setting, { file: authStorePath() }));
    opened.set(setting.url, store);
    // a command-line process closes it when its command is done (src/util/at-end.ts)
    closeAtEnd(async () => {
      if (opened.get(setting.url) === store) opened.delete(setting.url);
      await store.close?.();
    });
  }
  return s;
}

/**
 * Closes every shared store `authStore` opened in this process (their Redis connections, which
 * would keep it alive). A program embedding hosts calls it once its hosts are closed.
 */
export async function closeSharedStores(): Promise<void> {
  const all = [...opened.values()];
  opened.clear();
  await Promise.all(all.map((s) => s.close?.().catch(() => undefined)));
}

/**
 * Where a token store keeps its grants, as status and `login` say it: the file's path, the Redis
 * URL with its password replaced, or `memory`. Never a secret.
 */
export function storePlace(store: TokenStore): string {
  const file = (store as { file?: unknown }).file;
  if (typeof file === 'string') return file;
  const h = storeHealth(store);
  return h?.url ?? h?.kind ?? 'a store of the embedding program';
}

/** What a token store says about itself (a store without `health` is taken as fine). */
export function storeHealth(store: TokenStore | undefined): StoreHealth | undefined {
  if (store === undefined) return undefined;
  const h = (store as Partial<TokenStoreWithHealth>).health;
  return typeof h === 'function' ? h.call(store) : undefined;
}

/** Whether OAuth applies to `server` (HTTP transport with a URL). */
export function usesOAuth(server: ResolvedServer): boolean {
  return server.transport === 'http' && server.config.url !== undefined;
}

/** The provider options for `server`: its URL, its id as store key, the config's client and scope. */
export function providerOptionsFor(server: ResolvedServer, auth: HostAuthOptions, store: TokenStore, onSecret?: (values: string[]) => void): OAuthProviderOptions {
  const url = server.config.url;
  if (!usesOAuth(server) || url === undefined) throw new ConfigError('OAuth applies only to HTTP servers', { serverId: server.id, phase: 'auth' });
  const o = server.config.oauth ?? {};
  return {
    serverUrl: url,
    serverKey: server.id,
    store,
    // RFC 8252: a native app with a loopback redirect.
    clientMetadata: { client_name: 'mcpwire', application_type: 'native', ...(auth.clientMetadata ?? {}) },
    ...(o.clientId !== undefined ? { clientId: o.clientId } : {}),
    ...(o.clientSecret !== undefined ? { clientSecret: o.clientSecret } : {}),
    ...(o.scope !== undefined ? { scope: o.scope } : {}),
    ...(endpoints(o) !== undefined ? { endpoints: endpoints(o)! } : {}),
    ...(auth.fetch !== undefined ? { fetch: auth.fetch } : {}),
    ...(auth.refreshSkewMs !== undefined ? { refreshSkewMs: auth.refreshSkewMs } : {}),
    ...(o.dpop !== undefined ? { dpop: o.dpop } : {}),
    ...workload(server, auth, onSecret),
  };
}

/**
 * An unattended grant from the config, read on each use (a relative file is taken from the
 * config file's directory): workload identity (`oauth.assertion_file` / `assertion_env` /
 * `assertion_command`, the platform's JWT is the jwt-bearer assertion) or enterprise-managed
 * authorization (`oauth.enterprise`: the user's ID token buys an ID-JAG at the IdP, which is the
 * assertion). `onSecret` learns the ID token, the IdP client secret and the ID-JAG for redaction.
 */
function workload(server: ResolvedServer, auth: HostAuthOptions = {}, onSecret?: (values: string[]) => void): Pick<OAuthProviderOptions, 'grantType' | 'assertion'> {
  const o = server.config.oauth ?? {};
  const e = o.enterprise;
  if (e !== undefined) {
    const idToken = jwtSource(server, e.idTokenFile, e.idTokenEnv, e.idTokenCommand)!;
    const assertion = idJagAssertion({
      idpTokenEndpoint: e.idpTokenUrl,
      idpClientId: e.clientId,
      ...(e.clientSecret !== undefined ? { idpClientSecret: e.clientSecret } : {}),
      idToken: () => readJwt(idToken, 'ID token'),
      ...(auth.fetch !== undefined ? { fetch: auth.fetch } : {}),
      ...(onSecret !== undefined ? { onSecret } : {}),
    });
    return { grantType: 'jwt-bearer', assertion };
  }
  const source = jwtSource(server, o.assertionFile, o.assertionEnv, o.assertionCommand);
  return source !== undefined ? { grantType: 'jwt-bearer', assertion: workloadAssertion(source) } : {};
}

/** The configured file (relative: to the config file), env var or command a JWT is read from. */
function jwtSource(server: ResolvedServer, file: string | undefined, env: string | undefined, command: string[] | undefined): WorkloadAssertionSource | undefined {
  if (file !== undefined) return { file: path.isAbsolute(file) ? file : path.resolve(path.dirname(server.file), file) };
  if (env !== undefined) return { env };
  if (command !== undefined) return { command };
  return undefined;
}

/** The config's explicit endpoints (`oauth.authorization_url`, `token_url`, `registration_url`). */
function endpoints(o: NonNullable<ResolvedServer['config']['oauth']>): OAuthProviderOptions['endpoints'] {
  const out: NonNullable<OAuthProviderOptions['endpoints']> = {};
  if (o.authorizationUrl !== undefined) out.authorization_endpoint = o.authorizationUrl;
  if (o.tokenUrl !== undefined) out.token_endpoint = o.tokenUrl;
  if (o.registrationUrl !== undefined) out.registration_endpoint = o.registrationUrl;
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * The auth provider of one connection to `server`: stored token, transparent refresh, and a
 * 401 that needs a new authorization surfaced as such (the connection fails with
 * AuthRequiredError → state `auth_required`) instead of an interaction nobody can answer —
 * or, with `autoLogin`, answered by a login through the host's hooks.
 */
export function connectionAuthProvider(server: ResolvedServer, auth: HostAuthOptions, store: TokenStore): OAuthClientProvider {
  const relay = secretRelay();
  const fresh = (): OAuthClientProvider => relay.follow(createOAuthProvider(providerOptionsFor(server, auth, store, relay.learned)));
  let p = fresh();
  const login = new Serial();
  // A grant the provider gets without anyone (workload identity, enterprise-managed): every refusal is its business.
  const unattended = providerOptionsFor(server, auth, store).grantType === 'jwt-bearer';
  const needsAuthorization = async (info: UnauthorizedInfo, attempt: number, o?: AuthCallOptions): Promise<boolean> => {
    if (info.status === 401 && !(await offersOAuth(server, auth, parseBearerChallenge(info.wwwAuthenticate)?.resource_metadata, o))) {
      throw new AuthError(
        'the server answered HTTP 401 but offers no OAuth discovery (no protected resource metadata, no authorization server metadata): nothing to log in to — configure a header or a pre-registered client (oauth.client_id with oauth.authorization_url / token_url)',
        'MCPWIRE_AUTH_NO_DISCOVERY',
        { serverId: server.id },
      );
    }
    if (attempt > 0 || !autoLoginOn(server, auth)) return false;
    return login.run(async () => {
      // Another refused request already logged in meanwhile: replay with that grant.
      const held = await store.get(server.id, o);
      const replaced = held !== undefined && info.sentAuthorization?.endsWith(` ${held.access_token}`) !== true;
      if (!replaced) {
        if (!(await confirmed(server, auth))) return false;
        // basic.authorization#16: the challenge's scope is what this request needs; a 403 step-up
        // asks for it beside the scope held (#64).
        const challenged = parseBearerChallenge(info.wwwAuthenticate)?.scope;
        const scope = info.status === 403 ? unionScopes(held?.scope, challenged) : challenged;
        await loginServer(server, auth, store, { onSecret: relay.learned, ...(scope !== undefined ? { scope } : {}), ...(o?.signal ? { signal: o.signal } : {}) });
      }
      // A fresh provider reads the stored grant for the replay.
      p = fresh();
      return true;
    });
  };
  const react = async (info: UnauthorizedInfo, attempt: number, o?: AuthCallOptions): Promise<boolean> => {
    // Without the user only a refresh, a DPoP nonce or an unattended grant can help: anything
    // else (no refreshable grant, a 403 step-up) goes to needsAuthorization, which registers no
    // client for nothing.
    const held = await p.status(o);
    const nonce = parseBearerChallenge(info.wwwAuthenticate)?.error === 'use_dpop_nonce';
    if (!unattended && !nonce && (info.status === 403 || !held.hasRefreshToken)) return needsAuthorization(info, attempt, o);
    try {
      // The provider refreshes when the challenge asks for no scope beyond the granted one.
      return await p.onUnauthorized(info, attempt, o);
    } catch (err) {
      if (isAuthError(err) && (err.code === 'MCPWIRE_AUTH_INTERACTION_REQUIRED' || err.code === 'MCPWIRE_AUTH_LOGGED_OUT')) return needsAuthorization(info, attempt, o);
      throw err;
    }
  };
  return {
    headers: (o) => p.headers(o),
    onUnauthorized: (info, attempt, o) => react(info, attempt, o).catch((err: unknown) => {
      // The call's error names the server (the provider knows only its store key).
      if (isAuthError(err) && err.serverId === undefined) {
        throw new AuthError(err.message.replace(/^\[[^\]]*\] /, ''), err.code, { cause: err.cause, serverId: server.id, ...(err.oauthError !== undefined ? { oauthError: err.oauthError } : {}) });
      }
      throw err;
    }),
    authorize: (o) => p.authorize(o),
    logout: (o) => p.logout(o),
    status: (o) => p.status(o),
    secrets: relay.secrets,
    onSecrets: relay.onSecrets,
  };
}

/** Secrets learned by any provider of one connection (a login replaces it) reach every listener. */
function secretRelay() {
  const known = new Set<string>();
  const listeners = new Set<(values: string[]) => void>();
  const learned = (values: string[]): void => {
    const news = values.filter((v) => !known.has(v));
    for (const v of news) known.add(v);
    if (news.length > 0) for (const l of listeners) l(news);
  };
  return {
    learned,
    follow(p: OAuthClientProvider): OAuthClientProvider {
      p.onSecrets(learned);
      learned(p.secrets());
      return p;
    },
    secrets: (): string[] => [...known],
    onSecrets(l: (values: string[]) => void): () => void {
      listeners.add(l);
      return () => listeners.delete(l);
    },
  };
}

/** Whether automatic login applies to `server`: its config's `oauth.auto_login`, else the host's, and a browser to open. */
function autoLoginOn(server: ResolvedServer, auth: HostAuthOptions): boolean {
  const on = server.config.oauth?.autoLogin ?? auth.autoLogin ?? false;
  return on && auth.openBrowser !== undefined;
}

async function confirmed(server: ResolvedServer, auth: HostAuthOptions): Promise<boolean> {
  if (auth.confirmLogin === undefined) return true;
  try {
    return (await auth.confirmLogin({ serverId: server.id, url: server.config.url ?? '' })) === true;
  } catch {
    return false;
  }
}

/**
 * Whether a login could work for `server`: it publishes protected resource metadata or
 * authorization server metadata, or the config names a client or endpoints. A discovery that
 * fails otherwise (a 5xx, a metadata error) counts as "yes": the login reports it.
 */
async function offersOAuth(server: ResolvedServer, auth: HostAuthOptions, resourceMetadata: string | undefined, o?: AuthCallOptions): Promise<boolean> {
  const c = server.config.oauth ?? {};
  if (c.clientId !== undefined || c.authorizationUrl !== undefined || c.tokenUrl !== undefined) return true;
  try {
    const d = await discover({ fetch: auth.fetch ?? fetch, timeoutMs: 30_000 }, server.config.url!, resourceMetadata, o?.signal);
    return d.via !== 'legacy-defaults';
  } catch {
    return true;
  }
}

/**
 * `{ authProvider }` for a one-off connection to `server` (CLI `call`, `read`, `prompt`): the
 * stored token with transparent refresh; `{}` for a stdio server.
 */
export function clientAuthOptions(server: ResolvedServer, auth: HostAuthOptions = {}): { authProvider?: OAuthClientProvider } {
  return usesOAuth(server) ? { authProvider: connectionAuthProvider(server, auth, authStore(auth)) } : {};
}

/** Options of `loginServer`. */
export interface LoginOptions {
  signal?: AbortSignal;
  /** Called with the authorization URL first (e.g. to print it). */
  onAuthorizationUrl?: (url: URL) => unknown;
  /** Opens the browser (default: `auth.openBrowser`); its failure never fails the login. */
  openBrowser?: (url: URL) => unknown;
  /** Resolves with a redirect the user pasted (headless); races the loopback receiver. */
  paste?: (info: { redirectUri: string; state: string | undefined }, signal: AbortSignal) => Promise<URL>;
  /** Replaces the loopback + browser interaction entirely (then `redirectUri` is required). */
  interaction?: AuthorizationInteraction;
  redirectUri?: string;
  /** A scope to ask for instead of the configured/discovered one. */
  scope?: string;
  /** Secret values learned (tokens, client secret, code, state…), for redaction. */
  onSecret?: (values: string[]) => void;
}

/** Runs the authorization code flow for `server` now and stores the grant. */
export async function loginServer(server: ResolvedServer, auth: HostAuthOptions, store: TokenStore, options: LoginOptions = {}): Promise<StoredGrant> {
  const base = providerOptionsFor(server, auth, store, options.onSecret);
  if (base.grantType === undefined || base.grantType === 'authorization_code') {
    // a server that advertises no OAuth needs no login: said so, rather than failing at registration
    const offer = await oauthOffer(server, { ...(auth.fetch ? { fetch: auth.fetch } : {}), ...(options.signal ? { signal: options.signal } : {}) });
    if (offer.kind === 'not-offered') throw new AuthError(`server "${server.id}" advertises no OAuth (${offer.detail}): it needs no login`, 'MCPWIRE_AUTH_NOT_OFFERED', { serverId: server.id });
  }
  const withSecrets = options.onSecret !== undefined ? { onSecret: options.onSecret } : {};
  const call = { ...(options.signal ? { signal: options.signal } : {}), ...(options.scope !== undefined ? { scope: options.scope } : {}) };
  if (options.interaction !== undefined) {
    if (options.redirectUri === undefined) throw new ConfigError('a custom login interaction needs its redirectUri', { serverId: server.id, phase: 'auth' });
    return createOAuthProvider({ ...base, ...withSecrets, redirectUri: options.redirectUri, interaction: options.interaction }).authorize(call);
  }
  const { startLoopbackReceiver } = await import('../auth/loopback.js'); // with node:http: only a login runs it
  const rx = await startLoopbackReceiver({ timeoutMs: auth.loginTimeoutMs ?? 300_000 });
  try {
    const interaction: AuthorizationInteraction = async (url, signal) => {
      const state = url.searchParams.get('state') ?? undefined;
      rx.expectState(state);
      await options.onAuthorizationUrl?.(url);
      const open = options.openBrowser ?? auth.openBrowser;
      if (open) await Promise.resolve().then(() => open(url)).catch(() => {});
      const ac = new AbortController();
      const both = AbortSignal.any([signal, ac.signal]);
      try {
        const waits = [rx.wait(both)];
        if (options.paste) waits.push(options.paste({ redirectUri: rx.redirectUri, state }, both));
        return await Promise.race(waits);
      } finally {
        ac.abort();
      }
    };
    return await createOAuthProvider({ ...base, ...withSecrets, redirectUri: rx.redirectUri, interaction }).authorize(call);
  } finally {
    await rx.close();
  }
}

/** What `logoutServer` did. */
export interface LogoutResult {
  /** False when nothing was stored for the server. */
  hadGrant: boolean;
  /** Present when there was a grant: the RFC 7009 outcome. */
  revocation?: RevocationOutcome;
}

/** Revokes the stored tokens at the AS (when it supports RFC 7009), then deletes the entry. */
export async function logoutServer(server: ResolvedServer, auth: HostAuthOptions, store: TokenStore, options: { signal?: AbortSignal } = {}): Promise<LogoutResult> {
  const grant = await store.get(server.id, options);
  if (grant === undefined) return { hadGrant: false };
  const url = server.config.url;
  const revocation =
    url !== undefined
      ? await revokeGrant(grant, { serverUrl: url, ...(auth.fetch ? { fetch: auth.fetch } : {}), ...(options.signal ? { signal: options.signal } : {}) })
      : { result: 'unsupported' as const, revoked: [] };
  await store.delete(server.id, options);
  return { hadGrant: true, revocation };
}

/** One server in `auth status` (no secret in it). */
export interface AuthStatusRow {
  id: string;
  /** `not_applicable` (stdio, or its own Authorization header), `none` (nothing stored), `valid`, `expired` (refreshable or not). */
  state: 'not_applicable' | 'none' | 'valid' | 'expired';
  scopes: string[];
  /** ISO time, or null. */
  expires_at: string | null;
  refreshable: boolean;
  /** `pre-registered` (client_id in config), `registered` (DCR or CIMD, stored), or null. */
  client: 'pre-registered' | 'registered' | null;
  issuer: string | null;
  /** How the grant was obtained (`StoredGrant.grant_kind`; for an older store, what the config asks for), or null. */
  grant: GrantKindName | null;
  /** `{ method: 'dpop', jkt }` for a DPoP-bound token (RFC 9449: the key's RFC 7638 thumbprint, never the key), else null. */
  sender_constrained: { method: 'dpop'; jkt: string } | null;
}

/** What a stored grant says about how it was obtained and what binds it (for `login` and `auth status`). */
export function grantFacts(server: ResolvedServer, g: StoredGrant): Pick<AuthStatusRow, 'grant' | 'sender_constrained'> {
  const jkt = g.token_type.toLowerCase() === 'dpop' ? jwkThumbprint(g.dpop_jwk) : undefined;
  return {
    grant: g.grant_kind ?? configuredGrant(server),
    sender_constrained: jkt !== undefined ? { method: 'dpop', jkt } : null,
  };
}

/** What the config asks for, for a grant stored before its kind was kept. */
function configuredGrant(server: ResolvedServer): GrantKindName {
  const w = workload(server);
  return w.assertion?.grantKind ?? w.grantType ?? 'authorization_code';
}

/** Whether the config gives `server` its own Authorization header (a static credential, not OAuth). */
export function hasStaticAuthorization(server: ResolvedServer): boolean {
  return Object.keys(server.config.headers ?? {}).some((h) => h.toLowerCase() === 'authorization');
}

/**
 * The auth state of each server from the store (nothing is sent anywhere). A server with its own
 * Authorization header and no stored grant is `not_applicable`: it does not log in with OAuth.
 */
export async function authStatusRows(servers: readonly ResolvedServer[], store: TokenStore, now = Date.now()): Promise<AuthStatusRow[]> {
  const rows: AuthStatusRow[] = [];
  for (const s of servers) {
    const preRegistered = s.config.oauth?.clientId !== undefined;
    const g = usesOAuth(s) ? await store.get(s.id) : undefined;
    if (!usesOAuth(s) || (g === undefined && hasStaticAuthorization(s))) {
      rows.push({ id: s.id, state: 'not_applicable', scopes: [], expires_at: null, refreshable: false, client: null, issuer: null, grant: null, sender_constrained: null });
      continue;
    }
    rows.push({
      id: s.id,
      state: g === undefined ? 'none' : g.expires_at !== undefined && g.expires_at <= now ? 'expired' : 'valid',
      scopes: g?.scope ? g.scope.split(' ').filter(Boolean) : [],
      expires_at: g?.expires_at !== undefined ? new Date(g.expires_at).toISOString() : null,
      refreshable: g?.refresh_token !== undefined,
      client: preRegistered ? 'pre-registered' : g?.client_id !== undefined ? 'registered' : null,
      issuer: g?.issuer ?? null,
      ...(g !== undefined ? grantFacts(s, g) : { grant: null, sender_constrained: null }),
    });
  }
  return rows;
}
