/**
 * The 2026-07-28 result cache shared through Redis (src/store/redis-results.ts), on a real
 * `redis-server` and real host processes: a result one host fetched is served to another while
 * its ttlMs lasts (server.utilities.caching#5), never across authorization contexts
 * (server.utilities.caching#12) or servers, dropped for everyone by a change notification,
 * bounded in bytes, and a miss (never an error) while Redis is away.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startModernHttpMock, type ModernHttpMock } from '../../mock-servers/modern/http-server.mjs';
import { parseStoreSetting, RedisTokenStore } from '../../src/host/index.js';
import { authContextId } from '../../src/mcp/result-cache.js';
import { freePort, hasRedis, redisServers, stop } from '../support/redis-server.js';
import { until } from '../support/until.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const WORKER = path.join(here, '../support/results-worker.mjs');
const redis = redisServers();
const mocks: ModernHttpMock[] = [];
const stores: RedisTokenStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close().catch(() => {})));
  await Promise.all(mocks.splice(0).map((m) => m.close()));
});

/** Runs one host process to its end; its stdout and exit code. */
function hostProcess(env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [WORKER], { env: { ...process.env, MCPWIRE_STORE: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (c: Buffer) => (out += c.toString()));
    p.stderr.on('data', (c: Buffer) => (out += c.toString()));
    p.once('exit', (code) => resolve({ code, out }));
  });
}

const requests = (m: ModernHttpMock, method: string) => m.record.requests.filter((r) => r.method === method).length;

async function redisUrl(prefix = 'rc'): Promise<string> {
  const port = await freePort();
  await redis.start(port);
  return `redis://127.0.0.1:${port}?prefix=${prefix}`;
}

