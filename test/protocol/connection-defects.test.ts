/**
 * Request-engine regressions: sends that throw, the total ceiling of a non-cancellable request,
 * progress tokens, cancelling only what was dispatched, answers to malformed server requests,
 * responses the transport could not read and progress flooding. Fake timers: nothing depends on machine speed.
 */
import { readFileSync } from 'node:fs';
import Ajv2020Import from 'ajv/dist/2020.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AbortError, JsonRpcError, ProtocolError, TimeoutError } from '../../src/errors.js';
import type { JSONRPCMessage } from '../../src/jsonrpc/types.js';
import { Connection } from '../../src/protocol/connection.js';
import type { ProgressParams } from '../../src/protocol/registry.js';
import { createMemoryPair, type MemoryTransport } from '../../src/transport/memory.js';
import type { SendOptions, Transport } from '../../src/transport/types.js';

type Msg = { jsonrpc?: string; id?: number | string | null; method?: string; params?: any; result?: any; error?: any };

let client: MemoryTransport;
let server: MemoryTransport;
let conn: Connection;
let received: Msg[];
let diagnostics: { code: string; message: string }[];

async function flush(n = 10) {
  for (let i = 0; i < n; i++) await Promise.resolve();
}
const cancels = () => received.filter((m) => m.method === 'notifications/cancelled');
const reply = (id: number | string, result: unknown = {}) => server.send({ jsonrpc: '2.0', id, result } as JSONRPCMessage);
const progress = (progressToken: unknown, p: number) =>
  server.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken, progress: p } } as JSONRPCMessage);
/** Delivers a progress notification to the client synchronously (as a transport does). */
const progressNow = (progressToken: unknown, p: number) =>
  client.onmessage!({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken, progress: p } });

beforeEach(() => {
  vi.useFakeTimers();
  [client, server] = createMemoryPair();
  received = [];
  diagnostics = [];
  server.onmessage = (m) => received.push(m as Msg);
  conn = new Connection(client, { serverId: 'mem', phase: () => 'request', onDiagnostic: (d) => diagnostics.push(d) });
});

afterEach(async () => {
  await conn.close();
  expect(conn.pendingCount).toBe(0);
  vi.useRealTimers();
});

describe('a send that throws neither leaks the request nor crashes', () => {
  it('params JSON cannot serialise reject with a typed error, leave nothing pending and send no cancel (basic.utilities.cancellation#1)', async () => {
    const p = conn.request('tools/call', { name: 'x', arguments: { n: 10n } }, { timeoutMs: 100 });
    const err = await p.catch((e) => e);
    expect(err).toBeInstanceOf(ProtocolError);
    expect(err.code).toBe('MCPWIRE_SEND_FAILED');
    expect(err.message).toMatch(/could not send "tools\/call".*BigInt/);
    expect(err.serverId).toBe('mem');
    expect(err.cause).toBeInstanceOf(TypeError);
    expect(conn.pendingCount).toBe(0);
    vi.advanceTimersByTime(1000);
    await flush();
    expect(received).toEqual([]);
    // the connection still works
    const ok = conn.request('ping');
    await flush();
    await reply(received[0].id!);
    await expect(ok).resolves.toEqual({});
  });

  it('a handler result that cannot be serialised is answered with -32603, not an unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    try {
      conn.setRequestHandler('sampling/createMessage', () => ({ big: 1n }));
      conn.setRequestHandler('roots/list', async () => {
        throw new JsonRpcError(-32602, 'bad roots', { n: 2n });
      });
      await server.send({ jsonrpc: '2.0', id: 's1', method: 'sampling/createMessage', params: {} });
      await server.send({ jsonrpc: '2.0', id: 's2', method: 'roots/list' });
      await flush();
      vi.useRealTimers();
      await new Promise((r) => setTimeout(r, 20)); // let Node report unhandled rejections
      expect(unhandled).toEqual([]);
      const s1 = received.find((m) => m.id === 's1');
      expect(s1?.error?.code).toBe(-32603);
      expect(s1?.error?.message).toMatch(/could not be serialised.*BigInt/);
      expect(s1).not.toHaveProperty('result');
      const s2 = received.find((m) => m.id === 's2');
      expect(s2?.error?.code).toBe(-32603);
      expect(received.filter((m) => m.id === 's1' || m.id === 's2')).toHaveLength(2);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});

describe('the total ceiling of a non-cancellable request', () => {
  it('initialize hitting maxTotalTimeoutMs rejects but sends no notifications/cancelled (basic.utilities.cancellation#2)', async () => {
    const p = conn
      .request('initialize', {}, { timeoutMs: 100, maxTotalTimeoutMs: 150, resetTimeoutOnProgress: true, onProgress: () => {}, cancellable: false })
      .catch((e) => e);
    await flush();
    const token = received[0].params._meta.progressToken;
    vi.advanceTimersByTime(80);
    await progress(token, 1);
    await flush();
    vi.advanceTimersByTime(70);
    const err = await p;
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.message).toMatch(/maximum total/);
    await flush();
    expect(cancels()).toEqual([]);
  });
});

