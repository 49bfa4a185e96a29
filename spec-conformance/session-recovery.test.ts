/**
 * basic/transports session management, from the client's side: a 404 for our session id means
 * the session expired (basic.transports#44); the client starts a new one (#45), restores what
 * the old one had (log level, subscriptions) and replays the refused request once.
 */
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error plain JavaScript mock without type declarations
import { startHttpMock } from '../mock-servers/http-server.mjs';
import { connect, ConnectionClosedError, McpClient, SessionExpiredError, TransportError } from '../src/index.js';
import { FakeSessionTransport } from './support/fake-session-transport.js';
import { startPagingServer, type PagingServer } from './support/paging-http.js';

type Mock = {
  url: string;
  record: { messages: any[]; requests: any[] };
  options: { failures: { rpcMethod?: string; httpMethod?: string; status: number; times?: number }[] };
  expireSessions(): void;
  sessionIds(): string[];
  close(): Promise<void>;
};
let mock: Mock | undefined;
let client: McpClient | undefined;
let pager: PagingServer | undefined;

afterEach(async () => {
  await client?.close();
  await mock?.close();
  await pager?.close();
  client = undefined;
  mock = undefined;
  pager = undefined;
});

/** The chain of causes of an error, outermost first. */
const causes = (e: unknown): unknown[] => {
  const out: unknown[] = [];
  for (let c = e; c !== undefined && out.length < 10; c = (c as { cause?: unknown }).cause) out.push(c);
  return out;
};

const methods = () => mock!.record.messages.filter((m) => m.method).map((m) => m.method as string);

describe('Streamable HTTP session expiry', () => {
  it('basic.transports#45: re-initializes, restores log level and subscriptions, and replays the request once', async () => {
    mock = (await startHttpMock({ mode: 'sse' })) as Mock;
    client = await connect({ transport: 'http', id: 'expiring', url: mock.url }, { timeoutMs: 10_000 });
    const expired: unknown[] = [];
    client.on('sessionExpired', (e) => expired.push(e));
    await client.setLoggingLevel('error');
    await client.subscribeResource('mem://one');
    const firstSession = client.sessionId;
    expect(firstSession).toBeTruthy();

    mock.expireSessions();
    const r = await client.callTool('echo', { text: 'after expiry' });
    expect(r.content[0]).toEqual({ type: 'text', text: 'after expiry' });
    expect(expired).toHaveLength(1);
    expect(expired[0]).toBeInstanceOf(SessionExpiredError);
    expect(client.sessionId).toBeTruthy();
    expect(client.sessionId).not.toBe(firstSession);
    expect(client.state).toBe('ready');

    const seq = methods();
    const second = seq.lastIndexOf('initialize');
    expect(seq.indexOf('initialize')).not.toBe(second);
    // After the new initialize: initialized, the restored state, then the replayed call.
    expect(seq.slice(second)).toEqual([
      'initialize',
      'notifications/initialized',
      'logging/setLevel',
      'resources/subscribe',
      'tools/call',
    ]);
    // The refused call reached the server twice in all: once refused (404), once replayed.
    const calls = mock.record.requests.filter((q) => q.method === 'POST' && String(q.body).includes('"tools/call"'));
    expect(calls).toHaveLength(2);
    expect(client.pendingCount).toBe(0);
  });

  it('concurrent requests refused for the expired session share one renewal', async () => {
    mock = (await startHttpMock({ mode: 'json' })) as Mock;
    client = await connect({ transport: 'http', id: 'expiring', url: mock.url }, { timeoutMs: 10_000 });
    mock.expireSessions();
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => client!.callTool('echo', { text: `n${i}` })));
    expect(results.map((r) => (r.content[0] as { text: string }).text)).toEqual(['n0', 'n1', 'n2', 'n3', 'n4']);
    expect(methods().filter((m) => m === 'initialize')).toHaveLength(2);
  });

  it("sessionRecovery: 'off' surfaces SessionExpiredError; reinitialize() starts a new session by hand", async () => {
    mock = (await startHttpMock({ mode: 'json' })) as Mock;
    client = await connect({ transport: 'http', id: 'expiring', url: mock.url }, { timeoutMs: 10_000, sessionRecovery: 'off' });
    mock.expireSessions();
    const err = await client.callTool('echo', { text: 'x' }).catch((e) => e);
    expect(err).toBeInstanceOf(SessionExpiredError);
    expect(err.serverId).toBe('expiring');
    await client.reinitialize();
    expect((await client.callTool('echo', { text: 'y' })).content[0]).toEqual({ type: 'text', text: 'y' });
  });
});

