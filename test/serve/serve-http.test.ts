/**
 * `mcpwire serve --http`: the gateway over Streamable HTTP as a real process on 127.0.0.1 —
 * its guard (Host, Origin, bearer token), sessions, and the refusal to listen beyond loopback
 * without a token. Requests are made with node:http so every header is the test's choice.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, root, startUntil, stop } from '../support/tap-helpers.js';
import { tempDirs } from '../support/temp-dirs.js';

const dir = tempDirs('mcpwire-serve-http-')();
const config = path.join(dir, 'config.json');
const TOKEN = 'gw-token-9f3b1c7d2e';
fs.writeFileSync(config, JSON.stringify({ version: 1, mcp: { serve_names: 'host', servers: { alpha: { transport: 'stdio', command: process.execPath, args: [path.join(root, 'mock-servers/stdio-server.mjs')] } } } }));

type Reply = { status: number; headers: http.IncomingHttpHeaders; body: string };

function request(url: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}): Promise<Reply> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, path: u.pathname, method: init.method ?? 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...init.headers } }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    if (init.body !== undefined) req.write(typeof init.body === 'string' ? init.body : JSON.stringify(init.body));
    req.end();
  });
}

/** POSTs `body`, reads up to the stream's priming event and drops the connection (a network failure); resolves to the priming event's id. */
function postAndDrop(url: string, headers: Record<string, string>, body: unknown): Promise<string> {
  const u = new URL(url);
  return new Promise<string>((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => {
        text += c.toString();
        const m = /^id: (\S+)\n(?:retry: \d+\n)?data: \n\n/.exec(text);
        if (m) {
          req.destroy();
          resolve(m[1]!);
        }
      });
    });
    req.on('error', (e) => (e.message.includes('socket hang up') ? undefined : reject(e)));
    req.end(JSON.stringify(body));
  });
}

const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
/** The JSON-RPC messages of an SSE body. */
const events = (body: string) => body.split('\n').filter((l) => l.startsWith('data: ') && l.length > 6).map((l) => JSON.parse(l.slice(6)));

