/**
 * basic/transports — Streamable HTTP, session management, resumability and redelivery,
 * backwards compatibility (legacy HTTP+SSE). Real sockets on 127.0.0.1 against the node:http
 * mock in mock-servers/http-server.mjs; the transport is driven directly with raw JSON-RPC
 * messages (no protocol layer), so every assertion is about what goes over the wire.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { request } from 'undici';
import {
  AuthRequiredError,
  ConnectionClosedError,
  SessionExpiredError,
  TransportError,
} from '../src/errors.js';
import type { JSONRPCMessage } from '../src/jsonrpc/types.js';
import { createHttpTransport, LegacySseTransport, StreamableHttpTransport } from '../src/transport/http-factory.js';
import type { HttpTransportOptions } from '../src/transport/http-common.js';
import type { Transport, TransportDiagnostic, TransportEvent } from '../src/transport/types.js';
// @ts-expect-error plain ESM mock without types
import { startHttpMock } from '../mock-servers/http-server.mjs';

interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | undefined>;
  body: string;
}
interface Mock {
  url: string;
  port: number;
  record: { requests: RecordedRequest[]; messages: Array<Record<string, unknown>> };
  expireSessions(): void;
  pushToGet(message: unknown): number;
  dropGetStreams(retryMs?: number): void;
  endLegacyStreams(): void;
  sessionIds(): string[];
  close(): Promise<void>;
}

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!().catch(() => {});
});

async function mock(options: Record<string, unknown> = {}): Promise<Mock> {
  const m = (await startHttpMock(options)) as Mock;
  cleanups.push(() => m.close());
  return m;
}

/** A transport wired to collect everything it reports, answering server requests like a client would. */
function wire<T extends Transport>(t: T) {
  const messages: Array<Record<string, unknown>> = [];
  const events: TransportEvent[] = [];
  const diagnostics: TransportDiagnostic[] = [];
  const closes: Array<Error | undefined> = [];
  t.onmessage = (m) => {
    const msg = m as Record<string, unknown>;
    messages.push(msg);
    if (typeof msg.method === 'string' && msg.id !== undefined) {
      const result = msg.method === 'roots/list' ? { roots: [{ uri: 'file:///work', name: 'work' }] } : {};
      void t.send({ jsonrpc: '2.0', id: msg.id as string, result }, { relatedRequestId: msg.id as string });
    }
  };
  t.onevent = (e) => events.push(e);
  t.ondiagnostic = (d) => diagnostics.push(d);
  t.onclose = (e) => closes.push(e);
  cleanups.push(() => t.close());
  return { t, messages, events, diagnostics, closes };
}

function http(url: string, extra: Partial<HttpTransportOptions> = {}) {
  return wire(new StreamableHttpTransport({ url, serverId: 'mock', ...extra }));
}

const INIT: JSONRPCMessage = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: { roots: {} }, clientInfo: { name: 'test', version: '1.0.0' } },
};
let nextId = 100;
const call = (name: string, args: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): JSONRPCMessage => ({
  jsonrpc: '2.0',
  id: ++nextId,
  method: 'tools/call',
  params: { name, arguments: args, ...extra },
});

/** initialize → setProtocolVersion → notifications/initialized, like the protocol layer does. */
async function handshake(t: Transport): Promise<void> {
  await t.start();
  await t.send(INIT, { isInitialize: true });
  t.setProtocolVersion?.('2025-11-25');
  await t.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
}

