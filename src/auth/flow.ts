/**
 * The OAuth exchanges with the authorization server, on oauth4webapi: client registration
 * (RFC 7591), the authorization request with PKCE S256 + state + resource (basic.authorization#40,
 * #76-#81, #85), the redirect's validation (state, iss), and the token endpoint grants
 * (authorization_code, refresh_token, client_credentials) with the client authentication the AS
 * supports. Every call takes a signal; secrets go to `onSecret` before they are used.
 */
import { createPrivateKey, webcrypto } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import type { AuthorizationServerMetadata } from './discovery.js';
import { AuthError } from './errors.js';
import { callSignal, checkHttps, readJsonObject, type AuthHttp } from './http.js';
import type { PrivateKeyJwtConfig, StoredGrant } from './types.js';
import { chooseAuthMethod, JWT_BEARER_GRANT, registrationRequestBody, type ClientIdentity, type TokenEndpointAuthMethod } from './client-auth.js';
export { chooseAuthMethod, JWT_BEARER_GRANT, registrationRequestBody, type ClientIdentity, type TokenEndpointAuthMethod };



export interface FlowContext {
  http: AuthHttp;
  as: AuthorizationServerMetadata;
  onSecret: (values: string[]) => void;
  privateKeyJwt?: PrivateKeyJwtConfig;
  /** DPoP (RFC 9449): token requests carry a proof made with this handle (dpop.ts). */
  dpop?: oauth.DPoPHandle;
}


/** basic.authorization#76-#81: PKCE support is verified from the metadata; S256 is required. */
export function assertPkceS256(as: AuthorizationServerMetadata): void {
  const methods = as.code_challenge_methods_supported;
  if (!Array.isArray(methods)) {
    throw new AuthError('the authorization server metadata has no code_challenge_methods_supported: PKCE unsupported, refusing to proceed', 'MCPWIRE_AUTH_NO_PKCE');
  }
  if (!methods.includes('S256')) {
    throw new AuthError('the authorization server does not support the S256 PKCE method: refusing to proceed', 'MCPWIRE_AUTH_NO_PKCE');
  }
}

// ---- registration (RFC 7591) ------------------------------------------------------------


export async function registrationRequest(ctx: FlowContext, body: Record<string, unknown>, signal?: AbortSignal): Promise<Response> {
  const endpoint = ctx.as.registration_endpoint;
  if (endpoint === undefined) throw new AuthError('the authorization server offers no dynamic client registration', 'MCPWIRE_AUTH_NO_CLIENT');
  checkHttps(new URL(endpoint), 'the registration endpoint');
  return ctx.http.fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
    signal: callSignal(ctx.http, signal),
    redirect: 'manual',
  });
}

export async function processRegistrationResponse(ctx: FlowContext, res: Response, requested: TokenEndpointAuthMethod): Promise<ClientIdentity> {
  if (res.status !== 201 && res.status !== 200) {
    const doc = await readJsonObject(res, 'client registration error').catch(() => ({}) as Record<string, unknown>);
    const error = typeof doc.error === 'string' ? doc.error.slice(0, 100) : undefined;
    throw new AuthError(`dynamic client registration failed with HTTP ${res.status}${error !== undefined ? ` (${JSON.stringify(error)})` : ''}`, 'MCPWIRE_AUTH_REGISTRATION', { ...(error !== undefined ? { oauthError: error } : {}) });
  }
  const doc = await readJsonObject(res, 'client registration response');
  if (typeof doc.client_id !== 'string' || doc.client_id === '') throw new AuthError('client registration response has no client_id', 'MCPWIRE_AUTH_REGISTRATION');
  const secret = typeof doc.client_secret === 'string' ? doc.client_secret : undefined;
  ctx.onSecret(secret !== undefined ? [secret] : []);
  const method = typeof doc.token_endpoint_auth_method === 'string' ? (doc.token_endpoint_auth_method as TokenEndpointAuthMethod) : secret !== undefined ? chooseAuthMethod(ctx.as, true, false) : requested;
  return {
    client_id: doc.client_id,
    ...(secret !== undefined ? { client_secret: secret } : {}),
    ...(typeof doc.client_secret_expires_at === 'number' && doc.client_secret_expires_at > 0 ? { client_secret_expires_at: doc.client_secret_expires_at * 1000 } : {}),
    token_endpoint_auth_method: method,
    source: 'dcr',
  };
}

