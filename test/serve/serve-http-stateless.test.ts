// clauses: 2026-07-28
/**
 * `mcpwire serve --http`, 2026-07-28 requests without a session: one gateway session serves them
 * all (built once), each under an id of its own. What a client sees must not change: concurrent
 * POSTs under the same JSON-RPC id each get their own answer under that id, a request's progress
 * goes on its own POST's stream, and a POST closed before its answer cancels the downstream call.
 * Raw node:http requests, so every header and id is the test's choice.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, root, startUntil, stop } from '../support/tap-helpers.js';
import { tempDirs } from '../support/temp-dirs.js';

const dir = tempDirs('mcpwire-serve-stateless-')();
const config = path.join(dir, 'config.json');
const record = path.join(dir, 'received.ndjson');
fs.writeFileSync(config, JSON.stringify({ version: 1, mcp: { servers: { alpha: { transport: 'stdio', command: process.execPath, args: [path.join(root, 'mock-servers/stdio-server.mjs')], env: { MOCK_RECORD: record } } } } }));

const V = '2026-07-28';
const META = { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {} };

/** A 2026-07-28 `tools/call` POST with its mirrored headers; `onRequest` gets the request (to drop it). */
function call(url: string, id: unknown, name: string, args: Record<string, unknown>, meta: Record<string, unknown> = {}, onRequest?: (req: http.ClientRequest) => void): Promise<{ status: number; type: string; body: string }> {
  const u = new URL(url);
  const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, _meta: { ...META, ...meta } } });
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': V, 'mcp-method': 'tools/call', 'mcp-name': name } },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, type: String(res.headers['content-type']), body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
    onRequest?.(req);
  });
}

/** The JSON-RPC messages of an SSE body. */
const events = (body: string) => body.split('\n').filter((l) => l.startsWith('data: ') && l.length > 6).map((l) => JSON.parse(l.slice(6)));
/** What the downstream server received. */
const received = (): Record<string, any>[] => (fs.existsSync(record) ? fs.readFileSync(record, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []);

describe('mcpwire serve --http: stateless 2026-07-28 requests', { timeout: 60_000 }, () => {
  let url: string;
  let gw: Awaited<ReturnType<typeof startUntil>>;
  beforeAll(async () => {
    gw = await startUntil([cli, 'serve', '--http', '--config', config], /LISTEN (http:\/\/\S+)/);
    url = gw.match[1]!;
  });
  afterAll(async () => {
    await stop(gw.child);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('concurrent POSTs under the same id (two clients, or one reusing ids) each get their own answer, under that id', async () => {
    const [slow, fast, other] = await Promise.all([call(url, 7, 'slow', { ms: 300 }), call(url, 7, 'echo', { text: 'fast one' }), call(url, 'seven', 'echo', { text: 'string id' })]);
    for (const r of [slow, fast, other]) {
      expect(r.status).toBe(200);
      expect(r.type).toContain('application/json');
    }
    expect(JSON.parse(slow.body)).toMatchObject({ jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'slept 300 ms' }], resultType: 'complete' } });
    expect(JSON.parse(fast.body)).toMatchObject({ jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'fast one' }] } });
    expect(JSON.parse(other.body)).toMatchObject({ jsonrpc: '2.0', id: 'seven', result: { content: [{ type: 'text', text: 'string id' }] } });
  });

  it("basic.utilities.progress: a request's progress goes on its own POST's stream (SSE), its answer last, under its id; another request's POST carries none of it", async () => {
    const [withProgress, plain] = await Promise.all([call(url, 3, 'progress', { steps: 2, intervalMs: 20 }, { progressToken: 'tok-1' }), call(url, 3, 'slow', { ms: 150 })]);
    expect(withProgress.type).toContain('text/event-stream');
    const got = events(withProgress.body);
    expect(got.slice(0, -1).map((m) => [m.method, m.params.progressToken, m.params.progress])).toEqual([
      ['notifications/progress', 'tok-1', 1],
      ['notifications/progress', 'tok-1', 2],
    ]);
    expect(got.at(-1)).toMatchObject({ id: 3, result: { content: [{ text: 'done 2 steps' }] } });
    expect(plain.type).toContain('application/json');
    expect(JSON.parse(plain.body)).toMatchObject({ id: 3, result: { content: [{ text: 'slept 150 ms' }] } });
  });

  it('basic.transports (2026-07-28: a lost stream loses the request): a POST closed before its answer cancels the call downstream', async () => {
    let req: http.ClientRequest | undefined;
    const done = call(url, 1, 'slow', { ms: 30_000 }, {}, (r) => (req = r)).catch(() => 'dropped');
    const downstreamId = () => received().find((m) => m.method === 'tools/call' && m.params?.arguments?.ms === 30_000)?.id;
    await expect.poll(downstreamId, { timeout: 10_000 }).toBeDefined();
    req!.destroy();
    expect(await done).toBe('dropped');
    await expect.poll(() => received().some((m) => m.method === 'notifications/cancelled' && m.params?.requestId === downstreamId()), { timeout: 10_000 }).toBe(true);
    // the gateway goes on serving: the same id again is a new request
    expect(JSON.parse((await call(url, 1, 'echo', { text: 'after' })).body)).toMatchObject({ id: 1, result: { content: [{ text: 'after' }] } });
  });

  it('a 2026-07-28 notification POSTed once the shared session serves requests is still answered 202 alone, not taken as one of its requests', async () => {
    expect(JSON.parse((await call(url, 1, 'echo', { text: 'first' })).body)).toMatchObject({ id: 1, result: { content: [{ text: 'first' }] } });
    const u = new URL(url);
    const body = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 987, reason: 'test', _meta: META } });
    const r = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': V, 'mcp-method': 'notifications/cancelled' } }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, body: text }));
      });
      req.on('error', reject);
      req.end(body);
    });
    expect(r).toEqual({ status: 202, body: '' });
  });
});

describe('mcpwire serve --http: server/discover while the servers behind start', { timeout: 60_000 }, () => {
  const muteConfig = path.join(dir, 'mute.json');
  let gw: Awaited<ReturnType<typeof startUntil>>;
  beforeAll(async () => {
    fs.mkdirSync(dir, { recursive: true });
    // a server that never answers: the host's first attempt at it lasts its whole opening bound (30 s)
    fs.writeFileSync(muteConfig, JSON.stringify({ version: 1, mcp: { servers: { mute: { transport: 'stdio', command: process.execPath, args: ['-e', 'process.stdin.resume()'] } } } }));
    gw = await startUntil([cli, 'serve', '--http', '--config', muteConfig], /LISTEN (http:\/\/\S+)/);
  });
  afterAll(async () => {
    await stop(gw.child);
  });

  // cites server.discover#1: mcpwire serve is the server here: the gateway's own behaviour
  it("server.discover#1: answered by the gateway alone, not after the servers behind it started (a client's era probe left unanswered falls back to initialize)", { timeout: 15_000 }, async () => {
    const u = new URL(gw.match[1]!);
    const reply = await new Promise<string>((resolve, reject) => {
      const req = http.request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': V, 'mcp-method': 'server/discover' } }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve(text));
      });
      req.on('error', reject);
      req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: META } }));
    });
    expect(JSON.parse(reply)).toMatchObject({ id: 1, result: { supportedVersions: [V, '2025-11-25'], resultType: 'complete' } });
  });
});
