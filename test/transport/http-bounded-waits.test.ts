/**
 * Every wait of the HTTP transports has an end: the POST of a notification or of a response
 * the server never answers, the session DELETE on close (whatever the auth provider does), and a
 * server `retry:` (or a configured timeout) beyond what a Node timer can hold. Real sockets on
 * 127.0.0.1; the bounds asserted are generous (a loaded CI machine), the waits they replace were
 * unbounded.
 */
import { describe, expect, test } from 'vitest';
import { AbortError, ConnectionClosedError, TransportError } from '../../src/errors.js';
import type { JSONRPCMessage } from '../../src/jsonrpc/types.js';
import type { HttpAuthProvider, HttpTransportOptions } from '../../src/transport/http-common.js';
import { LegacySseTransport } from '../../src/transport/legacy-sse.js';
import { StreamableHttpTransport } from '../../src/transport/streamable-http.js';
import type { TransportEvent } from '../../src/transport/types.js';
import { answerInitialize, INIT, INITIALIZED, pause, rawHttpHarness, settledWithin, sseHead, waitFor, type RawHandler, type RawRequest } from '../support/raw-http.js';

const { cleanups, server, wire } = rawHttpHarness();

const transport = (url: string, extra: Partial<HttpTransportOptions> = {}) => wire(new StreamableHttpTransport({ url, serverId: 'raw', ...extra }));

const isNotificationPost = (r: RawRequest) => r.method === 'POST' && r.msg !== undefined && r.msg.id === undefined;

/** Initialize is answered; every other POST (notifications, responses) is never answered; no GET stream. */
const silentOnMessages: RawHandler = (r, res) => {
  if (answerInitialize(r, res)) return;
  if (r.method === 'GET') res.writeHead(405).end();
  else if (r.method === 'DELETE') res.writeHead(200).end();
  // anything else: no answer at all
};

describe('Streamable HTTP: the POST of a notification or a response has a bounded wait', () => {
  test('a notification POST the server never answers fails after notificationTimeoutMs, and its socket is released', async () => {
    const s = await server(silentOnMessages);
    const { t } = transport(s.url, { notificationTimeoutMs: 300 });
    await t.send(INIT, { isInitialize: true });
    const outcome = await settledWithin(t.send(INITIALIZED), 8000);
    expect(outcome).not.toBe('pending');
    const error = (outcome as { error?: unknown }).error;
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({ code: 'MCPWIRE_POST_TIMEOUT', serverId: 'raw' });
    await waitFor(() => s.requests.filter(isNotificationPost).every((r) => r.closed), 'the stuck POST to be closed');
  });

  test('the POST of a response to a server request is bounded the same way', async () => {
    const s = await server(silentOnMessages);
    const { t } = transport(s.url, { notificationTimeoutMs: 300 });
    await t.send(INIT, { isInitialize: true });
    const reply: JSONRPCMessage = { jsonrpc: '2.0', id: 'srv-1', result: {} };
    const outcome = await settledWithin(t.send(reply), 8000);
    expect(outcome).not.toBe('pending');
    expect((outcome as { error?: unknown }).error).toMatchObject({ code: 'MCPWIRE_POST_TIMEOUT' });
  });

  test("send() honours SendOptions.signal for a notification: AbortError when the caller's signal aborts", async () => {
    const s = await server(silentOnMessages);
    const { t } = transport(s.url, { notificationTimeoutMs: 60_000 });
    await t.send(INIT, { isInitialize: true });
    const ac = new AbortController();
    const sent = t.send(INITIALIZED, { signal: ac.signal });
    await waitFor(() => s.requests.some(isNotificationPost), 'the notification POST');
    ac.abort();
    const outcome = await settledWithin(sent, 8000);
    expect(outcome).not.toBe('pending');
    expect((outcome as { error?: unknown }).error).toBeInstanceOf(AbortError);
    await waitFor(() => s.requests.filter(isNotificationPost).every((r) => r.closed), 'the aborted POST to be closed');
  });

  test('close() aborts a notification POST still waiting: ConnectionClosedError, socket released', async () => {
    const s = await server(silentOnMessages);
    const { t } = transport(s.url, { notificationTimeoutMs: 60_000 });
    await t.send(INIT, { isInitialize: true });
    const sent = settledWithin(t.send(INITIALIZED), 8000);
    await waitFor(() => s.requests.some(isNotificationPost), 'the notification POST');
    await t.close();
    const outcome = await sent;
    expect((outcome as { error?: unknown }).error).toBeInstanceOf(ConnectionClosedError);
    await waitFor(() => s.requests.filter(isNotificationPost).every((r) => r.closed), 'the POST to be closed');
  });
});

