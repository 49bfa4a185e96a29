/**
 * The Streamable HTTP transport for revision 2026-07-28 (basic/transports/streamable-http.md):
 * stateless (no session id, no GET stream, no DELETE, no resumption), per-message headers,
 * cancellation by closing a request's response stream, a broken response stream failing its
 * request with MCPWIRE_STREAM_BROKEN, long-lived listen streams, and JSON-RPC error answers that
 * come with a 4xx. Real node:http servers on 127.0.0.1; no tight wall-clock bounds.
 */
import { describe, expect, test } from 'vitest';
import { AbortError, TransportError } from '../../src/errors.js';
import type { JSONRPCMessage } from '../../src/jsonrpc/types.js';
import type { HttpTransportOptions } from '../../src/transport/http-common.js';
import { StreamableHttpTransport } from '../../src/transport/streamable-http.js';
import { answerInitialize, INIT, INITIALIZED, pause, rawHttpHarness, settledWithin, sseHead, waitFor, type RawHandler } from '../support/raw-http.js';

const { server, wire } = rawHttpHarness();

const transport = (url: string, extra: Partial<HttpTransportOptions> = {}) => wire(new StreamableHttpTransport({ url, serverId: 'raw', ...extra }));

const request = (id: number, method = 'tools/call'): JSONRPCMessage => ({ jsonrpc: '2.0', id, method, params: { name: 'slow' } });
const resultFor = (id: unknown) => JSON.stringify({ jsonrpc: '2.0', id, result: { content: [] } });
const sseEvent = (data: unknown, id?: string) => `${id !== undefined ? `id: ${id}\n` : ''}data: ${JSON.stringify(data)}\n\n`;

/** Answers every POST request with JSON (minting a session id, as a 2025-11-25 server would), GET 405s, DELETE 200s. */
const sessionMinting: RawHandler = (r, res) => {
  if (answerInitialize(r, res)) return;
  if (r.method === 'GET') res.writeHead(405).end();
  else if (r.method === 'DELETE') res.writeHead(200).end();
  else if (r.msg?.id === undefined) res.writeHead(202).end();
  else res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'minted' }).end(resultFor(r.msg.id));
};

describe('Streamable HTTP 2026-07-28: stateless', () => {
  test('sessions: false — no MCP-Session-Id kept or sent, no GET stream opened, no DELETE on close', async () => {
    const s = await server(sessionMinting);
    const { t } = transport(s.url, { sessions: false });
    // A server that still mints a session id on an initialize is ignored (the revision has none).
    await t.send(INIT, { isInitialize: true });
    await t.send(INITIALIZED);
    await t.send(request(1));
    expect(t.sessionId).toBeUndefined();
    expect(t.cancelsByClosing).toBe(true);
    await pause(200);
    await t.close();
    expect(s.requests.map((r) => r.method)).toEqual(['POST', 'POST', 'POST']);
    for (const r of s.requests) expect(r.headers['mcp-session-id']).toBeUndefined();
  });

  test('handshake era unchanged: with sessions the same server gets the session id, a GET and a DELETE', async () => {
    const s = await server(sessionMinting);
    const { t } = transport(s.url);
    await t.send(INIT, { isInitialize: true });
    await t.send(INITIALIZED);
    await t.send(request(1));
    await waitFor(() => s.requests.some((r) => r.method === 'GET'), 'the GET stream');
    expect(t.cancelsByClosing).toBe(false);
    await t.close();
    expect(s.requests.filter((r) => r.method === 'POST').slice(1).map((r) => r.headers['mcp-session-id'])).toEqual(['raw-session-1', 'raw-session-1']);
    expect(s.requests.some((r) => r.method === 'DELETE')).toBe(true);
  });

  test('setSessions(false) once the era is known: the session is forgotten, nothing carries it, close sends no DELETE', async () => {
    const s = await server(sessionMinting);
    const { t } = transport(s.url, { fallbackToLegacySse: false });
    await t.send(INIT, { isInitialize: true });
    expect(t.sessionId).toBe('raw-session-1');
    t.setSessions(false);
    expect(t.sessionId).toBeUndefined();
    await t.send(request(1));
    await t.send(request(2));
    await pause(200);
    await t.close();
    expect(s.requests.map((r) => r.method)).toEqual(['POST', 'POST', 'POST']);
    expect(s.requests.slice(1).map((r) => r.headers['mcp-session-id'])).toEqual([undefined, undefined]);
  });
});

