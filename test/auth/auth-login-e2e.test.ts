/**
 * OAuth end to end against a REAL authorization server (oidc-provider, in this process on
 * 127.0.0.1: DCR, PKCE S256, resource indicators, refresh-token rotation, revocation) in front of
 * a protected MCP server that checks every token by introspection (test/support/oidc-*.ts).
 *
 * CLI (child processes on dist/, `npm run build` first; own HOME/XDG_CONFIG_HOME/config):
 * `status` shows auth_required and the command to run → `login --no-browser` (the test is the
 * user's browser: it approves the interaction and pastes the redirect on stdin) → `call` →
 * the access token expires → two processes refresh at once, one refresh reaches the AS, the
 * refresh token rotates → the server rejects a token → transparent refresh and replay →
 * `auth status` → `logout` revokes (RFC 7009) and deletes. No token, refresh token, code or
 * client secret appears in any output.
 *
 * Host (in process): a server in auth_required becomes ready after `host.login(id)` without a
 * restart of the host, and a rejected token is refreshed under a running call.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileTokenStore } from '../../src/auth/file-store.js';
import type { StoredGrant } from '../../src/auth/types.js';
import { createHost } from '../../src/host/host.js';
import type { ResolvedServer } from '../../src/host/config/types.js';
import { loginSandboxes, type LoginSandbox } from '../support/login-sandbox.js';
import { startTestAs, type TestAs } from '../support/oidc-as.js';
import { startTestMcpServer, type TestMcpServer } from '../support/oidc-mcp-server.js';

const SCOPE = 'mcp:tools';

let as: TestAs;
let mcp: TestMcpServer;
/** Sandboxes and every CLI output, for the leak check at the end. */
const machines = loginSandboxes('mcpwire-oauth-e2e-');
const { outputs, run } = machines;
/** Every secret value seen (tokens, refresh tokens, codes, client secrets). */
const secrets = new Set<string>();

beforeAll(async () => {
  const m = await startTestMcpServer();
  as = await startTestAs({ resources: { [m.url]: SCOPE } });
  m.configure({ issuer: as.issuer, introspector: as.introspector, scope: SCOPE });
  mcp = m;
});
afterAll(async () => {
  await as?.close();
  await mcp?.close();
  machines.cleanup();
});

/** The protected MCP server as a resolved HTTP server with `oauth` config, and a token store of its own folder. */
function securedServer(id: string, prefix: string, oauth: ResolvedServer['config']['oauth']): { store: FileTokenStore; server: ResolvedServer } {
  const dir = machines.tempDir(prefix);
  const config = { args: [], env: {}, headers: {}, url: mcp.url, requestTimeoutMs: 30_000, legacySse: false, permissions: { allow: [], deny: [] }, oauth };
  return { store: new FileTokenStore(path.join(dir, 'mcp-auth.json')), server: { id, source: 'global', file: path.join(dir, 'config.json'), enabled: true, transport: 'http', config } };
}

const sandbox = () => machines.sandbox();

function readGrant(sb: LoginSandbox): StoredGrant {
  const g = JSON.parse(fs.readFileSync(sb.authFile, 'utf8')).servers.secure as StoredGrant;
  for (const v of [g.access_token, g.refresh_token, g.client_secret]) if (v) secrets.add(v);
  return g;
}

async function introspect(token: string): Promise<{ active: boolean }> {
  const res = await fetch(`${as.issuer}/token/introspection`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${as.introspector.id}:${as.introspector.secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token }),
  });
  return (await res.json()) as { active: boolean };
}