async function waitFor(cond: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const responseTo = (messages: Array<Record<string, unknown>>, id: unknown) => messages.filter((m) => m.id === id && m.method === undefined);
const text = (m: Record<string, unknown> | undefined) =>
  ((m?.result as { content?: Array<{ text?: string }> } | undefined)?.content?.[0]?.text ?? '') as string;

describe.each(['json', 'sse'] as const)('Streamable HTTP, server answering with %s', (mode) => {
  test('basic.transports#12 #13 #14 #15: every client message is its own POST with Accept listing both types and one JSON-RPC message', async () => {
    const m = await mock({ mode });
    const { t } = http(m.url);
    await handshake(t);
    await t.send(call('echo', { text: 'hi' }));
    const posts = m.record.requests.filter((r) => r.method === 'POST');
    expect(posts).toHaveLength(3);
    for (const p of posts) {
      expect(p.headers.accept).toContain('application/json');
      expect(p.headers.accept).toContain('text/event-stream');
      expect(p.headers['content-type']).toBe('application/json');
      expect(Array.isArray(JSON.parse(p.body))).toBe(false);
    }
    expect(m.record.messages.map((x) => x.method)).toEqual(['initialize', 'notifications/initialized', 'tools/call']);
  });

  test('basic.transports#19: the response reaches onmessage and send() resolves', async () => {
    const m = await mock({ mode });
    const { t, messages } = http(m.url);
    await handshake(t);
    const msg = call('echo', { text: 'round trip' });
    await t.send(msg);
    const res = responseTo(messages, (msg as { id: number }).id);
    expect(res).toHaveLength(1);
    expect(text(res[0])).toBe('round trip');
  });

  // cites basic.transports#16: the client takes the server's 202 with no body as the notification's acknowledgement (send() resolves)
  test('basic.transports#16: a notification is acknowledged with 202 and send() resolves', async () => {
    const m = await mock({ mode });
    const { t, events } = http(m.url);
    await handshake(t);
    expect(events.filter((e) => e.type === 'http' && e.method === 'POST').map((e) => e.status)).toEqual([200, 202]);
  });

  test('basic.transports#42: the MCP-Session-Id from initialize is sent on every later request, never on initialize', async () => {
    const m = await mock({ mode });
    const { t, events } = http(m.url);
    await handshake(t);
    await t.send(call('echo', { text: 'x' }));
    await waitFor(() => m.record.requests.some((r) => r.method === 'GET'), 'the GET stream');
    await t.close();
    const [sid] = m.sessionIds().length ? m.sessionIds() : [t.sessionId];
    const reqs = m.record.requests;
    expect(reqs[0].headers['mcp-session-id']).toBeUndefined();
    const later = reqs.slice(1);
    expect(later.map((r) => r.method)).toEqual(expect.arrayContaining(['POST', 'GET', 'DELETE']));
    const ids = new Set(later.map((r) => r.headers['mcp-session-id']));
    expect(ids.size).toBe(1);
    expect([...ids][0]).toMatch(/^[\x21-\x7e]+$/);
    if (sid !== undefined) expect([...ids][0]).toBe(sid);
    const sessionEvent = events.find((e) => e.type === 'session');
    expect(sessionEvent).toBeDefined();
  });

  test('basic.transports#47 basic.lifecycle#13: MCP-Protocol-Version is sent on every request after negotiation', async () => {
    const m = await mock({ mode });
    const { t } = http(m.url);
    await handshake(t);
    await t.send(call('echo', { text: 'x' }));
    await waitFor(() => m.record.requests.some((r) => r.method === 'GET'), 'the GET stream');
    await t.close();
    const [init, ...later] = m.record.requests;
    expect(init.headers['mcp-protocol-version']).toBeUndefined();
    expect(later.length).toBeGreaterThanOrEqual(4);
    for (const r of later) expect(r.headers['mcp-protocol-version']).toBe('2025-11-25');
  });

  test('basic.transports#19 #25: server requests interleaved before the response are delivered in order and answered with POST', async () => {
    const m = await mock({ mode });
    const { t, messages } = http(m.url);
    await handshake(t);
    const msg = call('interleave');
    await t.send(msg);
    const order = messages.map((x) => x.method ?? `response:${String(x.id)}`);
    expect(order.slice(-3)).toEqual(['ping', 'roots/list', `response:${(msg as { id: number }).id}`]);
    expect(text(messages.at(-1))).toContain('file:///work');
    // The client's answers went out as POSTs acknowledged with 202 (basic.transports#16).
    const answers = m.record.messages.filter((x) => x.method === undefined && String(x.id).startsWith('srv-'));
    expect(answers).toHaveLength(2);
  });

  test('big responses: a message over maxMessageBytes is an error, not an OOM', async () => {
    const m = await mock({ mode });
    const { t } = http(m.url, { maxMessageBytes: 64 * 1024 });
    await handshake(t);
    await t.send(call('big', { bytes: 1000 }));
    const err = await t.send(call('big', { bytes: 256 * 1024 })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).code).toBe('MCPWIRE_MESSAGE_TOO_LARGE');
    expect((err as TransportError).serverId).toBe('mock');
    // The transport is still usable.
    await t.send(call('echo', { text: 'still here' }));
  });
});