describe.skipIf(!hasRedis)('the result cache shared through Redis (redis-server on loopback; skipped only where it is not installed)', () => {
  it('server.utilities.caching#5: two host processes on one store: the second is served the tools/list and resources/read the first fetched', async () => {
    const url = await redisUrl();
    const m = await startModernHttpMock({ stderr: () => {} });
    mocks.push(m);
    const env = { STORE_URL: url, MCP_URL: m.url, READ_URI: 'mem://readme' };
    const first = await hostProcess(env);
    expect(first.code, first.out).toBe(0);
    expect(first.out).toContain('Hello from the modern mock.');
    expect(requests(m, 'tools/list')).toBe(1);
    expect(requests(m, 'resources/read')).toBe(1);
    const second = await hostProcess(env);
    expect(second.code, second.out).toBe(0);
    expect(/^tools (\d+)$/m.exec(second.out)?.[1]).toBe(/^tools (\d+)$/m.exec(first.out)?.[1]);
    expect(second.out).toContain('Hello from the modern mock.');
    // served from Redis: nothing more reached the server
    expect(requests(m, 'tools/list')).toBe(1);
    expect(requests(m, 'resources/read')).toBe(1);
  }, 60_000);

  it('server.utilities.caching#12: another authorization context is never served another\'s result; the same one is', async () => {
    const url = await redisUrl();
    const m = await startModernHttpMock({ stderr: () => {} });
    mocks.push(m);
    const alice = await hostProcess({ STORE_URL: url, MCP_URL: m.url, AUTH: 'Bearer alice-token' });
    expect(alice.code, alice.out).toBe(0);
    const bob = await hostProcess({ STORE_URL: url, MCP_URL: m.url, AUTH: 'Bearer bob-token' });
    expect(bob.code, bob.out).toBe(0);
    expect(requests(m, 'tools/list')).toBe(2);
    const aliceAgain = await hostProcess({ STORE_URL: url, MCP_URL: m.url, AUTH: 'Bearer alice-token' });
    expect(aliceAgain.code, aliceAgain.out).toBe(0);
    expect(requests(m, 'tools/list')).toBe(2);
  }, 60_000);

  it('the keys: scoped by server and authorization context, never holding a credential; a notification heard by one host drops the entry for all', async () => {
    const url = await redisUrl('keys');
    const tokens = new RedisTokenStore(parseStoreSetting(url));
    stores.push(tokens);
    const shared = tokens.results();
    const a = shared.forServer({ transport: 'http', url: 'http://127.0.0.1:1/mcp', headers: { 'X-Api-Key': 'key-one-secret' } })!;
    const b = shared.forServer({ transport: 'http', url: 'http://127.0.0.1:1/mcp', headers: { 'X-Api-Key': 'key-two-secret' } })!;
    const again = shared.forServer({ transport: 'http', url: 'http://127.0.0.1:1/mcp', headers: { 'X-Api-Key': 'key-one-secret' } })!;
    expect(shared.forServer({ transport: 'stdio', command: 'x' })).toBeUndefined();
    const ctx = authContextId({ Authorization: 'Bearer user-one-secret' });
    const other = authContextId({ Authorization: 'Bearer user-two-secret' });
    const LIST = { resultType: 'complete', tools: [{ name: 't', inputSchema: { type: 'object' } }], ttlMs: 60_000, cacheScope: 'public' };
    expect(await a.put('tools/list', undefined, ctx, LIST)).toBe(true);
    expect(await again.get('tools/list', undefined, ctx)).toEqual(LIST);
    expect(await a.get('tools/list', undefined, other)).toBeUndefined();
    expect(await b.get('tools/list', undefined, ctx)).toBeUndefined();
    // no ttlMs, or an interim result: not kept
    expect(await a.put('prompts/list', undefined, ctx, { resultType: 'complete', prompts: [] })).toBe(false);
    expect(await a.put('resources/read', { uri: 'x://1' }, ctx, { resultType: 'input_required', ttlMs: 1000 })).toBe(false);
    // nothing stored in Redis holds a credential
    const raw = tokens as unknown as { conn: { command(a: string[]): Promise<unknown> } };
    const keys = (await raw.conn.command(['KEYS', 'keys:*'])) as string[];
    expect(keys.join(' ')).not.toMatch(/secret/);
    // a list_changed heard by any host: the list is stale for every host
    await again.onNotification('notifications/tools/list_changed', undefined);
    expect(await a.get('tools/list', undefined, ctx)).toBeUndefined();
    // a resource updated drops that resource's reads only
    await a.put('resources/read', { uri: 'x://1' }, ctx, { resultType: 'complete', contents: [], ttlMs: 60_000 });
    await a.put('resources/read', { uri: 'x://2' }, ctx, { resultType: 'complete', contents: [], ttlMs: 60_000 });
    await again.onNotification('resourceUpdated', { uri: 'x://1' });
    expect(await a.get('resources/read', { uri: 'x://1' }, ctx)).toBeUndefined();
    expect(await a.get('resources/read', { uri: 'x://2' }, ctx)).toBeDefined();
  }, 30_000);

  it('bounded in bytes: a result over the entry bound is not kept, and the whole stays under maxBytes (the entries closest to expiring go first)', async () => {
    const url = await redisUrl('bound');
    const tokens = new RedisTokenStore(parseStoreSetting(url));
    stores.push(tokens);
    const shared = tokens.results({ maxBytes: 10_000, maxEntryBytes: 4_000 });
    const s = shared.forServer({ transport: 'http', url: 'http://127.0.0.1:1/mcp' })!;
    const big = (n: number, ttlMs: number) => ({ resultType: 'complete', contents: [{ uri: 'x', text: 'x'.repeat(n) }], ttlMs });
    expect(await s.put('resources/read', { uri: 'huge' }, 'anonymous', big(5_000, 60_000))).toBe(false);
    for (let i = 0; i < 6; i++) expect(await s.put('resources/read', { uri: `r${i}` }, 'anonymous', big(3_000, 60_000 + i * 1000))).toBe(true);
    const raw = tokens as unknown as { conn: { command(a: string[]): Promise<unknown> } };
    expect(Number(await raw.conn.command(['GET', 'bound:rc:bytes']))).toBeLessThanOrEqual(10_000);
    // the three kept are the last ones (the earlier expired first)
    const kept = [];
    for (let i = 0; i < 6; i++) kept.push((await s.get('resources/read', { uri: `r${i}` }, 'anonymous')) !== undefined);
    expect(kept).toEqual([false, false, false, true, true, true]);
  }, 30_000);

  it('Redis away: a get is a miss and a put is not kept (no error reaches the client); back, it is used again', async () => {
    const port = await freePort();
    let server = await redis.start(port);
    const url = `redis://127.0.0.1:${port}`;
    const tokens = new RedisTokenStore(parseStoreSetting(url), { maxBackoffMs: 200 });
    stores.push(tokens);
    const s = tokens.results().forServer({ transport: 'http', url: 'http://127.0.0.1:1/mcp' })!;
    const LIST = { resultType: 'complete', tools: [], ttlMs: 60_000 };
    expect(await s.put('tools/list', undefined, 'anonymous', LIST)).toBe(true);
    await stop(server);
    await until('degraded', () => tokens.health().state === 'degraded', 15_000);
    expect(await s.get('tools/list', undefined, 'anonymous')).toBeUndefined();
    expect(await s.put('tools/list', undefined, 'anonymous', LIST)).toBe(false);
    expect(await s.onNotification('notifications/tools/list_changed', undefined)).toBe(0);
    server = await redis.start(port);
    await until('recovered', () => tokens.health().state === 'ok', 20_000);
    expect(await s.put('tools/list', undefined, 'anonymous', LIST)).toBe(true);
    expect(await s.get('tools/list', undefined, 'anonymous')).toEqual(LIST);
  }, 60_000);
});
