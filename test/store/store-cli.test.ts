/**
 * The CLI on a Redis store (`mcp.store` in the user's global config, its password from the
 * environment through `${VAR}`), with real processes: `mcpwire login` in one process, then
 * `auth status`, `call`, `status` in others and a host worker in this one all see the same
 * tokens; `logout` removes them for everyone. Where the tokens live is shown without the
 * password, in every output. A redis-server and an oidc-provider authorization server on
 * loopback, started here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/host.js';
import { parseStoreSetting, RedisTokenStore } from '../../src/host/index.js';
import type { ResolvedServer } from '../../src/host/config/types.js';
import { runCliAnswering } from '../support/cli-process.js';
import { loginSandboxes, type LoginSandbox } from '../support/login-sandbox.js';
import { startTestAs, type TestAs } from '../support/oidc-as.js';
import { startTestMcpServer, type TestMcpServer } from '../support/oidc-mcp-server.js';
import { freePort, hasRedis, redisServers, stop } from '../support/redis-server.js';

const SCOPE = 'mcp:tools';
const PASSWORD = 'redis-pw-never-printed-4711';
const redis = redisServers();
let as: TestAs;
let mcp: TestMcpServer;
const machines = loginSandboxes('mcpwire-store-cli-');
const { outputs, run } = machines;

beforeAll(async () => {
  if (!hasRedis) return;
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

const sandbox = () => machines.sandbox({ MCPWIRE_STORE: '', MCPWIRE_NO_DAEMON: '1', REDIS_PW: PASSWORD });

/** Sets `mcp.store` in the global config (written as the user would, with `${REDIS_PW}`). */
function setStore(sb: LoginSandbox, store: string): void {
  const doc = JSON.parse(fs.readFileSync(sb.global, 'utf8'));
  doc.mcp.store = store;
  fs.writeFileSync(sb.global, JSON.stringify(doc, null, 2));
}

