/**
 * `createOAuthProvider()`: the OAuthClientProvider the HTTP transport plugs in as `authProvider`.
 * It answers "a token for this resource" (`headers()`, refreshing shortly before expiry) and
 * reacts to refusals (`onUnauthorized`): a 401 refreshes or (re)authorizes and the request is
 * replayed once; a 403 `insufficient_scope` re-authorizes with the union of the scopes held and
 * challenged, at most `maxStepUpAttempts` times per request (basic.authorization#60-#66).
 *
 * Single-flight: one refresh/authorization at a time per provider (and across processes when the
 * store has `withLock`). Rotation: a refresh token the AS replaced is never sent again; a failed
 * refresh keeps the stored grant unless the AS said `invalid_grant`.
 */
import { parseBearerChallenge } from './challenge.js';
import { canonicalResource, discover, resourceMatches, type Discovery } from './discovery.js';
import { AuthError } from './errors.js';
import { chooseAuthMethod, JWT_BEARER_GRANT, registrationRequestBody, type ClientIdentity } from './client-auth.js';
import type { DpopSigner } from './dpop.js';
import type { FlowContext, GrantKind } from './flow.js';
import type { ClientIdentity as Client } from './client-auth.js';
import type { AuthHttp } from './http.js';
import { MemoryTokenStore } from './memory-store.js';
import { selectScope, splitScope, unionScopes } from './scope.js';
import type { AuthCallOptions, AuthHeadersOptions, AuthStatus, OAuthClientProvider, OAuthProviderOptions, StoredGrant, UnauthorizedInfo } from './types.js';
import { Serial } from '../util/serial.js';

/** The exchanges with the authorization server (oauth4webapi), loaded on first use: see client-auth.ts. */
let flowModule: Promise<typeof import('./flow.js')> | undefined;
const flow = (): Promise<typeof import('./flow.js')> => (flowModule ??= import('./flow.js'));
let dpopModule: Promise<typeof import('./dpop.js')> | undefined;
const dpop = (): Promise<typeof import('./dpop.js')> => (dpopModule ??= import('./dpop.js'));

const DEFAULT_SKEW_MS = 60_000;
const DEFAULT_TIMEOUT_MS = 30_000;

export function createOAuthProvider(options: OAuthProviderOptions): OAuthClientProvider {
  return new Provider(options);
}

class Provider implements OAuthClientProvider {
  private readonly o: OAuthProviderOptions;
  private readonly serverUrl: string;
  private readonly key: string;
  private readonly store;
  private readonly http: AuthHttp;
  private readonly known = new Set<string>();
  private readonly listeners = new Set<(values: string[]) => void>();
  private grant: StoredGrant | undefined;
  private loaded = false;
  private discovery: Discovery | undefined;
  private client: ClientIdentity | undefined;
  /** The issuer of the authorization server `client` belongs to. */
  private clientIssuer: string | undefined;
  private readonly flight = new Serial();
  /** The scope last asked for (step-up unions with it). */
  private requestedScope: string | undefined;
  /** The DPoP signer of the grant held (its key is the grant's `dpop_jwk`). */
  private signer: DpopSigner | undefined;
  /** Resource server nonces already tried. */
  private readonly rsNonces = new Set<string>();
  /** Access tokens a 401 reaction ended with (refreshed, authorized or found held): one refused again is not reacted to. */
  private readonly reactedWith = new Set<string>();

  constructor(options: OAuthProviderOptions) {
    this.o = options;
    this.serverUrl = new URL(options.serverUrl).href;
    this.key = options.serverKey ?? canonicalResource(options.serverUrl);
    this.store = options.store ?? new MemoryTokenStore();
    this.http = { fetch: options.fetch ?? fetch, timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS };
    this.secret([options.clientSecret]);
  }

  // ---- secrets ------------------------------------------------------------------------

  private secret(values: (string | undefined)[]): void {
    const fresh = values.filter((v): v is string => typeof v === 'string' && v !== '' && !this.known.has(v));
    if (fresh.length === 0) return;
    for (const v of fresh) this.known.add(v);
    this.o.onSecret?.(fresh);
    for (const l of this.listeners) l(fresh);
  }

