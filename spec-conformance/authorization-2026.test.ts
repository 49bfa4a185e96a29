// clauses: 2026-07-28 (the ids in this file's titles are that revision's numbering; scripts/clause-coverage.mjs)
/**
 * The authorization deltas of 2026-07-28 (clauses-2026-07-28.md ids), against our mock AS +
 * protected MCP server (mock-servers/oauth-as.mjs) over real HTTP on 127.0.0.1: the
 * `application_type` of a dynamic registration (SEP-837), the RFC 9207 `iss` check before the
 * code is redeemed (SEP-2468), and pre-registered credentials bound to their authorization
 * server (SEP-2352). The 2025-11-25 text allows each, so they hold in both eras.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { connect, createOAuthProvider, MemoryTokenStore, type McpClient, type OAuthProviderOptions } from '../src/index.js';
// @ts-expect-error a plain .mjs mock without types
import { startOAuthMock } from '../mock-servers/oauth-as.mjs';

interface LogEntry {
  method: string;
  path: string;
  params: Record<string, string>;
  authorization?: string;
  json?: Record<string, unknown>;
}
interface Mock {
  url: string;
  base: string;
  log: LogEntry[];
  counters: Record<string, number>;
  clients: Map<string, unknown>;
  close(): Promise<void>;
}

const LOOPBACK_REDIRECT = 'http://127.0.0.1:9/callback';

/** The headless browser: the mock auto-approves, the redirect's Location carries the code. */
async function follow(url: URL, signal: AbortSignal): Promise<URL> {
  const res = await fetch(url, { redirect: 'manual', signal });
  await res.body?.cancel();
  return new URL(res.headers.get('location')!);
}

/** The headless browser, the redirect given an `iss` (the mock puts none on it by itself). */
function withIss(iss: () => string) {
  return async (url: URL, signal: AbortSignal): Promise<URL> => {
    const loc = await follow(url, signal);
    loc.searchParams.set('iss', iss());
    return loc;
  };
}

const mocks: Mock[] = [];
const clients: McpClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
  await Promise.all(mocks.splice(0).map((m) => m.close()));
});

async function mock(options: Record<string, unknown> = {}): Promise<Mock> {
  const m = (await startOAuthMock(options)) as Mock;
  mocks.push(m);
  return m;
}

async function open(m: Mock, extra: Partial<OAuthProviderOptions> = {}): Promise<McpClient> {
  const authProvider = createOAuthProvider({ serverUrl: m.url, serverKey: 'mock', redirectUri: LOOPBACK_REDIRECT, interaction: follow, ...extra });
  const c = await connect({ transport: 'http', url: m.url, id: 'mock' }, { authProvider, timeoutMs: 10_000 });
  clients.push(c);
  return c;
}

const at = (m: Mock, path: string): LogEntry[] => m.log.filter((e) => e.path === path);

describe('application_type in dynamic client registration', () => {
  it('basic.authorization.client_registration#16/#17: a client with a loopback redirect registers with application_type "native"', async () => {
    const m = await mock();
    await (await open(m)).listTools();
    const [reg] = at(m, '/register');
    expect(reg.json?.redirect_uris).toEqual([LOOPBACK_REDIRECT]);
    expect(reg.json?.application_type).toBe('native');
  });

  it('basic.authorization.client_registration#16/#18: a client whose redirect is https on a non-local host registers with application_type "web"', async () => {
    const m = await mock();
    await (await open(m, { redirectUri: 'https://app.example.com/oauth/callback' })).listTools();
    const [reg] = at(m, '/register');
    expect(reg.json?.redirect_uris).toEqual(['https://app.example.com/oauth/callback']);
    expect(reg.json?.application_type).toBe('web');
  });

  it('basic.authorization.client_registration#16: an application_type given in the client metadata is the one registered', async () => {
    const m = await mock();
    await (await open(m, { clientMetadata: { client_name: 'x', application_type: 'web' } })).listTools();
    expect(at(m, '/register')[0].json?.application_type).toBe('web');
  });
});

describe('authorization response validation (RFC 9207 iss)', () => {
  it('basic.authorization#22: the AS advertises authorization_response_iss_parameter_supported and the redirect has no iss → refused, the code is not redeemed', async () => {
    const m = await mock({ issParameter: true });
    await expect(open(m)).rejects.toMatchObject({ code: 'MCPWIRE_AUTH_REDIRECT' });
    expect(m.counters.authorize).toBe(1);
    expect(m.counters.token).toBe(0);
  });

  it('basic.authorization#19/#22: advertised and present, identical to the recorded issuer → the code is redeemed', async () => {
    const m = await mock({ issParameter: true });
    await (await open(m, { interaction: withIss(() => m.base) })).listTools();
    expect(m.counters.token).toBe(1);
  });

  it('basic.authorization#22: not advertised, but an iss is present naming another issuer → refused, the code is not redeemed', async () => {
    const m = await mock({ redirectIss: 'https://honest.example' });
    await expect(open(m)).rejects.toMatchObject({ code: 'MCPWIRE_AUTH_REDIRECT' });
    expect(m.counters.token).toBe(0);
  });

  it('basic.authorization#24: an iss that matches the issuer only after normalization (a trailing slash added) is another issuer → refused', async () => {
    const m = await mock({ issParameter: true });
    await expect(open(m, { interaction: withIss(() => `${m.base}/`) })).rejects.toMatchObject({ code: 'MCPWIRE_AUTH_REDIRECT' });
    expect(m.counters.token).toBe(0);
  });
});

describe('client credentials bound to their authorization server', () => {
  it('basic.authorization.client_registration#21/#22/#23, basic.authorization.authorization_server_discovery#3: a pre-registered client last used with another authorization server is not presented to this one; the error says so', async () => {
    const m = await mock({ authMethods: ['client_secret_basic'] });
    m.clients.set('pre-1', { secret: 'pre-secret-123', method: 'client_secret_basic' });
    const store = new MemoryTokenStore();
    // What this client was given by the server's earlier authorization server.
    await store.set('mock', { access_token: 'at-old-as-1111', token_type: 'Bearer', client_id: 'pre-1', expires_at: Date.now() - 1_000, issuer: 'https://old-as.example.test', resource: m.url });
    const err = await open(m, { store, clientId: 'pre-1', clientSecret: 'pre-secret-123' }).then(
      () => undefined,
      (e: unknown) => e as { code?: string; message?: string },
    );
    expect(err?.code).toBe('MCPWIRE_AUTH_ISSUER_MISMATCH');
    expect(err?.message).toContain('https://old-as.example.test');
    expect(err?.message).not.toContain('pre-secret-123');
    expect(m.counters.authorize).toBe(0);
    expect(m.counters.token).toBe(0);
  });

  it('basic.authorization.client_registration#21: the same pre-registered client with the authorization server it was used with goes on as before', async () => {
    const m = await mock({ authMethods: ['client_secret_basic'] });
    m.clients.set('pre-1', { secret: 'pre-secret-123', method: 'client_secret_basic' });
    const store = new MemoryTokenStore();
    await store.set('mock', { access_token: 'at-expired-2222', token_type: 'Bearer', client_id: 'pre-1', expires_at: Date.now() - 1_000, issuer: m.base, resource: m.url });
    await (await open(m, { store, clientId: 'pre-1', clientSecret: 'pre-secret-123' })).listTools();
    expect(m.counters.register).toBe(0);
    expect(at(m, '/authorize')[0].params.client_id).toBe('pre-1');
    expect((await store.get('mock'))?.issuer).toBe(m.base);
  });
});
