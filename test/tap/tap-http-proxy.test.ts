/**
 * The HTTP tap as a proxy that only ever reaches its upstream (real listeners on 127.0.0.1):
 * request targets that name another host are refused and a second listener receives nothing;
 * `Host`/`Origin` other than the tap's own are refused (DNS rebinding); a client that drops an
 * SSE stream aborts the upstream request and leaves nothing in flight; hop-by-hop headers and
 * those `Connection` names stay on their hop; a client that does not read makes the tap stop
 * reading the upstream; user info in `--upstream` becomes Basic credentials, never traced.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isOriginForm, ownHosts, refusal } from '../../src/tap/http-guard.js';
import { startHttpTap, type HttpTap } from '../../src/tap/index.js';
import { cli, startUntil, stop } from '../support/tap-helpers.js';
import { tempDirs } from '../support/temp-dirs.js';

const dir = tempDirs('mcpwire-tap-proxy-')();
const TOKEN = 'tok_proxyTest_4f3e2d1c0b';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
}

/** An HTTP server on 127.0.0.1 that records what reaches it (connections too). */
async function listener(handler?: (req: http.IncomingMessage, res: http.ServerResponse) => void) {
  const seen: Seen[] = [];
  let connections = 0;
  const server = http.createServer((req, res) => {
    seen.push({ method: req.method!, url: req.url!, headers: req.headers });
    if (handler) return handler(req, res);
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { seenAuthorization: req.headers.authorization ?? null } }));
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  const close = () => {
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  };
  return { server, port, seen, connections: () => connections, close };
}

/** A raw request to the tap: the target and headers exactly as given. */
function raw(port: number, target: string, headers: Record<string, string> = {}, method = 'POST'): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: target, method, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(method === 'POST' ? JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }) : undefined);
  });
}

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function setup(handler?: (req: http.IncomingMessage, res: http.ServerResponse) => void, upstreamUrl?: (port: number) => string) {
  const upstream = await listener(handler);
  cleanup.push(upstream.close);
  const trace = path.join(dir, `t-${Math.random().toString(36).slice(2)}.jsonl`);
  const tap: HttpTap = await startHttpTap({ listen: '127.0.0.1:0', upstream: upstreamUrl ? upstreamUrl(upstream.port) : `http://127.0.0.1:${upstream.port}/mcp`, trace, name: 'up' });
  cleanup.push(() => tap.close());
  return { upstream, tap, trace };
}