describe('a failed session renewal', () => {
  it('renewal answered with HTTP 500 fails the client with the cause and emits close (basic.transports#45)', async () => {
    mock = (await startHttpMock({ mode: 'json', getStream: false })) as Mock;
    client = await connect({ transport: 'http', id: 'renew500', url: mock.url }, { timeoutMs: 10_000 });
    const closed: unknown[] = [];
    client.on('close', (e) => closed.push(e));
    mock.options.failures.push({ rpcMethod: 'initialize', status: 500 });
    mock.expireSessions();

    const err = await client.callTool('echo', { text: 'x' }).catch((e) => e);
    expect(err).toBeInstanceOf(ConnectionClosedError);
    expect(err.serverId).toBe('renew500');
    expect(err.message).toMatch(/session/);
    const http500 = causes(err).find((c) => c instanceof TransportError && c.status === 500);
    expect(http500).toBeDefined();
    expect(client.state).toBe('failed');
    expect(closed).toHaveLength(1);
    expect(causes(closed[0]).some((c) => c instanceof TransportError && (c as TransportError).status === 500)).toBe(true);
    // Not stuck: later requests fail at once, naming why, instead of waiting for ever.
    const later = await client.callTool('echo', { text: 'y' }).catch((e) => e);
    expect(later.message).toMatch(/failed/);
    expect(causes(later).some((c) => c instanceof TransportError && c.status === 500)).toBe(true);
    await expect(client.ping()).rejects.toThrow();
    expect(client.pendingCount).toBe(0);
    expect(methods().filter((m) => m === 'initialize')).toHaveLength(2);
  });

  it("connect's signal applies to the first initialize only, not to later renewals", async () => {
    mock = (await startHttpMock({ mode: 'json', getStream: false })) as Mock;
    const ac = new AbortController();
    client = await connect({ transport: 'http', id: 'signal', url: mock.url }, { timeoutMs: 10_000, signal: ac.signal });
    ac.abort(new Error('the connect deadline passed'));
    mock.expireSessions();
    const r = await client.callTool('echo', { text: 'renewed' });
    expect(r.content[0]).toEqual({ type: 'text', text: 'renewed' });
    expect(client.state).toBe('ready');
    expect(methods().filter((m) => m === 'initialize')).toHaveLength(2);
  });

  it("a hand-made reinitialize() (sessionRecovery 'off') that fails also closes the client with the cause", async () => {
    mock = (await startHttpMock({ mode: 'json', getStream: false })) as Mock;
    client = await connect({ transport: 'http', id: 'manual', url: mock.url }, { timeoutMs: 10_000, sessionRecovery: 'off' });
    const closed = new Promise<unknown>((resolve) => client!.once('close', resolve));
    mock.expireSessions();
    await expect(client.callTool('echo', { text: 'x' })).rejects.toBeInstanceOf(SessionExpiredError);
    mock.options.failures.push({ rpcMethod: 'initialize', status: 500, times: 1 });
    const err = await client.reinitialize().catch((e) => e);
    expect(err).toBeInstanceOf(ConnectionClosedError);
    expect(causes(err).some((c) => c instanceof TransportError && c.status === 500)).toBe(true);
    expect(await closed).toBe(err);
    expect(client.state).toBe('failed');
  });

  it('the connect signal still aborts the first initialize', async () => {
    mock = (await startHttpMock({ mode: 'json', getStream: false })) as Mock;
    const ac = new AbortController();
    ac.abort(new Error('gave up'));
    const c = new McpClient({ transport: 'http', id: 'aborted', url: mock.url }, { timeoutMs: 10_000, signal: ac.signal });
    await expect(c.connect()).rejects.toThrow();
    expect(c.state).toBe('failed');
  });
});