  secrets(): string[] {
    return [...this.known];
  }

  onSecrets(listener: (values: string[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // ---- the transport's hooks -------------------------------------------------------------

  async headers(options?: AuthHeadersOptions): Promise<Record<string, string>> {
    // `refresh: false` (a session DELETE on close): the grant held now, no store read, no lock, no round trip.
    let g = options?.refresh === false ? this.grant : await this.current(options);
    // basic.authorization#56: once the server's authorization server is known, a grant another one issued is not sent.
    if (g !== undefined && this.foreign(g, this.discovery)) g = undefined;
    if (options?.refresh !== false && g !== undefined && this.expiring(g) && g.refresh_token !== undefined) {
      g = await this.single(() => this.refreshLocked(g!, options)).catch(() => this.grant);
    }
    return g !== undefined ? this.present(g, options) : {};
  }

  /**
   * basic.authorization#49: the token goes in the Authorization header — as Bearer, or for a
   * DPoP-bound token (RFC 9449 §7.1) with the DPoP scheme and a fresh proof naming the request.
   */
  private async present(g: StoredGrant, options?: AuthHeadersOptions): Promise<Record<string, string>> {
    const jwk = g.dpop_jwk;
    if (jwk === undefined || g.token_type.toLowerCase() !== 'dpop') return { authorization: `Bearer ${g.access_token}` };
    const signer = await this.signerFor(jwk);
    return { authorization: `DPoP ${g.access_token}`, dpop: await signer.proof(options?.method ?? 'POST', options?.url ?? this.serverUrl, g.access_token) };
  }

  private async signerFor(jwk: Record<string, unknown>): Promise<DpopSigner> {
    if (this.signer === undefined || this.signer.jwk.d !== jwk.d) this.signer = await (await dpop()).DpopSigner.fromJwk(jwk);
    return this.signer;
  }

  async onUnauthorized(info: UnauthorizedInfo, attempt: number, options?: AuthCallOptions): Promise<boolean> {
    return this.scrubbed(() => this.reactTo(info, attempt, options));
  }

  /** Errors leave the provider without any secret it knows in their message (an AS may echo one). */
  private async scrubbed<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof Error) {
        let msg = err.message;
        for (const s of this.known) if (s.length >= 6 && msg.includes(s)) msg = msg.split(s).join('[redacted]');
        if (msg !== err.message) err.message = msg;
      }
      throw err;
    }
  }

  private async reactTo(info: UnauthorizedInfo, attempt: number, options?: AuthCallOptions): Promise<boolean> {
    const ch = parseBearerChallenge(info.wwwAuthenticate);
    if (info.status === 401 && ch?.error === 'use_dpop_nonce') return this.takeNonce(info, attempt);
    if (info.status === 403) {
      // basic.authorization#60/#64: insufficient_scope → step-up with the union of scopes.
      if (ch?.error !== 'insufficient_scope') return false;
      if (attempt >= (this.o.maxStepUpAttempts ?? 3)) return false;
      const held = this.grant?.scope ?? this.requestedScope;
      await this.single(() => this.authorizeLocked({ challengeScope: unionScopes(held, ch.scope), resourceMetadata: ch.resource_metadata }, options));
      this.reacted();
      return true;
    }
    // The token the refused request carried (the transport says; none when it sent none).
    const refused = info.sentAuthorization !== undefined ? tokenOf(info.sentAuthorization) : undefined;
    // 401: react once per request (never loop). A replay that only took a DPoP nonce (RFC 9449
    // §9) did not react to the token: the token a reaction ended with being refused does.
    if (attempt > 0 && (refused === undefined || this.reactedWith.has(refused))) return false;
    await this.single(async () => {
      const sent = await this.current(options);
      // A token other than the refused one is held by now (a refresh or a login in between, or
      // the request went out before there was one): just replay with it.
      if (sent !== undefined && sent.access_token !== refused) return;
      // The challenge names the metadata: look again first, so that a server now naming another
      // authorization server is seen before its refresh token goes to the old one (#56).
      if (ch?.resource_metadata !== undefined && sent?.refresh_token !== undefined) await this.discoverOnce(ch.resource_metadata, options).catch(() => undefined);
      // A refresh keeps the granted scope: worth it only when the challenge asks for nothing more.
      const held = splitScope(sent?.scope);
      let refreshFailure: unknown;
      if (sent?.refresh_token !== undefined && splitScope(ch?.scope).every((s) => held.includes(s))) {
        const refreshed = await this.refreshLocked(sent, options).then(
          () => true,
          (e: unknown) => ((refreshFailure = e), false),
        );
        if (refreshed) return;
      }
      try {
        await this.authorizeLocked({ challengeScope: ch?.scope, resourceMetadata: ch?.resource_metadata }, options);
      } catch (err) {
        // Nobody to ask: the refresh's failure (an AS that is down, a 5xx…) is the story, not
        // "log in again" — unless the AS said the refresh token is dead.
        const dead = refreshFailure instanceof AuthError && (refreshFailure.oauthError === 'invalid_grant' || refreshFailure.code === 'MCPWIRE_AUTH_LOGGED_OUT');
        if (refreshFailure !== undefined && !dead && err instanceof AuthError && err.code === 'MCPWIRE_AUTH_INTERACTION_REQUIRED') {
          throw new AuthError(`the access token was refused and refreshing it failed: ${failureText(refreshFailure)}`, 'MCPWIRE_AUTH_REFRESH_FAILED', { cause: refreshFailure });
        }
        throw err;
      }
    });
    this.reacted();
    return true;
  }

