/**
 * Regressions for the HTTP transports: resumption tied to its request and
 * bounded, POST streams closed after their response, the legacy idle default, 404 outside a
 * request (onsessionexpired), onDispatched, 202 for a request, and a leading BOM. Real sockets on
 * 127.0.0.1: the node:http mock (mock-servers/http-server.mjs) where it can misbehave the way a
 * test needs, else a small raw node:http server scripted inside the test. The transport is driven
 * directly with raw JSON-RPC messages; every assertion is about the wire or the transport's
 * callbacks.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test, vi, type TestContext } from 'vitest';
import { Pool, type Dispatcher } from 'undici';
import { SessionExpiredError, TimeoutError, TransportError } from '../src/errors.js';
import { Connection } from '../src/protocol/connection.js';
import type { JSONRPCMessage } from '../src/jsonrpc/types.js';
import { DEFAULT_IDLE_STREAM_TIMEOUT_MS, reconnectDelayMs, type HttpTransportOptions } from '../src/transport/http-common.js';
import { LegacySseTransport, StreamableHttpTransport } from '../src/transport/http-factory.js';
import type { SendOptions, Transport, TransportDiagnostic, TransportEvent } from '../src/transport/types.js';
// @ts-expect-error plain ESM mock without types
import { startHttpMock } from '../mock-servers/http-server.mjs';
import { atTestEnd } from '../test/support/cleanups.js';

interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | undefined>;
  body: string;
}
interface Mock {
  url: string;
  record: { requests: RecordedRequest[]; messages: Array<Record<string, unknown>> };
  expireSessions(): void;
  sessionIds(): string[];
  sockets(): { open: number; total: number };
  close(): Promise<void>;
}

afterEach(() => {
  vi.restoreAllMocks();
});

// Most tests here wait (a pause to show no resumption or reconnect follows) and run at once, each
// with its own servers and transports, closed when it ends (atTestEnd): nothing is shared.

async function mock(ctx: TestContext, options: Record<string, unknown> = {}): Promise<Mock> {
  const m = (await startHttpMock(options)) as Mock;
  atTestEnd(ctx, () => m.close());
  return m;
}

function wire<T extends Transport>(ctx: TestContext, t: T) {
  const messages: Array<Record<string, unknown>> = [];
  const events: TransportEvent[] = [];
  const diagnostics: TransportDiagnostic[] = [];
  const expired: Error[] = [];
  t.onmessage = (m) => messages.push(m as Record<string, unknown>);
  t.onevent = (e) => events.push(e);
  t.ondiagnostic = (d) => diagnostics.push(d);
  t.onsessionexpired = (e) => expired.push(e);
  atTestEnd(ctx, () => t.close());
  return { t, messages, events, diagnostics, expired };
}

function httpT(ctx: TestContext, url: string, extra: Partial<HttpTransportOptions> = {}) {
  return wire(ctx, new StreamableHttpTransport({ url, serverId: 'mock', ...extra }));
}

const INIT: JSONRPCMessage = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'test', version: '1.0.0' } },
};
let nextId = 1000;
const call = (name: string, args: Record<string, unknown> = {}): JSONRPCMessage & { id: number } => ({
  jsonrpc: '2.0',
  id: ++nextId,
  method: 'tools/call',
  params: { name, arguments: args },
});

async function handshake(t: Transport): Promise<void> {
  await t.start();
  await t.send(INIT, { isInitialize: true });
  t.setProtocolVersion?.('2025-11-25');
  await t.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
}

async function waitFor(cond: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---- a raw node:http server for misbehaviour the mock cannot script ---------------------------

interface RawRequest {
  method: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  msg: Record<string, unknown> | undefined;
  closed: boolean;
}
type RawHandler = (req: RawRequest, res: http.ServerResponse) => void;

async function rawServer(ctx: TestContext, handler: RawHandler) {
  const requests: RawRequest[] = [];
  const sockets = { open: 0, total: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let msg: Record<string, unknown> | undefined;
      try {
        msg = body ? (JSON.parse(body) as Record<string, unknown>) : undefined;
      } catch {
        msg = undefined;
      }
      const r: RawRequest = { method: req.method ?? '', headers: req.headers, body, msg, closed: false };
      requests.push(r);
      res.on('close', () => {
        r.closed = true;
      });
      handler(r, res);
    });
  });
  server.on('connection', (s) => {
    sockets.open++;
    sockets.total++;
    s.once('close', () => sockets.open--);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  atTestEnd(ctx, close);
  return { url: `http://127.0.0.1:${port}/mcp`, requests, sockets, close };
}

const SID = 'raw-session-1';
/** Answers initialize (JSON, with a session), notifications and responses (202), like a server. */
function basics(r: RawRequest, res: http.ServerResponse): boolean {
  const m = r.msg;
  if (r.method === 'POST' && m?.method === 'initialize') {
    res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': SID });
    res.end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'raw', version: '1' } } }));
    return true;
  }
  if (r.method === 'POST' && m !== undefined && m.id === undefined) {
    res.writeHead(202).end();
    return true;
  }
  if (r.method === 'DELETE') {
    res.writeHead(200).end();
    return true;
  }
  return false;
}
const sseHead = (res: http.ServerResponse) => {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.flushHeaders();
};
const resultFor = (id: unknown, textOut: string) => JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: textOut }] } });
const isResume = (r: RawRequest) => r.method === 'GET' && r.headers['last-event-id'] !== undefined;

