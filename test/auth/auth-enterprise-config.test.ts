/**
 * Enterprise-managed authorization from the config (`oauth.enterprise`): a host whose config
 * names the enterprise IdP's token endpoint, the client there and where the user's ID token
 * comes from connects with no login — the ID token is exchanged at the IdP for an ID-JAG
 * (RFC 8693), which buys the access token at the MCP server's AS with the jwt-bearer grant
 * (RFC 7523). Real sockets on 127.0.0.1: an IdP token endpoint here and the mock AS + protected
 * MCP endpoint (mock-servers/oauth-as.mjs).
 */
import fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryTokenStore } from '../../src/auth/memory-store.js';
import { loadConfig } from '../../src/host/config/load.js';
import { validateServerEntry } from '../../src/host/config/schema.js';
import { createHost, type McpHost } from '../../src/host/host.js';
import { authStatusRows } from '../../src/host/oauth.js';
// @ts-expect-error a plain .mjs mock without types
import { startOAuthMock } from '../../mock-servers/oauth-as.mjs';

interface Mock {
  url: string;
  log: { path: string; params: Record<string, string> }[];
  expireAll(): void;
  close(): Promise<void>;
}

const dirs: string[] = [];
const hosts: McpHost[] = [];
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
  await Promise.all(closers.splice(0).map((c) => c()));
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function tmp(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-idjag-'));
  dirs.push(d);
  return d;
}