  /** Notes the token a reaction (401 or step-up) ended with: refused again, it is not reacted to. */
  private reacted(): void {
    if (this.reactedWith.size >= 16) this.reactedWith.clear();
    if (this.grant !== undefined) this.reactedWith.add(this.grant.access_token);
  }

  /**
   * RFC 9449 §9: the resource server wants proofs with its nonce: remembered for its origin, and
   * the request replayed with a fresh proof carrying it — once per nonce (a server that refuses
   * its own nonce is not asked again).
   */
  private async takeNonce(info: UnauthorizedInfo, attempt: number): Promise<boolean> {
    const g = this.grant;
    if (info.dpopNonce === undefined || g?.dpop_jwk === undefined || attempt >= 2 || this.rsNonces.has(info.dpopNonce)) return false;
    this.rsNonces.add(info.dpopNonce);
    (await this.signerFor(g.dpop_jwk)).rememberNonce(info.url ?? this.serverUrl, info.dpopNonce);
    return true;
  }

  // ---- CLI / host entry points -------------------------------------------------------------

  async authorize(options?: AuthCallOptions & { scope?: string }): Promise<StoredGrant> {
    return this.scrubbed(() => this.single(() => this.authorizeLocked({ challengeScope: options?.scope }, options)));
  }

  async logout(options?: AuthCallOptions): Promise<void> {
    this.grant = undefined;
    this.client = undefined;
    this.loaded = true;
    await this.store.delete(this.key, options);
  }

  async status(options?: AuthCallOptions): Promise<AuthStatus> {
    const g = await this.current(options);
    return {
      serverKey: this.key,
      authorized: g !== undefined,
      hasRefreshToken: g?.refresh_token !== undefined,
      ...(g?.expires_at !== undefined ? { expiresAt: g.expires_at } : {}),
      ...(g?.scope !== undefined ? { scope: g.scope } : {}),
      ...(g?.issuer !== undefined ? { issuer: g.issuer } : {}),
      ...(g?.client_id !== undefined ? { clientId: g.client_id } : {}),
    };
  }

  // ---- internals ---------------------------------------------------------------------------

  private now(): number {
    return this.o.now?.() ?? Date.now();
  }

  private expiring(g: StoredGrant): boolean {
    return g.expires_at !== undefined && g.expires_at - (this.o.refreshSkewMs ?? DEFAULT_SKEW_MS) <= this.now();
  }

