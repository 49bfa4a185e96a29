/**
 * Enterprise-managed authorization (SEP-990, an MCP extension): the enterprise IdP exchanges the
 * user's ID token for an Identity Assertion JWT Authorization Grant (ID-JAG) aimed at the MCP
 * server's authorization server (RFC 8693 token exchange), which the client then redeems there
 * with the jwt-bearer grant (RFC 7523; the provider's `grantType: 'jwt-bearer'`).
 */
import { AuthError } from './errors.js';
import { callSignal, checkHttps, readJsonObject } from './http.js';
import type { AssertionSource } from './types.js';

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const ID_JAG_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id-jag';
export const ID_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id_token';

export interface IdJagOptions {
  /** The IdP's token endpoint. */
  idpTokenEndpoint: string;
  /** The client's id at the IdP. */
  idpClientId: string;
  /** Its secret at the IdP, when it is a confidential client there (sent with client_secret_basic… as a form field). */
  idpClientSecret?: string;
  /** The user's ID token from the IdP (or a function that fetches a fresh one). */
  idToken: string | (() => Promise<string>);
  fetch?: typeof fetch;
  timeoutMs?: number;
  onSecret?: (values: string[]) => void;
}

/** The token exchange request body (RFC 8693 §2.1 with the ID-JAG profile's values). */
export function idJagRequestBody(o: { idpClientId: string; idpClientSecret?: string; idToken: string; audience: string; resource: string }): URLSearchParams {
  const body = new URLSearchParams({
    grant_type: TOKEN_EXCHANGE_GRANT,
    requested_token_type: ID_JAG_TOKEN_TYPE,
    audience: o.audience,
    resource: o.resource,
    subject_token: o.idToken,
    subject_token_type: ID_TOKEN_TYPE,
    client_id: o.idpClientId,
  });
  if (o.idpClientSecret !== undefined) body.set('client_secret', o.idpClientSecret);
  return body;
}

/** An AssertionSource that asks the IdP for an ID-JAG naming the AS (audience) and the MCP server (resource). */
export function idJagAssertion(o: IdJagOptions): AssertionSource {
  const http = { fetch: o.fetch ?? fetch, timeoutMs: o.timeoutMs ?? 30_000 };
  const source: AssertionSource = async (target, signal) => {
    const url = new URL(o.idpTokenEndpoint);
    checkHttps(url, 'the IdP token endpoint');
    const idToken = typeof o.idToken === 'string' ? o.idToken : await o.idToken();
    o.onSecret?.([idToken, ...(o.idpClientSecret !== undefined ? [o.idpClientSecret] : [])]);
    const res = await http.fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: idJagRequestBody({ ...o, idToken, audience: target.issuer, resource: target.resource }),
      signal: callSignal(http, signal),
      redirect: 'manual',
    });
    const doc = await readJsonObject(res, 'IdP token exchange response').catch(() => ({}) as Record<string, unknown>);
    if (res.status !== 200 || typeof doc.access_token !== 'string') {
      const error = typeof doc.error === 'string' ? doc.error : undefined;
      throw new AuthError(`IdP token exchange failed with HTTP ${res.status}${error !== undefined ? ` (${error})` : ''}`, 'MCPWIRE_AUTH_TOKEN_EXCHANGE', { ...(error !== undefined ? { oauthError: error } : {}) });
    }
    if (doc.issued_token_type !== undefined && doc.issued_token_type !== ID_JAG_TOKEN_TYPE) {
      throw new AuthError(`IdP token exchange issued ${String(doc.issued_token_type).slice(0, 100)}, not an ID-JAG`, 'MCPWIRE_AUTH_TOKEN_EXCHANGE');
    }
    o.onSecret?.([doc.access_token]);
    return doc.access_token;
  };
  // The grant it yields is recorded as enterprise-managed (`auth status`), not as a workload's.
  return Object.assign(source, { grantKind: 'id-jag' as const });
}