/** Polls `fn` until it is true (generous bound: CI is a loaded machine). */
async function until(fn: () => boolean, ms = 20_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

describe('the HTTP tap only ever connects to its upstream', () => {
  it('a target naming another host (//host:port/…, /\\host…, absolute-form) is a 400 and a second listener receives nothing, Authorization included', async () => {
    const { upstream, tap } = await setup();
    const other = await listener();
    cleanup.push(other.close);
    const auth = { authorization: `Bearer ${TOKEN}` };
    for (const target of [`//127.0.0.1:${other.port}/x`, `/\\127.0.0.1:${other.port}/x`, `http://127.0.0.1:${other.port}/x`, `https://127.0.0.1:${other.port}/x`]) {
      const r = await raw(tap.port, target, auth);
      expect(r.status, target).toBe(400);
    }
    // An ordinary request still passes, to the upstream.
    const ok = await raw(tap.port, '/mcp?x=1', auth);
    expect(ok.status).toBe(200);
    expect(other.connections()).toBe(0);
    expect(other.seen).toEqual([]);
    expect(upstream.seen.map((s) => s.url)).toEqual(['/mcp?x=1']);
  });

  // cites basic.transports#8: the tap is the HTTP server the host's client connects to, so validating Origin is its own job
  // cites basic.transports#9: the tap answers a present, invalid Origin with 403, as a server must
  it("basic.transports#8 #9: the tap, the server its host connects to, validates Host and Origin: another site's name is a 403 and nothing reaches the upstream", async () => {
    const { upstream, tap } = await setup();
    const own = `127.0.0.1:${tap.port}`;
    const refused: Array<Record<string, string>> = [
      { host: `evil.example:${tap.port}` },
      { host: own, origin: `http://evil.example:${tap.port}` },
      { host: own, origin: 'null' },
      { host: own, origin: `https://${own}` },
      { host: own, origin: `http://127.0.0.1:${tap.port + 1}` },
    ];
    for (const headers of refused) expect((await raw(tap.port, '/mcp', headers)).status, JSON.stringify(headers)).toBe(403);
    expect(upstream.seen).toEqual([]);
    expect((await raw(tap.port, '/mcp', { host: own })).status).toBe(200);
    expect((await raw(tap.port, '/mcp', { host: `localhost:${tap.port}`, origin: `http://localhost:${tap.port}` })).status).toBe(200);
    expect((await raw(tap.port, '/mcp', { host: own, origin: `http://${own}` })).status).toBe(200);
    expect(upstream.seen).toHaveLength(3);
  });
});

describe('http-guard: what a local listener takes', () => {
  it('origin-form targets only: one leading slash', () => {
    for (const ok of ['/', '/mcp', '/mcp?x=//y', '/a//b']) expect(isOriginForm(ok), ok).toBe(true);
    for (const bad of ['//h/x', '/\\h/x', 'http://h/x', '*', 'h:80', '', undefined]) expect(isOriginForm(bad), String(bad)).toBe(false);
  });

  it('its own names: the bound address, loopback names for a loopback or wildcard address, no port for 80', () => {
    expect([...ownHosts('127.0.0.1', 3100)].sort()).toEqual(['127.0.0.1:3100', '[::1]:3100', 'localhost:3100']);
    expect(ownHosts('::1', 5)).toContain('[::1]:5');
    expect(ownHosts('0.0.0.0', 7)).toContain('localhost:7');
    expect(ownHosts('0.0.0.0', 7)).toContain('0.0.0.0:7'); // the address it prints
    expect(ownHosts('127.0.0.1', 80)).toContain('localhost');
    expect(ownHosts('192.0.2.10', 9)).toEqual(new Set(['192.0.2.10:9']));
    const hosts = ownHosts('127.0.0.1', 3100);
    expect(refusal('/mcp', { host: 'LOCALHOST:3100', origin: 'http://localhost:3100' }, hosts)).toBeUndefined();
    expect(refusal('/mcp', { host: 'localhost:3100', origin: 'http://localhost:3100/' }, hosts)).toBeUndefined();
    expect(refusal('/mcp', { host: 'localhost:3100', origin: 'http://localhost:3100/x' }, hosts)?.status).toBe(403);
    expect(refusal('/mcp', {}, hosts)?.status).toBe(403);
  });
});

describe('the HTTP tap forwards as a proxy should', () => {
  it('a client that drops an SSE GET mid-stream aborts the upstream request, and nothing stays in flight', async () => {
    let upstreamClosed = false;
    const { tap } = await setup((req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write('id: 1\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}\n\n');
      res.on('close', () => {
        upstreamClosed = true;
      });
    });
    for (let round = 0; round < 3; round++) {
      const client = http.get({ host: '127.0.0.1', port: tap.port, path: '/mcp', headers: { accept: 'text/event-stream' } });
      const res = await new Promise<http.IncomingMessage>((r) => client.once('response', r));
      await new Promise((r) => res.once('data', r));
      expect(tap.inFlight()).toBe(1);
      upstreamClosed = false;
      client.on('error', () => {});
      client.destroy();
      expect(await until(() => upstreamClosed)).toBe(true);
      expect(await until(() => tap.inFlight() === 0)).toBe(true);
    }
  });

  it('an SSE event whose UTF-8 character is split across chunks is traced whole', async () => {
    const event = Buffer.from('data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"café ☕"}}\n\n');
    const cut = event.indexOf(Buffer.from('☕')) + 1;
    const { tap, trace } = await setup((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(event.subarray(0, cut));
      setTimeout(() => res.end(event.subarray(cut)), 50);
    });
    const r = await raw(tap.port, '/mcp');
    expect(r.body).toBe(event.toString());
    await tap.close();
    const line = fs.readFileSync(trace, 'utf8').split('\n').find((l) => l.includes('notifications/message'));
    expect(JSON.parse(line!).msg.params.data).toBe('café ☕');
  });

  it('headers named in Connection and the hop-by-hop ones stay on their hop, both ways (RFC 9110 §7.6.1)', async () => {
    const { upstream, tap } = await setup((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json', connection: 'x-resp-hop', 'x-resp-hop': '1', 'x-resp-end': '1' });
        res.end('{"jsonrpc":"2.0","id":1,"result":{}}');
      });
    });
    const r = await raw(tap.port, '/mcp', { connection: 'keep-alive, X-Hop', 'x-hop': 'secret-ish', 'keep-alive': 'timeout=5', 'x-end': '2', te: 'trailers' });
    expect(r.status).toBe(200);
    const got = upstream.seen[0].headers;
    expect(got['x-hop']).toBeUndefined();
    expect(got['keep-alive']).toBeUndefined();
    expect(got.te).toBeUndefined();
    expect(got['x-end']).toBe('2');
    expect(r.headers['x-resp-hop']).toBeUndefined();
    expect(r.headers['x-resp-end']).toBe('1');
  });

  it('a client that does not read makes the tap stop reading the upstream (write() false → pause until drain), then the whole body passes', async () => {
    const TOTAL = 64 * 1024 * 1024;
    const CHUNK = Buffer.alloc(1024 * 1024, 0x61);
    let written = 0;
    let finished = false;
    const { tap } = await setup((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(TOTAL) });
      const pump = () => {
        while (written < TOTAL) {
          written += CHUNK.length;
          if (!res.write(CHUNK)) return void res.once('drain', pump);
        }
        finished = true;
        res.end();
      };
      pump();
    });
    const client = http.get({ host: '127.0.0.1', port: tap.port, path: '/mcp' });
    const res = await new Promise<http.IncomingMessage>((r) => client.once('response', r));
    res.pause();
    // Wait until the upstream's writes stall (no progress for a second) or it has written it all.
    let last = -1;
    let still = 0;
    await until(() => {
      if (finished) return true;
      still = written === last ? still + 20 : 0;
      last = written;
      return still >= 1000;
    }, 60_000);
    expect(finished).toBe(false);
    expect(written).toBeLessThan(TOTAL);
    let received = 0;
    res.on('data', (c: Buffer) => {
      received += c.length;
    });
    res.resume();
    await new Promise((r) => res.once('end', r));
    expect(received).toBe(TOTAL);
  }, 90_000);
});