describe('a listing interrupted by a new session restarts from the first page', () => {
  const cases = [
    { method: 'tools/list', list: (c: McpClient) => c.listTools(), names: ['tool1', 'tool2'] },
    { method: 'resources/list', list: (c: McpClient) => c.listResources(), names: ['r1', 'r2'] },
    { method: 'resources/templates/list', list: (c: McpClient) => c.listResourceTemplates(), names: ['t1', 't2'] },
    { method: 'prompts/list', list: (c: McpClient) => c.listPrompts(), names: ['prompt1', 'prompt2'] },
  ] as const;

  for (const { method, list, names } of cases) {
    it(`${method} never replays a cursor of the expired session on the new one (server.utilities.pagination#4)`, async () => {
      pager = await startPagingServer();
      client = await connect({ transport: 'http', id: 'pager', url: pager.url }, { timeoutMs: 10_000 });
      pager.expireAfterFirstPage = true;
      const items = (await list(client)) as { name: string }[];
      expect(items.map((i) => i.name)).toEqual(names);
      const lists = pager.posts.filter((p) => p.method === method);
      // S1 page 1, S1 page 2 → 404, then on S2: page 1 and page 2 with S2's cursor.
      expect(lists.map((p) => [p.session, p.params?.cursor ?? null, p.status])).toEqual([
        ['S1', null, 200],
        ['S1', 'S1|page2', 404],
        ['S2', null, 200],
        ['S2', 'S2|page2', 200],
      ]);
      expect(pager.posts.some((p) => p.session === 'S2' && String(p.params?.cursor ?? '').startsWith('S1'))).toBe(false);
      expect(client.pendingCount).toBe(0);
    });
  }

  it('a page request by cursor alone (listToolsPage) surfaces SessionExpiredError instead of replaying the stale cursor (server.utilities.pagination#4)', async () => {
    pager = await startPagingServer();
    client = await connect({ transport: 'http', id: 'pager', url: pager.url }, { timeoutMs: 10_000 });
    pager.expireAfterFirstPage = true;
    const first = await client.listToolsPage();
    const err = await client.listToolsPage(first.nextCursor).catch((e) => e);
    expect(err).toBeInstanceOf(SessionExpiredError);
    expect(err.message).toMatch(/first page/);
    // The session was renewed all the same; a fresh listing works.
    expect(client.sessionId).toBe('S2');
    expect(pager.posts.filter((p) => p.session === 'S2' && p.params?.cursor !== undefined)).toHaveLength(0);
    expect((await client.listTools()).map((t) => t.name)).toEqual(['tool1', 'tool2']);
  });

  it('a session renewed by another request between two pages restarts the listing (server.utilities.pagination#4)', async () => {
    const transport = new FakeSessionTransport();
    const pages: string[] = [];
    let renewDuringPage1 = true;
    transport.override = (m, session) => {
      if (m.method !== 'tools/list') return undefined;
      const cursor = m.params?.cursor as string | undefined;
      pages.push(`${session}:${cursor ?? 'first'}`);
      if (cursor !== undefined) return { tools: [{ name: 'b', inputSchema: { type: 'object' } }] };
      if (renewDuringPage1) {
        renewDuringPage1 = false;
        // The GET stream gets its 404 while page 1 is on its way back.
        setImmediate(() => transport.expireOutsideRequest());
      }
      return { tools: [{ name: 'a', inputSchema: { type: 'object' } }], nextCursor: `${session}-next` };
    };
    client = await connect({ transport: 'http', id: 'fake', url: 'http://127.0.0.1:9/unused' }, { transport, timeoutMs: 10_000 });
    const tools = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['a', 'b']);
    expect(pages).toEqual(['F1:first', 'F2:first', 'F2:F2-next']);
  });
});