/** The IdP's token endpoint: records each token exchange and answers with a new ID-JAG (`jag-…`: what the mock AS redeems). */
async function startIdp(): Promise<{ url: string; requests: Record<string, string>[] }> {
  const requests: Record<string, string>[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      requests.push(Object.fromEntries(new URLSearchParams(body)));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ access_token: `jag-idp-${requests.length}.payload.signature`, issued_token_type: 'urn:ietf:params:oauth:token-type:id-jag', token_type: 'N_A' }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => new Promise((r) => server.close(r)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`, requests };
}

describe('oauth.enterprise: enterprise-managed authorization configured only by the config file', () => {
  it('the host connects with no login (ID token → ID-JAG at the IdP → jwt-bearer at the AS), the grant is id-jag, the ID token file is re-read, and no secret reaches the trace', async () => {
    const m = (await startOAuthMock({})) as Mock;
    closers.push(() => m.close());
    const idp = await startIdp();
    const dir = tmp();
    fs.writeFileSync(path.join(dir, 'id.jwt'), 'user-id-token-one.payload.sig\n');
    const enterprise = { idp_token_url: idp.url, client_id: 'mcpwire-at-idp', client_secret: 'idp-client-secret-7f3a', id_token_file: 'id.jwt' };
    const configFile = path.join(dir, 'config.json');
    fs.writeFileSync(configFile, JSON.stringify({ version: 1, mcp: { servers: { corp: { transport: 'http', url: m.url, oauth: { enterprise } } } } }));
    const loaded = await loadConfig({ globalPath: configFile, projectPath: path.join(dir, 'none.json'), cwd: dir, env: {} });
    expect(loaded.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);

    const store = new MemoryTokenStore();
    const trace = path.join(dir, 'trace.jsonl');
    const host = createHost(loaded.servers, { backoff: { maxRetries: 0 }, permission: 'allow', auth: { store }, clientOptions: { trace } });
    hosts.push(host);
    await host.start();
    expect(host.serverStatus('corp')!.state, host.serverStatus('corp')!.lastError).toBe('ready');

    // The IdP got the ID token for an ID-JAG naming the AS (audience) and the MCP server (resource).
    expect(idp.requests).toHaveLength(1);
    expect(idp.requests[0]).toMatchObject({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      requested_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
      subject_token: 'user-id-token-one.payload.sig',
      subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
      client_id: 'mcpwire-at-idp',
      client_secret: 'idp-client-secret-7f3a',
      resource: m.url,
    });
    const tokenCalls = () => m.log.filter((e) => e.path === '/token').map((e) => [e.params.grant_type, e.params.assertion]);
    expect(tokenCalls()).toEqual([['urn:ietf:params:oauth:grant-type:jwt-bearer', 'jag-idp-1.payload.signature']]);
    expect((await store.get('corp'))?.grant_kind).toBe('id-jag');
    expect((await authStatusRows(loaded.servers, store))[0]).toMatchObject({ id: 'corp', state: 'valid', grant: 'id-jag' });

    // A rejected token is replaced without anyone: the ID token file is read afresh.
    fs.writeFileSync(path.join(dir, 'id.jwt'), 'user-id-token-two.payload.sig');
    m.expireAll();
    const tool = host.tools().find((t) => t.server === 'corp')!;
    const r = await host.callTool(tool.name, {});
    expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
    expect(idp.requests.map((q) => q.subject_token)).toEqual(['user-id-token-one.payload.sig', 'user-id-token-two.payload.sig']);
    expect(tokenCalls().map((c) => c[1])).toEqual(['jag-idp-1.payload.signature', 'jag-idp-2.payload.signature']);

    const accessToken = (await store.get('corp'))!.access_token;
    await host.close();
    const text = fs.readFileSync(trace, 'utf8');
    expect(text).toContain('tools/call');
    for (const secret of ['user-id-token-one', 'user-id-token-two', 'idp-client-secret-7f3a', 'jag-idp-1', 'jag-idp-2', accessToken]) expect(text).not.toContain(secret);
    expect(JSON.stringify(host.serverStatus('corp'))).not.toContain('idp-client-secret');
  });
});

describe('oauth.enterprise validation: diagnostics name the field', () => {
  const entry = (enterprise: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    transport: 'http',
    url: 'https://mcp.example/mcp',
    oauth: { ...extra, enterprise: { idp_token_url: 'https://idp.example/token', client_id: 'c', ...enterprise } },
  });
  const fields = (raw: unknown): string[] => {
    const v = validateServerEntry(raw);
    return v.ok ? [] : v.issues.map((i) => i.field);
  };

  it('exactly one ID-token source: none, or two, is an error naming the field', () => {
    expect(fields(entry({}))).toEqual(['oauth.enterprise.id_token_file']);
    expect(fields(entry({ id_token_file: '/t', id_token_env: 'ID_TOKEN' }))).toEqual(['oauth.enterprise.id_token_env']);
    expect(fields(entry({ id_token_env: 'ID_TOKEN', id_token_command: ['print-id-token'] }))).toEqual(['oauth.enterprise.id_token_command']);
    const v = validateServerEntry(entry({}));
    expect(!v.ok && v.issues[0]!.message).toMatch(/exactly one of id_token_file, id_token_env, id_token_command/);
  });

  it('the IdP endpoint is https or loopback; the client id is required; a misspelt key is an error; no workload identity beside it', () => {
    expect(fields(entry({ id_token_env: 'T', idp_token_url: 'http://idp.example/token' }))).toEqual(['oauth.enterprise.idp_token_url']);
    expect(fields(entry({ id_token_env: 'T', idp_token_url: 'http://127.0.0.1:8080/token' }))).toEqual([]);
    expect(fields(entry({ id_token_env: 'T', client_id: undefined }))).toEqual(['oauth.enterprise.client_id']);
    expect(fields(entry({ id_token_env: 'T', id_token_fiel: '/t' }))).toEqual(['oauth.enterprise']);
    expect(fields(entry({ id_token_env: 'T' }, { assertion_env: 'WL' }))).toEqual(['oauth.enterprise']);
  });

  it('a valid block is normalized (camelCase), and the loader reports a bad one as a diagnostic with the field', async () => {
    const ok = validateServerEntry(entry({ client_secret: 's', id_token_command: ['print-id-token', '--fresh'] }));
    expect(ok.ok && ok.entry.config.oauth).toEqual({
      enterprise: { idpTokenUrl: 'https://idp.example/token', clientId: 'c', clientSecret: 's', idTokenCommand: ['print-id-token', '--fresh'] },
    });
    const dir = tmp();
    const configFile = path.join(dir, 'config.json');
    fs.writeFileSync(configFile, JSON.stringify({ version: 1, mcp: { servers: { corp: entry({ id_token_file: 'a', id_token_env: 'B', client_secret: 'do-not-echo' }) } } }));
    const loaded = await loadConfig({ globalPath: configFile, projectPath: path.join(dir, 'none.json'), cwd: dir, env: {} });
    const d = loaded.diagnostics.find((x) => x.serverId === 'corp' && x.severity === 'error');
    expect(d?.field).toBe('oauth.enterprise.id_token_env');
    expect(JSON.stringify(loaded.diagnostics)).not.toContain('do-not-echo');
  });
});