describe('mcpwire serve --http', { timeout: 60_000 }, () => {
  let url: string;
  let gw: Awaited<ReturnType<typeof startUntil>>;
  let tokenUrl: string;
  let tokenGw: Awaited<ReturnType<typeof startUntil>>;
  beforeAll(async () => {
    gw = await startUntil([cli, 'serve', '--http', '--config', config], /LISTEN (http:\/\/\S+)/);
    url = gw.match[1];
    tokenGw = await startUntil([cli, 'serve', '--http', '--token-env', 'GW_TOKEN', '--config', config], /LISTEN (http:\/\/\S+)/, { GW_TOKEN: TOKEN });
    tokenUrl = tokenGw.match[1];
  });
  afterAll(async () => {
    await stop(gw.child);
    await stop(tokenGw.child);
  });

  // cites basic.transports#10: mcpwire serve is the server here: the gateway's own behaviour
  it('basic.transports#10: listens on 127.0.0.1 by default, at /mcp', () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  });

  // cites basic.transports#9: mcpwire serve is the server here: the gateway's own behaviour
  it('basic.transports#9: a foreign Origin is 403; so is a foreign Host (DNS rebinding)', async () => {
    const port = new URL(url).port;
    expect((await request(url, { headers: { origin: 'http://evil.example' }, body: INIT })).status).toBe(403);
    expect((await request(url, { headers: { host: `evil.example:${port}` }, body: INIT })).status).toBe(403);
    expect((await request(url, { headers: { origin: `http://127.0.0.1:${port}` }, body: INIT })).status).toBe(200);
  });

  // cites basic.transports#43: mcpwire serve is the server here: the gateway's own behaviour
  // cites basic.transports#44: mcpwire serve is the server here: the gateway's own behaviour
  // cites basic.transports#50: mcpwire serve is the server here: the gateway's own behaviour
  it('basic.transports#43 / basic.transports#44 / basic.transports#50: sessions — a session id at initialize, 400 without one, 404 for an unknown or deleted one, 400 for an unsupported protocol version', async () => {
    const init = await request(url, { body: INIT });
    expect(init.status).toBe(200);
    const sid = init.headers['mcp-session-id'] as string;
    expect(sid).toMatch(/^[\x21-\x7e]+$/);
    expect(events(init.body)[0]).toMatchObject({ id: 1, result: { protocolVersion: '2025-11-25' } });
    const headers = { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' };
    expect((await request(url, { headers, body: { jsonrpc: '2.0', method: 'notifications/initialized' } })).status).toBe(202);
    const list = await request(url, { headers, body: { jsonrpc: '2.0', id: 2, method: 'tools/list' } });
    expect(events(list.body)[0].result.tools.map((t: { name: string }) => t.name)).toContain('mcpwire_status');
    expect((await request(url, { body: { jsonrpc: '2.0', id: 3, method: 'tools/list' } })).status).toBe(400);
    expect((await request(url, { headers: { ...headers, 'mcp-protocol-version': '1999-01-01' }, body: { jsonrpc: '2.0', id: 4, method: 'tools/list' } })).status).toBe(400);
    expect((await request(url, { headers: { 'mcp-session-id': 'no-such-session' }, body: { jsonrpc: '2.0', id: 5, method: 'tools/list' } })).status).toBe(404);
    expect((await request(url, { method: 'DELETE', headers })).status).toBe(200);
    expect((await request(url, { headers, body: { jsonrpc: '2.0', id: 6, method: 'tools/list' } })).status).toBe(404);
  });

  // cites basic.transports#20: mcpwire serve is the server here: the gateway's own behaviour
  it("basic.transports#20 / basic.transports#24: a stream starts with a priming event id; a client that lost it gets the call's response by GET with Last-Event-ID", async () => {
    const init = await request(url, { body: INIT });
    const headers = { 'mcp-session-id': init.headers['mcp-session-id'] as string, 'mcp-protocol-version': '2025-11-25' };
    await request(url, { headers, body: { jsonrpc: '2.0', method: 'notifications/initialized' } });
    const tools = events((await request(url, { headers, body: { jsonrpc: '2.0', id: 2, method: 'tools/list' } })).body)[0].result.tools as { name: string }[];
    const slow = tools.find((t) => t.name.startsWith('mcp_alpha_slow'))!.name;
    // POST the call, read up to the priming event, then drop the connection (a network failure).
    const primed = await postAndDrop(url, headers, { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: slow, arguments: { ms: 800 } } });
    const resumed = await request(url, { method: 'GET', headers: { ...headers, accept: 'text/event-stream', 'last-event-id': primed } });
    expect(resumed.status).toBe(200);
    expect(events(resumed.body)).toEqual([expect.objectContaining({ id: 7, result: expect.objectContaining({ content: [{ type: 'text', text: 'slept 800 ms' }] }) })]);
    expect((await request(url, { method: 'GET', headers: { ...headers, accept: 'text/event-stream', 'last-event-id': '999-0' } })).status).toBe(400);
  });

  it('regression: after 65 requests in a session, a client that lost the next call\'s stream still gets its response by GET with Last-Event-ID', async () => {
    const init = await request(url, { body: INIT });
    const headers = { 'mcp-session-id': init.headers['mcp-session-id'] as string, 'mcp-protocol-version': '2025-11-25' };
    await request(url, { headers, body: { jsonrpc: '2.0', method: 'notifications/initialized' } });
    for (let id = 10; id < 75; id++) expect(events((await request(url, { headers, body: { jsonrpc: '2.0', id, method: 'ping' } })).body)).toEqual([{ jsonrpc: '2.0', id, result: {} }]);
    const tools = events((await request(url, { headers, body: { jsonrpc: '2.0', id: 2, method: 'tools/list' } })).body)[0].result.tools as { name: string }[];
    const slow = tools.find((t) => t.name.includes('slow'))!.name;
    const primed = await postAndDrop(url, headers, { jsonrpc: '2.0', id: 80, method: 'tools/call', params: { name: slow, arguments: { ms: 500 } } });
    const resumed = await request(url, { method: 'GET', headers: { ...headers, accept: 'text/event-stream', 'last-event-id': primed } });
    expect(resumed.status).toBe(200);
    expect(events(resumed.body)).toEqual([expect.objectContaining({ id: 80, result: expect.objectContaining({ content: [{ type: 'text', text: 'slept 500 ms' }] }) })]);
  });

  // cites basic.utilities.cancellation#4: mcpwire serve is the receiver here: the gateway's own behaviour
  it('basic.utilities.cancellation#4: a call the client cancels ends its POST stream at once, with no response on it', async () => {
    const init = await request(url, { body: INIT });
    const headers = { 'mcp-session-id': init.headers['mcp-session-id'] as string, 'mcp-protocol-version': '2025-11-25' };
    await request(url, { headers, body: { jsonrpc: '2.0', method: 'notifications/initialized' } });
    const tools = events((await request(url, { headers, body: { jsonrpc: '2.0', id: 2, method: 'tools/list' } })).body)[0].result.tools as { name: string }[];
    const slow = tools.find((t) => t.name.includes('slow'))!.name;
    // the call sleeps 30 s: its POST ending before that is the cancel's doing
    const u = new URL(url);
    let body = '';
    const ended = new Promise<void>((resolve, reject) => {
      const req = http.request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', resolve);
      });
      req.on('error', reject);
      req.end(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: slow, arguments: { ms: 30_000 } } }));
    });
    // the priming event is written once the gateway took the request
    await expect.poll(() => body.includes('data: \n\n'), { timeout: 10_000 }).toBe(true);
    expect((await request(url, { headers, body: { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3, reason: 'changed my mind' } } })).status).toBe(202);
    await ended;
    expect(events(body)).toEqual([]);
  });

  it('basic.transports#15: a JSON-RPC batch is refused with 400', async () => {
    expect((await request(url, { body: [INIT] })).status).toBe(400);
  });

  // cites basic.transports#11: mcpwire serve is the server here: the gateway's own behaviour
  it('basic.transports#11: with --token-env every request needs the bearer token (401 without, or with another)', async () => {
    expect((await request(tokenUrl, { body: INIT })).status).toBe(401);
    expect((await request(tokenUrl, { headers: { authorization: 'Bearer wrong' }, body: INIT })).status).toBe(401);
    const ok = await request(tokenUrl, { headers: { authorization: `Bearer ${TOKEN}` }, body: INIT });
    expect(ok.status).toBe(200);
    expect(events(ok.body)[0].result.serverInfo.name).toBe('mcpwire-gateway');
  });

  it('refuses to listen beyond loopback without a token, naming --token-env (the message whole: the scrubber eats none of it)', async () => {
    const child = spawn(process.execPath, [cli, 'serve', '--http', '--listen', '0.0.0.0:0', '--config', config], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise((r) => child.once('exit', r));
    expect(code).not.toBe(0);
    expect(stderr).toContain('needs a bearer token: give --token-env <NAME>');
    expect(stderr).not.toMatch(/LISTEN|redacted/);
  });
});

