/**
 * Which configured values are secrets (src/trace/configured-secrets.ts): env and header values
 * named or shaped like credentials, or listed in the entry's `secret_names`. Other configured
 * values are configuration and stay readable: `X-Workspace: codelia` must not turn
 * `/tmp/codelia-cli-…` into `/tmp/[redacted]-cli-…`, nor `PROTO=1999-01-01` an error into
 * `unsupported protocol version "[redacted]"` — in host errors, results, status and traces alike.
 * Real processes and a real HTTP server on 127.0.0.1.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { emptyNormalizedConfig } from '../../src/host/config/types.js';
import { serverRedaction } from '../../src/host/redaction.js';
import { createHost, publicToolName, toConnectConfig, validateServerEntry, type ResolvedServer } from '../../src/host/index.js';
import { configSecrets } from '../../src/mcp/client.js';
import { configuredSecrets, isSecretSetting, looksLikeCredential } from '../../src/trace/configured-secrets.js';
import { createTracer } from '../../src/trace/tracer.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-configured-secrets-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function resolved(id: string, transport: 'stdio' | 'http', extra: Partial<ResolvedServer['config']>): ResolvedServer {
  return { id, source: 'global', file: '/dev/null', enabled: true, transport, config: { ...emptyNormalizedConfig(), ...extra } };
}

describe('configured values: secrets by name, by shape or by mark; configuration otherwise', () => {
  it('names that say credential make a secret whatever the value; other names do not', () => {
    for (const name of ['GITHUB_TOKEN', 'DB_PASSWORD', 'OPENAI_API_KEY', 'Authorization', 'Proxy-Authorization', 'Cookie', 'X-Api-Key', 'CLIENT_SECRET', 'AWS_SESSION_TOKEN', 'SESSION_ID', 'X-Upstream-Auth', 'GOOGLE_APPLICATION_CREDENTIALS', 'DB_PWD', 'SENTRY_DSN', 'SIGNING_KEY']) {
      expect(isSecretSetting(name, 'plain'), name).toBe(true);
    }
    for (const name of ['PROTO', 'X-Workspace', 'ROOT_DIR', 'LOG_LEVEL', 'PWD', 'AUTHOR', 'MCP_AUTHORITY', 'KEYBOARD', 'Accept']) {
      expect(isSecretSetting(name, 'plain'), name).toBe(false);
    }
  });

  it('values shaped like credentials are secrets under any name: Scheme credentials, known prefixes, JWTs, URLs with credentials, long random tokens', () => {
    const credentials = [
      'Bearer abc',
      'Basic dXNlcjpwYXNz',
      'Token tok',
      'sk-proj-abc123def456',
      'sk-ant-api03-abcdefghijkl',
      'ghp_EnvValueSecret123456',
      'github_pat_11ABCDEFG0123456789',
      'glpat-abcdefghij0123456789',
      'xoxb-123456789012-abcdefghijkl',
      'AKIAIOSFODNN7EXAMPLE',
      'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl',
      'postgres://admin:pg-pass@db.internal/app',
      'https://api.example/v1?api_key=abc123',
      '550e8400-e29b-41d4-a716-446655440000',
      '8f3e2a91c7d4b6e0a1f2',
      'aGVsbG8gd29ybGQgdGhpcyBpcyBiYXNlNjQ=',
      'qKzXbWmLpRtYvNcJhGfD',
    ];
    for (const v of credentials) expect(looksLikeCredential(v), v).toBe(true);
    const configuration = [
      'codelia',
      '1999-01-01',
      '2025-11-25',
      '/tmp/codelia-cli-1234',
      '/srv/data/root-4e9f',
      'production-eu-west-1',
      'my-workspace-name',
      'release-2024-build-1234',
      'https://mcp.example/mcp',
      'application/json',
      'info',
      'v1.2.3-beta.4',
      '127.0.0.1:8080',
      'node_modules/.bin/tsx',
      'a sentence with words in it and 42 numbers',
    ];
    for (const v of configuration) expect(looksLikeCredential(v), v).toBe(false);
  });

  it('configuredSecrets: credentials by name or shape, values whose names secret_names lists (any case), the URL credentials; not the rest', () => {
    const got = configuredSecrets({
      env: { PROTO: '1999-01-01', ROOT_DIR: '/srv/data', SERVICE_TOKEN: 'tok', UPSTREAM: 'sk-live-abcdef123456', TEAM: 'blue-team' },
      headers: { 'X-Workspace': 'codelia', Authorization: 'Bearer xyz-123', 'X-Tenant': 'acme' },
      url: 'https://user:url-pass-1@mcp.example/mcp?key=qk-1&page=2',
      secretNames: ['team', 'x-tenant'],
    });
    expect(new Set(got)).toEqual(new Set(['tok', 'sk-live-abcdef123456', 'blue-team', 'Bearer xyz-123', 'acme', 'url-pass-1', 'user:url-pass-1', 'qk-1']));
  });

  it('secret_names in a config entry reaches the normalized config, the connect config and the client trace secrets (configSecrets)', () => {
    const v = validateServerEntry({ transport: 'http', url: 'https://mcp.example/mcp', headers: { 'X-Workspace': 'codelia', 'X-Team': 'blue' }, secret_names: ['X-Team'] });
    expect(v.ok).toBe(true);
    if (!v.ok) return;
    expect(v.entry.config.secretNames).toEqual(['X-Team']);
    const server: ResolvedServer = { id: 'w', source: 'global', file: '/dev/null', enabled: true, transport: 'http', config: v.entry.config };
    expect(configSecrets(toConnectConfig(server))).toEqual(['blue']);
    expect(validateServerEntry({ transport: 'stdio', command: 'x', secret_names: 'PROTO' }).ok).toBe(false);
  });
});

describe('configuration values stay readable, credentials do not', () => {
  it('host redaction: text() and data() keep "/tmp/codelia-cli-…" and "1999-01-01" whole, and still cut the credentials', () => {
    const red = serverRedaction(
      resolved('w', 'http', { url: 'https://mcp.example/mcp', headers: { 'X-Workspace': 'codelia', Authorization: 'Bearer bearer-cred-77aa' }, env: { PROTO: '1999-01-01' } }),
    );
    const text = 'cannot write /tmp/codelia-cli-5/out.log: unsupported protocol version "1999-01-01" (token bearer-cred-77aa)';
    const want = 'cannot write /tmp/codelia-cli-5/out.log: unsupported protocol version "1999-01-01" (token [redacted])';
    expect(red.text(text)).toBe(want);
    expect(red.data(text)).toBe(want);
  });

  it('a value secret_names marks is cut like any credential, though it looks like configuration', () => {
    const red = serverRedaction(resolved('w', 'http', { url: 'https://mcp.example/mcp', headers: { 'X-Workspace': 'codelia' }, secretNames: ['x-workspace'] }));
    expect(red.text('dir /tmp/codelia-cli-5')).toBe('dir /tmp/[redacted]-cli-5');
    expect(red.data('workspace codelia')).toBe('workspace [redacted]');
  });

  it('a tracer given the client trace secrets (configSecrets) writes the configuration as it is and no credential', async () => {
    const file = path.join(dir, 'unit-trace.jsonl');
    const config = { transport: 'http' as const, url: 'https://mcp.example/mcp', headers: { 'X-Workspace': 'codelia', 'X-Key': 'sk-abcdef1234567890' } };
    const tracer = await createTracer({ file, serverId: 'w', transport: 'streamable-http', secrets: configSecrets(config) });
    const msg = { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'wrote /tmp/codelia-cli-9/a.log with sk-abcdef1234567890' }] } };
    tracer.message('in', msg, { kind: 'result', id: 1, requestMethod: 'tools/call', text: JSON.stringify(msg) });
    await tracer.close();
    const trace = fs.readFileSync(file, 'utf8');
    expect(trace).toContain('wrote /tmp/codelia-cli-9/a.log with [redacted]');
    expect(trace).not.toContain('sk-abcdef1234567890');
  });
});

/** A stdio server that refuses to initialize, quoting the protocol version its env asks for. */
const REFUSING_SERVER = `
let buf = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (c) => {
  buf += c;
  let i;
  while ((i = buf.indexOf('\\n')) !== -1) {
    const msg = JSON.parse(buf.slice(0, i));
    buf = buf.slice(i + 1);
    if (msg.id === undefined) continue;
    const message = 'unsupported protocol version "' + process.env.PROTO + '" (token ' + process.env.API_TOKEN + ')';
    process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: msg.id, error: { code: -32602, message } }) + '\\n');
  }
});
process.stdin.on('end', () => process.exit(0));
`;

