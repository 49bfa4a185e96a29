/**
 * The shared store on a real `redis-server` (started here on a free loopback port, no
 * persistence, stopped after): tokens shared by 8 worker processes with the refresh single-flight
 * across them (a lease with expiry, a fenced write), a killed lease holder taken over, and Redis
 * going away and coming back.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createOAuthProvider } from '../../src/index.js';
import { parseStoreSetting, RedisTokenStore, authStore, isStoreError } from '../../src/host/index.js';
import { at, follow, oauthMockHarness, REDIRECT, type Mock } from '../support/oauth-mock.js';
import { tempDirs } from '../support/temp-dirs.js';
import { createHost } from '../../src/host/host.js';
import type { ResolvedServer } from '../../src/host/config/types.js';
import { until } from '../support/until.js';
import { freePort, hasRedis, redisServers, stop } from '../support/redis-server.js';
import { RedisConnection } from '../../src/store/redis-connection.js';

const here = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const WORKER = path.join(here, 'support/token-worker.mjs');
const tmp = tempDirs('mcpwire-store-');
const { mock } = oauthMockHarness();
const redis = redisServers();

const children: ChildProcess[] = [];
const stores: RedisTokenStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close().catch(() => {})));
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

const startRedis = (port: number, extra: string[] = []) => redis.start(port, extra);

/** Logs in against the mock with the Redis store, then marks the stored token expired. */
async function seedExpired(m: Mock, url: string): Promise<{ store: RedisTokenStore; refresh: string }> {
  const store = new RedisTokenStore(parseStoreSetting(url));
  stores.push(store);
  const p = createOAuthProvider({ serverUrl: m.url, serverKey: 'mock', store, redirectUri: REDIRECT, interaction: follow });
  await p.authorize();
  const g = (await store.get('mock'))!;
  expect(g.refresh_token).toBeTypeOf('string');
  await store.set('mock', { ...g, expires_at: Date.now() - 1000 });
  return { store, refresh: g.refresh_token! };
}

interface Worker {
  proc: ChildProcess;
  out: string;
  exited: Promise<number | null>;
}