describe('serveHttp (mcpwire/serve) sessions', { timeout: 60_000 }, () => {
  it('a session idle past sessionIdleMs is ended: its id then gets 404; one with a connected GET stream stays', async () => {
    const { serveHttp } = await import('../../src/serve/index.js');
    const gw = await serveHttp([], { listen: '127.0.0.1:0', sessionIdleMs: 300, log: () => {} });
    try {
      const open = async () => {
        const init = await request(gw.url, { body: INIT });
        return { 'mcp-session-id': init.headers['mcp-session-id'] as string, 'mcp-protocol-version': '2025-11-25' };
      };
      const idle = await open();
      const watched = await open();
      // A GET stream held open by the client (read in the background, ended below).
      const u = new URL(gw.url);
      const get = http.request({ host: u.hostname, port: u.port, path: u.pathname, method: 'GET', headers: { accept: 'text/event-stream', ...watched } });
      get.on('error', () => {});
      await new Promise<void>((resolve) => get.on('response', (res) => (res.resume(), resolve())).end());
      expect((await request(gw.url, { headers: idle, body: { jsonrpc: '2.0', id: 2, method: 'ping' } })).status).toBe(200);
      await expect.poll(async () => (await request(gw.url, { headers: idle, body: { jsonrpc: '2.0', id: 3, method: 'ping' } })).status, { timeout: 10_000, interval: 800 }).toBe(404);
      expect((await request(gw.url, { headers: watched, body: { jsonrpc: '2.0', id: 4, method: 'ping' } })).status).toBe(200);
      get.destroy();
    } finally {
      await gw.close();
    }
  });
});

