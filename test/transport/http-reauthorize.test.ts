/**
 * A 401/403 reaches the auth provider wherever it happens — a POST of either HTTP transport, the
 * legacy SSE GET, the Streamable HTTP server-message GET stream — with the Authorization value
 * the refused request carried, and the refused exchange is made again (bounded). Real sockets on
 * 127.0.0.1, a raw node:http server per test.
 */
import type http from 'node:http';
import { describe, expect, test } from 'vitest';
import type { JSONRPCMessage } from '../../src/jsonrpc/types.js';
import { MAX_AUTH_REPLAYS, type HttpAuthProvider } from '../../src/transport/http-common.js';
import { LegacySseTransport } from '../../src/transport/legacy-sse.js';
import { StreamableHttpTransport } from '../../src/transport/streamable-http.js';
import type { Transport, TransportDiagnostic } from '../../src/transport/types.js';
import { answerInitialize, INIT, INITIALIZED, pause, rawHttpHarness, sseHead, waitFor, type RawHandler } from '../support/raw-http.js';

const { server, wire } = rawHttpHarness();

type Info = { status: 401 | 403; wwwAuthenticate?: string; sentAuthorization?: string };

/** A provider holding `token`; onUnauthorized records what it was shown and switches to `next`. */
function provider(initial: string, next: string) {
  const state = { token: initial, infos: [] as Array<{ info: Info; attempt: number }> };
  const p: HttpAuthProvider = {
    headers: () => ({ Authorization: `Bearer ${state.token}` }),
    onUnauthorized: async (info, attempt) => {
      state.infos.push({ info: { ...info }, attempt });
      state.token = next;
      return true;
    },
  };
  return { p, state };
}

const LOG = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'pushed' } });
const CHALLENGE = 'Bearer error="invalid_token"';

function refuse(res: http.ServerResponse, status = 401): void {
  res.writeHead(status, { 'www-authenticate': CHALLENGE, 'content-type': 'text/plain' }).end('no');
}

describe('Streamable HTTP: a 401/403 on the server-message GET stream reaches the auth provider', () => {
  test('the GET refused with 401 is re-authorized and reopened: server notifications arrive without any later POST', async () => {
    const s = await server((r, res) => {
      if (answerInitialize(r, res)) return;
      if (r.method === 'GET') {
        if (r.headers.authorization !== 'Bearer fresh') return refuse(res);
        sseHead(res);
        res.write(`id: g1\ndata: ${LOG}\n\n`);
        return;
      }
      if (r.method === 'DELETE') return void res.writeHead(200).end();
      res.writeHead(202).end();
    });
    const { p, state } = provider('stale', 'fresh');
    const { t, messages } = wire(new StreamableHttpTransport({ url: s.url, serverId: 'raw', authProvider: p }));
    await t.send(INIT, { isInitialize: true });
    await t.send(INITIALIZED);
    const posts = s.requests.filter((r) => r.method === 'POST').length;
    await waitFor(() => messages.some((m) => m.method === 'notifications/message'), 'the notification on the reopened GET stream');
    expect(s.requests.filter((r) => r.method === 'POST')).toHaveLength(posts);
    expect(state.infos).toEqual([{ info: { status: 401, wwwAuthenticate: CHALLENGE, sentAuthorization: 'Bearer stale' }, attempt: 0 }]);
    expect(s.requests.filter((r) => r.method === 'GET').map((r) => r.headers.authorization)).toEqual(['Bearer stale', 'Bearer fresh']);
  });

  test('a GET refused every time (403): at most MAX_AUTH_REPLAYS re-authorizations, then given up with a diagnostic', async () => {
    const s = await server((r, res) => {
      if (answerInitialize(r, res)) return;
      if (r.method === 'GET') return refuse(res, 403);
      if (r.method === 'DELETE') return void res.writeHead(200).end();
      res.writeHead(202).end();
    });
    const { p, state } = provider('a', 'b');
    const { t, diagnostics } = wire(new StreamableHttpTransport({ url: s.url, serverId: 'raw', authProvider: p }));
    await t.send(INIT, { isInitialize: true });
    await t.send(INITIALIZED);
    await waitFor(() => diagnostics.length > 0, 'the diagnostic of the given-up GET stream');
    await pause(500);
    expect(state.infos.map((x) => x.attempt)).toEqual(Array.from({ length: MAX_AUTH_REPLAYS }, (_, i) => i));
    expect(state.infos.every((x) => x.info.status === 403)).toBe(true);
    expect(s.requests.filter((r) => r.method === 'GET')).toHaveLength(MAX_AUTH_REPLAYS + 1);
  });
});