  private async current(options?: AuthCallOptions): Promise<StoredGrant | undefined> {
    if (!this.loaded) {
      const g = await this.store.get(this.key, options);
      this.loaded = true;
      // A grant for another resource (the config's URL changed) is not sent (basic.authorization#56).
      if (g !== undefined && (g.resource === undefined || this.resourceOk(g.resource))) {
        this.grant = g;
        this.secret([g.access_token, g.refresh_token, g.client_secret, keySecret(g)]);
      }
    }
    return this.grant;
  }

  /** A grant whose issuer is not the (discovered) authorization server of this MCP server. */
  private foreign(g: StoredGrant, d: Discovery | undefined): boolean {
    return d !== undefined && g.issuer !== undefined && g.issuer !== d.as.issuer;
  }

  private resourceOk(resource: string): boolean {
    return resourceMatches(resource, this.serverUrl);
  }

  /** One refresh/authorization at a time; later callers wait for it, then run theirs. */
  private single<T>(fn: () => Promise<T>): Promise<T> {
    return this.flight.run(fn);
  }

  private async locked<T>(fn: () => Promise<T>, options?: AuthCallOptions): Promise<T> {
    if (this.store.withLock === undefined) return fn();
    return this.store.withLock(this.key, fn, options);
  }

  private async save(g: StoredGrant, options?: AuthCallOptions): Promise<StoredGrant> {
    this.secret([g.access_token, g.refresh_token, g.client_secret, keySecret(g)]);
    try {
      await this.store.set(this.key, g, options);
    } catch (err) {
      // A shared store that refused the write (a lost lease: another worker holds a newer token)
      // or could not be reached: what could not be stored is not used. Other stores keep the
      // grant in memory as before.
      if (!notStored(err)) {
        this.grant = g;
        this.loaded = true;
      }
      throw err;
    }
    this.grant = g;
    this.loaded = true;
    return g;
  }

  private async discoverOnce(resourceMetadata: string | undefined, options?: AuthCallOptions): Promise<Discovery> {
    if (this.discovery === undefined || resourceMetadata !== undefined) {
      const d = await discover(this.http, this.serverUrl, resourceMetadata, options?.signal);
      this.discovery = this.o.endpoints !== undefined ? { ...d, as: { ...d.as, ...this.o.endpoints } } : d;
    }
    return this.discovery;
  }

  private ctx(d: Discovery): FlowContext {
    return {
      http: this.http,
      as: d.as,
      onSecret: (v) => this.secret(v),
      ...(this.o.privateKeyJwt !== undefined ? { privateKeyJwt: this.o.privateKeyJwt } : {}),
    };
  }

  /** Refreshes `sent` (inside the store lock, re-reading first: another process may have done it). */
  private async refreshLocked(sent: StoredGrant, options?: AuthCallOptions): Promise<StoredGrant> {
    return this.locked(async () => {
      const fresh = this.store.withLock !== undefined ? await this.store.get(this.key, options) : this.grant;
      if (fresh === undefined) {
        // The entry is gone: someone logged out (maybe another process). Nothing is refreshed or
        // written back, or the logout would be undone.
        this.grant = undefined;
        this.client = undefined;
        throw new AuthError('the grant was removed from the token store (logged out): not refreshed', 'MCPWIRE_AUTH_LOGGED_OUT');
      }
      if (fresh.access_token !== sent.access_token && !this.expiring(fresh)) return this.save(fresh, options);
      const g = fresh;
      if (g.refresh_token === undefined) throw new AuthError('no refresh token', 'MCPWIRE_AUTH_NO_REFRESH');
      const d = await this.discoverOnce(undefined, options);
      if (this.foreign(g, d)) {
        // The server now names another authorization server: the grant (its refresh token and
        // client) belongs to the old one and is never sent to the new one; authorize afresh.
        this.grant = undefined;
        this.client = undefined;
        await this.store.delete(this.key, options);
        throw new AuthError(`the stored grant was issued by ${g.issuer}, not by this server's authorization server ${d.as.issuer}`, 'MCPWIRE_AUTH_ISSUER_MISMATCH');
      }
      const client = this.clientFromGrant(g, d);
      const refreshToken = g.refresh_token;
      try {
        // A refresh keeps the grant's DPoP key: the new token is bound to the same one.
        const next = await this.tokenCall(d, client, 'refresh_token', g.dpop_jwk, (ctx, f) => f.refreshRequest(ctx, client, refreshToken, d.resource, options?.signal), { requestedScope: g.scope, previousRefreshToken: refreshToken });
        // The new token's lifetime is its own: without `expires_in` (only RECOMMENDED) it is
        // unknown (refreshed on a 401), never the old token's, which would make it look expired.
        const { expires_at: _old, ...kept } = g;
        return await this.save({ ...kept, ...next }, options);
      } catch (err) {
        // The AS said the refresh token is dead: forget it (it is never sent again).
        if (err instanceof AuthError && err.oauthError === 'invalid_grant') {
          const { refresh_token: _dead, ...rest } = g;
          await this.save(rest, options);
        }
        throw err;
      }
    }, options);
  }