describe('serveHttp (mcpwire/serve): the guard, versions and bounds', { timeout: 60_000 }, () => {
  const open = async (url: string, extra: Record<string, string> = {}) => {
    const init = await request(url, { headers: extra, body: INIT });
    expect(init.status).toBe(200);
    return { ...extra, 'mcp-session-id': init.headers['mcp-session-id'] as string, 'mcp-protocol-version': '2025-11-25' };
  };

  it('regression: the bearer scheme is matched in any case (RFC 9110 §11.1); anything but the token is 401', async () => {
    const { serveHttp } = await import('../../src/serve/index.js');
    const gw = await serveHttp([], { listen: '127.0.0.1:0', token: TOKEN, log: () => {} });
    try {
      for (const authorization of [`Bearer ${TOKEN}`, `bearer ${TOKEN}`, `BEARER ${TOKEN}`, `bEaReR  ${TOKEN}`]) {
        expect((await request(gw.url, { headers: { authorization }, body: INIT })).status, authorization).toBe(200);
      }
      for (const authorization of ['', 'Bearer', `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(1)}`, `Basic ${TOKEN}`, `Token ${TOKEN}`, TOKEN, `Bearer${TOKEN}`]) {
        expect((await request(gw.url, { headers: { authorization }, body: INIT })).status, authorization).toBe(401);
      }
    } finally {
      await gw.close();
    }
  });

  it('concurrent POSTs in one session each get their own stream, under every MCP-Protocol-Version with Streamable HTTP (the official suite sends 2025-03-26)', async () => {
    const { serveHttp } = await import('../../src/serve/index.js');
    const gw = await serveHttp([], { listen: '127.0.0.1:0', log: () => {} });
    try {
      const headers = await open(gw.url);
      await request(gw.url, { headers, body: { jsonrpc: '2.0', method: 'notifications/initialized' } });
      for (const version of ['2025-03-26', '2025-06-18', '2025-11-25']) {
        const replies = await Promise.all([0, 1, 2].map((i) => request(gw.url, { headers: { ...headers, 'mcp-protocol-version': version }, body: { jsonrpc: '2.0', id: 1000 + i, method: 'tools/list', params: {} } })));
        expect(replies.map((r) => r.status), version).toEqual([200, 200, 200]);
        expect(replies.map((r) => r.headers['content-type'])).toEqual(Array(3).fill('text/event-stream'));
        expect(replies.map((r) => events(r.body)[0].id)).toEqual([1000, 1001, 1002]);
      }
      for (const version of ['2024-11-05', '1999-01-01']) {
        expect((await request(gw.url, { headers: { ...headers, 'mcp-protocol-version': version }, body: { jsonrpc: '2.0', id: 9, method: 'ping' } })).status, version).toBe(400);
      }
    } finally {
      await gw.close();
    }
  });

  it('sessions are capped: a new one ends the session idle the longest, or is refused with 503 while every session has a stream open', async () => {
    const { serveHttp } = await import('../../src/serve/index.js');
    const gw = await serveHttp([], { listen: '127.0.0.1:0', maxSessions: 2, log: () => {} });
    const held: http.ClientRequest[] = [];
    /** A GET stream held open by the client. */
    const hold = (headers: Record<string, string>) => {
      const u = new URL(gw.url);
      const get = http.request({ host: u.hostname, port: u.port, path: u.pathname, method: 'GET', headers: { accept: 'text/event-stream', ...headers } });
      get.on('error', () => {});
      held.push(get);
      return new Promise<void>((resolve) => get.on('response', (res) => (res.resume(), resolve())).end());
    };
    const ping = async (headers: Record<string, string>) => (await request(gw.url, { headers, body: { jsonrpc: '2.0', id: 2, method: 'ping' } })).status;
    try {
      const a = await open(gw.url);
      const b = await open(gw.url);
      await hold(b);
      const c = await open(gw.url); // a, idle, makes room
      expect(await ping(a)).toBe(404);
      expect(await ping(b)).toBe(200);
      await hold(c);
      const refused = await request(gw.url, { body: INIT });
      expect(refused.status).toBe(503);
      expect(refused.headers['retry-after']).toBeDefined();
      expect(JSON.parse(refused.body).error.message).toMatch(/2 sessions/);
      expect(await ping(b)).toBe(200);
      expect(await ping(c)).toBe(200);
    } finally {
      for (const g of held) g.destroy();
      await gw.close();
    }
  });

  it('regression: an error never echoes unbounded request text (a resources/read of a 100 KB URI that is not there)', async () => {
    const { serveHttp } = await import('../../src/serve/index.js');
    const gw = await serveHttp([], { listen: '127.0.0.1:0', log: () => {} });
    try {
      const headers = await open(gw.url);
      await request(gw.url, { headers, body: { jsonrpc: '2.0', method: 'notifications/initialized' } });
      const uri = `file:///${'x'.repeat(100_000)}`;
      const reply = await request(gw.url, { headers, body: { jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri } } });
      const error = events(reply.body)[0].error;
      expect(error).toMatchObject({ code: -32002, message: expect.stringMatching(/^Resource not found: file:\/\/\/x+… \(100008 chars\)$/) });
      expect(reply.body.length).toBeLessThan(2_000);
      // a short one is named whole, in the message and in data
      const short = events((await request(gw.url, { headers, body: { jsonrpc: '2.0', id: 3, method: 'resources/read', params: { uri: 'file:///nope' } } })).body)[0].error;
      expect(short).toEqual({ code: -32002, message: 'Resource not found: file:///nope', data: { uri: 'file:///nope' } });
      // nor any other name or value a client sent
      const big = 'x'.repeat(100_000);
      for (const [method, params] of [
        [big, undefined],
        ['prompts/get', { name: big }],
        ['completion/complete', { ref: { type: 'ref/prompt', name: big }, argument: { name: 'a', value: 'b' } }],
        ['completion/complete', { ref: { type: 'ref/resource', uri: big }, argument: { name: 'a', value: 'b' } }],
        ['logging/setLevel', { level: big }],
        ['tools/call', { name: big, arguments: {} }],
      ] as const) {
        const r = await request(gw.url, { headers, body: { jsonrpc: '2.0', id: 4, method, ...(params ? { params } : {}) } });
        expect(events(r.body)[0].error, method.slice(0, 40)).toBeDefined();
        expect(r.body.length, method.slice(0, 40)).toBeLessThan(2_000);
      }
    } finally {
      await gw.close();
    }
  });
});
