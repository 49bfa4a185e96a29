/**
 * OAuth in the host (src/host/oauth.ts) against the mock AS + MCP endpoint
 * (mock-servers/oauth-as.mjs) on 127.0.0.1: a 401 from a server that offers nothing to log in
 * to, and the login the host runs itself (`auth.autoLogin`) through its confirm and browser hooks.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryTokenStore } from '../../src/auth/memory-store.js';
import type { OAuthSettings, ResolvedServer } from '../../src/host/config/types.js';
import { connectionAuthProvider } from '../../src/host/oauth.js';
import { createHost, type HostOptions, type McpHost as Host } from '../../src/host/host.js';
// @ts-expect-error a plain .mjs mock without types
import { startOAuthMock } from '../../mock-servers/oauth-as.mjs';

interface Mock {
  url: string;
  counters: Record<string, number>;
  close(): Promise<void>;
}

const mocks: Mock[] = [];
const hosts: Host[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
  await Promise.all(mocks.splice(0).map((m) => m.close()));
});

async function mock(options: Record<string, unknown> = {}): Promise<Mock> {
  const m = (await startOAuthMock(options)) as Mock;
  mocks.push(m);
  return m;
}

function server(url: string, oauth?: OAuthSettings): ResolvedServer {
  return {
    id: 'secure',
    source: 'global',
    file: '/nonexistent/config.json',
    enabled: true,
    transport: 'http',
    config: { args: [], env: {}, headers: {}, url, requestTimeoutMs: 30_000, legacySse: false, permissions: { allow: [], deny: [] }, ...(oauth ? { oauth } : {}) },
  };
}

async function started(s: ResolvedServer, auth: HostOptions['auth']): Promise<Host> {
  const host = createHost([s], { backoff: { maxRetries: 0 }, permission: 'allow', auth });
  hosts.push(host);
  await host.start();
  return host;
}

/** The embedding host's browser: the mock approves; following its redirect reaches the loopback receiver. */
function browser(opened: string[]) {
  return async (url: URL): Promise<void> => {
    opened.push(url.href);
    const res = await fetch(url, { redirect: 'manual' });
    await res.body?.cancel();
    const back = await fetch(res.headers.get('location')!);
    await back.body?.cancel();
  };
}

describe('a 401 with nothing to log in to', () => {
  it('no protected resource metadata and no AS metadata → a connection error naming the 401 and the missing discovery, not auth_required', async () => {
    const m = await mock({ noPrm: true, noMetadata: true });
    const host = await started(server(m.url), { store: new MemoryTokenStore() });
    const st = host.serverStatus('secure')!;
    expect(st.state).toBe('error');
    expect(st.lastError).toMatch(/401/);
    expect(st.lastError).toMatch(/no OAuth discovery/);
    expect(st.lastError).toMatch(/header or a pre-registered client/);
    expect(m.counters.register + m.counters.authorize).toBe(0);
  });

  it('the same server with a pre-registered client configured stays auth_required (a login can use the default endpoints)', async () => {
    const m = await mock({ noPrm: true, noMetadata: true });
    const host = await started(server(m.url, { clientId: 'pre-registered' }), { store: new MemoryTokenStore() });
    expect(host.serverStatus('secure')!.state).toBe('auth_required');
  });

  it('a server with metadata is auth_required', async () => {
    const m = await mock();
    const host = await started(server(m.url), { store: new MemoryTokenStore() });
    expect(host.serverStatus('secure')!.state).toBe('auth_required');
  });
});