describe('Streamable HTTP: close() stays bounded whatever the auth provider does', () => {
  const sessionServer: RawHandler = (r, res) => {
    if (answerInitialize(r, res)) return;
    if (r.method === 'GET') res.writeHead(405).end();
    else if (r.method === 'DELETE') res.writeHead(200).end();
    else res.writeHead(202).end();
  };

  test('the session DELETE carries the credential held now (headers({ refresh: false })), never waits for a refresh', async () => {
    const s = await server(sessionServer);
    let refreshing = false;
    const asked: Array<{ refresh?: boolean } | undefined> = [];
    const authProvider: HttpAuthProvider = {
      headers: (options) => {
        asked.push(options);
        // A refresh that never ends (another process holds the token store's lock).
        if (refreshing && options?.refresh !== false) return new Promise<Record<string, string>>(() => {});
        return { Authorization: 'Bearer held-now' };
      },
      onUnauthorized: async () => true,
    };
    const { t } = transport(s.url, { authProvider });
    await t.send(INIT, { isInitialize: true });
    refreshing = true;
    const outcome = await settledWithin(t.close(), 8000);
    expect(outcome).not.toBe('pending');
    const del = s.requests.find((r) => r.method === 'DELETE');
    expect(del?.headers.authorization).toBe('Bearer held-now');
    expect(asked.at(-1)).toMatchObject({ refresh: false });
  });

  test('a provider that never answers even headers({ refresh: false }): close() still ends (the DELETE is given up)', async () => {
    const s = await server(sessionServer);
    let stuck = false;
    const authProvider: HttpAuthProvider = {
      headers: () => (stuck ? new Promise<Record<string, string>>(() => {}) : { Authorization: 'Bearer t' }),
    };
    const { t } = transport(s.url, { authProvider });
    await t.send(INIT, { isInitialize: true });
    stuck = true;
    const outcome = await settledWithin(t.close(), 8000);
    expect(outcome).not.toBe('pending');
  });

  test('a 401 to the DELETE is not shown to onUnauthorized and not replayed', async () => {
    const s = await server((r, res) => {
      if (r.method === 'DELETE') res.writeHead(401, { 'www-authenticate': 'Bearer error="invalid_token"' }).end();
      else sessionServer(r, res);
    });
    let unauthorized = 0;
    const authProvider: HttpAuthProvider = {
      headers: () => ({ Authorization: 'Bearer t' }),
      onUnauthorized: async () => (unauthorized++, true),
    };
    const { t } = transport(s.url, { authProvider });
    await t.send(INIT, { isInitialize: true });
    await t.close();
    expect(unauthorized).toBe(0);
    expect(s.requests.filter((r) => r.method === 'DELETE')).toHaveLength(1);
  });
});

describe('Streamable HTTP: a server retry: beyond the timer range', () => {
  test('retry: 2^32 ms does not reconnect at once (the wait is clamped, not overflowed), and close() ends the wait', async () => {
    const notification = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } });
    const s = await server((r, res) => {
      if (answerInitialize(r, res)) return;
      if (r.method === 'GET') {
        sseHead(res);
        res.end(`retry: ${2 ** 32}\nid: e1\ndata: ${notification}\n\n`);
      } else if (r.method === 'DELETE') res.writeHead(200).end();
      else res.writeHead(202).end();
    });
    const { t, messages, events } = transport(s.url);
    await t.send(INIT, { isInitialize: true });
    await t.send(INITIALIZED);
    await waitFor(() => messages.length === 1, 'the notification on the GET stream');
    await waitFor(() => events.some((e) => e.type === 'sse-reconnect'), 'the reconnect decision');
    await pause(1000);
    expect(s.requests.filter((r) => r.method === 'GET')).toHaveLength(1);
    const outcome = await settledWithin(t.close(), 8000);
    expect(outcome).not.toBe('pending');
  });
});

describe('legacy HTTP+SSE: a connectTimeoutMs beyond the timer range', () => {
  test('connectTimeoutMs 2^32 ms is clamped: the wait for the endpoint event does not end after 1 ms', async () => {
    const s = await server((r, res) => {
      if (r.method === 'GET') sseHead(res); // the endpoint event never comes
    });
    const t = new LegacySseTransport({ url: s.url, serverId: 'raw', connectTimeoutMs: 2 ** 32 });
    cleanups.push(() => t.close());
    const started = settledWithin(t.start(), 1000);
    expect(await started).toBe('pending');
  });
});
