/**
 * The OAuth layer's public contracts (basic/authorization, MCP 2025-11-25). Everything else in
 * src/auth/ codes against these; other modules (the file token store, the loopback redirect
 * receiver, the CLI login/logout/status commands, host.login) do too. Changes here are
 * additive only.
 *
 * The transport asks the provider for headers before each HTTP request and reports a 401/403
 * (with the parsed challenge) through `onUnauthorized`; the provider decides whether the request
 * is worth replaying after it (re)authorized. See src/auth/provider.ts.
 */

/**
 * What is kept per server (the `servers.<key>` entry of mcp-auth.json). Times are epoch
 * milliseconds. Secrets: access_token, refresh_token, client_secret.
 */
export interface StoredGrant {
  access_token: string;
  /** Absent when the AS issued none; a rotated-out refresh token is never kept. */
  refresh_token?: string;
  /** When the access token expires (epoch ms); absent when the AS gave no `expires_in`. */
  expires_at?: number;
  /** As the AS gave it (`Bearer`, `DPoP`, …); sent as `Bearer` (basic.authorization: Bearer only). */
  token_type: string;
  /** The scope granted (space-separated), or the one requested when the AS did not say. */
  scope?: string;
  /** The client identity the grant was issued to (pre-registered, CIMD URL or DCR result). */
  client_id?: string;
  client_secret?: string;
  /** When a DCR client_secret expires (epoch ms; 0 or absent = never). */
  client_secret_expires_at?: number;
  /** How the client authenticates at the token endpoint (`client_secret_basic`, `…_post`, `none`, `private_key_jwt`). */
  token_endpoint_auth_method?: string;
  /** The authorization server's issuer identifier the grant came from. */
  issuer?: string;
  /** The canonical MCP server URI the token is bound to (RFC 8707 `resource`). */
  resource?: string;
  /** The redirect URI the client was registered with (a DCR registration is reused only with it). */
  redirect_uri?: string;
  /**
   * DPoP (RFC 9449): the private JWK (ES256) the token is bound to. A secret like the tokens;
   * a refresh keeps it. Absent for Bearer grants.
   */
  dpop_jwk?: Record<string, unknown>;
  /**
   * How the grant was obtained, for `auth status` (a refresh keeps it): `authorization_code`,
   * `client_credentials`, `jwt-bearer` (workload identity) or `id-jag` (enterprise-managed: the
   * jwt-bearer grant with an IdP's ID-JAG from a token exchange). Absent in older stores.
   */
  grant_kind?: GrantKindName;
}

/** See `StoredGrant.grant_kind`. */
export type GrantKindName = 'authorization_code' | 'client_credentials' | 'jwt-bearer' | 'id-jag';

/** Per-call options of the async APIs here: every call can be abandoned. */
export interface AuthCallOptions {
  signal?: AbortSignal;
}

/** Options of `headers()`: `refresh: false` gives the credential held now, with no round trip. */
export interface AuthHeadersOptions extends AuthCallOptions {
  refresh?: boolean;
  /** The request the headers are for (a DPoP proof names them: `htm`, `htu`); default POST to the server URL. */
  method?: string;
  url?: string;
}

/**
 * Where grants live, one entry per server key (the server's config id). Implementations:
 * `MemoryTokenStore` (src/auth/memory-store.ts) and the persistent file store (mcp-auth.json).
 */
export interface TokenStore {
  get(serverKey: string, options?: AuthCallOptions): Promise<StoredGrant | undefined>;
  set(serverKey: string, grant: StoredGrant, options?: AuthCallOptions): Promise<void>;
  delete(serverKey: string, options?: AuthCallOptions): Promise<void>;
  /**
   * Optional: runs `fn` holding a lock on `serverKey` that other processes sharing the store also
   * honour (the refresh is then single-flight across processes, not only within one). The
   * provider re-reads the grant inside the lock before refreshing.
   */
  withLock?<T>(serverKey: string, fn: () => Promise<T>, options?: AuthCallOptions): Promise<T>;
}

/**
 * The user-facing step of the authorization code flow: show/open `authorizationUrl`, wait for
 * the browser to come back to the redirect URI, and resolve with that full redirect URL (with
 * `code`, `state`, maybe `iss` or `error`). The provider validates it. Reject (or honour
 * `signal`) to give up.
 */
export type AuthorizationInteraction = (authorizationUrl: URL, signal: AbortSignal) => Promise<URL>;

/** A parsed `WWW-Authenticate: Bearer …` challenge (basic.authorization#… / RFC 6750 §3, RFC 9728 §5.1). */
export interface BearerChallenge {
  /** The scheme as sent, lower-cased (`bearer`). */
  scheme: string;
  resource_metadata?: string;
  scope?: string;
  error?: string;
  error_description?: string;
  realm?: string;
  /** Every parameter as sent (names lower-cased). */
  params: Record<string, string>;
}

/** What the transport reports when a request was refused. */
export interface UnauthorizedInfo {
  status: 401 | 403;
  /** The raw WWW-Authenticate header, if any. */
  wwwAuthenticate?: string;
  /** The Authorization header value the refused request carried, if any. */
  sentAuthorization?: string;
  /** The refusal's `DPoP-Nonce` header (RFC 9449 §9: the resource server wants proofs with it). */
  dpopNonce?: string;
  /** The refused request's URL (default: the server URL), for the nonce's origin. */
  url?: string;
}