describe('a 404 outside a request (onsessionexpired) renews the session', () => {
  it('renews once, restores log level and subscriptions, and later requests use the new session (basic.transports#45)', async () => {
    const transport = new FakeSessionTransport();
    client = await connect({ transport: 'http', id: 'fake', url: 'http://127.0.0.1:9/unused' }, { transport, timeoutMs: 10_000 });
    expect(transport.onsessionexpired).toBeTypeOf('function');
    await client.setLoggingLevel('warning');
    await client.subscribeResource('mem://a');
    const expired: unknown[] = [];
    client.on('sessionExpired', (e) => expired.push(e));
    const renewed = new Promise<void>((resolve) => client!.on('sessionRenewed', () => resolve()));
    const old = transport.sessionId;
    transport.expireOutsideRequest(old);
    transport.expireOutsideRequest(old); // a second 404 for the old session (e.g. another stream) shares the renewal
    await renewed;
    expect(expired).toHaveLength(1);
    expect(client.sessionId).toBe('F2');
    expect(client.state).toBe('ready');
    const second = transport.sent.map((m) => m.method).lastIndexOf('initialize');
    expect(transport.sent.slice(second).map((m) => [m.session ?? null, m.method])).toEqual([
      [null, 'initialize'],
      ['F2', 'notifications/initialized'],
      ['F2', 'logging/setLevel'],
      ['F2', 'resources/subscribe'],
    ]);
    expect(transport.sent.filter((m) => m.method === 'initialize')).toHaveLength(2);
    const r = await client.callTool('echo', { text: 'on F2' });
    expect(r.content[0]).toEqual({ type: 'text', text: 'on F2' });
    expect(transport.sent.at(-1)).toMatchObject({ session: 'F2', method: 'tools/call' });
  });

  it('a request made during the renewal waits for it and goes out on the new session', async () => {
    const transport = new FakeSessionTransport();
    client = await connect({ transport: 'http', id: 'fake', url: 'http://127.0.0.1:9/unused' }, { transport, timeoutMs: 10_000 });
    transport.expireOutsideRequest();
    const r = await client.callTool('echo', { text: 'waited' });
    expect(r.content[0]).toEqual({ type: 'text', text: 'waited' });
    expect(transport.sent.filter((m) => m.method === 'tools/call').map((m) => m.session)).toEqual(['F2']);
  });

  it('a renewal after onsessionexpired that fails closes the client with the cause', async () => {
    const transport = new FakeSessionTransport();
    client = await connect({ transport: 'http', id: 'fake', url: 'http://127.0.0.1:9/unused' }, { transport, timeoutMs: 10_000 });
    const closed = new Promise<unknown>((resolve) => client!.on('close', resolve));
    transport.failNextInitialize = new TransportError('POST initialize got HTTP 500', { status: 500 });
    transport.expireOutsideRequest();
    const reason = await closed;
    expect(reason).toBeInstanceOf(ConnectionClosedError);
    expect(causes(reason).some((c) => c instanceof TransportError && (c as TransportError).status === 500)).toBe(true);
    expect(client.state).toBe('failed');
    await expect(client.callTool('echo', { text: 'x' })).rejects.toThrow();
  });

  it("sessionRecovery 'off' only reports the expiry", async () => {
    const transport = new FakeSessionTransport();
    client = await connect({ transport: 'http', id: 'fake', url: 'http://127.0.0.1:9/unused' }, { transport, timeoutMs: 10_000, sessionRecovery: 'off' });
    const expired: unknown[] = [];
    client.on('sessionExpired', (e) => expired.push(e));
    transport.expireOutsideRequest();
    expect(expired).toHaveLength(1);
    expect(transport.sent.filter((m) => m.method === 'initialize')).toHaveLength(1);
    expect(client.state).toBe('ready');
  });
});

describe('over real sockets', () => {
  it('a 404 on the GET stream renews the session without any request failing (basic.transports#45)', async () => {
    mock = (await startHttpMock({ mode: 'sse' })) as Mock;
    client = await connect({ transport: 'http', id: 'get404', url: mock.url }, { timeoutMs: 10_000 });
    await client.setLoggingLevel('error');
    const first = client.sessionId;
    // The GET stream opens after the first request; wait until the server holds it.
    const getOpen = () => mock!.record.requests.some((q) => q.method === 'GET');
    for (let i = 0; i < 500 && !getOpen(); i++) await new Promise((r) => setTimeout(r, 10));
    expect(getOpen()).toBe(true);
    const renewed = new Promise<void>((resolve) => client!.once('sessionRenewed', () => resolve()));
    mock.expireSessions(); // ends the GET stream; its reconnect gets 404
    await renewed;
    expect(client.state).toBe('ready');
    expect(client.sessionId).not.toBe(first);
    const seq = methods();
    expect(seq.slice(seq.lastIndexOf('initialize'))).toEqual(['initialize', 'notifications/initialized', 'logging/setLevel']);
    const r = await client.callTool('echo', { text: 'on the new session' });
    expect(r.content[0]).toEqual({ type: 'text', text: 'on the new session' });
    // Nothing was refused: the only requests on the old session were the ones before the expiry.
    expect(mock.record.requests.filter((q) => q.method === 'POST' && String(q.body).includes('"tools/call"'))).toHaveLength(1);
  });
});