describe('Streamable HTTP: the GET stream for server-initiated messages', () => {
  test('basic.transports#29: after initialization a GET with Accept: text/event-stream opens; its messages reach onmessage', async () => {
    const m = await mock({ mode: 'json' });
    const { t, messages } = http(m.url);
    await handshake(t);
    await waitFor(() => m.pushToGet({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }) > 0, 'the GET stream to be open');
    await waitFor(() => messages.some((x) => x.method === 'notifications/tools/list_changed'), 'the GET notification');
    const get = m.record.requests.find((r) => r.method === 'GET')!;
    expect(get.headers.accept).toContain('text/event-stream');
  });

  // cites basic.transports#30: the client reads the server's 405 to GET as "no stream here" and does not ask again
  test('basic.transports#30: a 405 to GET means no stream, and the client does not retry', async () => {
    const m = await mock({ mode: 'sse', getStream: false });
    const { t, events, diagnostics } = http(m.url);
    await handshake(t);
    await waitFor(() => events.some((e) => e.type === 'sse-unsupported'), 'the 405 to be seen');
    await t.send(call('echo', { text: 'a' }));
    await new Promise((r) => setTimeout(r, 500));
    expect(m.record.requests.filter((r) => r.method === 'GET')).toHaveLength(1);
    expect(diagnostics).toEqual([]);
  });

  test('basic.transports#37: a dropped GET stream is resumed with Last-Event-ID after the retry delay', async () => {
    const m = await mock({ mode: 'json', retryMs: 100 });
    const { t, messages, events } = http(m.url);
    await handshake(t);
    await waitFor(() => m.pushToGet({ jsonrpc: '2.0', method: 'notifications/one' }) > 0, 'the GET stream');
    await waitFor(() => messages.some((x) => x.method === 'notifications/one'), 'first GET message');
    m.dropGetStreams(100);
    await waitFor(() => m.record.requests.filter((r) => r.method === 'GET').length >= 2, 'the GET reconnect');
    const resumed = m.record.requests.filter((r) => r.method === 'GET')[1];
    expect(resumed.headers['last-event-id']).toMatch(/^s\d+_\d+$/);
    // The server's retry (100 ms) is raised to the 250 ms reconnect floor, jitter above it.
    expect(events.find((e) => e.type === 'sse-reconnect')?.delayMs).toBeGreaterThanOrEqual(250);
    await waitFor(() => m.pushToGet({ jsonrpc: '2.0', method: 'notifications/two' }) > 0, 'the resumed GET stream');
    await waitFor(() => messages.some((x) => x.method === 'notifications/two'), 'message on the resumed stream');
    expect(messages.filter((x) => x.method === 'notifications/one')).toHaveLength(1);
  });
});