describe('progress tokens are unique across active requests (basic.utilities.progress#2)', () => {
  it('a caller token equal to a later request id does not collide with that request’s automatic token (basic.utilities.progress#2)', async () => {
    const seenB: number[] = [];
    const a = conn.request('a', { _meta: { progressToken: 2, keep: true } });
    const b = conn.request('b', undefined, { onProgress: (pr) => seenB.push(pr.progress) });
    await flush();
    const [ma, mb] = received;
    expect(mb.id).toBe(2);
    expect(ma.params).toEqual({ _meta: { progressToken: 2, keep: true } }); // untouched
    const tokenB = mb.params._meta.progressToken;
    expect(tokenB).not.toBe(2);
    expect(typeof tokenB === 'string' || Number.isInteger(tokenB)).toBe(true); // basic.utilities.progress#1
    await progress(2, 1); // the server's progress for request a
    await flush();
    expect(seenB).toEqual([]);
    await progress(tokenB, 5);
    await flush();
    expect(seenB).toEqual([5]);
    expect(diagnostics.map((d) => d.code)).not.toContain('MCPWIRE_UNKNOWN_PROGRESS'); // token 2 is a's, known
    await reply(ma.id!);
    await reply(mb.id!);
    await Promise.all([a, b]);
  });

  it('automatic tokens of concurrent requests differ and never equal any request id (basic.utilities.progress#2)', async () => {
    const ps = Array.from({ length: 20 }, (_, i) => conn.request('w', i % 2 ? { _meta: { progressToken: i } } : undefined, { onProgress: () => {} }));
    await flush();
    const tokens = received.map((m) => m.params._meta.progressToken);
    expect(new Set(tokens).size).toBe(20);
    const auto = received.filter((_, i) => i % 2 === 0).map((m) => m.params._meta.progressToken);
    for (const t of auto) expect(received.map((m) => m.id)).not.toContain(t);
    for (const m of received) await reply(m.id!);
    await Promise.all(ps);
  });

  it('a caller token already used by an active request is refused; reusable once that request settles (basic.utilities.progress#2)', async () => {
    const first = conn.request('a', { _meta: { progressToken: 'job' } });
    await flush();
    const err = await conn.request('b', { _meta: { progressToken: 'job' } }).catch((e) => e);
    expect(err).toBeInstanceOf(ProtocolError);
    expect(err.code).toBe('MCPWIRE_PROGRESS_TOKEN_IN_USE');
    expect(err.message).toMatch(/"job"/);
    await flush();
    expect(received).toHaveLength(1);
    expect(conn.pendingCount).toBe(1);
    await reply(received[0].id!);
    await first;
    const again = conn.request('b', { _meta: { progressToken: 'job' } });
    await flush();
    expect(received[1].params._meta.progressToken).toBe('job');
    await reply(received[1].id!);
    await again;
  });

  it('a caller token with onProgress is kept and its progress routed to that request only', async () => {
    const seen: number[] = [];
    const p = conn.request('a', { _meta: { progressToken: 'mine' } }, { onProgress: (pr) => seen.push(pr.progress), progressIntervalMs: 0 });
    await flush();
    expect(received[0].params._meta.progressToken).toBe('mine');
    await progress(received[0].id, 1); // the request id is not a token of this request
    await progress('mine', 2);
    await flush();
    expect(seen).toEqual([2]);
    await reply(received[0].id!);
    await p;
  });
});

/** A transport like HTTP: wants a request signal, dispatches when the test says so. */
function httpLike() {
  const sent: { message: Msg; options?: SendOptions }[] = [];
  const t: Transport = {
    kind: 'fake-http',
    wantsRequestSignal: true,
    start: async () => {},
    close: async () => t.onclose?.(),
    send(message, options) {
      sent.push({ message: message as Msg, options });
      // a request's POST stays open until its response (never, here)
      return (message as Msg).id !== undefined && (message as Msg).method !== undefined ? new Promise<void>(() => {}) : Promise.resolve();
    },
  };
  return { t, sent, cancelsSent: () => sent.filter((s) => s.message.method === 'notifications/cancelled') };
}

