/**
 * How a grant was obtained is kept with it (`StoredGrant.grant_kind`) and shown by `mcpwire login`
 * and `mcpwire auth status`: the provider records authorization_code, client_credentials,
 * jwt-bearer (workload identity) and id-jag (enterprise-managed: an IdP's ID-JAG from an RFC 8693
 * token exchange, redeemed with jwt-bearer); a refresh keeps it. The CLI is driven as a child
 * process (`npm run build` first) against the mock AS on 127.0.0.1 with a workload identity.
 */
import fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { idJagAssertion } from '../../src/auth/id-jag.js';
import { MemoryTokenStore } from '../../src/auth/memory-store.js';
import { createOAuthProvider } from '../../src/auth/provider.js';
import type { OAuthProviderOptions } from '../../src/auth/types.js';
import { cleanup, run, sandbox, writeJson } from '../support/cli-user.js';
// @ts-expect-error a plain .mjs mock without types
import { startOAuthMock } from '../../mock-servers/oauth-as.mjs';

interface Mock {
  url: string;
  log: { path: string; params: Record<string, string> }[];
  expireAll(): void;
  close(): Promise<void>;
}

const mocks: Mock[] = [];
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(mocks.splice(0).map((m) => m.close()));
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});
afterAll(cleanup);

async function mock(options: Record<string, unknown> = {}): Promise<Mock> {
  const m = (await startOAuthMock(options)) as Mock;
  mocks.push(m);
  return m;
}

async function follow(url: URL, signal: AbortSignal): Promise<URL> {
  const res = await fetch(url, { redirect: 'manual', signal });
  await res.body?.cancel();
  return new URL(res.headers.get('location')!);
}

/** An enterprise IdP's token endpoint on 127.0.0.1: exchanges any ID token for an ID-JAG. */
async function startIdp(): Promise<string> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ access_token: 'jag-from-idp.p.s', issued_token_type: 'urn:ietf:params:oauth:token-type:id-jag', token_type: 'N_A' }));
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
}

async function storedKind(m: Mock, extra: Partial<OAuthProviderOptions>): Promise<string | undefined> {
  const store = new MemoryTokenStore();
  const p = createOAuthProvider({ serverUrl: m.url, serverKey: 'mock', store, ...extra });
  await p.authorize();
  return (await store.get('mock'))?.grant_kind;
}

describe('the grant kind is kept with the grant', () => {
  it('authorization_code, client_credentials, jwt-bearer and id-jag are recorded as such', async () => {
    const m = await mock();
    expect(await storedKind(m, { redirectUri: 'http://127.0.0.1:9/callback', interaction: follow })).toBe('authorization_code');
    expect(await storedKind(m, { grantType: 'client_credentials' })).toBe('client_credentials');
    expect(await storedKind(m, { grantType: 'jwt-bearer', assertion: async () => 'jag-workload.p.s' })).toBe('jwt-bearer');
    const idp = await startIdp();
    const assertion = idJagAssertion({ idpTokenEndpoint: idp, idpClientId: 'mcpwire', idToken: 'id-token.p.s' });
    expect(await storedKind(m, { grantType: 'jwt-bearer', assertion })).toBe('id-jag');
    // The AS got the ID-JAG with the jwt-bearer grant.
    expect(m.log.filter((e) => e.path === '/token').at(-1)?.params).toMatchObject({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: 'jag-from-idp.p.s' });
  });

  it('a refresh keeps the grant kind', async () => {
    const m = await mock({ rotate: true });
    const store = new MemoryTokenStore();
    const p = createOAuthProvider({ serverUrl: m.url, serverKey: 'mock', store, redirectUri: 'http://127.0.0.1:9/callback', interaction: follow });
    const first = await p.authorize();
    m.expireAll();
    expect(await p.onUnauthorized({ status: 401, wwwAuthenticate: 'Bearer error="invalid_token"', sentAuthorization: `Bearer ${first.access_token}` }, 0)).toBe(true);
    const after = await store.get('mock');
    expect(after?.access_token).not.toBe(first.access_token);
    expect(after?.grant_kind).toBe('authorization_code');
  });
});

describe('mcpwire login / auth status show the grant kind and the binding', { timeout: 120_000 }, () => {
  it('a workload identity (oauth.assertion_file): jwt-bearer (workload identity), a Bearer token; text and --json', async () => {
    const m = await mock();
    const sb = sandbox();
    fs.writeFileSync(path.join(sb.proj, 'platform.jwt'), 'jag-platform.p.s');
    writeJson(sb.globalFile, { version: 1, mcp: { servers: { wl: { transport: 'http', url: m.url, oauth: { assertion_file: path.join(sb.proj, 'platform.jwt') } } } } });
    const login = await run(sb, ['login', 'wl']);
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toContain('grant: jwt-bearer (workload identity); token: bearer');
    const json = await run(sb, ['login', 'wl', '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ id: 'wl', grant: 'jwt-bearer', sender_constrained: null });
    const st = await run(sb, ['auth', 'status', '--json']);
    expect(JSON.parse(st.stdout).servers[0]).toMatchObject({ id: 'wl', state: 'valid', grant: 'jwt-bearer', sender_constrained: null });
    const text = await run(sb, ['auth', 'status']);
    expect(text.stdout).toMatch(/wl\s+valid\s+jwt-bearer \(workload identity\)\s+bearer/);
    for (const out of [login.stdout, json.stdout, st.stdout, text.stdout]) expect(out).not.toContain('jag-platform');
  });
});