// ---- authorization request ------------------------------------------------------------

export interface PendingAuthorization {
  url: URL;
  state: string;
  codeVerifier: string;
  redirectUri: string;
  scope?: string;
}

export async function buildAuthorizationRequest(
  ctx: FlowContext,
  client: ClientIdentity,
  o: { redirectUri: string; resource: string; scope?: string },
): Promise<PendingAuthorization> {
  assertPkceS256(ctx.as);
  const endpoint = ctx.as.authorization_endpoint;
  if (endpoint === undefined) throw new AuthError('the authorization server has no authorization_endpoint', 'MCPWIRE_AUTH_BAD_METADATA');
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  ctx.onSecret([codeVerifier, state]);
  const url = new URL(endpoint);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', client.client_id);
  url.searchParams.set('redirect_uri', o.redirectUri);
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(codeVerifier));
  url.searchParams.set('code_challenge_method', 'S256');
  url.searchParams.set('state', state);
  url.searchParams.set('resource', o.resource);
  if (o.scope !== undefined && o.scope !== '') url.searchParams.set('scope', o.scope);
  return { url, state, codeVerifier, redirectUri: o.redirectUri, ...(o.scope !== undefined ? { scope: o.scope } : {}) };
}

/** basic.authorization#85 + RFC 9207: the redirect must carry our state, and the AS's issuer when it sends `iss`. */
export function validateRedirect(ctx: FlowContext, client: ClientIdentity, pending: PendingAuthorization, redirect: URL): URLSearchParams {
  const code = redirect.searchParams.get('code');
  if (code !== null) ctx.onSecret([code]);
  try {
    return oauth.validateAuthResponse(asServer(ctx.as), asClient(client), redirect, pending.state);
  } catch (err) {
    const e = err as { message?: string; error?: string; code?: string };
    const oauthError = (err as { error?: string }).error;
    throw new AuthError(`authorization response rejected: ${e.message ?? String(err)}`, 'MCPWIRE_AUTH_REDIRECT', { ...(oauthError !== undefined ? { oauthError } : {}) });
  }
}

// ---- token endpoint -------------------------------------------------------------------

function asServer(as: AuthorizationServerMetadata): oauth.AuthorizationServer {
  return as as unknown as oauth.AuthorizationServer;
}

function asClient(client: ClientIdentity): oauth.Client {
  return { client_id: client.client_id, token_endpoint_auth_method: client.token_endpoint_auth_method };
}

async function clientAuth(ctx: FlowContext, client: ClientIdentity): Promise<oauth.ClientAuth> {
  switch (client.token_endpoint_auth_method) {
    case 'client_secret_basic':
      return secretBasic(requireSecret(client));
    case 'client_secret_post':
      return oauth.ClientSecretPost(requireSecret(client));
    case 'private_key_jwt':
      if (ctx.privateKeyJwt === undefined) throw new AuthError('private_key_jwt needs a private key', 'MCPWIRE_AUTH_CONFIG');
      return oauth.PrivateKeyJwt(await importSigningKey(ctx.privateKeyJwt));
    default:
      return oauth.None();
  }
}

/**
 * client_secret_basic (RFC 6749 §2.3.1): `Basic base64(form(id):form(secret))` with the WHATWG
 * form encoding (unreserved `-._*` stay as they are; oauth4webapi's own escapes them, which some
 * servers do not decode).
 */
export function basicCredentials(clientId: string, secret: string): string {
  const form = (v: string): string => new URLSearchParams({ v }).toString().slice(2);
  return `Basic ${Buffer.from(`${form(clientId)}:${form(secret)}`).toString('base64')}`;
}

