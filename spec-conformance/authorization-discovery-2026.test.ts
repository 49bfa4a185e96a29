// clauses: 2026-07-28 (the ids in this file's titles are that revision's numbering; scripts/clause-coverage.mjs)
/**
 * Authorization server metadata discovery (basic/authorization/authorization-server-discovery of
 * 2026-07-28) against a loopback HTTP server that serves the metadata at one well-known URL
 * only and records every request: the client tries the URLs in the spec's order until one
 * answers, and validates what it got (RFC 8414 §3.3: the `issuer` must be the one it asked
 * for, or the metadata is not used). Through fetchAuthorizationServerMetadata (src/auth/discovery.ts),
 * the function the OAuth provider's discovery runs.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { fetchAuthorizationServerMetadata } from '../src/auth/discovery.js';

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
});

/** A server answering `doc(base)` at `servedAt` only (404 elsewhere); `seen` lists the paths asked for. */
async function as(servedAt: string, doc: (base: string) => Record<string, unknown>): Promise<{ base: string; seen: string[] }> {
  const seen: string[] = [];
  let base = '';
  const s = http.createServer((req, res) => {
    seen.push(req.url ?? '');
    if (req.url !== servedAt) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(doc(base)));
  });
  servers.push(s);
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  return { base, seen };
}

const httpDeps = { fetch, timeoutMs: 5_000 };
const metadata = (issuer: string) => ({ issuer, authorization_endpoint: `${issuer}/authorize`, token_endpoint: `${issuer}/token`, code_challenge_methods_supported: ['S256'] });

describe('authorization server metadata discovery (2026-07-28)', () => {
  it('basic.authorization.authorization_server_discovery#7/#8: an issuer with a path: OAuth path insertion, then OIDC path insertion, then OIDC path appending, until one answers', async () => {
    const a = await as('/tenant1/.well-known/openid-configuration', (base) => metadata(`${base}/tenant1`));
    const got = await fetchAuthorizationServerMetadata(httpDeps, `${a.base}/tenant1`, {});
    expect(got?.issuer).toBe(`${a.base}/tenant1`);
    expect(a.seen).toEqual(['/.well-known/oauth-authorization-server/tenant1', '/.well-known/openid-configuration/tenant1', '/tenant1/.well-known/openid-configuration']);
  });

  it('basic.authorization.authorization_server_discovery#7/#9: an issuer without a path: OAuth, then OIDC; the first that answers is used and nothing after it is asked', async () => {
    const oidc = await as('/.well-known/openid-configuration', (base) => metadata(base));
    expect((await fetchAuthorizationServerMetadata(httpDeps, oidc.base, {}))?.issuer).toBe(oidc.base);
    expect(oidc.seen).toEqual(['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']);
    const oauth = await as('/.well-known/oauth-authorization-server', (base) => metadata(base));
    expect((await fetchAuthorizationServerMetadata(httpDeps, oauth.base, {}))?.issuer).toBe(oauth.base);
    expect(oauth.seen).toEqual(['/.well-known/oauth-authorization-server']);
  });

  it('basic.authorization.authorization_server_discovery#10/#11: metadata whose issuer differs from the one asked for (another host, a trailing slash) is not used', async () => {
    for (const issuerOf of [() => 'https://evil.example', (base: string) => `${base}/`]) {
      const a = await as('/.well-known/oauth-authorization-server', (base) => metadata(issuerOf(base)));
      const err = await fetchAuthorizationServerMetadata(httpDeps, a.base, {}).then(
        (m) => m,
        (e: unknown) => e as { code?: string },
      );
      expect((err as { code?: string }).code).toBe('MCPWIRE_AUTH_ISSUER_MISMATCH');
    }
  });
});
