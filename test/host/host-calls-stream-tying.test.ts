/**
 * Rule 0 of the notification-tying rules (src/host/call-notifications.ts): over
 * Streamable HTTP a notification that came on a call's own POST SSE stream goes to that call only,
 * even with other calls in flight (basic.transports#25: what a server sends on a request's stream
 * relates to that request). Layer by layer: the transport reports the request id whose stream
 * carried a message (`onmessage(message, { relatedRequestId })`, also after a resumption; nothing
 * for the GET stream), the client hands it on (`notification` event field, `log` event second
 * argument, `onRequestId`), and host.callTool ties by it. Real HTTP mock on 127.0.0.1.
 */
import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error plain JavaScript mock without type declarations
import { startHttpMock } from '../../mock-servers/http-server.mjs';
import { routeCallNotifications } from '../../src/host/call-notifications.js';
import type { HostClient } from '../../src/host/server-slot.js';
import { publicToolName, type McpHost } from '../../src/host/index.js';
import type { RequestId } from '../../src/jsonrpc/types.js';
import { connect, type McpClient } from '../../src/mcp/client.js';
import { StreamableHttpTransport } from '../../src/transport/streamable-http.js';
import type { MessageExtra } from '../../src/transport/types.js';
import { httpServer, mockServer, startHost, toolName } from '../support/host-calls.js';

type Mock = { url: string; close(): Promise<void>; pushToGet(message: unknown): number };

let host: McpHost | undefined;
let mock: Mock | undefined;
let client: McpClient | undefined;
let transport: StreamableHttpTransport | undefined;
afterEach(async () => {
  await host?.close();
  await client?.close();
  await transport?.close();
  await mock?.close();
  host = undefined;
  client = undefined;
  transport = undefined;
  mock = undefined;
});

async function httpHost(mode: 'sse' | 'json'): Promise<McpHost> {
  mock = (await startHttpMock({ mode })) as Mock;
  const h = await startHost([httpServer('h', mock.url, { requestTimeoutMs: 10_000 })], { auth: false });
  host = h;
  return h;
}

type Got = { logs: unknown[]; events: { method: string; params: unknown }[] };
const fresh = (): Got => ({ logs: [], events: [] });
const listeners = (got: Got) => ({
  onLog: (m: Record<string, unknown>) => got.logs.push(m.data),
  onNotification: (method: string, params: Record<string, unknown> | undefined) => got.events.push({ method, params }),
});

/**
 * Two `events` calls at once (A: 4 × 60 ms, B: 4 × 45 ms, interleaving), while a third call (`slow`,
 * 1.5 s, no listeners) keeps a third request in flight throughout: neither events call is ever the
 * server's only call, so rule 3 (exclusivity) can tie nothing.
 */
async function twoAtOnce(h: McpHost, server: string): Promise<{ a: Got; b: Got }> {
  const a = fresh();
  const b = fresh();
  const name = toolName(server, 'events');
  const [ra, rb, rc] = await Promise.all([
    h.callTool(name, { count: 4, intervalMs: 60, tag: 'A' }, listeners(a)),
    h.callTool(name, { count: 4, intervalMs: 45, tag: 'B' }, listeners(b)),
    h.callTool(toolName(server, 'slow'), { ms: 1500 }),
  ]);
  expect([ra.outcome, rb.outcome, rc.outcome]).toEqual(['ok', 'ok', 'ok']);
  return { a, b };
}

const own = (tag: string) => [1, 2, 3, 4].map((seq) => ({ tag, seq }));

describe('host.callTool over Streamable HTTP: a notification on a call\'s own stream goes to that call (rule 0)', () => {
  // cites basic.transports#25: the host ties a message to the call whose stream carried it, which is right when the server follows #25
  it('basic.transports#25: two concurrent calls to one server each get exactly their own log messages and notifications', async () => {
    const h = await httpHost('sse');
    const { a, b } = await twoAtOnce(h, 'h');
    expect(a.logs).toEqual(own('A'));
    expect(b.logs).toEqual(own('B'));
    expect(a.events).toEqual(own('A').map((params) => ({ method: 'notifications/tool_event', params })));
    expect(b.events).toEqual(own('B').map((params) => ({ method: 'notifications/tool_event', params })));
  });

  it('control: the same two calls answered as JSON (the notifications come on the GET stream) get none: neither call is alone', async () => {
    const h = await httpHost('json');
    const { a, b } = await twoAtOnce(h, 'h');
    expect([a.logs, a.events, b.logs, b.events]).toEqual([[], [], [], []]);
  });

  it('control: over stdio (no stream to tell) the same two calls get none, and one call alone gets its own (rules 1-2 unchanged)', async () => {
    host = await startHost([mockServer('s', { tools: ['events', 'slow'] })]);
    const { a, b } = await twoAtOnce(host, 's');
    expect([a.logs, a.events, b.logs, b.events]).toEqual([[], [], [], []]);
    const alone = fresh();
    await host.callTool(toolName('s', 'events'), { count: 2, intervalMs: 5, tag: 'C' }, listeners(alone));
    expect(alone.logs).toEqual([{ tag: 'C', seq: 1 }, { tag: 'C', seq: 2 }]);
  });

  it('a call\'s log message sent on its stream before and after the stream drops and resumes reaches it while another call is in flight', async () => {
    const h = await httpHost('sse');
    const logs: unknown[] = [];
    const other = fresh();
    const [r, busy] = await Promise.all([
      h.callTool(publicToolName('h', 'resumable'), { delayMs: 100 }, { onLog: (m) => logs.push(m.data) }),
      h.callTool(publicToolName('h', 'events'), { count: 3, intervalMs: 60, tag: 'X' }, listeners(other)),
    ]);
    expect([r.outcome, busy.outcome]).toEqual(['ok', 'ok']);
    expect(logs).toEqual(['before the drop', 'while you were away']);
    expect(other.logs).toEqual([1, 2, 3].map((seq) => ({ tag: 'X', seq })));
  });
});

