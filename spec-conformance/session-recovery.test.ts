/**
 * basic/transports session management, from the client's side: a 404 for our session id means
 * the session expired (basic.transports#44); the client starts a new one (#45), restores what
 * the old one had (log level, subscriptions) and replays the refused request once.
 */
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error plain JavaScript mock without type declarations
import { startHttpMock } from '../mock-servers/http-server.mjs';
import { connect, SessionExpiredError, type McpClient } from '../src/index.js';

type Mock = { url: string; record: { messages: any[]; requests: any[] }; expireSessions(): void; sessionIds(): string[]; close(): Promise<void> };
let mock: Mock | undefined;
let client: McpClient | undefined;

afterEach(async () => {
  await client?.close();
  await mock?.close();
  client = undefined;
  mock = undefined;
});

const methods = () => mock!.record.messages.filter((m) => m.method).map((m) => m.method as string);

describe('Streamable HTTP session expiry', () => {
  it('basic.transports#44 #45: re-initializes, restores log level and subscriptions, and replays the request once', async () => {
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
