/**
 * Sandboxed stdio servers against a scripted hostile server (mock-servers/hostile-server.mjs),
 * run through a real host with bubblewrap: each thing it was not granted — a planted
 * ~/.ssh/id_rsa, a write outside its directory, a loopback port, a host not on the allow-list,
 * a child that outlives it, the host's environment secrets — is refused by the OS (or the
 * host's proxy) and shown in the call's error or the status. The same server unsandboxed does
 * each of them (so every refusal below is the sandbox's doing, not the test's).
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHost, type McpHost } from '../../src/host/index.js';
import { findBwrap } from '../../src/transport/spawn/sandbox-launch.js';
import { startAndSettle, stdioServer } from '../support/host-servers.js';
import { tempDirs } from '../support/temp-dirs.js';
import { until } from '../support/until.js';
import { withMarker } from '../support/proc-marker.js';

const ROOT = path.join(path.dirname(path.dirname(fileURLToPath(import.meta.url))), '..');
const HOSTILE = path.join(ROOT, 'mock-servers', 'hostile-server.mjs');
const noBwrap = process.platform !== 'linux' || findBwrap() === undefined;
const tmp = tempDirs('mcpwire-sbx-');

function listen(body: string): Promise<http.Server> {
  const s = http.createServer((_req, res) => res.end(body));
  return new Promise((resolve) => s.listen(0, '127.0.0.1', () => resolve(s)));
}
const portOf = (s: http.Server) => (s.address() as AddressInfo).port;
const textOf = (r: { content?: unknown[] }) => (r.content ?? []).map((c) => (c as { text?: string }).text ?? '').join('\n');

describe.skipIf(noBwrap)('a sandboxed hostile server (bubblewrap; skipped only where bwrap is absent)', () => {
  let host: McpHost;
  let allowed: http.Server;
  let other: http.Server;
  let base: string;
  let work: string;
  let key: string;
  const secret = 'mcpwire-test-secret-value-7f3a';

  beforeAll(async () => {
    base = tmp();
    work = path.join(base, 'work');
    fs.mkdirSync(work);
    fs.mkdirSync(path.join(base, 'home', '.ssh'), { recursive: true });
    key = path.join(base, 'home', '.ssh', 'id_rsa');
    fs.writeFileSync(key, '-----BEGIN OPENSSH PRIVATE KEY-----\nplanted\n');
    allowed = await listen('hello from the allowed host');
    other = await listen('you should not see this');
    process.env.MCPWIRE_TEST_SECRET = secret;
    process.env.MCPWIRE_TEST_GRANTED = 'granted-value';
    const sandbox = {
      filesystem: { read: [], write: [work] },
      network: { allow: [`localhost:${portOf(allowed)}`] },
      env: ['MCPWIRE_TEST_GRANTED'],
    };
    host = createHost(
      [
        stdioServer('jail', [HOSTILE], { sandbox }),
        stdioServer('free', [HOSTILE], { env: { HOME: path.join(base, 'home'), MCPWIRE_TEST_SECRET: secret } }),
      ],
      { permission: 'allow' },
    );
    await startAndSettle(host);
  }, 60_000);

  afterAll(async () => {
    await host?.close();
    allowed?.close();
    other?.close();
    delete process.env.MCPWIRE_TEST_SECRET;
    delete process.env.MCPWIRE_TEST_GRANTED;
  });

  const call = (server: string, tool: string, args: Record<string, unknown>) => host.callTool(host.tools().find((t) => t.server === server && t.tool === tool)!.name, args);

  it('both servers start; status says which runs sandboxed and with what grants', () => {
    const jail = host.serverStatus('jail')!;
    expect(jail.state).toBe('ready');
    expect(jail.sandbox).toMatchObject({ sandboxed: true, grants: { filesystem: { write: [work] }, network: { allow: [`localhost:${portOf(allowed)}`] } } });
    expect(jail.sandbox!.summary).toContain(`write ${work}`);
    expect(host.serverStatus('free')!.state).toBe('ready');
    expect(host.serverStatus('free')!.sandbox).toBeUndefined();
  });

  it('reading a planted ~/.ssh/id_rsa: not there inside (ENOENT), and the error says the server runs sandboxed', async () => {
    const r = await call('jail', 'read_file', { path: key });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain('ENOENT');
    expect(textOf(r)).toContain('server "jail" runs sandboxed');
    expect(r.sandbox?.denied.join('\n'), JSON.stringify(r)).toContain(`${key} (outside the sandbox's grants`);
    expect((await call('free', 'read_file', { path: key })).isError).toBeFalsy();
  });

  it('writing outside the granted directory: refused (EROFS in its read-only package; elsewhere it lands in the private tmpfs, never on the host); inside it works', async () => {
    const inPackage = path.join(ROOT, 'mock-servers', `planted-${process.pid}.txt`);
    const r = await call('jail', 'write_file', { path: inPackage });
    expect(textOf(r)).toMatch(/EROFS|EACCES/);
    expect(r.sandbox?.denied.join('\n')).toContain(`write to ${inPackage} (granted read-only)`);
    expect(fs.existsSync(inPackage)).toBe(false);
    const outside = path.join(base, 'outside.txt');
    await call('jail', 'write_file', { path: outside });
    expect(fs.existsSync(outside)).toBe(false);
    const etc = await call('jail', 'write_file', { path: '/etc/mcpwire-planted' });
    expect(textOf(etc)).toMatch(/EROFS|EACCES/);
    expect(fs.existsSync('/etc/mcpwire-planted')).toBe(false);
    expect((await call('jail', 'write_file', { path: path.join(work, 'ok.txt'), content: 'fine' })).isError).toBeFalsy();
    expect(fs.readFileSync(path.join(work, 'ok.txt'), 'utf8')).toBe('fine');
    expect((await call('free', 'write_file', { path: outside })).isError).toBeFalsy();
  });

  it('connecting straight to a loopback port of the host: no route (ECONNREFUSED in its own network namespace)', async () => {
    const r = await call('jail', 'connect', { host: '127.0.0.1', port: portOf(other) });
    expect(textOf(r)).toContain('ECONNREFUSED');
    expect(r.sandbox?.denied.join('\n')).toContain('probably denied: network');
    expect((await call('free', 'connect', { host: '127.0.0.1', port: portOf(other) })).isError).toBeFalsy();
  });

  it('resolving a name: no DNS inside; a host not on the allow-list through the proxy: 403, logged with its name', async () => {
    expect((await call('jail', 'resolve', { host: 'localhost.invalid' })).isError).toBe(true);
    const r = await call('jail', 'proxy_get', { url: 'http://not-allowed.example/' });
    expect(textOf(r)).toContain('proxy answered 403');
    expect(r.sandbox?.denied).toContain('network: not-allowed.example:80 refused by the host\'s proxy (not on the allow-list)');
    const port = portOf(other);
    const r2 = await call('jail', 'proxy_get', { url: `http://localhost:${port}/` });
    expect(textOf(r2)).toContain('proxy answered 403');
    expect(host.serverStatus('jail')!.sandbox!.denied).toContain(`network: localhost:${port} refused by the host's proxy (not on the allow-list)`);
  });

  it('the allowed host, by name through the proxy: answered', async () => {
    const r = await call('jail', 'proxy_get', { url: `http://localhost:${portOf(allowed)}/` });
    expect(textOf(r)).toContain('200 hello from the allowed host');
    expect(r.isError).toBeFalsy();
    expect(r.sandbox).toBeUndefined();
  });

  it('the host\'s environment secrets: not in its environment, the host\'s /proc out of sight; HOME is the private temp dir', async () => {
    const r = await call('jail', 'env', { names: ['MCPWIRE_TEST_SECRET', 'MCPWIRE_TEST_GRANTED'] });
    expect(textOf(r)).toContain('visible: MCPWIRE_TEST_GRANTED;');
    expect(textOf(r)).not.toContain(secret);
    expect(textOf(r)).toMatch(/parent environ: (ENOENT|EACCES|readable);/);
    expect(textOf(r)).toContain('HOME=/tmp');
    expect(textOf(await call('free', 'env', { names: ['MCPWIRE_TEST_SECRET'] }))).toContain('visible: MCPWIRE_TEST_SECRET');
  });

  it('a child that escapes into its own session dies with the sandbox; unsandboxed it outlives the server', async () => {
    const jailed = `mcpwire-orphan-jail-${process.pid}`;
    const free = `mcpwire-orphan-free-${process.pid}`;
    await call('jail', 'spawn_orphan', { marker: jailed });
    await call('free', 'spawn_orphan', { marker: free });
    await until('both orphans to run', () => withMarker(jailed).length > 0 && withMarker(free).length > 0);
    await host.stopServer('jail');
    await host.stopServer('free');
    await until('the jailed orphan to be gone', () => withMarker(jailed).length === 0);
    const survivors = withMarker(free);
    for (const pid of survivors) process.kill(pid, 'SIGKILL');
    expect(survivors.length).toBeGreaterThan(0);
  });
});