describe('Streamable HTTP: per-message headers (SendOptions.headers)', () => {
  test("go on that message's POST only, over the transport's own (MCP-Protocol-Version) and under the auth provider's", async () => {
    const s = await server(sessionMinting);
    const authProvider = { headers: () => ({ Authorization: 'Bearer held-token' }) };
    const { t } = transport(s.url, { sessions: false, authProvider, headers: { 'X-Static': 'kept' } });
    t.setProtocolVersion('2025-11-25');
    await t.send(request(1), {
      headers: { 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': 'slow', Authorization: 'Bearer not-this-one' },
    });
    await t.send(request(2));
    const [first, second] = s.requests;
    expect(first.headers).toMatchObject({
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'slow',
      authorization: 'Bearer held-token',
      'x-static': 'kept',
    });
    expect(second.headers['mcp-method']).toBeUndefined();
    expect(second.headers['mcp-protocol-version']).toBe('2025-11-25');
  });
});

describe('Streamable HTTP 2026-07-28: cancellation closes the response stream', () => {
  test('basic.patterns.cancellation (Streamable HTTP): aborting the request closes its SSE response stream — the server sees the socket close', async () => {
    const s = await server((r, res) => {
      sseHead(res);
      res.write(sseEvent({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } }));
      // …and the response never comes.
    });
    const { t, messages } = transport(s.url, { sessions: false });
    const ctrl = new AbortController();
    const sent = t.send(request(1), { signal: ctrl.signal });
    await waitFor(() => messages.length === 1, 'the progress notification');
    expect(s.requests[0].closed).toBe(false);
    ctrl.abort();
    await expect(sent).rejects.toBeInstanceOf(AbortError);
    await waitFor(() => s.requests[0].closed, 'the server to see the response stream closed');
  });

  test('aborting before the response headers closes the POST too', async () => {
    const s = await server(() => {
      // never answers
    });
    const { t } = transport(s.url, { sessions: false });
    const ctrl = new AbortController();
    const sent = t.send(request(1), { signal: ctrl.signal });
    await waitFor(() => s.requests.length === 1, 'the POST');
    ctrl.abort();
    await expect(sent).rejects.toBeInstanceOf(AbortError);
    await waitFor(() => s.requests[0].closed, 'the server to see the POST closed');
  });
});

describe('Streamable HTTP 2026-07-28: a broken response stream fails its request with MCPWIRE_STREAM_BROKEN', () => {
  test('an SSE stream cut mid-response (after an event id) is not resumed: the request fails, no GET', async () => {
    const s = await server((r, res) => {
      if (r.method !== 'POST') return void res.writeHead(405).end();
      sseHead(res);
      res.write(sseEvent({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } }, 'ev-1'));
      setTimeout(() => res.socket?.destroy(), 50);
    });
    const { t } = transport(s.url, { sessions: false });
    const outcome = await settledWithin(t.send(request(1)), 10_000);
    expect((outcome as { error?: unknown }).error).toBeInstanceOf(TransportError);
    expect((outcome as { error?: unknown }).error).toMatchObject({ code: 'MCPWIRE_STREAM_BROKEN', serverId: 'raw' });
    await pause(300);
    expect(s.requests.map((r) => r.method)).toEqual(['POST']);
  });

  test('an SSE stream the server ends without the response fails the request the same way', async () => {
    const s = await server((r, res) => {
      sseHead(res);
      res.end(sseEvent({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'bye' } }, 'ev-1'));
    });
    const { t } = transport(s.url, { sessions: false });
    await expect(t.send(request(1))).rejects.toMatchObject({ code: 'MCPWIRE_STREAM_BROKEN' });
  });

  test('an SSE stream that carried a JSON-RPC error with id null and then ended fails clearly with that error, not as broken', async () => {
    const s = await server((r, res) => {
      sseHead(res);
      res.end(sseEvent({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } }, 'ev-1'));
    });
    for (const sessions of [false, true]) {
      const { t } = transport(s.url, { sessions });
      const outcome = await settledWithin(t.send(request(1)), 10_000);
      const err = (outcome as { error?: unknown }).error;
      expect(err).toMatchObject({ code: 'MCPWIRE_BAD_RESPONSE' });
      expect((err as Error).message).toContain('-32600 Invalid Request');
    }
    expect(s.requests.map((r) => r.method)).toEqual(['POST', 'POST']);
  });

  test('a JSON body cut short fails the request with MCPWIRE_STREAM_BROKEN', async () => {
    const s = await server((r, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '200' });
      res.write('{"jsonrpc":"2.0","id":1,"res');
      setTimeout(() => res.socket?.destroy(), 50);
    });
    const { t } = transport(s.url, { sessions: false });
    await expect(t.send(request(1))).rejects.toMatchObject({ code: 'MCPWIRE_STREAM_BROKEN' });
  });
});