// ---- resumption is tied to its request and bounded --------------------------------------

// The waiting tests of this block run at once; reconnectDelayMs's test, which stubs Math.random
// (read by every reconnect delay), runs after them, alone.
describe('SSE resumption belongs to its request and is bounded', () => {
  test.concurrent('a request given up on (its signal aborted) is not resumed: no GET + Last-Event-ID after the abort (basic.transports#37)', async (ctx) => {
    const { expect } = ctx;
    const m = await mock(ctx, { mode: 'sse', retryMs: 50, getStream: false });
    const { t, messages } = httpT(ctx, m.url);
    await handshake(t);
    const ac = new AbortController();
    const msg = { ...call('progress', { steps: 3, ms: 2000 }), params: { name: 'progress', arguments: { steps: 3, ms: 2000 }, _meta: { progressToken: 'p' } } };
    const sent = t.send(msg, { signal: ac.signal }).catch((e: unknown) => e);
    // A progress event (with an event id) arrived: the stream is resumable from here.
    await waitFor(() => messages.some((x) => x.method === 'notifications/progress'), 'the first progress event');
    ac.abort();
    expect(await sent).toBeInstanceOf(Error);
    await pause(1000); // retry is 50 ms, the floor 250 ms: a resumption would have happened
    expect(m.record.requests.filter((r) => r.method === 'GET' && r.headers['last-event-id'] !== undefined)).toHaveLength(0);
  });

  test.concurrent('end to end: after the caller got TimeoutError no resumption starts (Connection over HTTP, basic.transports#37)', async (ctx) => {
    const { expect } = ctx;
    const m = await mock(ctx, { mode: 'sse', retryMs: 50, getStream: false });
    const t = new StreamableHttpTransport({ url: m.url, serverId: 'mock' });
    const conn = new Connection(t, { serverId: 'mock' });
    atTestEnd(ctx, () => conn.close());
    await t.start();
    await conn.request('initialize', (INIT as { params: Record<string, unknown> }).params, { isInitialize: true });
    t.setProtocolVersion('2025-11-25');
    await conn.notify('notifications/initialized');
    let progressed = 0;
    const err = await conn
      .request('tools/call', { name: 'progress', arguments: { steps: 3, ms: 2000 } }, { timeoutMs: 800, onProgress: () => progressed++ })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect(progressed).toBeGreaterThan(0); // the stream had an event id to resume from
    await pause(1000);
    expect(m.record.requests.filter((r) => r.method === 'GET' && r.headers['last-event-id'] !== undefined)).toHaveLength(0);
  });

  test.concurrent('a resumption under way stops when its request is given up: the resuming GET is closed, none follows (basic.transports#37)', async (ctx) => {
    const { expect } = ctx;
    const srv = await rawServer(ctx, (r, res) => {
      if (basics(r, res)) return;
      if (r.method === 'GET' && !isResume(r)) return void res.writeHead(405).end();
      if (r.method === 'POST') {
        sseHead(res);
        res.write('id: e1\nretry: 10\ndata: \n\n');
        res.end(); // closes the connection before the response: the client resumes
        return;
      }
      sseHead(res); // the resuming GET: held open, never answers
    });
    const { t } = httpT(ctx, srv.url);
    await handshake(t);
    const ac = new AbortController();
    const sent = t.send(call('anything'), { signal: ac.signal }).catch((e: unknown) => e);
    await waitFor(() => srv.requests.some(isResume), 'the resuming GET');
    ac.abort();
    expect(await sent).toBeInstanceOf(Error);
    await waitFor(() => srv.requests.filter(isResume).every((r) => r.closed), 'the resuming GET to be closed by the client', 5000);
    await pause(700);
    expect(srv.requests.filter(isResume)).toHaveLength(1);
  });

  test.concurrent('a request answered on another stream (here the GET stream) is not resumed after it settled (basic.transports#37)', async (ctx) => {
    const { expect } = ctx;
    let getRes: http.ServerResponse | undefined;
    const srv = await rawServer(ctx, (r, res) => {
      if (basics(r, res)) return;
      if (r.method === 'GET' && !isResume(r)) {
        sseHead(res);
        getRes = res;
        return;
      }
      if (r.method === 'POST') {
        sseHead(res);
        res.end('id: p1\nretry: 400\ndata: \n\n'); // dropped before the response…
        setTimeout(() => getRes?.write(`data: ${resultFor(r.msg?.id, 'via GET')}\n\n`), 50); // …which comes on the GET stream
        return;
      }
      sseHead(res); // a resumption: held open
    });
    const { t, messages } = httpT(ctx, srv.url);
    await handshake(t);
    await waitFor(() => getRes !== undefined, 'the GET stream');
    const msg = call('anything');
    await t.send(msg);
    expect(messages.find((x) => x.id === msg.id)).toMatchObject({ result: { content: [{ text: 'via GET' }] } });
    await pause(900);
    expect(srv.requests.filter(isResume)).toHaveLength(0);
  });

  test.concurrent('retry: 0 and a server closing the GET stream at once: delays have a 250 ms floor and grow (no reconnect storm) (basic.transports#23 #33)', async (ctx) => {
    const { expect } = ctx;
    const srv = await rawServer(ctx, (r, res) => {
      if (basics(r, res)) return;
      if (r.method === 'GET') {
        sseHead(res);
        res.end('retry: 0\n\n');
        return;
      }
      res.writeHead(500).end();
    });
    const { t, events } = httpT(ctx, srv.url, { maxReconnectAttempts: 50 });
    await handshake(t);
    await waitFor(() => srv.requests.some((r) => r.method === 'GET'), 'the GET stream');
    await pause(1500);
    const gets = srv.requests.filter((r) => r.method === 'GET').length;
    // Before the fix: ~330 GETs/s. 250 + 500 + 1000 ms of backoff leave room for at most 4.
    expect(gets).toBeLessThanOrEqual(5);
    const delays = events.filter((e) => e.type === 'sse-reconnect').map((e) => e.delayMs as number);
    expect(delays.length).toBeGreaterThanOrEqual(2);
    for (const d of delays) expect(d).toBeGreaterThanOrEqual(250);
    expect(delays[1]).toBeGreaterThan(delays[0]);
  });

  test.concurrent('a 200 that ends without an event does not reset the attempts; after the cap a diagnostic, and the GET stream reopens after the next successful POST', async (ctx) => {
    const { expect } = ctx;
    let getsAllowed = Infinity;
    const srv = await rawServer(ctx, (r, res) => {
      if (basics(r, res)) return;
      if (r.method === 'GET') {
        sseHead(res);
        if (getsAllowed-- > 0) res.end('id: g1\nretry: 0\n\n');
        return; // once allowed no more: held open (a healthy stream)
      }
      if (r.method === 'POST') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(resultFor(r.msg?.id, 'ok'));
      }
    });
    const { t, diagnostics } = httpT(ctx, srv.url, { maxReconnectAttempts: 2, maxReconnectDelayMs: 300 });
    await handshake(t);
    await waitFor(() => diagnostics.some((d) => d.code === 'MCPWIRE_SSE_GAVE_UP'), 'the give-up diagnostic');
    expect(srv.requests.filter((r) => r.method === 'GET')).toHaveLength(3); // the first + 2 reconnects
    expect(diagnostics.find((d) => d.code === 'MCPWIRE_SSE_GAVE_UP')!.message).toMatch(/GET stream/);
    await pause(800);
    expect(srv.requests.filter((r) => r.method === 'GET')).toHaveLength(3); // given up: no more
    getsAllowed = 0;
    await t.send(call('echo'));
    await waitFor(() => srv.requests.filter((r) => r.method === 'GET').length === 4, 'the GET stream to reopen');
    const reopened = srv.requests.filter((r) => r.method === 'GET')[3];
    expect(reopened.headers['last-event-id']).toBeUndefined();
  });

  test('reconnectDelayMs: floor 250 ms, the server retry respected, exponential growth, jitter above the base, capped', () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    expect(reconnectDelayMs(0, 0, 30_000)).toBe(250);
    expect(reconnectDelayMs(0, 100, 30_000)).toBe(250);
    expect(reconnectDelayMs(0, 2000, 30_000)).toBe(2000);
    expect(reconnectDelayMs(0, undefined, 30_000)).toBe(1000);
    expect(reconnectDelayMs(1, 0, 30_000)).toBe(500);
    expect(reconnectDelayMs(3, 0, 30_000)).toBe(2000);
    expect(reconnectDelayMs(20, 0, 30_000)).toBe(30_000);
    // A server retry larger than the cap is still respected (basic.transports#23).
    expect(reconnectDelayMs(5, 60_000, 30_000)).toBe(60_000);
    vi.spyOn(Math, 'random').mockReturnValue(0.999);
    const j = reconnectDelayMs(2, 0, 30_000);
    expect(j).toBeGreaterThan(1000);
    expect(j).toBeLessThanOrEqual(1250);
    expect(reconnectDelayMs(20, 0, 30_000)).toBeLessThanOrEqual(30_000);
  });
});

