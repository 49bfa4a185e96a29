// clauses: 2026-07-28 (the ids in this file's titles are that revision's numbering; scripts/clause-coverage.mjs)
/**
 * The authorization response's `iss` check (RFC 9207, basic.authorization#22-#25 of 2026-07-28)
 * applied to an error response: when the issuer does not match, the client does not act on the
 * AS's `error`, `error_description` or `error_uri`, nor show them. Unit level on
 * src/auth/flow.ts's validateRedirect (the function the login flow runs on the redirect); the end
 * to end rows for a success response are in authorization-2026.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { AuthError } from '../src/auth/errors.js';
import { validateRedirect, type FlowContext, type PendingAuthorization } from '../src/auth/flow.js';
import type { ClientIdentity } from '../src/auth/client-auth.js';

const ISSUER = 'https://as.example.com';
const ctx = (advertised: boolean): FlowContext =>
  ({
    http: {} as FlowContext['http'],
    as: {
      issuer: ISSUER,
      authorization_endpoint: `${ISSUER}/authorize`,
      token_endpoint: `${ISSUER}/token`,
      code_challenge_methods_supported: ['S256'],
      ...(advertised ? { authorization_response_iss_parameter_supported: true } : {}),
    },
    onSecret: () => {},
  }) as FlowContext;
const client: ClientIdentity = { client_id: 'c1', token_endpoint_auth_method: 'none', source: 'pre-registered' };
const pending: PendingAuthorization = { url: new URL(`${ISSUER}/authorize`), state: 'st-1', codeVerifier: 'v', redirectUri: 'http://127.0.0.1:1/cb' };

function redirect(params: Record<string, string>): URL {
  const u = new URL('http://127.0.0.1:1/cb');
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u;
}

const ERROR = { state: 'st-1', error: 'access_denied', error_description: 'Call 555-0100 and read them your password', error_uri: 'https://evil.example/help' };

describe('the iss check applies to error responses (2026-07-28)', () => {
  for (const [what, advertised, params] of [
    ['an iss naming another issuer', false, { ...ERROR, iss: 'https://evil.example' }],
    ['an iss differing only by a trailing slash', true, { ...ERROR, iss: `${ISSUER}/` }],
    ['no iss where the AS advertises it', true, ERROR],
  ] as const) {
    it(`basic.authorization#25: an error response with ${what} is refused without acting on or showing its error, error_description or error_uri`, () => {
      let err: unknown;
      try {
        validateRedirect(ctx(advertised), client, pending, redirect(params));
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(AuthError);
      const e = err as AuthError & { oauthError?: string };
      expect(e.oauthError).toBeUndefined();
      const shown = `${e.message} ${JSON.stringify(e)}`;
      for (const value of [ERROR.error, ERROR.error_description, ERROR.error_uri]) expect(shown).not.toContain(value);
    });
  }

  it('the same error response with the matching iss is acted on: the error it names is reported (the refusals above are the iss check)', () => {
    let err: unknown;
    try {
      validateRedirect(ctx(true), client, pending, redirect({ ...ERROR, iss: ISSUER }));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AuthError);
    expect((err as { oauthError?: string }).oauthError).toBe('access_denied');
  });
});