describe('Streamable HTTP: a long-lived response stream (SendOptions.longLived)', () => {
  /** A listen-like stream: quiet for `quietMs`, then one notification, then held open. */
  const quietThenNotify =
    (quietMs: number): RawHandler =>
    (r, res) => {
      sseHead(res);
      setTimeout(() => res.write(sseEvent({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' })), quietMs);
    };

  test('is not ended by idleStreamTimeoutMs: a notification after a long quiet still arrives', async () => {
    const s = await server(quietThenNotify(1500));
    const { t, messages } = transport(s.url, { sessions: false, idleStreamTimeoutMs: 200 });
    const ctrl = new AbortController();
    const sent = t.send(request(1, 'subscriptions/listen'), { signal: ctrl.signal, longLived: true });
    await waitFor(() => messages.length === 1, 'the notification on the long-lived stream');
    expect(s.requests[0].closed).toBe(false);
    ctrl.abort();
    await expect(sent).rejects.toBeInstanceOf(AbortError);
  });

  test('without it, the same quiet stream is ended by the idle bound (MCPWIRE_STREAM_BROKEN)', async () => {
    const s = await server(quietThenNotify(60_000));
    const { t } = transport(s.url, { sessions: false, idleStreamTimeoutMs: 200 });
    const outcome = await settledWithin(t.send(request(1, 'subscriptions/listen')), 10_000);
    expect((outcome as { error?: unknown }).error).toMatchObject({ code: 'MCPWIRE_STREAM_BROKEN' });
  });
});

describe('Streamable HTTP: a 4xx whose body is a JSON-RPC error answer', () => {
  const answering =
    (status: number, body: (id: unknown) => string, contentType = 'application/json'): RawHandler =>
    (r, res) => {
      if (r.method !== 'POST') return void res.writeHead(405).end();
      res.writeHead(status, { 'content-type': contentType }).end(body(r.msg?.id));
    };
  const unsupported = (id: unknown) =>
    JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32022, message: 'Unsupported protocol version', data: { supported: ['2025-11-25'], requested: '2026-07-28' } } });

  test('400 with -32022 and its supported versions is delivered as the request’s answer, send() resolves', async () => {
    const s = await server(answering(400, unsupported));
    const { t, messages } = transport(s.url, { sessions: false });
    await t.send(request(5));
    expect(messages).toEqual([JSON.parse(unsupported(5))]);
  });

  test('404 with -32601 (a modern server’s unknown method) is delivered as the answer when no session was sent', async () => {
    const body = (id: unknown) => JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } });
    const s = await server(answering(404, body));
    const { t, messages } = transport(s.url, { sessions: false });
    await t.send(request(6, 'no/such'));
    expect(messages).toEqual([JSON.parse(body(6))]);
  });

  test('basic.transports.streamable_http#68: an initialize answered 400 with a JSON-RPC error is that answer — no legacy fallback', async () => {
    const s = await server(answering(400, unsupported));
    const { t, messages } = transport(s.url);
    await t.send(INIT, { isInitialize: true });
    expect(messages).toEqual([JSON.parse(unsupported(0))]);
    expect(t.kind).toBe('streamable-http');
    expect(s.requests.map((r) => r.method)).toEqual(['POST']);
  });

  test('a body that is not JSON-RPC keeps the HTTP error, with its excerpt', async () => {
    const s = await server(answering(400, () => 'Bad Request: no thanks', 'text/plain'));
    const { t, messages } = transport(s.url, { sessions: false });
    const err = await t.send(request(7)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect(err).toMatchObject({ status: 400 });
    expect((err as Error).message).toContain('Bad Request: no thanks');
    expect(messages).toEqual([]);
  });

  test('an error with id null is not taken for the answer: the request fails with the HTTP error naming it', async () => {
    const s = await server(answering(400, () => JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } })));
    const { t, messages } = transport(s.url, { sessions: false });
    const err = await t.send(request(8)).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 400 });
    expect((err as Error).message).toContain('-32600');
    expect(messages).toEqual([]);
  });
});

describe('Streamable HTTP: a 2xx that is not the response fails that request clearly', () => {
  const answering =
    (body: (id: unknown) => string): RawHandler =>
    (r, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(body(r.msg?.id));
    };

  test('an empty 200 body', async () => {
    const s = await server(answering(() => ''));
    const { t } = transport(s.url, { sessions: false });
    await expect(t.send(request(1))).rejects.toMatchObject({ code: 'MCPWIRE_BAD_RESPONSE', status: 200 });
  });

  test('a 200 body that is not JSON (its excerpt named)', async () => {
    const s = await server(answering(() => '<html>oops</html>'));
    const { t } = transport(s.url, { sessions: false });
    const err = await t.send(request(1)).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'MCPWIRE_BAD_RESPONSE' });
    expect((err as Error).message).toContain('<html>oops</html>');
  });

  test('a 200 JSON-RPC error with id null: the request fails naming that error', async () => {
    const s = await server(answering(() => JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } })));
    const { t } = transport(s.url, { sessions: false });
    const err = await t.send(request(3)).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'MCPWIRE_BAD_RESPONSE' });
    expect((err as Error).message).toMatch(/request id 3.*id null.*-32600 Invalid Request/);
  });
});