// ---- a POST stream is closed once its response arrived ----------------------------------
// (this block and the ones after it run at once, and so do their tests: each owns its servers)

describe.concurrent('a POST response stream is closed once its request is answered', () => {
  // cites basic.transports#26: a server that breaks it (never ends the stream) must not make the client hold a socket per call
  test('20 sequential calls against a server that never ends the stream do not hold 20 sockets (basic.transports#26)', async (ctx) => {
    const { expect } = ctx;
    const m = await mock(ctx, { mode: 'sse', endPostStreams: false, getStream: false });
    const { t, messages } = httpT(ctx, m.url);
    await handshake(t);
    await waitFor(() => m.record.requests.some((r) => r.method === 'GET'), 'the GET 405');
    await pause(100);
    const before = m.sockets().open; // keep-alive sockets of the handshake
    const sends: Array<Promise<unknown>> = [];
    for (let i = 0; i < 20; i++) {
      const msg = call('echo', { text: `n${i}` });
      sends.push(t.send(msg).catch((e: unknown) => e));
      await waitFor(() => messages.some((x) => x.id === msg.id), `response ${i}`);
    }
    // Before the fix every stream kept its socket until the idle timeout (20 more); a closed
    // stream's socket is replaced by at most one idle keep-alive connection, reused by the next call.
    await waitFor(() => m.sockets().open <= before + 2, `the server to see the streams closed (open: ${m.sockets().open}, before: ${before})`, 5000);
    for (const s of sends) expect(await s).toBeUndefined();
  });

  test('a server that ends its stream after the response keeps its keep-alive socket reused', async (ctx) => {
    const { expect } = ctx;
    const m = await mock(ctx, { mode: 'sse', getStream: false });
    const { t } = httpT(ctx, m.url);
    await handshake(t);
    for (let i = 0; i < 20; i++) await t.send(call('echo', { text: `n${i}` }));
    expect(m.sockets().total).toBeLessThanOrEqual(3);
  });
});