  /**
   * One token endpoint exchange (`request` + validation). With a DPoP key the request carries a
   * proof, and an AS that answers `use_dpop_nonce` (RFC 9449 §8) gets the request once more with
   * its nonce; the key is stored with the grant.
   */
  private async tokenCall(
    d: Discovery,
    client: Client,
    kind: GrantKind,
    jwk: Record<string, unknown> | undefined,
    request: (ctx: FlowContext, f: typeof import('./flow.js')) => Promise<Response>,
    o: { requestedScope?: string; previousRefreshToken?: string },
  ): Promise<StoredGrant> {
    const f = await flow();
    const signer = jwk !== undefined ? await this.signerFor(jwk) : undefined;
    if (jwk !== undefined) this.secret([typeof jwk.d === 'string' ? jwk.d : undefined]);
    const ctx: FlowContext = { ...this.ctx(d), ...(signer !== undefined ? { dpop: signer.handle } : {}) };
    for (let attempt = 0; ; attempt++) {
      const res = await request(ctx, f);
      try {
        const g = await f.processTokenResponse(ctx, client, kind, res, { now: this.now(), resource: d.resource, ...o });
        return jwk !== undefined ? { ...g, dpop_jwk: jwk } : g;
      } catch (err) {
        if (attempt === 0 && signer !== undefined && err instanceof AuthError && err.oauthError === 'use_dpop_nonce') continue;
        throw err;
      }
    }
  }

  /** A DPoP key for a new grant when DPoP applies to this server (see `OAuthProviderOptions.dpop`), else none. */
  private async newKey(d: Discovery): Promise<Record<string, unknown> | undefined> {
    const algs = d.as.dpop_signing_alg_values_supported;
    const advertised = Array.isArray(algs) && algs.includes('ES256') && d.prm?.dpop_bound_access_tokens_required === true;
    if (!(this.o.dpop ?? advertised)) return undefined;
    return (await (await dpop()).newDpopJwk()) as Record<string, unknown>;
  }

  private clientFromGrant(g: StoredGrant, d: Discovery): ClientIdentity {
    if (this.client !== undefined && this.clientIssuer === d.as.issuer) return this.client;
    const id = this.o.clientId ?? g.client_id;
    if (id === undefined) throw new AuthError('the stored grant names no client', 'MCPWIRE_AUTH_NO_CLIENT');
    const secret = this.o.clientSecret ?? g.client_secret;
    return {
      client_id: id,
      ...(secret !== undefined ? { client_secret: secret } : {}),
      token_endpoint_auth_method:
        (this.o.tokenEndpointAuthMethod ?? (g.token_endpoint_auth_method as ClientIdentity['token_endpoint_auth_method'] | undefined)) ??
        chooseAuthMethod(d.as, secret !== undefined, this.o.privateKeyJwt !== undefined),
      source: 'stored',
    };
  }