describe('mcpwire login / call / refresh / auth status / logout against oidc-provider', { timeout: 240_000 }, () => {
  let sb: LoginSandbox;

  it('status shows auth_required and names the next command (basic.authorization#18)', async () => {
    sb = sandbox();
    const add = await run(sb, ['mcp', 'add', 'secure', '--scope', 'global', '--transport', 'http', '--url', mcp.url, '--oauth-scope', SCOPE]);
    expect(add.code, add.stderr).toBe(0);
    const json = await run(sb, ['status', '--json']);
    expect(json.code, json.stderr).toBe(0);
    const [row] = JSON.parse(json.stdout) as { id: string; state: string; next: string | null }[];
    expect(row).toMatchObject({ id: 'secure', state: 'auth_required', next: 'mcpwire login secure' });
    const text = await run(sb, ['status']);
    expect(text.stdout).toContain('auth_required');
    expect(text.stdout).toContain('run "mcpwire login secure"');
    // Nothing was registered at the AS just to find out (no interaction possible in `status`).
    expect(as.counts.registrations).toBe(0);
    const st = await run(sb, ['auth', 'status', '--json']);
    expect(JSON.parse(st.stdout).servers).toEqual([{ id: 'secure', state: 'none', scopes: [], expires_at: null, refreshable: false, client: null, issuer: null, grant: null, sender_constrained: null }]);
  });

  it('login --no-browser: prints the URL, takes the pasted redirect, stores the grant 0600 (basic.authorization#40, #70, #75, #76)', async () => {
    let pasted = false;
    let authUrl: URL | undefined;
    const login = await run(sb, ['login', 'secure', '--no-browser'], (text, stdin) => {
      const m = /(http:\/\/127\.0\.0\.1:\d+\/auth\?\S+)/.exec(text);
      if (!m || pasted) return;
      pasted = true;
      authUrl = new URL(m[1]);
      void as.approve(authUrl).then((redirect) => {
        secrets.add(redirect.searchParams.get('code')!);
        stdin.write(`${redirect.href}\n`);
      });
    });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toMatch(/logged in to "secure" \(scope: [^)]*mcp:tools[^)]*\), expires \d{4}-/);
    expect(login.stdout).toContain('grant: authorization_code; token: bearer');
    // The authorization request: PKCE S256, state, the resource indicator, a loopback redirect URI.
    expect(authUrl!.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authUrl!.searchParams.get('resource')).toBe(mcp.url);
    expect(authUrl!.searchParams.get('state')).toBeTruthy();
    expect(authUrl!.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(as.counts).toMatchObject({ codeGrants: 1, registrations: 1 });
    if (process.platform !== 'win32') expect(fs.statSync(sb.authFile).mode & 0o777).toBe(0o600);
    const g = readGrant(sb);
    expect(g).toMatchObject({ token_type: expect.stringMatching(/^bearer$/i), resource: mcp.url, issuer: as.issuer });
    expect(g.refresh_token).toBeTruthy();
    expect(g.client_id).toBeTruthy();
    expect(g.expires_at).toBeGreaterThan(Date.now());
  });

  it('a second login reuses the registered client although the loopback port changed (RFC 8252 §7.3: application_type native)', async () => {
    const before = readGrant(sb);
    const registrations = as.counts.registrations;
    const codeGrants = as.counts.codeGrants;
    let pasted = false;
    let redirectUri = '';
    const login = await run(sb, ['login', 'secure', '--no-browser'], (text, stdin) => {
      const m = /(http:\/\/127\.0\.0\.1:\d+\/auth\?\S+)/.exec(text);
      if (!m || pasted) return;
      pasted = true;
      redirectUri = new URL(m[1]).searchParams.get('redirect_uri')!;
      void as.approve(m[1]).then((redirect) => {
        secrets.add(redirect.searchParams.get('code')!);
        stdin.write(`${redirect.href}\n`);
      });
    });
    expect(login.code, login.stderr).toBe(0);
    expect(as.counts.registrations).toBe(registrations);
    expect(as.counts.codeGrants).toBe(codeGrants + 1);
    const after = readGrant(sb);
    expect(after.client_id).toBe(before.client_id);
    expect(after.access_token).not.toBe(before.access_token);
    expect(redirectUri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
  });

  it('call uses the stored token; status is ready; auth status shows scopes/expiry/client kind, never a secret', async () => {
    const call = await run(sb, ['call', 'secure', 'whoami']);
    expect(call.code, call.stderr).toBe(0);
    expect(call.stdout).toContain('subject=alice');
    expect(call.stdout).toContain(`scope=${SCOPE}`);
    const status = await run(sb, ['status', '--json']);
    expect(JSON.parse(status.stdout)[0]).toMatchObject({ state: 'ready', tools: 1, next: null });
    const st = await run(sb, ['auth', 'status', '--json']);
    const row = JSON.parse(st.stdout).servers[0];
    expect(row).toMatchObject({ id: 'secure', state: 'valid', refreshable: true, client: 'registered', issuer: as.issuer });
    expect(row.scopes).toContain(SCOPE);
    expect(Date.parse(row.expires_at)).toBeGreaterThan(Date.now());
    const text = await run(sb, ['auth', 'status']);
    expect(text.stdout).toMatch(/secure\s+valid\s+authorization_code\s+bearer\s+mcp:tools/);
    expect(row).toMatchObject({ grant: 'authorization_code', sender_constrained: null });
  });

  it('check of a configured server uses its stored grant: the lifecycle checks pass instead of stopping at 401', async () => {
    const res = await run(sb, ['check', 'secure', '--json', '--only', 'lifecycle']);
    const out = JSON.parse(res.stdout) as { servers: { id: string; report: { summary: { pass: number; fail: number; error: number }; results: { id: string; status: string; detail?: string; evidence?: string }[] } }[] };
    const report = out.servers[0].report;
    expect(report.summary.pass, JSON.stringify(report.results.filter((r) => r.status !== 'pass'))).toBeGreaterThan(0);
    expect(report.summary.error).toBe(0);
    expect(report.results.find((r) => r.id === 'lifecycle.initialize-result'), JSON.stringify(report.results)).toMatchObject({ status: 'pass' });
    // The words of a refusal, not the digits: the server's random port may hold "401".
    const said = [res.stderr, ...report.results.map((r) => `${r.detail ?? ''} ${r.evidence ?? ''}`)].join('\n');
    expect(said).not.toMatch(/\b401\b|auth_required|unauthori[sz]ed/i);
  });

  it('expired access token: two processes refresh at once, ONE refresh reaches the AS, the refresh token rotates (basic.authorization#70, OAuth 2.1 §4.3.1)', async () => {
    const before = readGrant(sb);
    const refreshes = as.counts.refreshes;
    const store = new FileTokenStore(sb.authFile);
    await store.set('secure', { ...before, expires_at: Date.now() - 1_000 });
    const [a, b] = await Promise.all([run(sb, ['call', 'secure', 'whoami']), run(sb, ['call', 'secure', 'whoami'])]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    expect(as.counts.refreshes - refreshes).toBe(1);
    expect(as.counts.refreshFailures).toBe(0);
    const after = readGrant(sb);
    expect(after.access_token).not.toBe(before.access_token);
    expect(after.refresh_token).toBeTruthy();
    expect(after.refresh_token).not.toBe(before.refresh_token);
    expect(after.expires_at).toBeGreaterThan(Date.now());
    // The rotated-out refresh token is dead at the AS.
    expect((await introspect(before.refresh_token!)).active).toBe(false);
  });

  it('a token the server rejects (401 invalid_token) is refreshed and the request replayed', async () => {
    const before = readGrant(sb);
    const refreshes = as.counts.refreshes;
    mcp.expireTokens();
    const call = await run(sb, ['call', 'secure', 'whoami']);
    expect(call.code, call.stderr).toBe(0);
    expect(call.stdout).toContain('subject=alice');
    expect(as.counts.refreshes - refreshes).toBe(1);
    expect(readGrant(sb).access_token).not.toBe(before.access_token);
  });

  it('logout revokes at the AS (RFC 7009) and deletes; the server is auth_required again', async () => {
    const g = readGrant(sb);
    const revocations = as.counts.revocations;
    const out = await run(sb, ['logout', 'secure']);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain('revoked at the authorization server (refresh_token, access_token)');
    expect(out.stdout).toContain('run "mcpwire login secure" to authorize again');
    expect(as.counts.revocations - revocations).toBe(2);
    expect((await introspect(g.access_token)).active).toBe(false);
    expect((await introspect(g.refresh_token!)).active).toBe(false);
    expect(JSON.parse(fs.readFileSync(sb.authFile, 'utf8')).servers).toEqual({});
    const again = await run(sb, ['logout', 'secure']);
    expect(again.stdout).toContain('not logged in');
    const status = await run(sb, ['status', '--json']);
    expect(JSON.parse(status.stdout)[0]).toMatchObject({ state: 'auth_required', next: 'mcpwire login secure' });
  });

  it('login (browser mode): prints the URL, hands it to the platform opener, the loopback receiver takes the redirect (basic.authorization#75)', async () => {
    const bin = path.join(sb.dir, 'bin');
    const opened = path.join(sb.dir, 'opened.txt');
    fs.mkdirSync(bin, { recursive: true });
    fs.writeFileSync(path.join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s' "$1" > ${JSON.stringify(opened)}\n`, { mode: 0o755 });
    const env = { ...sb.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` };
    delete (env as Record<string, string | undefined>).MCPWIRE_NO_BROWSER;
    let browsed = false;
    const login = await run({ ...sb, env }, ['login', 'secure'], (text) => {
      const m = /(http:\/\/127\.0\.0\.1:\d+\/auth\?\S+)/.exec(text);
      if (!m || browsed) return;
      browsed = true;
      // The user's browser: approve, then follow the redirect to the CLI's loopback receiver.
      void as.approve(m[1]).then(async (redirect) => {
        secrets.add(redirect.searchParams.get('code')!);
        const res = await fetch(redirect);
        expect(res.status).toBe(200);
      });
    });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toContain('logged in to "secure"');
    if (process.platform === 'linux') expect(fs.readFileSync(opened, 'utf8')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/auth\?/);
    readGrant(sb);
    const call = await run(sb, ['call', 'secure', 'whoami']);
    expect(call.stdout).toContain('subject=alice');
  });

  it('login never fails for want of a browser opener', async () => {
    const env = { ...sb.env, PATH: path.join(sb.dir, 'empty-bin') };
    delete (env as Record<string, string | undefined>).MCPWIRE_NO_BROWSER;
    let browsed = false;
    const login = await run({ ...sb, env }, ['login', 'secure'], (text) => {
      const m = /(http:\/\/127\.0\.0\.1:\d+\/auth\?\S+)/.exec(text);
      if (!m || browsed) return;
      browsed = true;
      void as.approve(m[1]).then(async (redirect) => {
        secrets.add(redirect.searchParams.get('code')!);
        await fetch(redirect);
      });
    });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toContain('could not start a browser; open the URL above yourself');
    readGrant(sb);
  });

  it('a corrupt token store is reported naming the file and is left as it is', async () => {
    fs.writeFileSync(sb.authFile, '{"version":1,"servers":');
    const st = await run(sb, ['auth', 'status']);
    expect(st.code).toBe(1);
    expect(st.stderr).toContain(sb.authFile);
    expect(st.stderr).toContain('MCPWIRE_TOKEN_STORE_CORRUPT');
    expect(fs.readFileSync(sb.authFile, 'utf8')).toBe('{"version":1,"servers":');
  });

  it('no token, refresh token, code or client secret in any output', () => {
    for (const t of mcp.tokensSeen) secrets.add(t);
    expect(secrets.size).toBeGreaterThan(5);
    for (const s of secrets) for (const o of outputs) expect(o.includes(s), 'a secret was printed').toBe(false);
  });
});

describe('host.login: auth_required → ready without restarting the host; refresh under running calls', { timeout: 120_000 }, () => {
  it('logs in through the loopback receiver, calls, survives a rejected token, logs out', async () => {
    const { store, server } = securedServer('secure', 'mcpwire-oauth-host-', { scope: SCOPE });
    const opened: string[] = [];
    const host = createHost([server], {
      backoff: { maxRetries: 0 },
      permission: 'allow',
      auth: {
        store,
        // The embedding host's browser: approve at the AS, then follow the redirect to the loopback receiver.
        openBrowser: async (url: URL) => {
          opened.push(url.href);
          const back = await as.approve(url);
          expect(back.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
          await fetch(back);
        },
      },
    });
    try {
      await host.start();
      expect(host.serverStatus('secure')?.state).toBe('auth_required');
      const status = await host.login('secure');
      expect(status.state).toBe('ready');
      expect(opened).toHaveLength(1);
      const tool = host.tools().find((t) => t.server === 'secure');
      expect(tool).toBeDefined();
      let r = await host.callTool(tool!.name, {});
      expect(r.isError).toBeFalsy();
      expect(JSON.stringify(r.content)).toContain('subject=alice');
      // The server starts rejecting the token: the running host refreshes and replays.
      const refreshes = as.counts.refreshes;
      const before = (await store.get('secure'))!.access_token;
      mcp.expireTokens();
      r = await host.callTool(tool!.name, {});
      expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
      expect(as.counts.refreshes - refreshes).toBe(1);
      expect((await store.get('secure'))!.access_token).not.toBe(before);
      expect(host.serverStatus('secure')?.state).toBe('ready');
      const out = await host.logout('secure');
      expect(out.revocation?.result).toBe('revoked');
      expect(await store.get('secure')).toBeUndefined();
      expect(host.serverStatus('secure')?.state).toBe('auth_required');
    } finally {
      await host.close();
    }
  });
});

describe('config oauth fields: pre-registered client and explicit endpoints (basic.authorization#37)', { timeout: 120_000 }, () => {
  it('client_id/client_secret/scope and token_url from the config are what the flow uses; no registration', async () => {
    // The query marks requests that went to the configured URL instead of the discovered one.
    const oauth = { clientId: as.preRegistered.id, clientSecret: as.preRegistered.secret, scope: SCOPE, tokenUrl: `${as.issuer}/token?via=config` };
    const { store, server } = securedServer('prereg', 'mcpwire-oauth-prereg-', oauth);
    const registrations = as.counts.registrations;
    const host = createHost([server], {
      backoff: { maxRetries: 0 },
      auth: { store, openBrowser: async (url: URL) => void (await fetch(await as.approve(url))) },
    });
    try {
      await host.start();
      expect(host.serverStatus('prereg')?.state).toBe('auth_required');
      expect((await host.login('prereg')).state).toBe('ready');
      expect(as.counts.registrations).toBe(registrations);
      expect(as.requests.some((r) => r.startsWith('POST /token?via=config'))).toBe(true);
      const g = (await store.get('prereg'))!;
      expect(g.client_id).toBe(as.preRegistered.id);
      const { authStatusRows } = await import('../../src/host/oauth.js');
      expect((await authStatusRows([server], store))[0]).toMatchObject({ state: 'valid', client: 'pre-registered' });
    } finally {
      await host.close();
    }
  });
});