function secretBasic(secret: string): oauth.ClientAuth {
  return (_as, client, _body, headers) => {
    headers.set('authorization', basicCredentials(client.client_id, secret));
  };
}

function requireSecret(client: ClientIdentity): string {
  if (client.client_secret === undefined) throw new AuthError(`${client.token_endpoint_auth_method} needs a client secret`, 'MCPWIRE_AUTH_CONFIG');
  return client.client_secret;
}

/** A PKCS#8 PEM / JWK / CryptoKey → the `{key, kid}` oauth4webapi signs client assertions with. */
export async function importSigningKey(cfg: PrivateKeyJwtConfig): Promise<oauth.PrivateKey> {
  const k = cfg.privateKey;
  let key: webcrypto.CryptoKey;
  if (typeof k === 'object' && 'type' in k && 'algorithm' in k && typeof (k as { type: unknown }).type === 'string' && !('kty' in k)) {
    key = k as webcrypto.CryptoKey;
  } else {
    const ko = typeof k === 'string' ? createPrivateKey(k) : createPrivateKey({ key: k as webcrypto.JsonWebKey, format: 'jwk' } as Parameters<typeof createPrivateKey>[0]);
    const jwk = ko.export({ format: 'jwk' });
    const alg = cfg.alg ?? (jwk.kty === 'EC' ? (jwk.crv === 'P-384' ? 'ES384' : jwk.crv === 'P-521' ? 'ES512' : 'ES256') : jwk.kty === 'OKP' ? 'EdDSA' : 'RS256');
    key = await webcrypto.subtle.importKey('jwk', jwk, importParams(alg, jwk), false, ['sign']);
  }
  return { key: key as unknown as oauth.PrivateKey['key'], ...(cfg.kid !== undefined ? { kid: cfg.kid } : {}) };
}

function importParams(alg: string, jwk: webcrypto.JsonWebKey): webcrypto.AlgorithmIdentifier | webcrypto.RsaHashedImportParams | webcrypto.EcKeyImportParams {
  if (alg.startsWith('ES')) return { name: 'ECDSA', namedCurve: jwk.crv ?? 'P-256' };
  if (alg.startsWith('PS')) return { name: 'RSA-PSS', hash: `SHA-${alg.slice(2)}` };
  if (alg === 'EdDSA') return { name: 'Ed25519' };
  return { name: 'RSASSA-PKCS1-v1_5', hash: `SHA-${alg.slice(2)}` };
}

function requestOptions(ctx: FlowContext, signal: AbortSignal | undefined, extra: Record<string, string>): oauth.TokenEndpointRequestOptions {
  const tokenUrl = new URL(ctx.as.token_endpoint ?? '');
  return {
    additionalParameters: extra,
    signal: callSignal(ctx.http, signal),
    [oauth.customFetch]: ctx.http.fetch,
    [oauth.allowInsecureRequests]: tokenUrl.protocol === 'http:',
    ...(ctx.dpop !== undefined ? { DPoP: ctx.dpop } : {}),
  } as oauth.TokenEndpointRequestOptions;
}

function requireTokenEndpoint(ctx: FlowContext): void {
  if (ctx.as.token_endpoint === undefined) throw new AuthError('the authorization server has no token_endpoint', 'MCPWIRE_AUTH_BAD_METADATA');
  checkHttps(new URL(ctx.as.token_endpoint), 'the token endpoint');
}

export async function authorizationCodeRequest(
  ctx: FlowContext,
  client: ClientIdentity,
  params: URLSearchParams,
  pending: PendingAuthorization,
  resource: string,
  signal?: AbortSignal,
): Promise<Response> {
  requireTokenEndpoint(ctx);
  return oauth.authorizationCodeGrantRequest(asServer(ctx.as), asClient(client), await clientAuth(ctx, client), params, pending.redirectUri, pending.codeVerifier, requestOptions(ctx, signal, { resource }));
}

export async function refreshRequest(ctx: FlowContext, client: ClientIdentity, refreshToken: string, resource: string, signal?: AbortSignal): Promise<Response> {
  requireTokenEndpoint(ctx);
  return oauth.refreshTokenGrantRequest(asServer(ctx.as), asClient(client), await clientAuth(ctx, client), refreshToken, requestOptions(ctx, signal, { resource }));
}

