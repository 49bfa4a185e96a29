/**
 * Token revocation (RFC 7009) for `logout`: when the authorization server advertises a
 * `revocation_endpoint`, the refresh token (which, per RFC 7009 §2.1, also ends the access tokens
 * of its grant at most servers) and then the access token are revoked, with the client
 * authentication the grant was issued with. Best effort by design: a server without the
 * endpoint, or one that refuses, leaves the local deletion to the caller — the outcome says
 * which. Token values never appear in errors or outcomes.
 */
import * as oauth from 'oauth4webapi';
import { discover, fetchAuthorizationServerMetadata, type AuthorizationServerMetadata } from './discovery.js';
import { checkHttps, type AuthHttp } from './http.js';
import type { StoredGrant } from './types.js';

/** What `revokeGrant` did. */
export interface RevocationOutcome {
  /** `revoked`: every token held was revoked; `unsupported`: the AS has no revocation_endpoint; `failed`: see `error`. */
  result: 'revoked' | 'unsupported' | 'failed';
  /** Which tokens were revoked. */
  revoked: ('refresh_token' | 'access_token')[];
  /** Why it failed (no token value in it). */
  error?: string;
}

export interface RevokeOptions {
  /** The MCP server URL (used for discovery when the grant does not name its issuer). */
  serverUrl: string | URL;
  fetch?: typeof fetch;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** Revokes the tokens of `grant` at its authorization server (see the module comment). */
export async function revokeGrant(grant: StoredGrant, options: RevokeOptions): Promise<RevocationOutcome> {
  const http: AuthHttp = { fetch: options.fetch ?? fetch, timeoutMs: options.timeoutMs ?? 30_000 };
  const revoked: RevocationOutcome['revoked'] = [];
  try {
    const as = await metadataFor(grant, http, options);
    if (typeof as.revocation_endpoint !== 'string') return { result: 'unsupported', revoked };
    checkHttps(new URL(as.revocation_endpoint), 'the revocation endpoint');
    if (grant.client_id === undefined) return { result: 'failed', revoked, error: 'the stored grant names no client_id' };
    const server = as as oauth.AuthorizationServer;
    const client: oauth.Client = { client_id: grant.client_id };
    const auth = clientAuth(grant);
    const tokens: [RevocationOutcome['revoked'][number], string | undefined][] = [
      ['refresh_token', grant.refresh_token],
      ['access_token', grant.access_token],
    ];
    for (const [hint, token] of tokens) {
      if (!token) continue;
      const res = await oauth.revocationRequest(server, client, auth, token, {
        additionalParameters: { token_type_hint: hint },
        signal: AbortSignal.any([AbortSignal.timeout(http.timeoutMs), ...(options.signal ? [options.signal] : [])]),
        [oauth.customFetch]: http.fetch,
        [oauth.allowInsecureRequests]: new URL(as.revocation_endpoint).protocol === 'http:',
      });
      await oauth.processRevocationResponse(res);
      revoked.push(hint);
    }
    return { result: 'revoked', revoked };
  } catch (err) {
    return { result: 'failed', revoked, error: describe(err) };
  }
}

async function metadataFor(grant: StoredGrant, http: AuthHttp, options: RevokeOptions): Promise<AuthorizationServerMetadata> {
  if (grant.issuer !== undefined) {
    const as = await fetchAuthorizationServerMetadata(http, grant.issuer, { ...(options.signal ? { signal: options.signal } : {}) });
    if (as !== undefined) return as;
  }
  return (await discover(http, options.serverUrl, undefined, options.signal)).as;
}

function clientAuth(grant: StoredGrant): oauth.ClientAuth {
  const secret = grant.client_secret;
  switch (grant.token_endpoint_auth_method) {
    case 'client_secret_post':
      return secret !== undefined ? oauth.ClientSecretPost(secret) : oauth.None();
    case 'none':
      return oauth.None();
    default:
      return secret !== undefined ? oauth.ClientSecretBasic(secret) : oauth.None();
  }
}

/** An error as text without any token: OAuth error codes and HTTP statuses only. */
function describe(err: unknown): string {
  if (err instanceof oauth.ResponseBodyError) return `the authorization server refused: ${err.error}`;
  if (err instanceof oauth.WWWAuthenticateChallengeError) return `the authorization server refused with HTTP ${err.status}`;
  const e = err as { code?: string; name?: string; message?: string };
  return e.code !== undefined ? `${e.name ?? 'Error'} (${e.code})` : String(e.name ?? 'error');
}
