/**
 * Workload identity (src/auth/workload.ts, the config's `oauth.assertion_*`): the jwt-bearer
 * grant (RFC 7523 §2.1) with the platform's JWT read afresh on each use from a file, an
 * environment variable or a command; against the mock AS on 127.0.0.1.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryTokenStore } from '../../src/auth/memory-store.js';
import { workloadAssertion } from '../../src/auth/workload.js';
import { validateServerEntry } from '../../src/host/config/schema.js';
import type { OAuthSettings, ResolvedServer } from '../../src/host/config/types.js';
import { createHost, type McpHost } from '../../src/host/host.js';
// @ts-expect-error a plain .mjs mock without types
import { startOAuthMock } from '../../mock-servers/oauth-as.mjs';

interface Mock {
  url: string;
  log: { path: string; params: Record<string, string> }[];
  counters: Record<string, number>;
  expireAll(): void;
  close(): Promise<void>;
}

const dirs: string[] = [];
const mocks: Mock[] = [];
const hosts: McpHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
  await Promise.all(mocks.splice(0).map((m) => m.close()));
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function tmp(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-wif-'));
  dirs.push(d);
  return d;
}

/** A source that resolved where it should have failed. */
const failed = (v: string): Error => new Error(`resolved with ${v.length} characters`);

const target = { issuer: 'https://as.example', resource: 'https://mcp.example/mcp', tokenEndpoint: 'https://as.example/token' };

describe('workloadAssertion', () => {
  it('a file is read afresh on every use (the platform rotates it)', async () => {
    const file = path.join(tmp(), 'token');
    fs.writeFileSync(file, 'jag-one.payload.sig\n');
    const source = workloadAssertion({ file });
    expect(await source(target)).toBe('jag-one.payload.sig');
    fs.writeFileSync(file, 'jag-two.payload.sig');
    expect(await source(target)).toBe('jag-two.payload.sig');
  });

  it('an environment variable, read on every use', async () => {
    const env: NodeJS.ProcessEnv = { WIF_TOKEN: 'a.b.c' };
    const source = workloadAssertion({ env: 'WIF_TOKEN' }, { env });
    expect(await source(target)).toBe('a.b.c');
    env.WIF_TOKEN = 'd.e.f';
    expect(await source(target)).toBe('d.e.f');
    delete env.WIF_TOKEN;
    await expect(source(target)).rejects.toThrow(/WIF_TOKEN .*not set/);
  });

  it('a command (argv, no shell): its stdout', async () => {
    const source = workloadAssertion({ command: [process.execPath, '-e', 'process.stdout.write("x.y.z $HOME\\n".split(" ")[0])'] });
    expect(await source(target)).toBe('x.y.z');
  });

  it('errors name the source, never the value', async () => {
    const file = path.join(tmp(), 'token');
    fs.writeFileSync(file, 'not-a-jwt-secret-value');
    const e1 = await workloadAssertion({ file })(target).then(failed, (e: Error) => e);
    expect(e1.message).toContain(file);
    expect(e1.message).not.toContain('not-a-jwt-secret-value');
    const e2 = await workloadAssertion({ command: [process.execPath, '-e', 'console.error("leaked.secret.token"); process.exit(3)'] })(target).then(failed, (e: Error) => e);
    expect(e2.message).toMatch(/exited with 3/);
    expect(e2.message).not.toContain('leaked.secret.token');
    const e3 = await workloadAssertion({ file: path.join(tmp(), 'missing') })(target).then(failed, (e: Error) => e);
    expect(e3.message).toMatch(/ENOENT/);
  });
});

describe('config oauth.assertion_*', () => {
  it('at most one source', () => {
    const v = validateServerEntry({ transport: 'http', url: 'https://mcp.example/mcp', oauth: { assertion_file: '/t', assertion_env: 'T' } });
    expect(v.ok).toBe(false);
    expect(JSON.stringify(v)).toMatch(/at most one of assertion_file/);
    const ok = validateServerEntry({ transport: 'http', url: 'https://mcp.example/mcp', oauth: { assertion_command: ['print-token'], dpop: true } });
    expect(ok.ok && ok.entry.config.oauth).toEqual({ assertionCommand: ['print-token'], dpop: true });
  });

  it('a host server with oauth.assertion_file connects without anyone logging in, and a rejected token is replaced with the rotated file\'s assertion', async () => {
    const m = (await startOAuthMock({})) as Mock;
    mocks.push(m);
    const dir = tmp();
    fs.writeFileSync(path.join(dir, 'token'), 'jag-first.p.s');
    const oauth: OAuthSettings = { assertionFile: 'token' };
    const server: ResolvedServer = {
      id: 'workload',
      source: 'global',
      file: path.join(dir, 'config.json'),
      enabled: true,
      transport: 'http',
      config: { args: [], env: {}, headers: {}, url: m.url, requestTimeoutMs: 30_000, legacySse: false, permissions: { allow: [], deny: [] }, oauth },
    };
    const host = createHost([server], { backoff: { maxRetries: 0 }, permission: 'allow', auth: { store: new MemoryTokenStore() } });
    hosts.push(host);
    await host.start();
    expect(host.serverStatus('workload')!.state).toBe('ready');
    const tool = host.tools().find((t) => t.server === 'workload')!;
    fs.writeFileSync(path.join(dir, 'token'), 'jag-second.p.s');
    m.expireAll();
    const r = await host.callTool(tool.name, {});
    expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
    const grants = m.log.filter((e) => e.path === '/token').map((e) => [e.params.grant_type, e.params.assertion]);
    expect(grants).toEqual([
      ['urn:ietf:params:oauth:grant-type:jwt-bearer', 'jag-first.p.s'],
      ['urn:ietf:params:oauth:grant-type:jwt-bearer', 'jag-second.p.s'],
    ]);
  });
});
