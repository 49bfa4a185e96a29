/**
 * Discovery (basic.authorization "Authorization Server Discovery"): the protected resource
 * metadata (RFC 9728) from the challenge's `resource_metadata` or the well-known URIs in the
 * spec's order (basic.authorization#13), its `resource` checked against the server URL; then the
 * authorization server metadata (RFC 8414 / OIDC Discovery) in the spec's URL order
 * (basic.authorization#20-#22); and the 2025-03-26 fallbacks when the server has no PRM.
 * Each step is a pair: `xxxUrls()` (pure) and `fetchXxx()` (the I/O + validation).
 */
import { AuthError } from './errors.js';
import { checkHttps, getJson, type AuthHttp } from './http.js';

export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers?: string[];
  scopes_supported?: string[];
  [key: string]: unknown;
}

export interface AuthorizationServerMetadata {
  issuer: string;
  authorization_endpoint?: string;
  token_endpoint?: string;
  registration_endpoint?: string;
  scopes_supported?: string[];
  grant_types_supported?: string[];
  code_challenge_methods_supported?: string[];
  token_endpoint_auth_methods_supported?: string[];
  client_id_metadata_document_supported?: boolean;
  authorization_response_iss_parameter_supported?: boolean;
  [key: string]: unknown;
}

/** Where the auth server came from: PRM (2025-06-18+) or the 2025-03-26 fallbacks. */
export interface Discovery {
  /** The RFC 8707 `resource` to send (the PRM's `resource`, else the canonical server URI). */
  resource: string;
  prm?: ProtectedResourceMetadata;
  as: AuthorizationServerMetadata;
  /** `prm`, `legacy-metadata` (AS metadata at the server's root) or `legacy-defaults` (/authorize, /token, /register). */
  via: 'prm' | 'legacy-metadata' | 'legacy-defaults';
}

/**
 * The canonical server URI (basic.authorization#43-#46): lowercase scheme and host, no
 * fragment, no query, no trailing slash on the path unless the path is only `/`.
 */
export function canonicalResource(serverUrl: string | URL): string {
  const u = new URL(serverUrl); // WHATWG URL lower-cases the scheme and host
  const s = `${u.protocol}//${u.host}${u.pathname}`;
  return s.endsWith('/') ? s.slice(0, -1) : s;
}

/** basic.authorization#13: the PRM well-known URIs, path-aware first, then the root. */
export function protectedResourceMetadataUrls(serverUrl: string | URL): URL[] {
  const u = new URL(serverUrl);
  const path = u.pathname.replace(/\/+$/, '');
  const urls: URL[] = [];
  if (path !== '') urls.push(new URL(`/.well-known/oauth-protected-resource${path}`, u.origin));
  urls.push(new URL('/.well-known/oauth-protected-resource', u.origin));
  return urls;
}

/** basic.authorization#21/#22: the AS metadata URLs for an issuer, in the spec's priority order. */
export function authorizationServerMetadataUrls(issuer: string | URL): URL[] {
  const u = new URL(issuer);
  const path = u.pathname.replace(/\/+$/, '');
  if (path === '') {
    return [new URL('/.well-known/oauth-authorization-server', u.origin), new URL('/.well-known/openid-configuration', u.origin)];
  }
  return [
    new URL(`/.well-known/oauth-authorization-server${path}`, u.origin),
    new URL(`/.well-known/openid-configuration${path}`, u.origin),
    new URL(`${path}/.well-known/openid-configuration`, u.origin),
  ];
}

/**
 * RFC 9728 §3.3 / RFC 8707: the PRM's `resource` must identify the server we are talking to:
 * same origin (scheme and host compared case-insensitively) and a path that is the server's
 * path or a path-segment prefix of it (a root PRM names the origin).
 */
export function resourceMatches(prmResource: string, serverUrl: string | URL): boolean {
  let r: URL;
  try {
    r = new URL(prmResource);
  } catch {
    return false;
  }
  if (r.hash !== '') return false;
  const s = new URL(serverUrl);
  if (r.origin.toLowerCase() !== s.origin.toLowerCase()) return false;
  const rp = r.pathname.replace(/\/+$/, '');
  const sp = s.pathname.replace(/\/+$/, '');
  return rp === '' || rp === sp || sp.startsWith(`${rp}/`);
}

/** Fetches and validates the PRM; `undefined` when none of the URLs has one. */
export async function fetchProtectedResourceMetadata(
  http: AuthHttp,
  serverUrl: string | URL,
  resourceMetadataUrl: string | undefined,
  signal?: AbortSignal,
): Promise<ProtectedResourceMetadata | undefined> {
  const candidates: URL[] = [];
  if (resourceMetadataUrl !== undefined) {
    try {
      candidates.push(new URL(resourceMetadataUrl));
    } catch {
      /* a malformed hint: fall back to the well-known URIs */
    }
  }
  if (candidates.length === 0) candidates.push(...protectedResourceMetadataUrls(serverUrl));
  for (const url of candidates) {
    checkHttps(url, 'the protected resource metadata URL');
    const doc = await getJson(http, url, 'protected resource metadata', signal);
    if (doc === undefined) continue;
    return validatePrm(doc, serverUrl);
  }
  return undefined;
}

