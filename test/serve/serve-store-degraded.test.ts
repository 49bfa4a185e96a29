/**
 * `serve --http --store redis://…` while Redis goes away and comes back (a real `redis-server` on
 * a free loopback port, killed and restarted empty): two gateways in this process share it. While
 * Redis is away a replica keeps serving what needs no store — the sessions it holds, new sessions
 * (served by it alone), 2026-07-28 requests — says `degraded` in its status, and answers 503 (not
 * 404) for a session it cannot look up; once Redis is back it recovers by itself and stores its
 * sessions' records again, so the other replica serves them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/host/index.js';
import { serveHttp, type HttpGateway } from '../../src/serve-api.js';
import { meta, post, postModern, type Msg } from '../support/modern-wire.js';
import { hasRedis, kill, startRedis } from '../support/replicas.js';
import { tempDirs } from '../support/temp-dirs.js';
import { root } from '../support/tap-helpers.js';
import { until } from '../support/until.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { REDIS } from '../support/replicas.js';

const dir = tempDirs('mcpwire-store-degraded-')();
const SECRET = 'degraded-test-shared-secret-0001';
let redis: { url: string; child: ChildProcess; port: number };
let a: HttpGateway;
let b: HttpGateway;

beforeAll(async () => {
  if (!hasRedis) return;
  redis = await startRedis(dir);
  const config = path.join(dir, 'config.json');
  fs.writeFileSync(config, JSON.stringify({ version: 1, mcp: { serve_names: 'host', servers: { alpha: { transport: 'stdio', command: process.execPath, args: [path.join(root, 'mock-servers/stdio-server.mjs')], env: { MOCK_SCENARIO_JSON: JSON.stringify({ tools: ['echo'] }) } } } } }));
  const loaded = await loadConfig({ globalPath: config });
  const logs: string[] = [];
  a = await serveHttp(loaded, { log: (l) => logs.push(l), store: redis.url, secret: SECRET });
  b = await serveHttp(loaded, { log: (l) => logs.push(l), store: redis.url, secret: SECRET });
}, 60_000);
afterAll(async () => {
  await a?.close();
  await b?.close();
  if (redis) await kill(redis.child);
  fs.rmSync(dir, { recursive: true, force: true });
});

const H = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
let id = 1;
async function initialize(url: string): Promise<string> {
  const r = await post(url, { jsonrpc: '2.0', id: id++, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } }, H);
  expect(r.response?.result, r.text).toBeDefined();
  return r.headers.get('mcp-session-id')!;
}
const inSession = (url: string, sid: string, method: string, params: Msg = {}) => post(url, { jsonrpc: '2.0', id: id++, method, params }, { ...H, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' });
async function storeState(url: string, sid: string): Promise<string> {
  const r = await inSession(url, sid, 'tools/call', { name: 'mcpwire_status', arguments: {} });
  return r.response!.result.structuredContent.store.state;
}

describe.skipIf(!hasRedis)('serve --http --store: Redis away and back (redis-server: installed by .ci/run)', { timeout: 120_000 }, () => {
  it('serves what needs no store while Redis is away, says degraded, 503 for a session it cannot look up, and recovers by itself', async () => {
    const sid = await initialize(a.url);
    const echo = ((await inSession(b.url, sid, 'tools/list')).response!.result.tools as { name: string }[]).find((t) => t.name.startsWith('mcp_alpha_echo'))!.name;
    expect(await storeState(a.url, sid)).toBe('ok');
    const onlyA = await initialize(a.url);
    await kill(redis.child);
    // The session a holds: served; its status says the store is degraded.
    await until('a sees the store degraded', async () => (await storeState(a.url, sid)) === 'degraded', 30_000, 100);
    expect(JSON.stringify((await inSession(a.url, sid, 'tools/call', { name: echo, arguments: { text: 'still here' } })).response!.result.content)).toContain('still here');
    // A session b never held cannot be looked up: 503 (retry), not 404 (gone).
    const lookup = await inSession(b.url, onlyA, 'tools/list');
    expect(lookup.status).toBe(503);
    // New sessions and 2026-07-28 requests need no store.
    const fresh = await initialize(b.url);
    expect((await inSession(b.url, fresh, 'tools/call', { name: echo, arguments: { text: 'new one' } })).response!.result.content[0].text).toBe('new one');
    const modern = await postModern(b.url, { jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name: echo, arguments: { text: 'modern' }, _meta: meta() } });
    expect(modern.response?.result?.content?.[0]?.text, modern.text).toBe('modern');
    // Redis back (empty: no persistence) on the same port: recovery without a restart.
    const again = spawn(REDIS, ['--port', String(redis.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
    redis.child = again;
    await until('a sees the store ok again', async () => (await storeState(a.url, sid)) === 'ok', 60_000, 200);
    // a stored its sessions' records again: b serves the session it could not look up before.
    await until('b serves the session a holds', async () => (await inSession(b.url, onlyA, 'tools/list')).status === 200, 30_000, 200);
  });
});
