// clauses: 2026-07-28 (the ids in this file's titles are that revision's numbering; scripts/clause-coverage.mjs)
/**
 * Scopes and refresh tokens in 2026-07-28's authorization (basic/authorization), against the mock
 * AS + protected MCP server (mock-servers/oauth-as.mjs) over real HTTP on 127.0.0.1, whose log of
 * every request it received is the proof: the scope of a 401 challenge is the one authorized,
 * whatever `scopes_supported` says; an AS that issues no refresh token is authorized again when
 * the token expires, never sent a refresh grant.
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
}
interface Mock {
  url: string;
  base: string;
  log: LogEntry[];
  counters: Record<string, number>;
  clients: Map<string, unknown>;
  close(): Promise<void>;
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

/** The headless browser: the mock auto-approves, the redirect's Location carries the code. */
async function follow(url: URL, signal: AbortSignal): Promise<URL> {
  const res = await fetch(url, { redirect: 'manual', signal });
  await res.body?.cancel();
  return new URL(res.headers.get('location')!);
}

async function open(m: Mock, extra: Partial<OAuthProviderOptions> = {}): Promise<McpClient> {
  const authProvider = createOAuthProvider({ serverUrl: m.url, serverKey: 'mock', redirectUri: 'http://127.0.0.1:9/callback', interaction: follow, ...extra });
  const c = await connect({ transport: 'http', url: m.url, id: 'mock' }, { authProvider, timeoutMs: 10_000 });
  clients.push(c);
  return c;
}

const at = (m: Mock, path: string): LogEntry[] => m.log.filter((e) => e.path === path);

describe('the client ID (2026-07-28)', () => {
  it('basic.authorization#11: the client ID comes from pre-registration, a Client ID Metadata Document or DCR, always before the authorization request', async () => {
    const pre = await mock({ authMethods: ['client_secret_basic'] });
    pre.clients.set('pre-1', { secret: 'pre-secret-123', method: 'client_secret_basic' });
    await (await open(pre, { clientId: 'pre-1', clientSecret: 'pre-secret-123' })).listTools();
    const cimd = await mock({ cimd: true });
    await (await open(cimd, { clientMetadataUrl: 'https://client.example/metadata.json' })).listTools();
    const dcr = await mock();
    await (await open(dcr)).listTools();
    expect([pre, cimd, dcr].map((m) => m.counters.register)).toEqual([0, 0, 1]);
    expect([pre, cimd, dcr].map((m) => at(m, '/authorize')[0]?.params.client_id)).toEqual(['pre-1', 'https://client.example/metadata.json', 'client-1']);
    const order = dcr.log.map((e) => e.path).filter((p) => p === '/register' || p === '/authorize');
    expect(order).toEqual(['/register', '/authorize']);
  });
});

describe('scopes and refresh tokens (2026-07-28)', () => {
  it('basic.authorization#36: once authorized, every HTTP request to the MCP server carries the token (POSTs, and whatever else the transport sends, up to the close)', async () => {
    const m = await mock();
    const c = await open(m);
    await c.listTools();
    await c.callTool('whoami', {});
    await c.close();
    const mcp = at(m, '/mcp');
    const first = mcp.findIndex((e) => e.authorization !== undefined);
    expect(first).toBeGreaterThan(0); // the first request was the unauthenticated one the 401 answered
    const after = mcp.slice(first);
    expect(after.length).toBeGreaterThanOrEqual(3);
    for (const e of after) expect(`${e.method} ${e.authorization}`).toMatch(/^\w+ Bearer at-/);
  });

  it('basic.authorization#14: the scope of the 401 challenge is the one asked for, though scopes_supported names none of it', async () => {
    const m = await mock({ challengeScope: 'files:read files:write', scopesSupported: ['profile'] });
    await (await open(m)).listTools();
    const asked = at(m, '/authorize').map((e) => e.params.scope);
    expect(asked).toEqual(['files:read files:write']);
  });

  it('basic.authorization#47: an AS that issues no refresh token: the grant is kept without one, and once the token expires the client authorizes again — no refresh grant is ever sent', async () => {
    const m = await mock({ noRefresh: true, expiresIn: 1 });
    const store = new MemoryTokenStore();
    await (await open(m, { store })).listTools();
    const stored = await store.get('mock');
    expect(stored?.access_token).toEqual(expect.any(String));
    expect(stored?.refresh_token).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 1_500)); // the one-second token has expired
    await (await open(m, { store })).listTools();
    expect(m.counters.refresh).toBe(0);
    // (a slow machine may see the one-second token expire before the first call too: at least two authorizations)
    const grants = at(m, '/token').map((e) => e.params.grant_type);
    expect(grants.length).toBeGreaterThanOrEqual(2);
    expect(new Set(grants)).toEqual(new Set(['authorization_code']));
    expect(at(m, '/authorize').length).toBe(grants.length);
  });
});