describe.skipIf(!hasRedis)('the CLI on a Redis token store (redis-server on loopback; skipped only where it is not installed)', { timeout: 240_000 }, () => {
  it('login in one process; auth status, call, status in others and a host worker see the token; logout removes it for all; the password is never printed', async () => {
    const port = await freePort();
    await redis.start(port, ['--requirepass', PASSWORD]);
    const url = `redis://:${PASSWORD}@127.0.0.1:${port}?prefix=cli`;
    const sb = sandbox();
    const add = await run(sb, ['mcp', 'add', 'secure', '--scope', 'global', '--transport', 'http', '--url', mcp.url, '--oauth-scope', SCOPE]);
    expect(add.code, add.stderr).toBe(0);
    setStore(sb, `redis://:\${REDIS_PW}@127.0.0.1:${port}?prefix=cli`);
    const shown = `redis://:***@127.0.0.1:${port}`;

    let pasted = false;
    const login = await run(sb, ['login', 'secure', '--no-browser'], (text, stdin) => {
      const m = /(http:\/\/127\.0\.0\.1:\d+\/auth\?\S+)/.exec(text);
      if (!m || pasted) return;
      pasted = true;
      void as.approve(m[1]).then((redirect) => stdin.write(`${redirect.href}\n`));
    });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toContain(`tokens saved in ${shown}`);
    // in Redis, not in the file
    expect(fs.existsSync(sb.authFile)).toBe(false);
    const store = new RedisTokenStore(parseStoreSetting(url));
    try {
      const grant = (await store.get('secure'))!;
      expect(grant.access_token).toBeTypeOf('string');
      expect(grant.refresh_token).toBeTypeOf('string');

      const st = await run(sb, ['auth', 'status', '--json']);
      expect(st.code, st.stderr).toBe(0);
      const parsed = JSON.parse(st.stdout);
      expect(parsed.store).toMatch(new RegExp(`^redis://:\\*\\*\\*@127\\.0\\.0\\.1:${port}`));
      expect(parsed.servers[0]).toMatchObject({ id: 'secure', state: 'valid', refreshable: true });

      const call = await run(sb, ['call', 'secure', 'whoami']);
      expect(call.code, call.stderr).toBe(0);
      expect(call.stdout).toContain('subject=alice');

      const status = await run(sb, ['status', '--json']);
      expect(status.code, status.stderr).toBe(0);
      const [row] = JSON.parse(status.stdout);
      expect(row).toMatchObject({ id: 'secure', state: 'ready', store: { kind: 'redis', state: 'ok', last_error: null } });
      expect(row.store.place).toMatch(/^redis:\/\/:\*\*\*@127\.0\.0\.1:/);
      const text = await run(sb, ['status']);
      expect(text.stdout).toMatch(/token store: redis:\/\/:\*\*\*@127\.0\.0\.1:\d+\/? \(redis, ok\)/);

      // a host worker on the same store uses the token the CLI stored
      const config = { args: [], env: {}, headers: {}, url: mcp.url, requestTimeoutMs: 30_000, legacySse: false, permissions: { allow: [], deny: [] } };
      const server: ResolvedServer = { id: 'secure', source: 'global', file: sb.global, enabled: true, transport: 'http', config };
      const host = createHost([server], { backoff: { maxRetries: 0 }, permission: 'allow', auth: { store } });
      try {
        await host.start();
        expect(host.serverStatus('secure')?.state).toBe('ready');
        const r = await host.callTool(host.tools().find((t) => t.server === 'secure')!.name, {});
        expect(JSON.stringify(r.content)).toContain('subject=alice');
      } finally {
        await host.close();
      }

      const logout = await run(sb, ['logout', 'secure']);
      expect(logout.code, logout.stderr).toBe(0);
      expect(await store.get('secure')).toBeUndefined();
      const after = await run(sb, ['auth', 'status', '--json']);
      expect(JSON.parse(after.stdout).servers[0]).toMatchObject({ state: 'none' });
    } finally {
      await store.close();
    }
    for (const o of outputs) expect(o).not.toContain(PASSWORD);
  });

  it('Redis away: status says the store is degraded (since when, the last error, no password) and exits; MCPWIRE_STORE wins over the config; a bad mcp.store is a clear error', async () => {
    const port = await freePort();
    const server = await redis.start(port, ['--requirepass', PASSWORD]);
    const sb = sandbox();
    const add = await run(sb, ['mcp', 'add', 'secure', '--scope', 'global', '--transport', 'http', '--url', mcp.url]);
    expect(add.code, add.stderr).toBe(0);
    setStore(sb, `redis://:\${REDIS_PW}@127.0.0.1:${port}`);
    await stop(server);
    const status = await run(sb, ['status', '--json', '--timeout-ms', '3000']);
    expect(status.code, status.stderr).toBe(0);
    const [row] = JSON.parse(status.stdout);
    expect(row.store).toMatchObject({ kind: 'redis', state: 'degraded' });
    expect(row.store.last_error).toMatch(/ECONNREFUSED|connect/i);
    expect(Date.parse(row.store.since)).toBeGreaterThan(0);
    const text = await run(sb, ['status', '--timeout-ms', '3000']);
    expect(text.stdout).toMatch(/token store: redis:\/\/:\*\*\*@127\.0\.0\.1:\d+\/? \(redis, degraded since /);

    // MCPWIRE_STORE wins: memory, so nothing needs Redis
    const mem = await runCliAnswering(['auth', 'status', '--json'], { cwd: path.join(sb.dir, 'proj'), env: { ...process.env, ...sb.env, MCPWIRE_STORE: 'memory' }, timeoutMs: 60_000 });
    outputs.push(mem.stdout + mem.stderr);
    expect(mem.code, mem.stderr).toBe(0);
    expect(JSON.parse(mem.stdout).store).toBe('memory');

    setStore(sb, `http://:\${REDIS_PW}@127.0.0.1:${port}`);
    const bad = await run(sb, ['auth', 'status']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/config error: .*mcp\.store.*scheme is not supported/);
    expect(bad.stderr).toMatch(/MCPWIRE_STORE_CONFIG/);
    for (const o of outputs) expect(o).not.toContain(PASSWORD);
  });
});