describe('Streamable HTTP: resumability and redelivery (SEP-1699)', () => {
  test('basic.transports#21 #23 #27 #37: a POST stream closed after an event id is resumed via GET + Last-Event-ID after `retry` ms, missed events replayed', async () => {
    const retryMs = 300;
    const m = await mock({ mode: 'sse', retryMs });
    const { t, messages, events } = http(m.url);
    await handshake(t);
    const msg = call('resumable', { delayMs: 50 });
    const started = performance.now();
    await t.send(msg);
    const elapsed = performance.now() - started;
    const gets = m.record.requests.filter((r) => r.method === 'GET' && r.headers['last-event-id'] !== undefined);
    expect(gets).toHaveLength(1);
    expect(gets[0].headers['last-event-id']).toMatch(/^s\d+_2$/);
    // Waited at least the server's retry value (basic.transports#23); no tight upper bound.
    expect(elapsed).toBeGreaterThanOrEqual(retryMs - 20);
    expect(events.find((e) => e.type === 'sse-reconnect')).toMatchObject({ lastEventId: gets[0].headers['last-event-id'] });
    expect(events.find((e) => e.type === 'sse-reconnect')?.delayMs).toBeGreaterThanOrEqual(retryMs);
    // The events sent while the client was away arrive exactly once, in order.
    const tail = messages.slice(-3);
    expect(tail.map((x) => (x.params as { data?: string } | undefined)?.data ?? text(x))).toEqual([
      'before the drop',
      'while you were away',
      'resumed ok',
    ]);
    expect(responseTo(messages, (msg as { id: number }).id)).toHaveLength(1);
    // No cancellation was sent for the drop (basic.transports#27).
    expect(m.record.messages.some((x) => x.method === 'notifications/cancelled')).toBe(false);
  });

  // cites basic.transports#35: the client relies on the server's unique event ids to drop an event delivered twice
  test('basic.transports#35: events redelivered with an already-seen id are dropped (no double delivery)', async () => {
    const m = await mock({ mode: 'sse', retryMs: 50, replayDuplicates: true });
    const { t, messages, diagnostics } = http(m.url);
    await handshake(t);
    // notification, drop: the replay re-sends the stream from its start, including the
    // notification the client already had.
    const msg = call('resumable', { delayMs: 20 });
    await t.send(msg);
    expect(responseTo(messages, (msg as { id: number }).id)).toHaveLength(1);
    expect(messages.filter((x) => x.method === 'notifications/message').map((x) => (x.params as { data: string }).data)).toEqual([
      'before the drop',
      'while you were away',
    ]);
    expect(diagnostics.filter((d) => d.code === 'MCPWIRE_SSE_DUPLICATE')).toHaveLength(1);
  });

  test('basic.transports#37: a stream that drops before any event id cannot be resumed: send() rejects, nothing hangs', async () => {
    const m = await mock({ mode: 'sse', priming: false, eventIds: false });
    const { t } = http(m.url);
    await handshake(t);
    const err = await t.send(call('resumable', { delayMs: 20 })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).code).toBe('MCPWIRE_STREAM_ENDED');
  });

  test('resumption gives up after maxReconnectAttempts failed GETs, with the HTTP status', async () => {
    const m = await mock({ mode: 'sse', retryMs: 30, failures: [{ httpMethod: 'GET', status: 503 }] });
    const { t } = http(m.url, { maxReconnectAttempts: 2 });
    await handshake(t);
    const err = await t.send(call('resumable', { delayMs: 20 })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).status).toBe(503);
  });

  test('idle-stream timeout: a silent SSE stream is treated as dropped and resumed', async () => {
    const m = await mock({ mode: 'sse', retryMs: 50 });
    const { t, messages, events } = http(m.url, { idleStreamTimeoutMs: 300 });
    await handshake(t);
    const msg = call('slow', { ms: 1500 });
    await t.send(msg);
    expect(text(responseTo(messages, (msg as { id: number }).id)[0])).toBe('slept 1500');
    expect(events.some((e) => e.type === 'sse-reconnect')).toBe(true);
  });
});