describe('McpClient: relatedRequestId on events, onRequestId on callTool', () => {
  it('a notification and a log message from a call\'s stream carry the id onRequestId reported; one on the GET stream carries none', async () => {
    mock = (await startHttpMock({ mode: 'sse' })) as Mock;
    client = await connect({ transport: 'http', url: mock.url }, { trace: false });
    const notes: { method: string; relatedRequestId?: RequestId }[] = [];
    const logs: { data: unknown; extra: MessageExtra | undefined }[] = [];
    client.on('notification', (e: { method: string; relatedRequestId?: RequestId }) => notes.push(e));
    client.on('log', (p: { data: unknown }, extra?: MessageExtra) => logs.push({ data: p.data, extra }));
    const ids: RequestId[] = [];
    await client.callTool('events', { count: 1, intervalMs: 1, tag: 'T' }, { onRequestId: (id) => ids.push(id) });
    expect(ids).toHaveLength(1);
    expect(notes).toEqual([{ method: 'notifications/tool_event', params: { tag: 'T', seq: 1 }, relatedRequestId: ids[0] }]);
    expect(logs).toEqual([{ data: { tag: 'T', seq: 1 }, extra: { relatedRequestId: ids[0] } }]);

    // the standalone GET stream opens after initialization; wait until the mock has it
    const getLogs = logs.length;
    for (let i = 0; i < 100 && mock.pushToGet({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'from GET' } }) === 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    for (let i = 0; i < 100 && logs.length === getLogs; i++) await new Promise((r) => setTimeout(r, 20));
    expect(logs.slice(getLogs)).toEqual([{ data: 'from GET', extra: undefined }]);
  });
});

describe('StreamableHttpTransport: which request\'s stream a message came on', () => {
  // cites basic.transports#25: the transport reports which request's stream carried a message, what #25 relates it to
  it('basic.transports#25: messages on a POST\'s SSE stream (and its resumption after a cut) carry that request\'s id; the GET stream\'s carry nothing', async () => {
    mock = (await startHttpMock({ mode: 'sse' })) as Mock;
    const t = (transport = new StreamableHttpTransport({ url: mock.url }));
    const got: { msg: { id?: unknown; method?: string; params?: { data?: unknown } }; extra: MessageExtra | undefined }[] = [];
    t.onmessage = (msg, extra) => got.push({ msg: msg as (typeof got)[number]['msg'], extra });
    await t.start();
    await t.send(
      { jsonrpc: '2.0', id: 'init-1', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
      { isInitialize: true },
    );
    t.setProtocolVersion('2025-11-25');
    await t.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    got.length = 0;
    await t.send({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'resumable', arguments: { delayMs: 50 } } });
    const onPost = got.map((g) => [g.msg.method ?? `response ${String(g.msg.id)}`, g.msg.params?.data, g.extra]);
    expect(onPost).toEqual([
      ['notifications/message', 'before the drop', { relatedRequestId: 7 }],
      ['notifications/message', 'while you were away', { relatedRequestId: 7 }],
      ['response 7', undefined, { relatedRequestId: 7 }],
    ]);

    got.length = 0;
    for (let i = 0; i < 100 && mock.pushToGet({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'from GET' } }) === 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    for (let i = 0; i < 100 && got.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(got).toHaveLength(1);
    expect(got[0].msg.params?.data).toBe('from GET');
    expect(got[0].extra).toBeUndefined();
  });
});

describe('routeCallNotifications rule 0 (on a fake client)', () => {
  it('the stream wins over token and exclusivity; a stream of no call\'s request falls to the other rules', () => {
    const client = new EventEmitter() as unknown as HostClient & EventEmitter;
    const got: string[] = [];
    const ids1: RequestId[] = [5];
    const end1 = routeCallNotifications(client, { token: 't1', requestIds: ids1, onNotification: (m) => got.push(`1:${m}`), onLog: (p) => got.push(`1:log ${String(p.data)}`) });
    const end2 = routeCallNotifications(client, { token: 't2', requestIds: [6], onNotification: (m) => got.push(`2:${m}`), onLog: (p) => got.push(`2:log ${String(p.data)}`) });
    client.emit('notification', { method: 'x/on5', params: {}, relatedRequestId: 5 });
    client.emit('log', { level: 'info', data: 'on6' }, { relatedRequestId: 6 });
    client.emit('notification', { method: 'x/on5-token2', params: { _meta: { progressToken: 't2' } }, relatedRequestId: 5 });
    client.emit('notification', { method: 'x/on99-token2', params: { _meta: { progressToken: 't2' } }, relatedRequestId: 99 }); // rule 2 (token)
    client.emit('notification', { method: 'x/on99', params: {}, relatedRequestId: 99 }); // two in flight: none
    ids1.push(7); // a replay of call 1 on a renewed session
    client.emit('notification', { method: 'x/on7', params: {}, relatedRequestId: 7 });
    end2();
    client.emit('notification', { method: 'x/on6-after', params: {}, relatedRequestId: 6 }); // call 2 is over: rule 3 gives it to 1
    end1();
    expect(got).toEqual(['1:x/on5', '2:log on6', '1:x/on5-token2', '2:x/on99-token2', '1:x/on7', '1:x/on6-after']);
  });
});