  /**
   * basic.authorization#23: pre-registered → stored registration → CIMD (when the AS supports
   * it) → Dynamic Client Registration.
   */
  private async clientFor(d: Discovery, options?: AuthCallOptions): Promise<ClientIdentity> {
    const hasKey = this.o.privateKeyJwt !== undefined;
    if (this.o.clientId !== undefined) {
      await this.assertPreRegisteredHere(d, options);
      const c: ClientIdentity = {
        client_id: this.o.clientId,
        ...(this.o.clientSecret !== undefined ? { client_secret: this.o.clientSecret } : {}),
        token_endpoint_auth_method: this.o.tokenEndpointAuthMethod ?? chooseAuthMethod(d.as, this.o.clientSecret !== undefined, hasKey),
        source: 'pre-registered',
      };
      this.clientIssuer = d.as.issuer;
      return (this.client = c);
    }
    // A client registered at another authorization server is never presented to this one.
    if (this.client !== undefined && this.clientIssuer === d.as.issuer) return this.client;
    this.clientIssuer = d.as.issuer;
    const g = this.grant ?? (await this.store.get(this.key, options));
    const secretAlive = g?.client_secret_expires_at === undefined || g.client_secret_expires_at > this.now();
    if (g?.client_id !== undefined && g.issuer === d.as.issuer && (g.redirect_uri === undefined || sameRedirect(g.redirect_uri, this.o.redirectUri)) && secretAlive) {
      return (this.client = this.clientFromGrant(g, d));
    }
    if (this.o.clientMetadataUrl !== undefined && d.as.client_id_metadata_document_supported === true && (this.o.grantType ?? 'authorization_code') === 'authorization_code') {
      return (this.client = { client_id: this.o.clientMetadataUrl, token_endpoint_auth_method: 'none', source: 'cimd' });
    }
    if (d.as.registration_endpoint === undefined) {
      throw new AuthError('no client identity: not pre-registered, no Client ID Metadata Document support, and the authorization server offers no registration', 'MCPWIRE_AUTH_NO_CLIENT');
    }
    const method = this.o.tokenEndpointAuthMethod ?? registrationMethod(d);
    const kind = this.o.grantType ?? 'authorization_code';
    const grantTypes = kind === 'client_credentials' ? ['client_credentials'] : kind === 'jwt-bearer' ? [JWT_BEARER_GRANT] : ['authorization_code', 'refresh_token'];
    const ctx = this.ctx(d);
    const res = await (await flow()).registrationRequest(ctx, registrationRequestBody(this.o.clientMetadata ?? {}, kind === 'authorization_code' ? this.o.redirectUri : undefined, method, grantTypes), options?.signal);
    return (this.client = await (await flow()).processRegistrationResponse(ctx, res, method));
  }

  /**
   * basic.authorization.client_registration#21/#23 (2026-07-28): pre-registered credentials belong
   * to one authorization server. The stored grant records the issuer this client was last used
   * with; when the server's metadata now names another one, the client is not presented to it
   * silently — the error says so (a login after `logout` binds it afresh).
   */
  private async assertPreRegisteredHere(d: Discovery, options?: AuthCallOptions): Promise<void> {
    const g = this.grant ?? (await this.store.get(this.key, options));
    if (g?.client_id !== this.o.clientId || g?.issuer === undefined || g.issuer === d.as.issuer) return;
    throw new AuthError(
      `the pre-registered client ${this.o.clientId} was registered with the authorization server ${g.issuer}, but this server's authorization server is now ${d.as.issuer}: register a client there (or log out to bind this one afresh)`,
      'MCPWIRE_AUTH_ISSUER_MISMATCH',
    );
  }