describe('notifications/cancelled only for dispatched requests (basic.utilities.cancellation#1)', () => {
  it('aborting a request the transport never dispatched rejects and sends no cancel (basic.utilities.cancellation#1)', async () => {
    const h = httpLike();
    const c = new Connection(h.t, { serverId: 'http' });
    const ac = new AbortController();
    const p = c.request('tools/call', { name: 'x' }, { signal: ac.signal }).catch((e) => e);
    expect(typeof h.sent[0].options?.onDispatched).toBe('function');
    ac.abort('stop');
    expect(await p).toBeInstanceOf(AbortError);
    expect(h.sent[0].options?.signal?.aborted).toBe(true); // the POST is aborted
    await flush();
    expect(h.cancelsSent()).toEqual([]);
    expect(c.pendingCount).toBe(0);
    await c.close();
  });

  it('a timeout before dispatch rejects and sends no cancel; after dispatch it cancels (basic.utilities.cancellation#1)', async () => {
    const h = httpLike();
    const c = new Connection(h.t, { serverId: 'http' });
    const before = c.request('a', undefined, { timeoutMs: 100 }).catch((e) => e);
    const after = c.request('b', undefined, { timeoutMs: 100 }).catch((e) => e);
    h.sent[1].options!.onDispatched!();
    vi.advanceTimersByTime(100);
    expect(await before).toBeInstanceOf(TimeoutError);
    expect(await after).toBeInstanceOf(TimeoutError);
    await flush();
    expect(h.cancelsSent().map((s) => s.message.params.requestId)).toEqual([h.sent[1].message.id]);
    await c.close();
  });

  it('an onDispatched called detached (destructured) still marks the request', async () => {
    const h = httpLike();
    const c = new Connection(h.t, { serverId: 'http' });
    const ac = new AbortController();
    const p = c.request('a', undefined, { signal: ac.signal }).catch((e) => e);
    const { onDispatched } = h.sent[0].options!;
    onDispatched!();
    ac.abort();
    await p;
    await flush();
    expect(h.cancelsSent()).toHaveLength(1);
    await c.close();
  });

  it('transports without wantsRequestSignal dispatch synchronously: abort cancels (basic.utilities.cancellation#1)', async () => {
    const ac = new AbortController();
    const p = conn.request('a', undefined, { signal: ac.signal }).catch((e) => e);
    ac.abort();
    await p;
    await flush();
    expect(cancels()).toHaveLength(1);
  });
});

// ---- 16.6 -------------------------------------------------------------------------------------

const Ajv2020 = ((Ajv2020Import as unknown as { default?: unknown }).default ?? Ajv2020Import) as new (o: object) => {
  addSchema(s: object, key: string): void;
  getSchema(ref: string): ((v: unknown) => boolean) & { errors?: unknown };
};
const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addSchema(JSON.parse(readFileSync(new URL('../../schema/2025-11-25.schema.json', import.meta.url), 'utf8')), 'mcp');
const errorResponse = ajv.getSchema('mcp#/$defs/JSONRPCErrorResponse');
const anyMessage = ajv.getSchema('mcp#/$defs/JSONRPCMessage');

describe('malformed server requests get an Invalid Request answer (basic#2, basic#8)', () => {
  const cases: [string, Record<string, unknown>][] = [
    ['params: null', { jsonrpc: '2.0', id: 11, method: 'roots/list', params: null }],
    ['params: "x"', { jsonrpc: '2.0', id: 12, method: 'roots/list', params: 'x' }],
    ['jsonrpc: "1.0"', { jsonrpc: '1.0', id: 13, method: 'ping' }],
    ['no jsonrpc', { id: 'r14', method: 'ping' }],
    ['numeric method', { jsonrpc: '2.0', id: 15, method: 42 }],
  ];
  for (const [label, msg] of cases) {
    it(`a request with ${label} and a readable id is answered -32600 with that id, schema-valid (basic#2, basic#8)`, async () => {
      conn.setRequestHandler('roots/list', () => ({ roots: [] }));
      conn.setRequestHandler('ping', () => ({}));
      await server.send(msg as unknown as JSONRPCMessage);
      await flush();
      expect(received).toHaveLength(1);
      const answer = received[0];
      expect(answer).toMatchObject({ jsonrpc: '2.0', id: msg.id, error: { code: -32600 } });
      expect(errorResponse(answer), JSON.stringify(errorResponse.errors)).toBe(true);
      expect(anyMessage(answer)).toBe(true);
      expect(diagnostics.map((d) => d.code)).toContain('MCPWIRE_INVALID_MESSAGE');
    });
  }

  it('a request whose id cannot be read is answered without an id, not "id": null (basic#8, schema JSONRPCErrorResponse)', async () => {
    for (const id of [null, 1.5, { a: 1 }, true]) {
      received = [];
      await server.send({ jsonrpc: '2.0', id, method: 'ping' } as unknown as JSONRPCMessage);
      await flush();
      expect(received, `id ${JSON.stringify(id)}`).toHaveLength(1);
      expect(received[0]).not.toHaveProperty('id');
      expect(received[0].error.code).toBe(-32600);
      expect(errorResponse(received[0]), JSON.stringify(errorResponse.errors)).toBe(true);
    }
  });

  it('malformed notifications and malformed responses are never answered (basic#11)', async () => {
    await server.send({ jsonrpc: '2.0', method: 'notifications/message', params: 'x' } as unknown as JSONRPCMessage);
    await server.send({ method: 'notifications/message' } as unknown as JSONRPCMessage);
    await server.send({ id: 1, result: {} } as unknown as JSONRPCMessage);
    await server.send({ jsonrpc: '1.0', id: 2, error: { code: 1, message: 'x' } } as unknown as JSONRPCMessage);
    await flush();
    expect(received).toEqual([]);
    expect(diagnostics.filter((d) => d.code === 'MCPWIRE_INVALID_MESSAGE')).toHaveLength(4);
  });
});