/** An HTTP MCP server whose `fail` tool reports an error quoting its workspace's temp path and the credential it got. */
function startWorkspaceServer(): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    if (req.method !== 'POST') return void res.writeHead(req.method === 'DELETE' ? 200 : 405).end();
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const msg = JSON.parse(body) as { id?: number; method: string; params?: { protocolVersion?: string } };
      if (msg.id === undefined) return void res.writeHead(202).end();
      const ws = String(req.headers['x-workspace']);
      const auth = String(req.headers.authorization);
      const result =
        msg.method === 'initialize'
          ? { protocolVersion: msg.params?.protocolVersion ?? '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'ws', version: '1.0.0' } }
          : msg.method === 'tools/list'
            ? { tools: [{ name: 'fail', inputSchema: { type: 'object' } }] }
            : { content: [{ type: 'text', text: `cannot write /tmp/${ws}-cli-42/out.log (sent ${auth})` }], isError: true };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }));
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      resolve({ port, close: () => new Promise<void>((r) => server.close(() => r())) });
    });
  });
}

describe('host end to end: configuration readable in status, results and the trace; credentials not', { timeout: 60_000 }, () => {
  it('PROTO=1999-01-01: the refused initialize reads unsupported protocol version "1999-01-01" in status().lastError and the trace; API_TOKEN stays hidden', async () => {
    const script = path.join(dir, 'refusing-server.mjs');
    fs.writeFileSync(script, REFUSING_SERVER);
    const trace = path.join(dir, 'proto-trace.jsonl');
    const host = createHost([resolved('old', 'stdio', { command: process.execPath, args: [script], env: { PROTO: '1999-01-01', API_TOKEN: 'api-tok-5e6f7a8b' } })], {
      permission: 'allow',
      backoff: { maxRetries: 0 },
      clientOptions: { trace, timeoutMs: 15_000 },
    });
    try {
      await host.start();
      const status = host.status()[0];
      expect(status.lastError).toContain('unsupported protocol version "1999-01-01"');
      expect(status.lastError).not.toContain('api-tok-5e6f7a8b');
    } finally {
      await host.close();
    }
    const text = fs.readFileSync(trace, 'utf8');
    expect(text).toContain('unsupported protocol version \\"1999-01-01\\"');
    expect(text).not.toContain('api-tok-5e6f7a8b');
  });

  it('X-Workspace: codelia: a tool error reads /tmp/codelia-cli-42/out.log in the result and the trace; the bearer credential stays hidden', async () => {
    const srv = await startWorkspaceServer();
    const trace = path.join(dir, 'ws-trace.jsonl');
    const host = createHost([resolved('ws', 'http', { url: `http://127.0.0.1:${srv.port}/mcp`, headers: { 'X-Workspace': 'codelia', Authorization: 'Bearer ws-bearer-9c8d7e' } })], {
      permission: 'allow',
      backoff: { maxRetries: 0 },
      clientOptions: { trace, timeoutMs: 15_000 },
    });
    try {
      await host.start();
      const r = await host.callTool(publicToolName('ws', 'fail'), {});
      expect(r.isError).toBe(true);
      const out = JSON.stringify(r.content);
      expect(out).toContain('/tmp/codelia-cli-42/out.log');
      expect(out).not.toContain('ws-bearer-9c8d7e');
    } finally {
      await host.close();
      await srv.close();
    }
    const text = fs.readFileSync(trace, 'utf8');
    expect(text).toContain('/tmp/codelia-cli-42/out.log');
    expect(text).not.toContain('ws-bearer-9c8d7e');
  });
});
