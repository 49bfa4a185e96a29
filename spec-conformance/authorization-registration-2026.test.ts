// clauses: 2026-07-28 (the ids in this file's titles are that revision's numbering; scripts/clause-coverage.mjs)
/**
 * A dynamic client registration the authorization server refuses for its redirect URI (an OIDC
 * server refusing a loopback redirect for a `web` client): the client fails with a clear
 * `MCPWIRE_AUTH_REGISTRATION` naming the AS's error, never a crash or a half-registered client.
 * Unit level on src/auth/flow.ts's processRegistrationResponse (what the provider runs on the
 * registration endpoint's answer); the registrations that succeed are in authorization-2026.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { AuthError } from '../src/auth/errors.js';
import { processRegistrationResponse, type FlowContext } from '../src/auth/flow.js';

const ctx = {
  http: {} as FlowContext['http'],
  as: { issuer: 'https://as.example.com', authorization_endpoint: 'https://as.example.com/authorize', token_endpoint: 'https://as.example.com/token', registration_endpoint: 'https://as.example.com/register' },
  onSecret: () => {},
} as FlowContext;

async function refused(res: Response): Promise<AuthError & { oauthError?: string }> {
  const err = await processRegistrationResponse(ctx, res, 'none').then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AuthError);
  return err as AuthError & { oauthError?: string };
}

describe('registration refused for its redirect URI (2026-07-28)', () => {
  it('basic.authorization.client_registration#19: a 400 invalid_redirect_uri is a MCPWIRE_AUTH_REGISTRATION error naming the status and the AS\'s error', async () => {
    const err = await refused(
      new Response(JSON.stringify({ error: 'invalid_redirect_uri', error_description: 'http://127.0.0.1 is not allowed for web clients' }), { status: 400, headers: { 'content-type': 'application/json' } }),
    );
    expect(err.code).toBe('MCPWIRE_AUTH_REGISTRATION');
    expect(err.oauthError).toBe('invalid_redirect_uri');
    expect(err.message).toMatch(/HTTP 400/);
    expect(err.message).toContain('invalid_redirect_uri');
  });

  it('basic.authorization.client_registration#19: a refusal whose body is not JSON, or a 201 without a client_id, is the same clear error, not a crash', async () => {
    const html = await refused(new Response('<html>Bad redirect</html>', { status: 400, headers: { 'content-type': 'text/html' } }));
    expect(html.code).toBe('MCPWIRE_AUTH_REGISTRATION');
    expect(html.message).toMatch(/HTTP 400/);
    const empty = await refused(new Response(JSON.stringify({ redirect_uris: [] }), { status: 201, headers: { 'content-type': 'application/json' } }));
    expect(empty.code).toBe('MCPWIRE_AUTH_REGISTRATION');
  });
});