describe('Streamable HTTP: session management', () => {
  test('basic.transports#45: 404 for a request with a session id rejects with SessionExpiredError; after resetSession the next initialize carries no session id', async () => {
    const m = await mock({ mode: 'json' });
    const { t } = http(m.url);
    await handshake(t);
    const first = t.sessionId;
    expect(first).toBeDefined();
    m.expireSessions();
    const err = await t.send(call('echo', { text: 'x' })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SessionExpiredError);
    expect((err as SessionExpiredError).serverId).toBe('mock');
    t.resetSession?.();
    expect(t.sessionId).toBeUndefined();
    const before = m.record.requests.length;
    await handshake(t);
    const reinit = m.record.requests.slice(before).find((r) => r.body.includes('"initialize"'))!;
    expect(reinit.headers['mcp-session-id']).toBeUndefined();
    expect(t.sessionId).toBeDefined();
    expect(t.sessionId).not.toBe(first);
    await t.send(call('echo', { text: 'new session' }));
  });

  test('basic.transports#46: close() DELETEs the session, aborts streams, fires onclose once and is idempotent', async () => {
    const m = await mock({ mode: 'sse' });
    const { t, closes } = http(m.url);
    await handshake(t);
    await waitFor(() => m.record.requests.some((r) => r.method === 'GET'), 'the GET stream');
    const sid = t.sessionId;
    await Promise.all([t.close(), t.close()]);
    await t.close();
    const del = m.record.requests.filter((r) => r.method === 'DELETE');
    expect(del).toHaveLength(1);
    expect(del[0].headers['mcp-session-id']).toBe(sid);
    expect(closes).toEqual([undefined]);
    await expect(t.send(call('echo'))).rejects.toBeInstanceOf(ConnectionClosedError);
  });

  test('basic.transports#46: a 405 to DELETE is tolerated', async () => {
    const m = await mock({ mode: 'json', deleteStatus: 405 });
    const { t, closes, events } = http(m.url);
    await handshake(t);
    await t.close();
    expect(events.some((e) => e.type === 'http' && e.method === 'DELETE' && e.status === 405)).toBe(true);
    expect(closes).toEqual([undefined]);
  });

  test('close() while a request is in flight rejects it with ConnectionClosedError', async () => {
    const m = await mock({ mode: 'sse' });
    const { t } = http(m.url);
    await handshake(t);
    const pending = t.send(call('slow', { ms: 5000 })).catch((e: unknown) => e);
    await waitFor(() => m.record.messages.some((x) => (x.params as { name?: string } | undefined)?.name === 'slow'), 'the slow call');
    await t.close();
    expect(await pending).toBeInstanceOf(ConnectionClosedError);
  });

  test('basic.transports#40: an invalid MCP-Session-Id (not visible ASCII) is refused', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 0, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'x', version: '1' } } });
    const m = await mock({
      mode: 'json',
      failures: [{ rpcMethod: 'initialize', status: 200, body, headers: { 'mcp-session-id': 'has space' } }],
    });
    const { t } = http(m.url);
    const err = await t.send(INIT, { isInitialize: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).code).toBe('MCPWIRE_BAD_SESSION_ID');
  });
});