describe('both HTTP transports show the refused Authorization to onUnauthorized (sentAuthorization)', () => {
  test('Streamable HTTP: a POST refused with 401 — sentAuthorization is the value that POST carried; the replay carries the new one', async () => {
    const s = await server((r, res) => {
      if (r.method === 'POST' && r.headers.authorization !== 'Bearer fresh') return refuse(res);
      if (answerInitialize(r, res)) return;
      res.writeHead(405).end();
    });
    const { p, state } = provider('stale', 'fresh');
    const { t } = wire(new StreamableHttpTransport({ url: s.url, serverId: 'raw', authProvider: p }));
    await t.send(INIT, { isInitialize: true });
    expect(state.infos).toEqual([{ info: { status: 401, wwwAuthenticate: CHALLENGE, sentAuthorization: 'Bearer stale' }, attempt: 0 }]);
    expect(s.requests.map((r) => `${r.method} ${r.headers.authorization}`)).toEqual(['POST Bearer stale', 'POST Bearer fresh']);
  });

  test('Streamable HTTP: a request that carried no Authorization has no sentAuthorization', async () => {
    const s = await server((r, res) => refuse(res));
    const infos: Info[] = [];
    const p: HttpAuthProvider = { headers: () => ({}), onUnauthorized: async (info) => (infos.push({ ...info }), false) };
    const { t } = wire(new StreamableHttpTransport({ url: s.url, serverId: 'raw', authProvider: p, fallbackToLegacySse: false }));
    await expect(t.send(INIT, { isInitialize: true })).rejects.toMatchObject({ code: 'MCPWIRE_AUTH_REQUIRED' });
    expect(infos).toEqual([{ status: 401, wwwAuthenticate: CHALLENGE }]);
  });

  test('legacy HTTP+SSE: the refused GET and the refused POST each show the Authorization they carried', async () => {
    let postToken = 'fresh';
    const s = await server((r, res) => {
      if (r.method === 'GET') {
        if (r.headers.authorization !== 'Bearer fresh') return refuse(res);
        sseHead(res);
        res.write('event: endpoint\ndata: /messages\n\n');
        return;
      }
      if (r.method === 'POST' && r.headers.authorization !== `Bearer ${postToken}`) return refuse(res);
      res.writeHead(202).end();
    }, '/sse');
    const { p, state } = provider('stale', 'fresh');
    const { t } = wire(new LegacySseTransport({ url: s.url, serverId: 'raw', authProvider: p }));
    await t.start();
    postToken = 'newer';
    p.onUnauthorized = async (info, attempt) => {
      state.infos.push({ info: { ...info }, attempt });
      state.token = 'newer';
      return true;
    };
    await t.send(INITIALIZED);
    expect(state.infos).toEqual([
      { info: { status: 401, wwwAuthenticate: CHALLENGE, sentAuthorization: 'Bearer stale' }, attempt: 0 },
      { info: { status: 401, wwwAuthenticate: CHALLENGE, sentAuthorization: 'Bearer fresh' }, attempt: 0 },
    ]);
  });
});

describe('the auth provider is told which request its headers go on (a DPoP proof signs method and URL)', () => {
  test('Streamable HTTP: POSTs ask with no options (POST to the URL), the GET stream with method GET, the DELETE with method DELETE and refresh: false', async () => {
    const s = await server((r, res) => {
      if (answerInitialize(r, res)) return;
      if (r.method === 'GET') {
        sseHead(res);
        res.write(`data: ${LOG}\n\n`);
        return;
      }
      if (r.method === 'DELETE') return void res.writeHead(200).end();
      res.writeHead(202).end();
    });
    const asked: Array<Record<string, unknown> | undefined> = [];
    const seen = (o: Parameters<HttpAuthProvider['headers']>[0]) => (o === undefined ? undefined : o.signal === undefined ? { ...o } : { ...o, signal: true });
    const p: HttpAuthProvider = { headers: (o) => (asked.push(seen(o)), { Authorization: 'Bearer t' }) };
    const { t, messages } = wire(new StreamableHttpTransport({ url: s.url, serverId: 'raw', authProvider: p }));
    await t.send(INIT, { isInitialize: true });
    await t.send(INITIALIZED);
    await waitFor(() => messages.some((m) => m.method === 'notifications/message'), 'the GET stream');
    await t.close();
    expect(asked).toEqual([undefined, undefined, { method: 'GET' }, { method: 'DELETE', refresh: false, signal: true }]);
  });

  test('legacy HTTP+SSE: the GET asks with method GET, each POST with the URL of the endpoint event', async () => {
    const s = await server((r, res) => {
      if (r.method === 'GET') {
        sseHead(res);
        res.write('event: endpoint\ndata: /messages?session=abc\n\n');
        return;
      }
      res.writeHead(202).end();
    }, '/sse');
    const asked: Array<Record<string, unknown> | undefined> = [];
    const p: HttpAuthProvider = { headers: (o) => (asked.push(o === undefined ? undefined : { ...o }), { Authorization: 'Bearer t' }) };
    const { t } = wire(new LegacySseTransport({ url: s.url, serverId: 'raw', authProvider: p }));
    await t.start();
    await t.send(INITIALIZED);
    expect(asked).toEqual([{ method: 'GET' }, { url: `${s.origin}/messages?session=abc` }]);
  });
});