export function validatePrm(doc: Record<string, unknown>, serverUrl: string | URL): ProtectedResourceMetadata {
  if (typeof doc.resource !== 'string') {
    throw new AuthError('protected resource metadata has no `resource`', 'MCPWIRE_AUTH_BAD_METADATA');
  }
  if (!resourceMatches(doc.resource, serverUrl)) {
    throw new AuthError(
      `protected resource metadata names resource ${JSON.stringify(doc.resource.slice(0, 200))}, not this server (${canonicalResource(serverUrl)}): refusing to authorize`,
      'MCPWIRE_AUTH_RESOURCE_MISMATCH',
    );
  }
  const servers = doc.authorization_servers;
  if (servers !== undefined && (!Array.isArray(servers) || !servers.every((s) => typeof s === 'string'))) {
    throw new AuthError('protected resource metadata: `authorization_servers` is not a list of URLs', 'MCPWIRE_AUTH_BAD_METADATA');
  }
  return doc as ProtectedResourceMetadata;
}

/** Fetches the AS metadata in the spec's order; `undefined` when no URL has it. */
export async function fetchAuthorizationServerMetadata(
  http: AuthHttp,
  issuer: string,
  options: { signal?: AbortSignal; accept?: readonly string[] },
): Promise<AuthorizationServerMetadata | undefined> {
  const base = new URL(issuer);
  checkHttps(base, 'the authorization server');
  for (const url of authorizationServerMetadataUrls(base)) {
    const doc = await getJson(http, url, 'authorization server metadata', options.signal);
    if (doc === undefined) continue;
    return validateAsMetadata(doc, options.accept ?? [issuer]);
  }
  return undefined;
}

/**
 * Validates AS metadata. RFC 8414 §3.3: its `issuer` must be IDENTICAL to the issuer identifier
 * the well-known URI was built from (a string comparison: a trailing slash makes another issuer).
 * `accept` lists the identifiers that count as that one (one, except for the 2025-03-26 root).
 */
export function validateAsMetadata(doc: Record<string, unknown>, accept: string | readonly string[]): AuthorizationServerMetadata {
  if (typeof doc.issuer !== 'string') throw new AuthError('authorization server metadata has no `issuer`', 'MCPWIRE_AUTH_BAD_METADATA');
  const expected = typeof accept === 'string' ? [accept] : accept;
  const issuer = expected[0] ?? '';
  if (!expected.includes(doc.issuer)) {
    throw new AuthError(
      `authorization server metadata names issuer ${JSON.stringify(doc.issuer.slice(0, 200))}, expected ${issuer}`,
      'MCPWIRE_AUTH_ISSUER_MISMATCH',
    );
  }
  for (const key of ['authorization_endpoint', 'token_endpoint', 'registration_endpoint'] as const) {
    const v = doc[key];
    if (v === undefined) continue;
    if (typeof v !== 'string') throw new AuthError(`authorization server metadata: \`${key}\` is not a URL`, 'MCPWIRE_AUTH_BAD_METADATA');
    checkHttps(new URL(v), `the ${key}`);
  }
  return doc as AuthorizationServerMetadata;
}

/**
 * The whole discovery for a 401: PRM → AS metadata; without a PRM, the 2025-03-26 fallbacks
 * (AS metadata at the server's root, then the default endpoints at the server's origin).
 */
export async function discover(
  http: AuthHttp,
  serverUrl: string | URL,
  resourceMetadataUrl: string | undefined,
  signal?: AbortSignal,
): Promise<Discovery> {
  const prm = await fetchProtectedResourceMetadata(http, serverUrl, resourceMetadataUrl, signal);
  if (prm !== undefined) {
    const issuer = prm.authorization_servers?.[0];
    if (issuer === undefined) throw new AuthError('protected resource metadata names no authorization server', 'MCPWIRE_AUTH_BAD_METADATA');
    const as = await fetchAuthorizationServerMetadata(http, issuer, { ...(signal ? { signal } : {}) });
    if (as === undefined) throw new AuthError(`no authorization server metadata found for ${issuer}`, 'MCPWIRE_AUTH_NO_METADATA');
    return { resource: canonicalResource(prm.resource), prm, as, via: 'prm' };
  }
  // 2025-03-26: the authorization base URL is the server URL without its path.
  const origin = new URL(serverUrl).origin;
  const resource = canonicalResource(serverUrl);
  // The metadata at the root is the origin's: its issuer must be the origin (RFC 8414 §3.1 builds
  // the same well-known URI from `https://host` and `https://host/`, so either spelling is it).
  const legacy = await fetchAuthorizationServerMetadata(http, origin, { accept: [origin, `${origin}/`], ...(signal ? { signal } : {}) });
  if (legacy !== undefined) return { resource, as: legacy, via: 'legacy-metadata' };
  return {
    resource,
    as: {
      issuer: origin,
      authorization_endpoint: `${origin}/authorize`,
      token_endpoint: `${origin}/token`,
      registration_endpoint: `${origin}/register`,
      code_challenge_methods_supported: ['S256'],
    },
    via: 'legacy-defaults',
  };
}