export async function clientCredentialsRequest(ctx: FlowContext, client: ClientIdentity, resource: string, scope: string | undefined, signal?: AbortSignal): Promise<Response> {
  requireTokenEndpoint(ctx);
  const params: Record<string, string> = { resource, ...(scope !== undefined && scope !== '' ? { scope } : {}) };
  return oauth.clientCredentialsGrantRequest(asServer(ctx.as), asClient(client), await clientAuth(ctx, client), params, requestOptions(ctx, signal, {}));
}


/** RFC 7523 §2.1: an assertion (e.g. an ID-JAG) as the authorization grant. */
export async function jwtBearerRequest(ctx: FlowContext, client: ClientIdentity, assertion: string, resource: string, scope: string | undefined, signal?: AbortSignal): Promise<Response> {
  requireTokenEndpoint(ctx);
  const params: Record<string, string> = { assertion, resource, ...(scope !== undefined && scope !== '' ? { scope } : {}) };
  const { additionalParameters: _none, ...opts } = requestOptions(ctx, signal, {});
  return oauth.genericTokenEndpointRequest(asServer(ctx.as), asClient(client), await clientAuth(ctx, client), JWT_BEARER_GRANT, params, opts);
}

export type GrantKind = 'authorization_code' | 'refresh_token' | 'client_credentials' | 'jwt-bearer';

/** Validates a token endpoint response and turns it into the grant to store. */
export async function processTokenResponse(
  ctx: FlowContext,
  client: ClientIdentity,
  kind: GrantKind,
  res: Response,
  o: { now: number; requestedScope?: string; previousRefreshToken?: string; resource: string },
): Promise<StoredGrant> {
  let tr: oauth.TokenEndpointResponse;
  try {
    const as = asServer(ctx.as);
    const c = asClient(client);
    tr =
      kind === 'authorization_code'
        ? await oauth.processAuthorizationCodeResponse(as, c, res)
        : kind === 'refresh_token'
          ? await oauth.processRefreshTokenResponse(as, c, res)
          : kind === 'client_credentials'
            ? await oauth.processClientCredentialsResponse(as, c, res)
            : await oauth.processGenericTokenEndpointResponse(as, c, res);
  } catch (err) {
    const oauthError = err instanceof oauth.ResponseBodyError ? err.error : undefined;
    throw new AuthError(
      `token request (${kind}) failed: ${oauthError !== undefined ? `${oauthError}${err instanceof oauth.ResponseBodyError && err.error_description ? ` (${err.error_description.slice(0, 200)})` : ''}` : (err as Error).message}`,
      'MCPWIRE_AUTH_TOKEN',
      { cause: oauthError === undefined ? err : undefined, ...(oauthError !== undefined ? { oauthError } : {}) },
    );
  }
  ctx.onSecret([tr.access_token, ...(tr.refresh_token !== undefined ? [tr.refresh_token] : [])]);
  // Rotation: a new refresh token replaces the old; without one the old stays usable (refresh only).
  const refresh = tr.refresh_token ?? (kind === 'refresh_token' ? o.previousRefreshToken : undefined);
  const scope = tr.scope ?? o.requestedScope;
  return {
    access_token: tr.access_token,
    token_type: tr.token_type ?? 'bearer',
    ...(refresh !== undefined ? { refresh_token: refresh } : {}),
    ...(typeof tr.expires_in === 'number' ? { expires_at: o.now + tr.expires_in * 1000 } : {}),
    ...(scope !== undefined && scope !== '' ? { scope } : {}),
    client_id: client.client_id,
    ...(client.client_secret !== undefined ? { client_secret: client.client_secret } : {}),
    ...(client.client_secret_expires_at !== undefined ? { client_secret_expires_at: client.client_secret_expires_at } : {}),
    token_endpoint_auth_method: client.token_endpoint_auth_method,
    issuer: ctx.as.issuer,
    resource: o.resource,
  };
}
