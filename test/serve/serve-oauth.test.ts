/**
 * `mcpwire serve` in front of an OAuth-protected HTTP server after `mcpwire login`: a real
 * authorization server (oidc-provider on 127.0.0.1) and an MCP server that introspects every
 * token (test/support/oidc-*.ts). `mcpwire login secure --no-browser` (the test approves and
 * pastes the redirect) stores the grant in the sandbox's HOME; a gateway started with the same
 * HOME reaches the server with that token, and the official SDK client lists and calls its tool
 * through the gateway — and, when `go` is on PATH, the Go example host (examples/go-host) does the
 * same. No token, refresh token or client secret is in the gateway's stderr, its trace, or what
 * either client received.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliAnswering } from '../support/cli-process.js';
import { startTestAs, type TestAs } from '../support/oidc-as.js';
import { startTestMcpServer, type TestMcpServer } from '../support/oidc-mcp-server.js';
import { goHost } from '../support/built-examples.js';
import { cli } from '../support/tap-helpers.js';

const SCOPE = 'mcp:tools';
const hasGo = (() => {
  try {
    execFileSync('go', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
/** Every secret value of the stored grant, for the leak checks. */
const secrets: string[] = [];
let as: TestAs;
let mcp: TestMcpServer;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-serve-oauth-'));
const home = path.join(dir, 'home');
const env: Record<string, string> = {
  HOME: home,
  XDG_CONFIG_HOME: path.join(home, '.config'),
  MCPWIRE_CONFIG_PATH: path.join(dir, 'global', 'config.json'),
  MCPWIRE_TRACE: '',
  MCPWIRE_NO_BROWSER: '1',
};

beforeAll(async () => {
  fs.mkdirSync(path.join(dir, 'proj'), { recursive: true });
  fs.mkdirSync(home, { recursive: true });
  const m = await startTestMcpServer();
  as = await startTestAs({ resources: { [m.url]: SCOPE } });
  m.configure({ issuer: as.issuer, introspector: as.introspector, scope: SCOPE });
  mcp = m;
});
afterAll(async () => {
  await as?.close();
  await mcp?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Runs the built CLI in the sandbox; `onStderr` may answer on stdin (the login paste). */
function run(args: string[], onStderr?: (text: string, stdin: NodeJS.WritableStream) => void): Promise<{ code: number; stdout: string; stderr: string }> {
  return runCliAnswering(args, { cwd: path.join(dir, 'proj'), env: { ...process.env, ...env }, timeoutMs: 90_000, ...(onStderr ? { onStderr } : {}) });
}

describe('mcpwire serve reaches an OAuth-protected server with the grant mcpwire login stored', { timeout: 180_000 }, () => {
  it('login, then an SDK client lists and calls the protected tool through the gateway; no credential leaves', async () => {
    const add = await run(['mcp', 'add', 'secure', '--scope', 'global', '--transport', 'http', '--url', mcp.url, '--oauth-scope', SCOPE]);
    expect(add.code, add.stderr).toBe(0);
    let pasted = false;
    const login = await run(['login', 'secure', '--no-browser'], (text, stdin) => {
      const m = /(http:\/\/127\.0\.0\.1:\d+\/auth\?\S+)/.exec(text);
      if (!m || pasted) return;
      pasted = true;
      void as.approve(m[1]!).then((redirect) => stdin.write(`${redirect.href}\n`));
    });
    expect(login.code, login.stderr).toBe(0);
    const grant = JSON.parse(fs.readFileSync(path.join(home, '.config', 'mcpwire', 'mcp-auth.json'), 'utf8')).servers.secure as Record<string, string | undefined>;
    secrets.push(...[grant.access_token, grant.refresh_token, grant.client_secret].filter((v): v is string => typeof v === 'string' && v !== ''));
    expect(secrets.length).toBeGreaterThan(0);

    const trace = path.join(dir, 'gateway-trace.jsonl');
    const transport = new StdioClientTransport({ command: process.execPath, args: [cli, 'serve', '--names', 'host', '--trace', trace], cwd: path.join(dir, 'proj'), env: { ...(process.env as Record<string, string>), ...env }, stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    const client = new Client({ name: 'sdk-through-gateway', version: '1.0.0' });
    await client.connect(transport);
    const seen: string[] = [];
    try {
      const { tools } = await client.listTools();
      seen.push(JSON.stringify(tools));
      const whoami = tools.find((t) => t.name.startsWith('mcp_secure_whoami'));
      expect(whoami, JSON.stringify(tools.map((t) => t.name))).toBeDefined();
      const r = await client.callTool({ name: whoami!.name, arguments: {} });
      seen.push(JSON.stringify(r));
      expect(r.isError).not.toBe(true);
      expect(JSON.stringify(r.content)).toContain('subject=alice');
      const status = await client.callTool({ name: 'mcpwire_status', arguments: {} });
      seen.push(JSON.stringify(status));
      expect(JSON.stringify(status.structuredContent)).toContain('"state":"ready"');
    } finally {
      await client.close();
    }
    const traced = fs.readFileSync(trace, 'utf8');
    expect(traced).toContain('mcp_secure_whoami');
    for (const s of secrets) {
      expect(stderr).not.toContain(s);
      expect(traced).not.toContain(s);
      for (const text of seen) expect(text).not.toContain(s);
    }
  });

  it.runIf(hasGo)('the Go example host calls the protected tool through the gateway with the same stored grant', async () => {
    expect(secrets.length).toBeGreaterThan(0); // the login of the test above
    const bin = await goHost();
    const child = spawn(bin, ['-progress', 'mcp_secure_whoami', '-slow', 'no-such-tool', '--', process.execPath, cli, 'serve', '--names', 'host'], { cwd: path.join(dir, 'proj'), env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise((r) => child.once('exit', r));
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/^result of mcp_secure_whoami\S*: subject=alice scope=\S*mcp:tools\S* \(isError false\)$/m);
    for (const s of secrets) expect(stdout + stderr).not.toContain(s);
  });
});