describe('a response the transport could not read fails its request at once', () => {
  it('an oversized response (diagnostic with responseToId) rejects naming server, method and limit, with no cancel (basic.utilities.cancellation#1)', async () => {
    const p = conn.request('tools/call', { name: 'blob' }, { timeoutMs: 60_000 }).catch((e) => e);
    const other = conn.request('tools/list');
    await flush();
    client.ondiagnostic!({
      code: 'MCPWIRE_FRAME_OVERSIZED',
      message: 'message of 5000 bytes exceeds the maximum of 1024 bytes; skipped',
      responseToId: received[0].id!,
    });
    const err = await p;
    expect(err).toBeInstanceOf(ProtocolError);
    expect(err.code).toBe('MCPWIRE_RESPONSE_UNREADABLE');
    expect(err.message).toMatch(/server "mem"/);
    expect(err.message).toMatch(/"tools\/call"/);
    expect(err.message).toMatch(/maximum of 1024 bytes/);
    expect(conn.pendingCount).toBe(1); // only tools/list
    expect(diagnostics.map((d) => d.code)).toContain('MCPWIRE_FRAME_OVERSIZED');
    vi.advanceTimersByTime(120_000);
    await flush();
    expect(cancels().map((m) => m.params.requestId)).toEqual([received[1].id]); // tools/list timed out; tools/call not cancelled
    await other.catch(() => {});
  });

  it('a responseToId that matches nothing pending is only reported', async () => {
    client.ondiagnostic!({ code: 'MCPWIRE_FRAME_OVERSIZED', message: 'too big', responseToId: 99 });
    await flush();
    expect(diagnostics.map((d) => d.code)).toEqual(['MCPWIRE_FRAME_OVERSIZED']);
  });
});