  private async authorizeLocked(o: { challengeScope?: string; resourceMetadata?: string }, options?: AuthCallOptions): Promise<StoredGrant> {
    const d = await this.discoverOnce(o.resourceMetadata, options);
    const client = await this.clientFor(d, options);
    const ctx = this.ctx(d);
    const scope = selectScope({ challenge: o.challengeScope, prm: d.prm?.scopes_supported, as: d.as, configured: this.o.scope, wantRefresh: this.o.grantType === undefined || this.o.grantType === 'authorization_code' });
    this.requestedScope = scope;
    const scoped = scope !== undefined ? { requestedScope: scope } : {};
    if (this.o.grantType === 'jwt-bearer') {
      if (this.o.assertion === undefined) throw new AuthError('the jwt-bearer grant needs an `assertion` source', 'MCPWIRE_AUTH_CONFIG');
      const assertion = await this.o.assertion({ issuer: d.as.issuer, resource: d.resource, tokenEndpoint: d.as.token_endpoint ?? '' }, options?.signal);
      this.secret([assertion]);
      const g = await this.tokenCall(d, client, 'jwt-bearer', await this.newKey(d), (c, f) => f.jwtBearerRequest(c, client, assertion, d.resource, scope, options?.signal), scoped);
      return this.locked(() => this.save({ ...g, grant_kind: this.o.assertion?.grantKind ?? 'jwt-bearer' }, options), options);
    }
    if (this.o.grantType === 'client_credentials') {
      const g = await this.tokenCall(d, client, 'client_credentials', await this.newKey(d), (c, f) => f.clientCredentialsRequest(c, client, d.resource, scope, options?.signal), scoped);
      return this.locked(() => this.save({ ...g, grant_kind: 'client_credentials' }, options), options);
    }
    const { redirectUri, interaction } = this.o;
    if (redirectUri === undefined || interaction === undefined) {
      throw new AuthError('authorization is required but no redirect URI / interaction is configured (run `mcpwire login`)', 'MCPWIRE_AUTH_INTERACTION_REQUIRED');
    }
    const pending = await (await flow()).buildAuthorizationRequest(ctx, client, { redirectUri, resource: d.resource, ...(scope !== undefined ? { scope } : {}) });
    const signal = options?.signal ?? new AbortController().signal;
    const redirect = await interaction(pending.url, signal);
    const params = (await flow()).validateRedirect(ctx, client, pending, redirect);
    const g = await this.tokenCall(d, client, 'authorization_code', await this.newKey(d), (c, f) => f.authorizationCodeRequest(c, client, params, pending, d.resource, options?.signal), scoped);
    return this.locked(() => this.save({ ...g, redirect_uri: redirectUri, grant_kind: 'authorization_code' }, options), options);
  }
}

/**
 * Whether a client registered with redirect URI `registered` may use `wanted`: the same URI, or —
 * for loopback IP redirects, whose port the OS picks per login — the same URI on another port
 * (RFC 8252 §7.3; OAuth 2.1 §8.4.2: the AS allows any port for loopback redirect URIs).
 */
export function sameRedirect(registered: string, wanted: string | undefined): boolean {
  if (wanted === undefined || registered === wanted) return registered === wanted;
  let a: URL;
  let b: URL;
  try {
    a = new URL(registered);
    b = new URL(wanted);
  } catch {
    return false;
  }
  const loopbackIp = (u: URL) => u.protocol === 'http:' && (u.hostname === '127.0.0.1' || u.hostname === '[::1]');
  return loopbackIp(a) && loopbackIp(b) && a.hostname === b.hostname && a.pathname === b.pathname && a.search === b.search;
}

/** What to ask DCR for: a public client when the AS allows it, else the best secret-based method. */
function registrationMethod(d: Discovery): ClientIdentity['token_endpoint_auth_method'] {
  const supported = d.as.token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
  if (supported.includes('none')) return 'none';
  return chooseAuthMethod(d.as, true, false);
}

/** The private part of a grant's DPoP key (a secret: never in a trace or an error). */
function keySecret(g: StoredGrant): string | undefined {
  const d = g.dpop_jwk?.d;
  return typeof d === 'string' ? d : undefined;
}

/** The credential of an Authorization header value (`Bearer abc` → `abc`). */
function tokenOf(authorization: string): string {
  const i = authorization.indexOf(' ');
  return i < 0 ? authorization : authorization.slice(i + 1).trim();
}

/** An error's message with the network code under it (`fetch failed (ECONNREFUSED)`). */
function failureText(e: unknown): string {
  const err = e as { message?: unknown; cause?: { code?: unknown; cause?: { code?: unknown } } } | undefined;
  const code = err?.cause?.code ?? err?.cause?.cause?.code;
  const message = String(err?.message ?? e);
  return typeof code === 'string' && !message.includes(code) ? `${message} (${code})` : message;
}

/** A shared store's refusal or absence (src/store's `MCPWIRE_STORE_FENCED` / `_UNAVAILABLE`). */
function notStored(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'MCPWIRE_STORE_FENCED' || code === 'MCPWIRE_STORE_UNAVAILABLE';
}