/** Produces the RFC 7523 authorization grant assertion for the AS that will redeem it. */
export type AssertionSource = ((target: { issuer: string; resource: string; tokenEndpoint: string }, signal?: AbortSignal) => Promise<string>) & {
  /** `id-jag`: the assertion is an enterprise IdP's ID-JAG (`idJagAssertion`), recorded as the grant's kind. */
  grantKind?: 'id-jag';
};

/** Key material for `private_key_jwt` (RFC 7523) client authentication. */
export interface PrivateKeyJwtConfig {
  /** A PKCS#8 PEM, a private JWK (object) or a WebCrypto CryptoKey. */
  privateKey: string | Record<string, unknown> | import('node:crypto').webcrypto.CryptoKey;
  /** JWS algorithm, default `RS256` (or `ES256` for EC keys). */
  alg?: string;
  kid?: string;
}

export interface OAuthProviderOptions {
  /** The MCP server URL (the protected resource). */
  serverUrl: string | URL;
  /** The store key (the server's config id); default: the canonical server URI. */
  serverKey?: string;
  /** Default: a fresh in-memory store. */
  store?: TokenStore;
  /**
   * `authorization_code` (default, needs `redirectUri` + `interaction`), `client_credentials`, or
   * `jwt-bearer` (RFC 7523 §2.1: the token is bought with an `assertion`, e.g. an ID-JAG, SEP-990).
   */
  grantType?: 'authorization_code' | 'client_credentials' | 'jwt-bearer';
  /** `jwt-bearer`: supplies the assertion for this AS and resource (see `idJagAssertion`). */
  assertion?: AssertionSource;
  /** The redirect URI registered/used for the authorization code flow. */
  redirectUri?: string;
  interaction?: AuthorizationInteraction;
  /** Pre-registered client (first in the client identity order). */
  clientId?: string;
  clientSecret?: string;
  /** Force a token endpoint auth method (default: the best the AS supports for the credentials we have). */
  tokenEndpointAuthMethod?: 'client_secret_basic' | 'client_secret_post' | 'none' | 'private_key_jwt';
  privateKeyJwt?: PrivateKeyJwtConfig;
  /** Client ID Metadata Document URL (an https URL), used when the AS supports CIMD. */
  clientMetadataUrl?: string;
  /** Client metadata for Dynamic Client Registration (client_name etc.; redirect_uris is added). */
  clientMetadata?: Record<string, unknown>;
  /** Scope requested when neither the challenge nor the metadata names one. */
  scope?: string;
  /**
   * Endpoints that replace what discovery found (config `oauth.authorization_url`, `token_url`,
   * `registration_url`), for servers whose metadata is missing or wrong.
   */
  endpoints?: { authorization_endpoint?: string; token_endpoint?: string; registration_endpoint?: string };
  /** Refresh this long before `expires_at` (default 60 000 ms). */
  refreshSkewMs?: number;
  /**
   * DPoP (RFC 9449) sender-constrained tokens: `true` always, `false` never; default: when the
   * AS advertises `dpop_signing_alg_values_supported` with ES256 and the protected resource
   * metadata says `dpop_bound_access_tokens_required`.
   */
  dpop?: boolean;
  /** Step-up (403 insufficient_scope) re-authorizations per request, default 3 (basic.authorization step-up). */
  maxStepUpAttempts?: number;
  /** HTTP for discovery/registration/token requests (default: global fetch). */
  fetch?: typeof fetch;
  /** Per-request timeout for the AS/metadata calls (default 30 000 ms). */
  timeoutMs?: number;
  /** Called with every secret value the provider learns (tokens, client secrets, codes, verifiers, state). */
  onSecret?: (values: string[]) => void;
  /** Clock (epoch ms), for tests. */
  now?: () => number;
}

/** The state of one server's authorization (for `mcpwire auth status`). */
export interface AuthStatus {
  serverKey: string;
  authorized: boolean;
  expiresAt?: number;
  scope?: string;
  hasRefreshToken: boolean;
  issuer?: string;
  clientId?: string;
}

/**
 * The provider the HTTP transport calls (`authProvider` in TransportFactoryOptions). One per
 * server; refresh is single-flight within it (and across processes when the store has `withLock`).
 */
export interface OAuthClientProvider {
  /** `Authorization: Bearer …` when a grant is held (refreshing first when it is about to expire), else `{}`. */
  headers(options?: AuthHeadersOptions): Promise<Record<string, string>>;
  /**
   * The transport got 401/403: refresh or (re)authorize as the challenge asks. Resolves `true`
   * when the refused request should be replayed (once for 401), `false` to surface the error.
   * `attempt` counts the replays of this request so far (0 on the first refusal).
   */
  onUnauthorized(info: UnauthorizedInfo, attempt: number, options?: AuthCallOptions): Promise<boolean>;
  /** Runs the whole flow now (CLI `login`, host.login), whatever is stored. */
  authorize(options?: AuthCallOptions & { scope?: string }): Promise<StoredGrant>;
  /** Forgets the stored grant (CLI `logout`). */
  logout(options?: AuthCallOptions): Promise<void>;
  status(options?: AuthCallOptions): Promise<AuthStatus>;
  /** Secret values known so far (for a tracer created after the provider). */
  secrets(): string[];
  /** Registers a listener for secrets learned later; returns the unsubscribe function. */
  onSecrets(listener: (values: string[]) => void): () => void;
}

/** The entry point: `createOAuthProvider(options)` in src/auth/provider.ts. */
export type CreateOAuthProvider = (options: OAuthProviderOptions) => OAuthClientProvider;