describe('auth.autoLogin', { timeout: 60_000 }, () => {
  it('logs in on auth_required through confirmLogin and openBrowser, and the connection becomes ready', async () => {
    const m = await mock();
    const opened: string[] = [];
    const asked: unknown[] = [];
    const store = new MemoryTokenStore();
    const host = await started(server(m.url), {
      store,
      autoLogin: true,
      confirmLogin: (info) => (asked.push(info), true),
      openBrowser: browser(opened),
    });
    expect(host.serverStatus('secure')!.state).toBe('ready');
    expect(asked).toEqual([{ serverId: 'secure', url: m.url }]);
    expect(opened).toHaveLength(1);
    expect((await store.get('secure'))?.access_token).toBeDefined();
    expect(host.tools().map((t) => t.server)).toContain('secure');
  });

  it('basic.authorization#64: a 403 insufficient_scope logs in again with the held and the challenged scopes, and the call is replayed', async () => {
    const m = await mock({ callScope: 'mcp:admin', scopesSupported: ['mcp:read'] });
    const asked: unknown[] = [];
    const host = await started(server(m.url), { store: new MemoryTokenStore(), autoLogin: true, confirmLogin: (info) => (asked.push(info), true), openBrowser: browser([]) });
    expect(host.serverStatus('secure')!.state).toBe('ready');
    const tool = host.tools().find((t) => t.server === 'secure')!;
    const r = await host.callTool(tool.name, {});
    expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
    expect(JSON.stringify(r.content)).toContain('mcp:admin');
    expect(asked).toHaveLength(2);
    const scopes = (m as unknown as { log: { path: string; params: Record<string, string> }[] }).log.filter((e) => e.path === '/authorize').map((e) => e.params.scope);
    expect(scopes).toEqual(['mcp:read', 'mcp:read mcp:admin']);
  });

  it('a declined confirmation leaves the server auth_required and opens nothing', async () => {
    const m = await mock();
    const opened: string[] = [];
    const host = await started(server(m.url), { store: new MemoryTokenStore(), autoLogin: true, confirmLogin: () => false, openBrowser: browser(opened) });
    expect(host.serverStatus('secure')!.state).toBe('auth_required');
    expect(opened).toEqual([]);
    expect(m.counters.authorize).toBe(0);
  });

  it('the config\'s oauth.auto_login: false wins over the host\'s autoLogin', async () => {
    const m = await mock();
    const opened: string[] = [];
    const host = await started(server(m.url, { autoLogin: false }), { store: new MemoryTokenStore(), autoLogin: true, openBrowser: browser(opened) });
    expect(host.serverStatus('secure')!.state).toBe('auth_required');
    expect(opened).toEqual([]);
  });

  it('the tokens of an automatic login reach the connection\'s secret listeners (for the trace\'s redaction)', async () => {
    const m = await mock();
    const store = new MemoryTokenStore();
    const p = connectionAuthProvider(server(m.url), { store, autoLogin: true, openBrowser: browser([]) }, store);
    const heard: string[] = [];
    p.onSecrets((v) => heard.push(...v));
    expect(await p.onUnauthorized({ status: 401, wwwAuthenticate: 'Bearer realm="mcp"' }, 0)).toBe(true);
    const g = (await store.get('secure'))!;
    expect(heard).toContain(g.access_token);
    expect(heard).toContain(g.refresh_token);
    expect(p.secrets()).toContain(g.access_token);
    expect((await p.headers()).authorization).toBe(`Bearer ${g.access_token}`);
  });

  it('a DPoP nonce the server asks for is answered without a login, also for a grant with no refresh token (RFC 9449 §9)', async () => {
    const m = await mock({ dpop: true, rsNonce: true, noRefresh: true });
    const opened: string[] = [];
    const store = new MemoryTokenStore();
    const s = server(m.url, { dpop: true });
    const host = createHost([s], { backoff: { maxRetries: 0 }, permission: 'allow', auth: { store, openBrowser: browser(opened) } });
    hosts.push(host);
    await host.start();
    expect(host.serverStatus('secure')!.state).toBe('auth_required');
    expect((await host.login('secure')).state).toBe('ready');
    expect((await store.get('secure'))?.refresh_token).toBeUndefined();
    expect(opened).toHaveLength(1);
  });
});