describe('Streamable HTTP: failures are typed errors with status, server id and a bounded excerpt', () => {
  test('5xx on a request: TransportError with the status and the body excerpt', async () => {
    const m = await mock({ mode: 'json', failures: [{ rpcMethod: 'tools/call', status: 500, body: `boom\u001b[31m ${'y'.repeat(5000)}` }] });
    const { t } = http(m.url);
    await handshake(t);
    const err = (await t.send(call('echo')).catch((e: unknown) => e)) as TransportError;
    expect(err).toBeInstanceOf(TransportError);
    expect(err.status).toBe(500);
    expect(err.serverId).toBe('mock');
    expect(err.phase).toBe('request');
    expect(err.message).toContain('boom');
    expect(err.message).not.toContain('\u001b');
    expect(err.message.length).toBeLessThan(600);
  });

  test('401 with WWW-Authenticate: AuthRequiredError carrying the challenge', async () => {
    const challenge = 'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"';
    const m = await mock({ mode: 'json', failures: [{ rpcMethod: 'initialize', status: 401, body: 'no', headers: { 'www-authenticate': challenge } }] });
    const { t } = http(m.url);
    const err = (await t.send(INIT, { isInitialize: true }).catch((e: unknown) => e)) as AuthRequiredError;
    expect(err).toBeInstanceOf(AuthRequiredError);
    expect(err.wwwAuthenticate).toBe(challenge);
    expect(err.serverId).toBe('mock');
  });

  test('connection refused: TransportError naming the server, no fallback attempted on network errors', async () => {
    const m = await mock();
    const url = m.url;
    await m.close();
    const { t, events } = http(url);
    const err = (await t.send(INIT, { isInitialize: true }).catch((e: unknown) => e)) as TransportError;
    expect(err).toBeInstanceOf(TransportError);
    expect(err.serverId).toBe('mock');
    expect(err.phase).toBe('initialize');
    expect(events.some((e) => e.type === 'fallback')).toBe(false);
  });

  test('static and authProvider headers are sent; header values never appear in events', async () => {
    const m = await mock({ mode: 'sse' });
    const { t, events } = http(m.url, {
      headers: { 'X-Api-Key': 'static-secret-1' },
      authProvider: { headers: async () => ({ Authorization: 'Bearer dyn-secret-2' }) },
    });
    await handshake(t);
    await t.send(call('resumable', { delayMs: 10 }));
    await t.close();
    for (const r of m.record.requests) {
      expect(r.headers['x-api-key']).toBe('static-secret-1');
      expect(r.headers.authorization).toBe('Bearer dyn-secret-2');
    }
    const traced = JSON.stringify(events);
    expect(traced).not.toContain('static-secret-1');
    expect(traced).not.toContain('dyn-secret-2');
    expect(traced).not.toContain(t.sessionId ?? m.sessionIds()[0] ?? '@@');
  });

  // cites basic.transports#8: proves the mock's Origin check, a fixture the client tests rely on, not the client
  // cites basic.transports#9: the mock's 403 for a bad Origin, as above
  test('basic.transports#8 #9 (mock): the mock validates Origin and answers 403 with an id-less JSON-RPC error', async () => {
    const m = await mock({ mode: 'json', allowedOrigins: ['http://127.0.0.1'] });
    const res = await request(m.url, {
      method: 'POST',
      headers: { origin: 'http://evil.example', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(INIT),
    });
    expect(res.statusCode).toBe(403);
    const body = (await res.body.json()) as Record<string, unknown>;
    expect(body.id).toBeUndefined();
    expect(body.error).toBeDefined();
    const { t } = http(m.url, { headers: { Origin: 'http://127.0.0.1' } });
    await handshake(t);
  });
});

describe('backwards compatibility: legacy HTTP+SSE (2024-11-05)', () => {
  test('basic.transports backwards-compatibility: initialize POST fails with 405 → GET, endpoint event, legacy transport; kind says so', async () => {
    const m = await mock({ legacy: true });
    const { t, messages, events } = http(m.url);
    expect(t.kind).toBe('streamable-http');
    await handshake(t);
    expect(t.kind).toBe('legacy-sse');
    expect(events).toContainEqual(expect.objectContaining({ type: 'fallback', to: 'legacy-sse' }));
    await waitFor(() => messages.some((x) => x.id === 0), 'the initialize response');
    expect((messages.find((x) => x.id === 0)?.result as { protocolVersion?: string }).protocolVersion).toBe('2025-11-25');
    const msg = call('interleave');
    await t.send(msg);
    await waitFor(() => responseTo(messages, (msg as { id: number }).id).length === 1, 'the legacy response');
    expect(messages.map((x) => x.method).filter(Boolean)).toEqual(['ping', 'roots/list']);
    // One refused POST to the MCP endpoint, then the initialize re-sent to the legacy endpoint.
    expect(m.record.requests.filter((r) => r.method === 'POST' && r.path === '/mcp')).toHaveLength(1);
    expect(m.record.messages.filter((x) => x.method === 'initialize')).toHaveLength(1);
  });

  test('basic.authorization#49: a 401 on the legacy GET or POST is shown to the auth provider, and the request is made again with its new token (bounded)', async () => {
    const m = (await mock({ legacy: true, bearer: 'fresh-1' })) as Mock & { options: { bearer?: string } };
    let token = 'stale-0';
    const asked: Array<{ status: number; attempt: number }> = [];
    const authProvider = {
      headers: () => ({ Authorization: `Bearer ${token}` }),
      onUnauthorized: async (info: { status: 401 | 403 }, attempt: number) => {
        asked.push({ status: info.status, attempt });
        token = m.options.bearer ?? token;
        return true;
      },
    };
    const { t, messages } = wire(new LegacySseTransport({ url: m.url, serverId: 'mock', authProvider }));
    await t.start(); // GET refused once, then made again with the fresh token
    expect(asked).toEqual([{ status: 401, attempt: 0 }]);
    m.options.bearer = 'fresh-2'; // the token expires mid-session
    await t.send(INIT, { isInitialize: true });
    await waitFor(() => responseTo(messages, 0).length === 1, 'the initialize response');
    expect(asked).toEqual([{ status: 401, attempt: 0 }, { status: 401, attempt: 0 }]);
    const auths = m.record.requests.map((r) => `${r.method} ${r.headers.authorization}`);
    expect(auths).toEqual(['GET Bearer stale-0', 'GET Bearer fresh-1', 'POST Bearer fresh-1', 'POST Bearer fresh-2']);
    // A provider that cannot help: at most MAX_AUTH_REPLAYS (3) replays, then the 401 as an error.
    authProvider.onUnauthorized = async (info, attempt) => (asked.push({ status: info.status, attempt }), true);
    m.options.bearer = 'never-given';
    const before = m.record.requests.length;
    const err = await t.send(call('echo', { text: 'x' })).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'MCPWIRE_AUTH_REQUIRED', phase: 'auth' });
    expect(m.record.requests.length - before).toBe(4);
  });

  test.each([400, 404])('fallback also on HTTP %i to the initialize POST', async (status) => {
    const m = await mock({ legacy: true, legacyPostStatus: status });
    const { t } = http(m.url);
    await handshake(t);
    expect(t.kind).toBe('legacy-sse');
  });

  test('fallbackToLegacySse: false keeps the original error', async () => {
    const m = await mock({ legacy: true });
    const { t } = http(m.url, { fallbackToLegacySse: false });
    const err = (await t.send(INIT, { isInitialize: true }).catch((e: unknown) => e)) as TransportError;
    expect(err).toBeInstanceOf(TransportError);
    expect(err.status).toBe(405);
  });

  test('when the legacy GET fails too, the error names both failures', async () => {
    const m = await mock({ mode: 'json', failures: [{ rpcMethod: 'initialize', status: 404 }, { httpMethod: 'GET', status: 404 }] });
    const { t } = http(m.url);
    const err = (await t.send(INIT, { isInitialize: true }).catch((e: unknown) => e)) as TransportError;
    expect(err).toBeInstanceOf(TransportError);
    expect(err.status).toBe(404);
    expect(err.message).toMatch(/legacy HTTP\+SSE fallback failed/);
    expect(t.kind).toBe('streamable-http');
  });

  test('transport: "sse" forces the legacy transport; the server ending the stream closes it with ConnectionClosedError', async () => {
    const m = await mock({ legacy: true });
    const made = createHttpTransport({ url: m.url, transport: 'sse', serverId: 'old' });
    expect(made).toBeInstanceOf(LegacySseTransport);
    const { t, messages, closes } = wire(made);
    await handshake(t);
    expect(m.record.requests.filter((r) => r.method === 'POST' && r.path === '/mcp')).toHaveLength(0);
    await waitFor(() => messages.some((x) => x.id === 0), 'the initialize response');
    m.endLegacyStreams();
    await waitFor(() => closes.length === 1, 'onclose');
    expect(closes[0]).toBeInstanceOf(ConnectionClosedError);
    await expect(t.send(call('echo'))).rejects.toBeInstanceOf(ConnectionClosedError);
  });
});