function worker(env: Record<string, string>): Worker {
  const proc = spawn(process.execPath, [WORKER], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(proc);
  const w: Worker = { proc, out: '', exited: new Promise((r) => proc.once('exit', (code) => r(code))) };
  proc.stdout!.on('data', (c: Buffer) => (w.out += c.toString()));
  proc.stderr!.on('data', (c: Buffer) => (w.out += c.toString()));
  return w;
}

const tokenOf = (w: Worker) => /^token (\S*)$/m.exec(w.out)?.[1];
const refreshGrants = (m: Mock) => at(m, '/token').filter((e) => e.params.grant_type === 'refresh_token');

describe.skipIf(!hasRedis)('tokens shared through Redis (redis-server on loopback; skipped only where it is not installed)', () => {
  it('8 worker processes, one expired token, rotating refresh tokens: exactly one refresh, every worker ends with the new token', async () => {
    const port = await freePort();
    await startRedis(port);
    const url = `redis://127.0.0.1:${port}`;
    const m = await mock({ rotate: true, refreshDelayMs: 1500 });
    const { store } = await seedExpired(m, url);
    const workers = Array.from({ length: 8 }, () => worker({ STORE_URL: url, MCP_URL: m.url }));
    const codes = await Promise.all(workers.map((w) => w.exited));
    expect(codes, workers.map((w) => w.out).join('\n')).toEqual(Array(8).fill(0));
    expect(refreshGrants(m)).toHaveLength(1);
    expect(workers.filter((w) => w.out.includes('refreshing'))).toHaveLength(1);
    const stored = (await store.get('mock'))!;
    expect(stored.expires_at).toBeGreaterThan(Date.now());
    expect(workers.map(tokenOf)).toEqual(Array(8).fill(stored.access_token));
    expect(m.counters.revokedRefresh).toBe(0);
  }, 180_000);

  it('the lease holder killed mid-refresh: another worker takes over after the lease expires; no revoked refresh token is ever sent', async () => {
    const port = await freePort();
    await startRedis(port);
    const url = `redis://127.0.0.1:${port}`;
    const m = await mock({ rotate: true, refreshDelayMs: 1500 });
    const { store, refresh } = await seedExpired(m, url);
    const workers = Array.from({ length: 8 }, () => worker({ STORE_URL: url, MCP_URL: m.url, LEASE_MS: '3000' }));
    // Killed once its refresh request has reached the AS (which answers it only after 1.5 s).
    await until('a refresh request at the AS', () => refreshGrants(m).length === 1, 90_000);
    const holder = await until('the worker refreshing', () => workers.find((w) => w.out.includes('refreshing')), 90_000);
    holder.proc.kill('SIGKILL');
    await holder.exited;
    const rest = workers.filter((w) => w !== holder);
    const codes = await Promise.all(rest.map((w) => w.exited));
    expect(codes, rest.map((w) => w.out).join('\n')).toEqual(Array(7).fill(0));
    // The killed worker's request was abandoned by the AS (its refresh token stayed live); the one
    // that took over sent it once more and got the rotation. Nothing sent a rotated-out token.
    expect(m.counters.refreshAbandoned, JSON.stringify(m.counters)).toBe(1);
    const sent = refreshGrants(m);
    expect(sent, JSON.stringify({ counters: m.counters, out: rest.map((w) => w.out) })).toHaveLength(2);
    expect(sent.map((e) => e.params.refresh_token)).toEqual([refresh, refresh]);
    expect(m.counters.revokedRefresh).toBe(0);
    expect(rest.filter((w) => w.out.includes('refreshing'))).toHaveLength(1);
    const stored = (await store.get('mock'))!;
    expect(stored.refresh_token).not.toBe(refresh);
    expect(rest.map(tokenOf)).toEqual(Array(7).fill(stored.access_token));
  }, 180_000);

  it('a worker that lost its lease never overwrites a newer token (fenced write), and a write racing a login is refused', async () => {
    const port = await freePort();
    await startRedis(port);
    const url = `redis://127.0.0.1:${port}?prefix=fence`;
    const a = new RedisTokenStore(parseStoreSetting(url), { leaseMs: 5000 });
    const b = new RedisTokenStore(parseStoreSetting(url), { leaseMs: 5000 });
    const raw = new RedisTokenStore(parseStoreSetting(url));
    stores.push(a, b, raw);
    await a.set('s', { access_token: 'old', token_type: 'Bearer' });
    // A holds the lease and is "paused" past it: the lease key is gone (as if it expired) and B
    // takes over and writes a newer token; A's late write is refused.
    const late = await a.withLock('s', async () => {
      await (raw as unknown as { conn: { command(a: string[]): Promise<unknown> } }).conn.command(['DEL', 'fence:lease:s']);
      await b.withLock('s', () => b.set('s', { access_token: 'newer', token_type: 'Bearer' }));
      return a.set('s', { access_token: 'stale', token_type: 'Bearer' }).then(() => 'written', (e: unknown) => e);
    });
    expect(isStoreError(late) && late.code).toBe('MCPWIRE_STORE_FENCED');
    expect((await a.get('s'))!.access_token).toBe('newer');
    // The lease is held, but a login wrote meanwhile (the generation moved): refused too.
    const raced = await a.withLock('s', async () => {
      await raw.set('s', { access_token: 'logged-in', token_type: 'Bearer' });
      return a.set('s', { access_token: 'refreshed', token_type: 'Bearer' }).then(() => 'written', (e: unknown) => e);
    });
    expect(isStoreError(raced) && raced.code).toBe('MCPWIRE_STORE_FENCED');
    expect((await a.get('s'))!.access_token).toBe('logged-in');
    // Inside its own lease with nobody in between, writes go through (twice in a row too).
    await a.withLock('s', async () => {
      await a.set('s', { access_token: 'one', token_type: 'Bearer' });
      await a.set('s', { access_token: 'two', token_type: 'Bearer' });
    });
    expect((await b.get('s'))!.access_token).toBe('two');
  }, 30_000);

  it('a refresh whose fenced write is refused (a login wrote meanwhile) is not used: the provider takes the stored token', async () => {
    const port = await freePort();
    await startRedis(port);
    const url = `redis://127.0.0.1:${port}`;
    const m = await mock({ rotate: true, refreshDelayMs: 800 });
    const { store } = await seedExpired(m, url);
    const seeded = (await store.get('mock'))!;
    const mine = new RedisTokenStore(parseStoreSetting(url));
    stores.push(mine);
    const p = createOAuthProvider({ serverUrl: m.url, serverKey: 'mock', store: mine, redirectUri: REDIRECT, interaction: follow });
    const first = p.headers();
    await until('the refresh at the AS', () => refreshGrants(m).length === 1);
    await store.set('mock', { ...seeded, access_token: 'logged-in-meanwhile', expires_at: Date.now() + 3_600_000 });
    const got = await first;
    // The AS's answer was refused by the store: not sent now, nor later.
    const issued = [...(m as unknown as { tokens: Map<string, unknown> }).tokens.keys()].at(-1)!;
    expect(got.authorization).not.toBe(`Bearer ${issued}`);
    expect((await p.headers()).authorization).toBe('Bearer logged-in-meanwhile');
    expect((await store.get('mock'))!.access_token).toBe('logged-in-meanwhile');
  }, 30_000);

  it('Redis killed and restarted: a held token keeps working, status says degraded (no password anywhere), then recovers without a restart', async () => {
    const port = await freePort();
    const password = 'pw-never-shown-0123';
    let redis = await startRedis(port, ['--requirepass', password]);
    const url = `redis://:${password}@127.0.0.1:${port}`;
    const m = await mock();
    const store = new RedisTokenStore(parseStoreSetting(url), { maxBackoffMs: 200 });
    stores.push(store);
    const p = createOAuthProvider({ serverUrl: m.url, serverKey: 'mock', store, redirectUri: REDIRECT, interaction: follow });
    await p.authorize();
    const before = await p.headers();
    expect(store.health().state).toBe('ok');
    expect(store.health().url).not.toContain(password);

    await stop(redis);
    await until('degraded', () => store.health().state === 'degraded', 15_000);
    // What needs no store goes on: the held token is sent.
    expect(await p.headers()).toEqual(before);
    const err = await store.get('mock').then(() => undefined, (e: unknown) => e);
    expect(isStoreError(err) && err.code).toBe('MCPWIRE_STORE_UNAVAILABLE');
    const health = store.health();
    expect(JSON.stringify(health) + String((err as Error).message)).not.toContain(password);
    expect(health.lastError).toBeTypeOf('string');

    redis = await startRedis(port, ['--requirepass', password]);
    await until('recovered', () => store.health().state === 'ok', 20_000);
    expect(store.health().reconnects).toBe(1);
    await store.set('mock', { access_token: 'after', token_type: 'Bearer' });
    expect((await store.get('mock'))!.access_token).toBe('after');
  }, 60_000);

  it('a host on a Redis store: Redis killed mid-session, calls on the live connection go on, storeStatus() says degraded, then ok again without a restart', async () => {
    const port = await freePort();
    let redis = await startRedis(port);
    const url = `redis://127.0.0.1:${port}`;
    const m = await mock();
    const store = new RedisTokenStore(parseStoreSetting(url), { maxBackoffMs: 200 });
    stores.push(store);
    await createOAuthProvider({ serverUrl: m.url, serverKey: 'secure', store, redirectUri: REDIRECT, interaction: follow }).authorize();
    const config = { args: [], env: {}, headers: {}, url: m.url, requestTimeoutMs: 30_000, legacySse: false, permissions: { allow: [], deny: [] } };
    const server: ResolvedServer = { id: 'secure', source: 'global', file: path.join(tmp(), 'config.json'), enabled: true, transport: 'http', config };
    const host = createHost([server], { backoff: { maxRetries: 0 }, permission: 'allow', auth: { store } });
    try {
      await host.start();
      expect(host.serverStatus('secure')?.state).toBe('ready');
      const tool = host.tools().find((t) => t.server === 'secure')!;
      expect((await host.callTool(tool.name, {})).isError).toBeFalsy();
      expect(host.storeStatus()?.state).toBe('ok');

      await stop(redis);
      await until('degraded', () => host.storeStatus()?.state === 'degraded', 15_000);
      const during = await host.callTool(tool.name, {});
      expect(during.isError, JSON.stringify(during.content)).toBeFalsy();
      expect(host.serverStatus('secure')?.state).toBe('ready');

      redis = await startRedis(port);
      await until('recovered', () => host.storeStatus()?.state === 'ok', 20_000);
      expect((await host.callTool(tool.name, {})).isError).toBeFalsy();
      // Redis came back empty (no persistence): the store works again for new writes.
      await store.set('other', { access_token: 'x', token_type: 'Bearer' });
      expect((await store.get('other'))!.access_token).toBe('x');
    } finally {
      await host.close();
    }
  }, 60_000);

  it('Redis killed and restarted under load: calls on the live connection never fail, status says degraded; a refresh needed meanwhile is not sent (nothing it got could be stored); back, one refresh and calls go on — no restart', async () => {
    const port = await freePort();
    const dir = tmp();
    // persistence on, so that what was stored survives the restart (as a production Redis would)
    const persistent = ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', dir];
    let redis = await startRedis(port, persistent);
    const url = `redis://127.0.0.1:${port}`;
    const m = await mock({ rotate: true });
    const store = new RedisTokenStore(parseStoreSetting(url), { maxBackoffMs: 200 });
    stores.push(store);
    await createOAuthProvider({ serverUrl: m.url, serverKey: 'secure', store, redirectUri: REDIRECT, interaction: follow }).authorize();
    const config = { args: [], env: {}, headers: {}, url: m.url, requestTimeoutMs: 30_000, legacySse: false, permissions: { allow: [], deny: [] } };
    const server: ResolvedServer = { id: 'secure', source: 'global', file: path.join(tmp(), 'config.json'), enabled: true, transport: 'http', config };
    const host = createHost([server], { backoff: { maxRetries: 0 }, permission: 'allow', auth: { store } });
    const outcomes: { phase: string; ok: boolean; text: string }[] = [];
    let phase = 'up';
    let running = true;
    try {
      await host.start();
      const tool = host.tools().find((t) => t.server === 'secure')!;
      const loop = async () => {
        while (running) {
          const r = await host.callTool(tool.name, {});
          outcomes.push({ phase, ok: !r.isError, text: JSON.stringify(r.content).slice(0, 300) });
        }
      };
      const loops = [loop(), loop(), loop()];
      const okIn = (p: string) => outcomes.filter((o) => o.phase === p && o.ok).length;
      await until('calls while Redis is up', () => okIn('up') >= 20, 30_000);

      await stop(redis);
      phase = 'down';
      await until('degraded', () => host.storeStatus()?.state === 'degraded', 15_000);
      await until('calls while Redis is down', () => okIn('down') >= 30, 30_000);
      expect(outcomes.filter((o) => o.phase === 'down' && !o.ok), JSON.stringify(outcomes.filter((o) => !o.ok).slice(0, 3))).toEqual([]);
      const st = host.storeStatus()!;
      expect(st.lastError).toBeTypeOf('string');

      // the token runs out at the server while Redis is away: refreshing needs the store (its
      // lease, its write): no refresh is sent, so no rotation can be lost
      phase = 'expired';
      m.expireAll();
      await until('calls refused for the expired token', () => outcomes.filter((o) => o.phase === 'expired').length >= 6, 30_000);
      expect(refreshGrants(m)).toHaveLength(0);

      redis = await startRedis(port, persistent);
      phase = 'back';
      await until('recovered', () => host.storeStatus()?.state === 'ok', 20_000);
      await until('calls after recovery', () => okIn('back') >= 20, 30_000);
      // one refresh, by the first call that needed it; the rotated token stored for everyone
      expect(refreshGrants(m)).toHaveLength(1);
      expect(m.counters.revokedRefresh ?? 0).toBe(0);
      expect(host.serverStatus('secure')?.state).toBe('ready');
      expect(host.storeStatus()?.reconnects).toBeGreaterThanOrEqual(1);
      running = false;
      await Promise.all(loops);
    } finally {
      running = false;
      await host.close();
    }
  }, 120_000);

  it('MCPWIRE_STORE selects the store; a bad setting is a clear error that never shows the password', () => {
    const saved = process.env.MCPWIRE_STORE;
    try {
      process.env.MCPWIRE_STORE = 'redis://u:s3cret-pw@127.0.0.1:1/0';
      expect(authStore()).toBeInstanceOf(RedisTokenStore);
      expect((authStore() as RedisTokenStore).health().url).toBe('redis://u:***@127.0.0.1:1/0');
      process.env.MCPWIRE_STORE = 'http://u:s3cret-pw@127.0.0.1:1';
      expect(() => authStore()).toThrow(/MCPWIRE_STORE.*not supported/);
      try {
        authStore();
      } catch (e) {
        expect(String((e as Error).message)).not.toContain('s3cret-pw');
      }
    } finally {
      if (saved === undefined) delete process.env.MCPWIRE_STORE;
      else process.env.MCPWIRE_STORE = saved;
    }
  });
});

describe('a Redis store nobody answers (a free loopback port: no redis-server needed)', () => {
  it('a refused connection is unreachable at once, not after connectTimeoutMs: the command fails MCPWIRE_STORE_UNAVAILABLE, status says degraded, retried in the background', async () => {
    const port = await freePort();
    const setting = parseStoreSetting(`redis://127.0.0.1:${port}`);
    if (setting.kind !== 'redis') throw new Error('a redis URL');
    // a bound far beyond this test's timeout: only the refusal itself can end the wait
    const conn = new RedisConnection(setting, { connectTimeoutMs: 600_000 });
    try {
      const err = (await conn.command(['PING']).catch((e: unknown) => e)) as { code?: string; message?: string };
      expect(err.code).toBe('MCPWIRE_STORE_UNAVAILABLE');
      expect(err.message).toMatch(/unreachable.*retrying in the background/);
      expect(conn.health()).toMatchObject({ kind: 'redis', state: 'degraded' });
    } finally {
      await conn.close();
    }
  }, 20_000);
});