// ---- legacy SSE idle default -------------------------------------------------------------

describe.concurrent('the legacy SSE idle timeout has the documented default', () => {
  test('legacy SSE streams use idleStreamTimeoutMs default 300 000 ms (as documented), not 0', async (ctx) => {
    const { expect } = ctx;
    const m = await mock(ctx, { legacy: true });
    const seen: Array<{ method: string; bodyTimeout: number | null | undefined }> = [];
    const origin = new URL(m.url).origin;
    class Recording extends Pool {
      override dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
        seen.push({ method: opts.method, bodyTimeout: opts.bodyTimeout });
        return super.dispatch(opts, handler);
      }
    }
    const pool = new Recording(origin);
    atTestEnd(ctx, () => pool.destroy());
    const t = new LegacySseTransport({ url: m.url, dispatcher: pool });
    atTestEnd(ctx, () => t.close());
    await t.start();
    expect(DEFAULT_IDLE_STREAM_TIMEOUT_MS).toBe(300_000);
    expect(seen.find((s) => s.method === 'GET')?.bodyTimeout).toBe(300_000);
  });
});

// ---- a 404 outside a request's own POST ---------------------------------------------------

describe.concurrent('a 404 outside a request reports the expired session (basic.transports#45)', () => {
  test('a 404 on the GET stream calls onsessionexpired once with SessionExpiredError (basic.transports#45)', async (ctx) => {
    const { expect } = ctx;
    const m = await mock(ctx, { mode: 'json', retryMs: 10 });
    const { t, expired, diagnostics } = httpT(ctx, m.url);
    await handshake(t);
    await waitFor(() => m.record.requests.some((r) => r.method === 'GET'), 'the GET stream');
    m.expireSessions(); // ends the GET stream: its resumption meets 404
    await waitFor(() => expired.length > 0, 'onsessionexpired');
    await pause(500);
    expect(expired).toHaveLength(1);
    expect(expired[0]).toBeInstanceOf(SessionExpiredError);
    expect((expired[0] as SessionExpiredError).serverId).toBe('mock');
    expect(diagnostics.filter((d) => d.code === 'MCPWIRE_SESSION_EXPIRED')).toEqual([]);
  });

  test('a 404 to a notification POST: onsessionexpired once per session, send() resolves (the owner renews) (basic.transports#45)', async (ctx) => {
    const { expect } = ctx;
    const m = await mock(ctx, { mode: 'json', getStream: false });
    const { t, expired } = httpT(ctx, m.url);
    await handshake(t);
    const first = t.sessionId;
    m.expireSessions();
    await expect(t.send({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' })).resolves.toBeUndefined();
    await expect(t.send({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' })).resolves.toBeUndefined();
    expect(expired).toHaveLength(1);
    expect(expired[0]).toBeInstanceOf(SessionExpiredError);
    // The owner renews: a new session, whose own expiry is reported again.
    t.resetSession?.();
    await handshake(t);
    expect(t.sessionId).not.toBe(first);
    m.expireSessions();
    await t.send({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' });
    expect(expired).toHaveLength(2);
  });

  test('a 404 to the POST of a reply to a server request: onsessionexpired, send() resolves (basic.transports#45)', async (ctx) => {
    const { expect } = ctx;
    const m = await mock(ctx, { mode: 'json', getStream: false });
    const { t, expired } = httpT(ctx, m.url);
    await handshake(t);
    m.expireSessions();
    await expect(t.send({ jsonrpc: '2.0', id: 'srv-1', result: {} }, { relatedRequestId: 'srv-1' })).resolves.toBeUndefined();
    expect(expired).toHaveLength(1);
    expect(expired[0]).toBeInstanceOf(SessionExpiredError);
  });

  test('with no owner listening, the notification send() rejects with SessionExpiredError (never a raw error)', async (ctx) => {
    const { expect } = ctx;
    const m = await mock(ctx, { mode: 'json', getStream: false });
    const { t } = httpT(ctx, m.url);
    t.onsessionexpired = undefined;
    await handshake(t);
    m.expireSessions();
    await expect(t.send({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' })).rejects.toBeInstanceOf(SessionExpiredError);
  });

  test("a request's own POST 404 rejects its send() with SessionExpiredError and does not call onsessionexpired", async (ctx) => {
    const { expect } = ctx;
    const m = await mock(ctx, { mode: 'json', getStream: false });
    const { t, expired } = httpT(ctx, m.url);
    await handshake(t);
    m.expireSessions();
    await expect(t.send(call('echo'))).rejects.toBeInstanceOf(SessionExpiredError);
    expect(expired).toHaveLength(0);
  });
});

// ---- onDispatched --------------------------------------------------------------------------

describe.concurrent('onDispatched says when the POST was started (basic.utilities.cancellation#1)', () => {
  test('onDispatched is called once, after the auth headers resolved and before the response', async (ctx) => {
    const { expect } = ctx;
    const m = await mock(ctx, { mode: 'json', getStream: false });
    const log: string[] = [];
    const { t, messages, events } = httpT(ctx, m.url, {
      authProvider: {
        headers: async () => {
          log.push('auth-start');
          await pause(30);
          log.push('auth-end');
          return { authorization: 'Bearer x' };
        },
      },
    });
    await handshake(t);
    await waitFor(() => events.some((e) => e.type === 'sse-unsupported'), 'the GET 405');
    log.length = 0;
    const msg = call('echo', { text: 'x' });
    await t.send(msg, { onDispatched: () => log.push(`dispatched response=${messages.some((x) => x.id === msg.id)}`) });
    expect(log).toEqual(['auth-start', 'auth-end', 'dispatched response=false']);
  });

  test.for(['same microtask', 'during auth'] as const)('aborted %s: no POST goes out and onDispatched is never called', async (when, ctx) => {
    const { expect } = ctx;
    const m = await mock(ctx, { mode: 'json', getStream: false });
    const { t } = httpT(ctx, m.url, { authProvider: { headers: async () => (await pause(50), { authorization: 'Bearer x' }) } });
    await handshake(t);
    const ac = new AbortController();
    const dispatched: number[] = [];
    const msg = call('echo', { text: 'never' });
    const opts: SendOptions = { signal: ac.signal, onDispatched: () => dispatched.push(1) };
    const sent = t.send(msg, opts).catch((e: unknown) => e);
    if (when === 'same microtask') ac.abort();
    else setTimeout(() => ac.abort(), 10);
    expect(await sent).toBeInstanceOf(Error);
    await pause(200);
    expect(dispatched).toEqual([]);
    expect(m.record.messages.some((x) => x.id === msg.id)).toBe(false);
  });

  test('the legacy transport calls onDispatched once per started POST, never when aborted first', async (ctx) => {
    const { expect } = ctx;
    const m = await mock(ctx, { legacy: true });
    const t = new LegacySseTransport({ url: m.url });
    atTestEnd(ctx, () => t.close());
    await t.start();
    const dispatched: string[] = [];
    await t.send(INIT, { isInitialize: true, onDispatched: () => dispatched.push('init') });
    const ac = new AbortController();
    const p = t.send(call('echo'), { signal: ac.signal, onDispatched: () => dispatched.push('aborted') }).catch((e: unknown) => e);
    ac.abort();
    expect(await p).toBeInstanceOf(Error);
    expect(dispatched).toEqual(['init']);
  });
});

// ---- 202 for a request, BOM ---------------------------------------------------------------

describe.concurrent('malformed HTTP answers fail at once or are tolerated like stdio', () => {
  // cites basic.transports#18: a server that breaks it (202 to a request) fails that request at once, not by its timeout
  test('a 202 with no body to a request POST rejects at once naming the request id and the server (basic.transports#18)', async (ctx) => {
    const { expect } = ctx;
    const m = await mock(ctx, { mode: 'json', getStream: false, failures: [{ rpcMethod: 'tools/call', status: 202, body: '' }] });
    const { t } = httpT(ctx, m.url);
    await handshake(t);
    const msg = call('echo');
    const err = (await t.send(msg).catch((e: unknown) => e)) as TransportError;
    expect(err).toBeInstanceOf(TransportError);
    expect(err.message).toContain('202 Accepted with no body for a request');
    expect(err.message).toContain(`id ${msg.id}`);
    expect(err.serverId).toBe('mock');
    expect(err.status).toBe(202);
  });

  test('a leading UTF-8 BOM on a JSON response body is skipped', async (ctx) => {
    const { expect } = ctx;
    const msg = call('echo');
    const body = `\uFEFF${resultFor(msg.id, 'bom ok')}`;
    const m = await mock(ctx, { mode: 'json', getStream: false, failures: [{ rpcMethod: 'tools/call', status: 200, body }] });
    const { t, messages } = httpT(ctx, m.url);
    await handshake(t);
    await t.send(msg);
    expect(messages.find((x) => x.id === msg.id)).toMatchObject({ result: { content: [{ text: 'bom ok' }] } });
  });

  test('a BOM at the start of an SSE stream and in event data is skipped', async (ctx) => {
    const { expect } = ctx;
    const srv = await rawServer(ctx, (r, res) => {
      if (basics(r, res)) return;
      if (r.method === 'GET') return void res.writeHead(405).end();
      sseHead(res);
      res.end(`\uFEFFid: b1\ndata: \uFEFF${resultFor(r.msg?.id, 'sse bom ok')}\n\n`);
    });
    const { t, messages, events } = httpT(ctx, srv.url);
    await handshake(t);
    const msg = call('echo');
    await t.send(msg);
    expect(messages.find((x) => x.id === msg.id)).toMatchObject({ result: { content: [{ text: 'sse bom ok' }] } });
    expect(events.some((e) => e.type === 'sse-reconnect')).toBe(false);
  });
});