describe('progress flooding is coalesced (basic.utilities.progress#10)', () => {
  it('50,000 notifications reach onProgress at most once per 50 ms, latest value first, final one before settling (basic.utilities.progress#10)', async () => {
    const log: (number | string)[] = [];
    const p = conn.request('work', undefined, { onProgress: (pr: ProgressParams) => log.push(pr.progress) }).then(() => log.push('settled'));
    await flush();
    const token = received[0].params._meta.progressToken;
    for (let i = 1; i <= 50_000; i++) progressNow(token, i);
    expect(log).toEqual([1]); // the first at once
    vi.advanceTimersByTime(49);
    expect(log).toEqual([1]);
    vi.advanceTimersByTime(1);
    expect(log).toEqual([1, 50_000]); // then the latest, once per interval
    vi.advanceTimersByTime(500);
    expect(log).toEqual([1, 50_000]); // nothing new: nothing delivered
    progressNow(token, 50_001); // past the interval: at once
    for (let i = 50_002; i <= 50_010; i++) progressNow(token, i);
    expect(log).toEqual([1, 50_000, 50_001]);
    vi.advanceTimersByTime(10);
    await reply(received[0].id!);
    await p;
    expect(log).toEqual([1, 50_000, 50_001, 50_010, 'settled']); // the final one, before settling
    vi.advanceTimersByTime(1000);
    expect(log).toHaveLength(5);
  });

  it('progressIntervalMs: 0 delivers every notification; a custom interval is honoured', async () => {
    const every: number[] = [];
    const slow: number[] = [];
    const a = conn.request('a', undefined, { onProgress: (pr) => every.push(pr.progress), progressIntervalMs: 0 });
    const b = conn.request('b', undefined, { onProgress: (pr) => slow.push(pr.progress), progressIntervalMs: 200 });
    await flush();
    const [ta, tb] = received.map((m) => m.params._meta.progressToken);
    for (let i = 1; i <= 1000; i++) {
      progressNow(ta, i);
      progressNow(tb, i);
    }
    expect(every).toHaveLength(1000);
    vi.advanceTimersByTime(150);
    expect(slow).toEqual([1]);
    vi.advanceTimersByTime(50);
    expect(slow).toEqual([1, 1000]);
    await reply(received[0].id!);
    await reply(received[1].id!);
    await Promise.all([a, b]);
  });

  it('the timeout still restarts on every notification, delivered or coalesced (basic.lifecycle#19)', async () => {
    const seen: number[] = [];
    const p = conn
      .request('work', undefined, { timeoutMs: 100, resetTimeoutOnProgress: true, maxTotalTimeoutMs: 10_000, progressIntervalMs: 1000, onProgress: (pr) => seen.push(pr.progress) })
      .catch((e) => e);
    await flush();
    const token = received[0].params._meta.progressToken;
    for (let i = 1; i <= 5; i++) {
      vi.advanceTimersByTime(80);
      progressNow(token, i);
      expect(conn.pendingCount).toBe(1);
    }
    expect(seen).toEqual([1]); // 2..5 coalesced
    vi.advanceTimersByTime(100);
    expect(await p).toBeInstanceOf(TimeoutError);
    expect(seen).toEqual([1, 5]); // the pending one was delivered before the request settled
  });

  it('an onProgress callback that throws is reported and later callbacks still run, immediate or coalesced', async () => {
    const seen: number[] = [];
    const p = conn.request('work', undefined, {
      onProgress: (pr) => {
        seen.push(pr.progress);
        throw new Error(`cb ${pr.progress}`);
      },
    });
    await flush();
    const token = received[0].params._meta.progressToken;
    progressNow(token, 1);
    progressNow(token, 2);
    vi.advanceTimersByTime(50);
    expect(seen).toEqual([1, 2]);
    expect(diagnostics.filter((d) => d.code === 'MCPWIRE_HANDLER_FAILED').map((d) => d.message)).toEqual([
      'onProgress callback threw: cb 1',
      'onProgress callback threw: cb 2',
    ]);
    await reply(received[0].id!);
    await p;
  });

  it('a request whose send fails later (HTTP POST) delivers its pending progress before rejecting', async () => {
    let fail!: (e: Error) => void;
    const t: Transport = {
      kind: 'fake-http',
      wantsRequestSignal: true,
      start: async () => {},
      close: async () => t.onclose?.(),
      send: () => new Promise<void>((_, reject) => (fail = reject)),
    };
    const c = new Connection(t, { serverId: 'http' });
    const log: (number | string)[] = [];
    const p = c.request('work', undefined, { onProgress: (pr) => log.push(pr.progress) }).catch(() => log.push('rejected'));
    const token = ((c as unknown as { registry: { get(id: number): { progressToken: string } } }).registry.get(1)).progressToken;
    t.onmessage!({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: 1 } });
    t.onmessage!({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: 2 } });
    fail(new Error('socket hang up'));
    await p;
    expect(log).toEqual([1, 2, 'rejected']);
    await c.close();
  });

  it('a request that is aborted or closed with progress pending delivers it first, then nothing more', async () => {
    const seen: number[] = [];
    const ac = new AbortController();
    const p = conn.request('work', undefined, { signal: ac.signal, onProgress: (pr) => seen.push(pr.progress) }).catch((e) => e);
    await flush();
    const token = received[0].params._meta.progressToken;
    progressNow(token, 1);
    progressNow(token, 2);
    ac.abort();
    expect(await p).toBeInstanceOf(AbortError);
    expect(seen).toEqual([1, 2]);
    vi.advanceTimersByTime(1000);
    expect(seen).toEqual([1, 2]);
    const q = conn.request('more', undefined, { onProgress: (pr) => seen.push(pr.progress) }).catch((e) => e);
    await flush();
    const t2 = received.at(-1)!.params._meta.progressToken;
    progressNow(t2, 10);
    progressNow(t2, 11);
    await conn.close();
    await q;
    expect(seen).toEqual([1, 2, 10, 11]);
  });
});
