/**
 * basic/authorization against our own mock AS + protected MCP server (mock-servers/oauth-as.mjs),
 * over real HTTP on 127.0.0.1: the whole authorization code flow, and what a compliant server
 * never does (wrong `resource`, no S256, an `iss` mix-up, a 403 step-up loop, refresh rotation).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { generateKeyPairSync } from 'node:crypto';
import { connect, createOAuthProvider, idJagAssertion, MemoryTokenStore, type McpClient, type OAuthProviderOptions } from '../src/index.js';
import { at, follow, oauthMockHarness, REDIRECT, type Mock } from '../test/support/oauth-mock.js';
import { tempDirs } from '../test/support/temp-dirs.js';

const tmp = tempDirs('mcpwire-auth-trace-');
const { clients, mock, provider } = oauthMockHarness();

async function open(m: Mock, auth: ReturnType<typeof provider>, extra: Record<string, unknown> = {}): Promise<McpClient> {
  const c = await connect({ transport: 'http', url: m.url, id: 'mock' }, { authProvider: auth, timeoutMs: 10_000, ...extra });
  clients.push(c);
  return c;
}


describe('authorization code flow', () => {
  it('basic.authorization#40/#41/#47/#68/#76/#77/#85/#97: 401 → discovery → DCR → authorize (S256, state, resource) → token (verifier, resource) → replay; resource sent although the AS metadata says nothing of resource indicators', async () => {
    const m = await mock({ scopesSupported: ['mcp:read'] });
    const c = await open(m, provider(m));
    const tools = await c.listTools();
    expect(tools.map((t) => t.name)).toEqual(['whoami']);
    const [authz] = at(m, '/authorize');
    expect(authz.params).toMatchObject({ response_type: 'code', code_challenge_method: 'S256', resource: m.url, scope: 'mcp:read', redirect_uri: REDIRECT });
    expect(authz.params.state.length).toBeGreaterThan(20);
    const [tok] = at(m, '/token');
    expect(tok.params).toMatchObject({ grant_type: 'authorization_code', resource: m.url });
    expect(tok.params.code_verifier.length).toBeGreaterThanOrEqual(43);
    expect(m.counters.register).toBe(1);
  });

  it('basic.authorization#49/#50/#51: every MCP request after authorization carries Authorization: Bearer, never a query token', async () => {
    const m = await mock();
    const c = await open(m, provider(m));
    await c.listTools();
    await c.callTool('whoami', {});
    const mcp = at(m, '/mcp').filter((e) => e.method === 'POST');
    const afterAuth = mcp.slice(1); // the first (initialize) was refused with 401
    expect(afterAuth.length).toBeGreaterThanOrEqual(3);
    for (const e of afterAuth) expect(e.authorization).toMatch(/^Bearer at-/);
    for (const e of m.log) expect(Object.keys(e.params)).not.toContain('access_token');
  });

  it('basic.authorization#7/#13: the AS is found through the protected resource metadata named by the challenge (no root well-known request)', async () => {
    const m = await mock();
    const c = await open(m, provider(m));
    await c.listTools();
    expect(at(m, '/.well-known/oauth-protected-resource/mcp')).toHaveLength(1);
    expect(at(m, '/.well-known/oauth-protected-resource')).toHaveLength(0);
  });

  it('basic.authorization#23/#37: a pre-registered client is used as is (no registration), client_secret_basic', async () => {
    const m = await mock({ authMethods: ['client_secret_basic'] });
    (m as unknown as { clients: Map<string, unknown> }).clients.set('pre-1', { secret: 'pre-secret-123', method: 'client_secret_basic' });
    const c = await open(m, provider(m, { clientId: 'pre-1', clientSecret: 'pre-secret-123' }));
    await c.listTools();
    expect(m.counters.register).toBe(0);
    expect(at(m, '/token')[0].authorization).toBe(`Basic ${Buffer.from('pre-1:pre-secret-123').toString('base64')}`);
  });

  it('basic.authorization#24/#36: the Client ID Metadata Document URL is the client_id when the AS supports CIMD', async () => {
    const m = await mock({ cimd: true });
    const c = await open(m, provider(m, { clientMetadataUrl: 'https://client.example/metadata.json' }));
    await c.listTools();
    expect(m.counters.register).toBe(0);
    expect(at(m, '/authorize')[0].params.client_id).toBe('https://client.example/metadata.json');
  });

  it('basic.authorization#23: a DCR registration is stored with the grant and reused by the next provider', async () => {
    const m = await mock();
    const store = new MemoryTokenStore();
    await (await open(m, provider(m, { store }))).listTools();
    const stored = await store.get('mock');
    expect(stored?.client_id).toBe('client-1');
    const { refresh_token: _r, ...noRefresh } = stored!;
    await store.set('mock', { ...noRefresh, access_token: 'at-revoked' }); // force a new authorization
    await (await open(m, provider(m, { store }))).listTools();
    expect(m.counters.register).toBe(1);
    expect(at(m, '/authorize').map((e) => e.params.client_id)).toEqual(['client-1', 'client-1']);
  });
});

describe('2025-03-26 fallbacks', () => {
  it('basic.authorization#13/#22: no PRM → path-aware then root well-known tried, then AS metadata at the server root', async () => {
    const m = await mock({ noPrm: true });
    await (await open(m, provider(m))).listTools();
    const wellKnown = m.log.filter((e) => e.path.startsWith('/.well-known/')).map((e) => e.path);
    expect(wellKnown).toEqual(['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource', '/.well-known/oauth-authorization-server']);
    expect(at(m, '/authorize')[0].params.resource).toBe(m.url);
  });

  it('basic.authorization#22: no metadata at all → OAuth then OIDC at the root, then /authorize, /token, /register', async () => {
    const m = await mock({ noPrm: true, noMetadata: true });
    await (await open(m, provider(m))).listTools();
    const wellKnown = m.log.filter((e) => e.path.startsWith('/.well-known/')).map((e) => e.path);
    expect(wellKnown.slice(2)).toEqual(['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']);
    expect([m.counters.register, m.counters.authorize, m.counters.token]).toEqual([1, 1, 1]);
  });

  it('RFC 8414 §3.3: the AS metadata at the server root names another issuer → refused; nothing is sent to its endpoints', async () => {
    const m = await mock({ noPrm: true, issuer: 'https://elsewhere.example' });
    const err = await open(m, provider(m)).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err?.message).toMatch(/issuer/);
    expect([m.counters.register, m.counters.authorize, m.counters.token]).toEqual([0, 0, 0]);
  });
});

describe('what a compliant server never does', () => {
  it('RFC 8414 §3.3: the AS metadata named by the PRM must give the issuer identically — one with a trailing slash added is another issuer', async () => {
    const m = await mock({ issuer: (base: string) => `${base}/` });
    const err = await open(m, provider(m)).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err?.message).toMatch(/issuer/);
    expect([m.counters.register, m.counters.authorize, m.counters.token]).toEqual([0, 0, 0]);
  });

  it('basic.authorization#42: PRM naming another resource → refused before any authorization request', async () => {
    const m = await mock({ prmResource: 'https://evil.example.com/mcp' });
    await expect(open(m, provider(m))).rejects.toMatchObject({ code: 'MCPWIRE_AUTH_RESOURCE_MISMATCH' });
    expect(m.counters.authorize).toBe(0);
    expect(m.counters.token).toBe(0);
  });

  it('basic.authorization#78/#79/#80/#81: PKCE support is judged from the AS metadata: no code_challenge_methods_supported → refused, nothing sent to the AS', async () => {
    const m = await mock({ pkceMethods: null });
    await expect(open(m, provider(m))).rejects.toMatchObject({ code: 'MCPWIRE_AUTH_NO_PKCE' });
    expect(m.counters.authorize).toBe(0);
  });

  it('basic.authorization#77: the AS lists only plain → refused', async () => {
    const m = await mock({ pkceMethods: ['plain'] });
    await expect(open(m, provider(m))).rejects.toMatchObject({ code: 'MCPWIRE_AUTH_NO_PKCE' });
    expect(m.counters.authorize).toBe(0);
  });

  it('basic.authorization#67 (RFC 9207): an iss on the redirect naming another issuer → the code is not redeemed', async () => {
    const m = await mock({ redirectIss: 'https://evil.example.com' });
    await expect(open(m, provider(m))).rejects.toMatchObject({ code: 'MCPWIRE_AUTH_REDIRECT' });
    expect(m.counters.token).toBe(0);
  });

  it('basic.authorization#85: a redirect with another state → discarded, the code is not redeemed', async () => {
    const m = await mock({ wrongState: 'forged-state-value' });
    await expect(open(m, provider(m))).rejects.toMatchObject({ code: 'MCPWIRE_AUTH_REDIRECT' });
    expect(m.counters.token).toBe(0);
  });

  it('basic.authorization#64/#66: 403 insufficient_scope forever → step-up with the union of scopes, at most 3 times, then the error', async () => {
    const m = await mock({ stepUpForever: true, scopesSupported: ['mcp:read'] });
    const c = await open(m, provider(m));
    await c.listTools();
    await expect(c.callTool('whoami', {})).rejects.toMatchObject({ code: 'MCPWIRE_AUTH_REQUIRED' });
    const scopes = at(m, '/authorize').map((e) => e.params.scope);
    expect(scopes).toEqual(['mcp:read', 'mcp:read mcp:admin', 'mcp:read mcp:admin', 'mcp:read mcp:admin']);
    expect(scopes.length - 1).toBe(3); // three step-ups after the initial authorization
  });

  it('basic.authorization#64: one step-up satisfies the 403 and the call is replayed', async () => {
    const m = await mock({ callScope: 'mcp:write', scopesSupported: ['mcp:read'] });
    const c = await open(m, provider(m));
    const r = await c.callTool('whoami', {});
    expect(JSON.stringify(r.content)).toContain('scope=mcp:read mcp:write');
    expect(m.counters.authorize).toBe(2);
  });
});

describe('refresh', () => {
  it('basic.authorization#70: refresh token rotation (OAuth 2.1 §4.3.1) — a rotated-out refresh token is never sent again', async () => {
    const m = await mock({ rotate: true });
    const c = await open(m, provider(m));
    await c.listTools();
    for (let i = 0; i < 3; i++) {
      m.expireAll();
      await c.listTools();
    }
    const sent = at(m, '/token').filter((e) => e.params.grant_type === 'refresh_token').map((e) => e.params.refresh_token);
    expect(sent).toHaveLength(3);
    expect(new Set(sent).size).toBe(3);
    expect(m.counters.authorize).toBe(1);
  });

  it('refresh before expiry (the skew) without a 401', async () => {
    const m = await mock({ expiresIn: 30 });
    const c = await open(m, provider(m, { refreshSkewMs: 60_000 }));
    await c.listTools();
    const refreshes = at(m, '/token').filter((e) => e.params.grant_type === 'refresh_token');
    expect(refreshes.length).toBeGreaterThanOrEqual(1);
    expect(refreshes[0].params.resource).toBe(m.url); // basic.authorization#41: resource on every token request
  });

  it('basic.authorization#18: concurrent 401s refresh once (single-flight)', async () => {
    const m = await mock();
    const c = await open(m, provider(m));
    await c.listTools();
    m.expireAll();
    await Promise.all([c.listTools(), c.callTool('whoami', {}), c.listTools()]);
    expect(at(m, '/token').filter((e) => e.params.grant_type === 'refresh_token')).toHaveLength(1);
  });

  it('basic.authorization#70: refresh token rotation (OAuth 2.1 §4.3.1) — two providers sharing a store refresh once under its lock; the rotated-out token is not sent by the other', async () => {
    const m = await mock({ rotate: true });
    const store = new MemoryTokenStore();
    const a = await open(m, provider(m, { store }));
    await a.listTools();
    const b = await open(m, provider(m, { store }));
    await b.listTools();
    expect(m.counters.authorize).toBe(1); // b used the stored grant
    m.expireAll();
    await Promise.all([a.listTools(), b.listTools()]);
    const sent = at(m, '/token').filter((e) => e.params.grant_type === 'refresh_token');
    expect(sent).toHaveLength(1);
    expect(m.counters.authorize).toBe(1);
  });

  it('basic.authorization#70: a failed refresh keeps the stored grant; invalid_grant drops the refresh token', async () => {
    const m = await mock({ refreshError: 'temporarily_unavailable' });
    const store = new MemoryTokenStore();
    const p = provider(m, { store });
    const c = await open(m, p);
    await c.listTools();
    const before = await store.get('mock');
    m.expireAll();
    await c.listTools(); // refresh fails → full authorization instead
    expect(m.counters.refresh).toBe(1);
    expect(m.counters.authorize).toBe(2);
    expect((await store.get('mock'))?.refresh_token).toBeDefined();
    expect(before?.refresh_token).toBeDefined();

    const m2 = await mock({ refreshError: 'invalid_grant' });
    (m2 as unknown as { clients: Map<string, unknown> }).clients.set('x', { method: 'none' });
    const store2 = new MemoryTokenStore();
    const p2 = createOAuthProvider({ serverUrl: m2.url, serverKey: 'm2', store: store2, redirectUri: REDIRECT, interaction: async () => { throw new Error('no user here'); } });
    await store2.set('m2', { access_token: 'at-dead', refresh_token: 'rt-dead-token', token_type: 'Bearer', client_id: 'x', expires_at: 0, issuer: m2.base, resource: m2.url });
    await expect(open(m2, p2)).rejects.toThrow();
    expect(m2.counters.refresh).toBeGreaterThanOrEqual(1);
    expect((await store2.get('m2'))?.refresh_token).toBeUndefined();
  });
});

describe('secrets', () => {
  it('basic.authorization#70: an AS echoing the code and verifier in its error → the error message carries neither', async () => {
    const m = await mock({ echoSecrets: true });
    const err = (await open(m, provider(m)).catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(Error);
    const [tok] = at(m, '/token');
    expect(err.message).toContain('[redacted]');
    expect(err.message).not.toContain(tok.params.code_verifier);
    expect(err.message).not.toContain(tok.params.code);
  });

  it('basic.authorization#70: with tracing on, no token, refresh token, client secret, code, verifier or state reaches the trace', async () => {
    const m = await mock({ authMethods: ['client_secret_basic'], scopesSupported: ['mcp:read'] });
    const dir = tmp();
    const file = join(dir, 'trace.jsonl');
    const p = provider(m);
    const c = await open(m, p, { trace: { file } });
    await c.listTools();
    m.expireAll();
    await c.callTool('whoami', {});
    await c.close();
    const trace = readFileSync(file, 'utf8');
    const secrets = new Set<string>();
    for (const e of m.log) {
      for (const k of ['code', 'code_verifier', 'state', 'refresh_token', 'client_secret']) if (e.params[k]) secrets.add(e.params[k]);
      if (e.authorization?.startsWith('Bearer ')) secrets.add(e.authorization.slice(7));
    }
    const clientSecret = [...(m as unknown as { clients: Map<string, { secret?: string }> }).clients.values()][0]?.secret;
    expect(clientSecret).toBeDefined();
    secrets.add(clientSecret!);
    expect(secrets.size).toBeGreaterThanOrEqual(6);
    expect(trace.length).toBeGreaterThan(0);
    for (const s of secrets) expect(trace.includes(s), `secret ${s.slice(0, 4)}… leaked into the trace`).toBe(false);
    // …because the provider registered each of them with the tracer's redactor.
    expect(p.secrets()).toEqual(expect.arrayContaining([...secrets]));
  });
});

describe('other grants', () => {
  it('basic.authorization#40/#67: client_credentials with private_key_jwt (ES256 assertion, iss = sub = client_id, aud = issuer) and resource', async () => {
    const m = await mock({ authMethods: ['private_key_jwt'] });
    (m as unknown as { clients: Map<string, unknown> }).clients.set('svc-1', { method: 'private_key_jwt' });
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const c = await open(m, createOAuthProvider({ serverUrl: m.url, grantType: 'client_credentials', clientId: 'svc-1', privateKeyJwt: { privateKey: pem, alg: 'ES256' } }));
    await c.listTools();
    const [tok] = at(m, '/token');
    expect(tok.params).toMatchObject({ grant_type: 'client_credentials', resource: m.url, client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer' });
    const header = JSON.parse(Buffer.from(tok.params.client_assertion.split('.')[0], 'base64url').toString());
    expect(header.alg).toBe('ES256');
    expect(m.counters.authorize).toBe(0);
  });

  it('basic.authorization#40: enterprise-managed (SEP-990): ID token → ID-JAG at the IdP (audience = issuer, resource) → jwt-bearer grant', async () => {
    const m = await mock({ authMethods: ['client_secret_basic'] });
    (m as unknown as { clients: Map<string, unknown> }).clients.set('ent-1', { secret: 'ent-secret-1', method: 'client_secret_basic' });
    const assertion = idJagAssertion({ idpTokenEndpoint: `${m.base}/idp/token`, idpClientId: 'idp-client', idToken: 'id-token-of-alice' });
    const c = await open(m, createOAuthProvider({ serverUrl: m.url, grantType: 'jwt-bearer', clientId: 'ent-1', clientSecret: 'ent-secret-1', assertion }));
    await c.listTools();
    const [exchange] = at(m, '/idp/token');
    expect(exchange.params).toMatchObject({ audience: m.base, resource: m.url, subject_token_type: 'urn:ietf:params:oauth:token-type:id_token', requested_token_type: 'urn:ietf:params:oauth:token-type:id-jag' });
    const [tok] = at(m, '/token');
    expect(tok.params.grant_type).toBe('urn:ietf:params:oauth:grant-type:jwt-bearer');
    expect(tok.params.assertion).toMatch(/^jag-/);
    expect(tok.authorization).toMatch(/^Basic /);
  });
});

describe('discovery mechanisms, transport security, redirect registration, token audience', () => {
  it('basic.authorization#9: both discovery mechanisms — the challenge’s resource_metadata, and without it the well-known PRM URL', async () => {
    // The WWW-Authenticate header names the PRM: the client fetches exactly that URL.
    const named = await mock();
    await (await open(named, provider(named))).listTools();
    expect(at(named, '/.well-known/oauth-protected-resource/mcp')).toHaveLength(1);
    // A bare challenge (no resource_metadata): the client finds the PRM at its well-known URI.
    const bare = await mock({ bareChallenge: true });
    await (await open(bare, provider(bare))).listTools();
    const prm = bare.log.filter((e) => e.path.startsWith('/.well-known/oauth-protected-resource'));
    expect(prm.map((e) => e.path)[0]).toBe('/.well-known/oauth-protected-resource/mcp');
    expect(bare.counters.authorize).toBe(1);
    expect(at(bare, '/authorize')[0].params.resource).toBe(bare.url);
  });

  it('basic.authorization#3/#73: an authorization server on plain http (not loopback) is refused before anything is sent to it', async () => {
    const requests: string[] = [];
    const fetchSpy: typeof fetch = (input, init) => {
      requests.push(String(input instanceof Request ? input.url : input));
      return fetch(input, init);
    };
    const m = await mock({ asServers: ['http://as.example.test/'] });
    const err = await open(m, provider(m, { fetch: fetchSpy })).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'MCPWIRE_AUTH_INSECURE' });
    expect((err as Error).message).toContain('http://as.example.test');
    expect(requests.some((u) => u.includes('as.example.test'))).toBe(false);
    expect(m.counters.authorize).toBe(0);
  });

  it('basic.authorization#73: an authorization endpoint on plain http (not loopback) in the AS metadata is refused; no browser is opened', async () => {
    const m = await mock({ authorizationEndpoint: 'http://login.example.test/authorize' });
    let opened = 0;
    const err = await open(m, provider(m, { interaction: async (u, s) => (opened++, follow(u, s)) })).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'MCPWIRE_AUTH_INSECURE' });
    expect(opened).toBe(0);
    expect(m.counters.token).toBe(0);
  });

  it('basic.authorization#83: the redirect URI used for authorization is the one registered with the AS (DCR redirect_uris)', async () => {
    const m = await mock();
    await (await open(m, provider(m))).listTools();
    const [reg] = at(m, '/register');
    expect(reg.json?.redirect_uris).toEqual([REDIRECT]);
    expect(at(m, '/authorize')[0].params.redirect_uri).toBe(REDIRECT);
    expect(at(m, '/token')[0].params.redirect_uri).toBe(REDIRECT);
  });

  for (const refresh of [true, false]) {
    it(`basic.authorization#56: the server moves to another authorization server (${refresh ? 'a refreshable grant' : 'no refresh token'}) → seen on the 401, a client registered there, nothing of the old one presented to it`, async () => {
      const as2 = await mock({ clientPrefix: 'as2-client' });
      const m = await mock(refresh ? {} : { noRefresh: true });
      const c = await open(m, provider(m));
      await c.listTools();
      (m as Mock & { migrateTo(o: Mock): void }).migrateTo(as2);
      const r = await c.callTool('whoami', {});
      expect(r.isError).toBeFalsy();
      // The old AS sees no refresh: the grant is its, and the server no longer names it.
      expect(at(m, '/token').filter((e) => e.params.grant_type === 'refresh_token')).toEqual([]);
      expect(as2.counters.register).toBe(1);
      const presented = as2.log.filter((e) => e.path === '/authorize' || e.path === '/token').map((e) => e.params.client_id ?? Buffer.from((e.authorization ?? '').slice(6), 'base64').toString().split(':')[0]);
      expect(presented.length).toBeGreaterThanOrEqual(2);
      expect(new Set(presented)).toEqual(new Set(['as2-client-1']));
      expect(as2.log.some((e) => e.params.refresh_token !== undefined)).toBe(false);
    });
  }

  it('basic.authorization#56: a stored grant issued by another authorization server is neither refreshed there nor sent to the MCP server', async () => {
    const m = await mock();
    const store = new MemoryTokenStore();
    // What an earlier AS of this server issued (the server has since moved to the mock AS).
    await store.set('mock', {
      access_token: 'at-foreign-111111',
      refresh_token: 'rt-foreign-222222',
      token_type: 'Bearer',
      client_id: 'foreign-client',
      expires_at: Date.now() - 1_000,
      issuer: 'https://old-as.example.test',
      resource: m.url,
    });
    const c = await open(m, provider(m, { store }));
    await c.listTools();
    await c.callTool('whoami', {});
    // The old AS's refresh token and client never reach the new AS…
    for (const e of m.log) {
      expect(Object.values(e.params)).not.toContain('rt-foreign-222222');
      expect(e.params.client_id).not.toBe('foreign-client');
    }
    // …and the MCP server only ever sees tokens its own AS issued.
    const bearers = m.log.filter((e) => e.path === '/mcp' && e.authorization !== undefined).map((e) => e.authorization);
    expect(bearers.length).toBeGreaterThan(0);
    expect(bearers).not.toContain('Bearer at-foreign-111111');
    expect(m.counters.authorize).toBe(1);
    expect((await store.get('mock'))?.issuer).toBe(m.base);
  });
});