describe('--upstream with user info', () => {
  it('user:pass becomes Basic authorization upstream (the client’s own Authorization wins), and is in neither the tap URL nor the trace', async () => {
    const PASS = 's3cr@t-Upstream-pw';
    const { upstream, tap, trace } = await setup(undefined, (port) => `http://alice:${encodeURIComponent(PASS)}@127.0.0.1:${port}/mcp`);
    const basic = `Basic ${Buffer.from(`alice:${PASS}`).toString('base64')}`;
    expect(tap.url).not.toContain('alice');
    expect(tap.upstream).not.toContain(PASS);
    const r = await raw(tap.port, '/mcp');
    expect(r.status).toBe(200);
    expect(upstream.seen[0].headers.authorization).toBe(basic);
    await raw(tap.port, '/mcp', { authorization: `Bearer ${TOKEN}` });
    expect(upstream.seen[1].headers.authorization).toBe(`Bearer ${TOKEN}`);
    await tap.close();
    const text = fs.readFileSync(trace, 'utf8');
    expect(text).toContain('seenAuthorization'); // the upstream echoed the credential: it was traced, redacted
    for (const s of [PASS, encodeURIComponent(PASS), basic.slice(6), TOKEN]) expect(text).not.toContain(s);
  });

  it('a user name alone (https://TOKEN@host) is sent as Basic TOKEN: and redacted', async () => {
    const USER = 'ghp_onlyUserToken123456';
    const { upstream, tap, trace } = await setup(undefined, (port) => `http://${USER}@127.0.0.1:${port}/mcp`);
    await raw(tap.port, '/mcp');
    expect(upstream.seen[0].headers.authorization).toBe(`Basic ${Buffer.from(`${USER}:`).toString('base64')}`);
    await tap.close();
    const text = fs.readFileSync(trace, 'utf8');
    expect(text).not.toContain(USER);
    expect(text).not.toContain(Buffer.from(`${USER}:`).toString('base64'));
  });

  it('mcpwire tap prints the upstream without its user info', async () => {
    const PASS = 'pw-printed-never-9a8b7c';
    const trace = path.join(dir, 'cli.jsonl');
    const { child, stderr } = await startUntil([cli, 'tap', '--listen', '127.0.0.1:0', '--upstream', `http://bob:${PASS}@127.0.0.1:9/mcp`, '--trace', trace], /listening on \S+ → \S+/);
    await stop(child);
    expect(stderr()).toMatch(/→ http:\/\/127\.0\.0\.1:9\/mcp/);
    expect(stderr()).not.toContain(PASS);
    expect(fs.readFileSync(trace, 'utf8')).not.toContain(PASS);
  });
});
