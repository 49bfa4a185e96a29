/**
 * The request engine over an in-memory transport pair: registry ownership, timeouts, aborts,
 * progress, late responses, close. Timers are fake, so nothing here depends on machine speed.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AbortError, ConnectionClosedError, JsonRpcError, TimeoutError } from '../../src/errors.js';
import { Connection } from '../../src/protocol/connection.js';
import type { ObservedEvent } from '../../src/protocol/observer.js';
import { createMemoryPair, type MemoryTransport } from '../../src/transport/memory.js';

type Msg = { jsonrpc: '2.0'; id?: number | string | null; method?: string; params?: any; result?: any; error?: any };

let server: MemoryTransport;
let conn: Connection;
let received: Msg[];
let diagnostics: { code: string; message: string }[];
let events: ObservedEvent[];

const tick = () => new Promise<void>((r) => queueMicrotask(r)).then(() => new Promise<void>((r) => queueMicrotask(r)));
async function flush(n = 5) {
  for (let i = 0; i < n; i++) await tick();
}

beforeEach(async () => {
  vi.useFakeTimers();
  const [c, s] = createMemoryPair();
  server = s;
  received = [];
  diagnostics = [];
  events = [];
  server.onmessage = (m) => received.push(m as Msg);
  conn = new Connection(c, {
    serverId: 'mem',
    onDiagnostic: (d) => diagnostics.push(d),
    observer: { message: () => {}, event: (e) => events.push(e) },
  });
});

afterEach(async () => {
  await conn.close();
  expect(conn.pendingCount).toBe(0);
  vi.useRealTimers();
});

const reply = (id: number | string, result: unknown = {}) => server.send({ jsonrpc: '2.0', id, result } as any);

describe('request registry and connection', () => {
  it('matches responses to requests by id and resolves with the result', async () => {
    const a = conn.request('a');
    const b = conn.request('b', { x: 1 });
    await flush();
    expect(received.map((m) => m.method)).toEqual(['a', 'b']);
    expect(received[1].params).toEqual({ x: 1 });
    expect(conn.pendingCount).toBe(2);
    await reply(received[1].id!, { v: 'b' });
    await reply(received[0].id!, { v: 'a' });
    await expect(a).resolves.toEqual({ v: 'a' });
    await expect(b).resolves.toEqual({ v: 'b' });
    expect(conn.pendingCount).toBe(0);
  });

  it('rejects with JsonRpcError carrying code, message and data', async () => {
    const p = conn.request('tools/call');
    await flush();
    await server.send({ jsonrpc: '2.0', id: received[0].id!, error: { code: -32602, message: 'bad', data: { why: 1 } } } as any);
    const err = await p.catch((e) => e);
    expect(err).toBeInstanceOf(JsonRpcError);
    expect(err.rpcCode).toBe(-32602);
    expect(err.data).toEqual({ why: 1 });
    expect(err.serverId).toBe('mem');
  });

  it('basic.lifecycle#17: a timeout rejects with TimeoutError and sends notifications/cancelled', async () => {
    const p = conn.request('slow', undefined, { timeoutMs: 1000 });
    const settled = p.catch((e) => e);
    await flush();
    vi.advanceTimersByTime(999);
    await flush();
    expect(conn.pendingCount).toBe(1);
    vi.advanceTimersByTime(1);
    const err = await settled;
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.code).toBe('MCPWIRE_TIMEOUT');
    expect(conn.pendingCount).toBe(0);
    await flush();
    const cancel = received.find((m) => m.method === 'notifications/cancelled');
    expect(cancel?.params).toMatchObject({ requestId: received[0].id });
    expect(cancel?.params.reason).toMatch(/timed out/);
    expect(events.some((e) => e.type === 'timeout')).toBe(true);
  });

  it('basic.utilities.cancellation#5: a late response after a timeout is dropped and reported', async () => {
    const p = conn.request('slow', undefined, { timeoutMs: 10 }).catch((e) => e);
    await flush();
    vi.advanceTimersByTime(10);
    expect(await p).toBeInstanceOf(TimeoutError);
    await reply(received[0].id!, { late: true });
    await flush();
    expect(diagnostics.map((d) => d.code)).toContain('MCPWIRE_LATE_RESPONSE');
    expect(events.some((e) => e.type === 'late-response')).toBe(true);
  });

  it('an unknown response id is dropped and reported, never resolving anything', async () => {
    await reply(999, {});
    await flush();
    expect(diagnostics.map((d) => d.code)).toContain('MCPWIRE_UNKNOWN_RESPONSE');
  });

  it('a duplicate response: the first settles, the second is reported', async () => {
    const p = conn.request('x');
    await flush();
    await reply(received[0].id!, { n: 1 });
    await reply(received[0].id!, { n: 2 });
    await expect(p).resolves.toEqual({ n: 1 });
    await flush();
    expect(diagnostics.map((d) => d.code)).toContain('MCPWIRE_UNKNOWN_RESPONSE');
  });

  it('aborting with an AbortSignal rejects with AbortError and sends notifications/cancelled with the reason', async () => {
    const ac = new AbortController();
    const p = conn.request('long', undefined, { signal: ac.signal }).catch((e) => e);
    await flush();
    ac.abort('user pressed stop');
    const err = await p;
    expect(err).toBeInstanceOf(AbortError);
    expect(err.message).toMatch(/user pressed stop/);
    await flush();
    const cancel = received.find((m) => m.method === 'notifications/cancelled');
    expect(cancel?.params).toEqual({ requestId: received[0].id, reason: 'user pressed stop' });
  });

  it('an already-aborted signal rejects synchronously-fast and sends nothing', async () => {
    const err = await conn.request('x', undefined, { signal: AbortSignal.abort('no') }).catch((e) => e);
    expect(err).toBeInstanceOf(AbortError);
    await flush();
    expect(received).toEqual([]);
  });

  it('basic.utilities.cancellation#2: a non-cancellable request (initialize) times out without notifications/cancelled', async () => {
    const p = conn.request('initialize', {}, { timeoutMs: 5, cancellable: false }).catch((e) => e);
    await flush();
    vi.advanceTimersByTime(5);
    expect(await p).toBeInstanceOf(TimeoutError);
    await flush();
    expect(received.filter((m) => m.method === 'notifications/cancelled')).toEqual([]);
  });

  it('the caller signal listener is removed when the request settles (no listener growth)', async () => {
    const ac = new AbortController();
    const add = vi.spyOn(ac.signal, 'addEventListener');
    const remove = vi.spyOn(ac.signal, 'removeEventListener');
    for (let i = 0; i < 50; i++) {
      const p = conn.request('x', undefined, { signal: ac.signal });
      await flush();
      await reply(received[received.length - 1].id!, {});
      await p;
    }
    expect(add).toHaveBeenCalledTimes(50);
    expect(remove).toHaveBeenCalledTimes(50);
  });

  it('basic.utilities.progress#1/#2: onProgress adds a unique progressToken and receives notifications', async () => {
    const seen: number[] = [];
    const p = conn.request('work', { _meta: { keep: 1 } }, { onProgress: (pr) => seen.push(pr.progress), progressIntervalMs: 0 });
    await flush();
    const token = received[0].params._meta.progressToken;
    expect(received[0].params._meta.keep).toBe(1);
    // a string of ours: it can collide with no request id (see connection-defects)
    expect(typeof token).toBe('string');
    expect(token).not.toBe(String(received[0].id));
    for (const progress of [1, 2, 3]) {
      await server.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress, total: 3 } } as any);
    }
    await reply(received[0].id!, {});
    await p;
    expect(seen).toEqual([1, 2, 3]);
    // basic.utilities.progress#11: after completion, progress for that token is ignored.
    await server.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: 4 } } as any);
    await flush();
    expect(seen).toEqual([1, 2, 3]);
    expect(diagnostics.map((d) => d.code)).toContain('MCPWIRE_UNKNOWN_PROGRESS');
  });

  it('basic.lifecycle#19: progress resets the timeout but a hard maximum total still applies', async () => {
    const p = conn
      .request('work', undefined, { timeoutMs: 100, resetTimeoutOnProgress: true, maxTotalTimeoutMs: 250, onProgress: () => {} })
      .catch((e) => e);
    await flush();
    const token = received[0].params._meta.progressToken;
    for (let i = 1; i <= 10; i++) {
      vi.advanceTimersByTime(80);
      await server.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: i } } as any);
      await flush();
      if (i * 80 >= 250) break;
      expect(conn.pendingCount).toBe(1);
    }
    vi.advanceTimersByTime(100);
    const err = await p;
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.message).toMatch(/maximum total/);
  });

  it('without reset, progress does not extend the timeout', async () => {
    const p = conn.request('work', undefined, { timeoutMs: 100, onProgress: () => {} }).catch((e) => e);
    await flush();
    vi.advanceTimersByTime(90);
    await server.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: received[0].id, progress: 1 } } as any);
    await flush();
    vi.advanceTimersByTime(10);
    expect(await p).toBeInstanceOf(TimeoutError);
  });

  it('on transport close every pending request rejects at once with ConnectionClosedError', async () => {
    const ps = [conn.request('a'), conn.request('b'), conn.request('c')].map((p) => p.catch((e) => e));
    await flush();
    (conn as any).transport.fail(new Error('pipe broke'));
    const errs = await Promise.all(ps);
    for (const e of errs) {
      expect(e).toBeInstanceOf(ConnectionClosedError);
      expect(e.message).toMatch(/pipe broke/);
    }
    expect(conn.pendingCount).toBe(0);
    await expect(conn.request('d')).rejects.toBeInstanceOf(ConnectionClosedError);
  });

  it('answers incoming requests through handlers and unknown methods with -32601', async () => {
    conn.setRequestHandler('ping', () => ({}));
    await server.send({ jsonrpc: '2.0', id: 'p1', method: 'ping' } as any);
    await server.send({ jsonrpc: '2.0', id: 7, method: 'nope/never' } as any);
    await flush();
    expect(received).toContainEqual({ jsonrpc: '2.0', id: 'p1', result: {} });
    const err = received.find((m) => m.id === 7);
    expect(err?.error.code).toBe(-32601);
  });

  it('a handler error becomes a JSON-RPC error; JsonRpcError keeps its code', async () => {
    conn.setRequestHandler('boom', () => {
      throw new Error('kaput');
    });
    conn.setRequestHandler('bad', () => {
      throw new JsonRpcError(-32602, 'missing field');
    });
    await server.send({ jsonrpc: '2.0', id: 1, method: 'boom' } as any);
    await server.send({ jsonrpc: '2.0', id: 2, method: 'bad' } as any);
    await flush();
    expect(received.find((m) => m.id === 1)?.error).toEqual({ code: -32603, message: 'kaput' });
    expect(received.find((m) => m.id === 2)?.error).toEqual({ code: -32602, message: 'missing field' });
  });

  it('basic.utilities.cancellation#4: a request the server cancels is aborted and never answered', async () => {
    let sawAbort = false;
    conn.setRequestHandler('sampling/createMessage', (_p, ctx) =>
      new Promise((resolve) => {
        ctx.signal.addEventListener('abort', () => {
          sawAbort = true;
          resolve({ late: true });
        });
      }),
    );
    await server.send({ jsonrpc: '2.0', id: 'r1', method: 'sampling/createMessage' } as any);
    await flush();
    await server.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'r1', reason: 'changed mind' } } as any);
    await flush();
    expect(sawAbort).toBe(true);
    expect(received.find((m) => m.id === 'r1')).toBeUndefined();
  });

  it('rejects JSON-RPC batches unless the negotiated revision allows them', async () => {
    await server.send([{ jsonrpc: '2.0', method: 'notifications/message', params: {} }] as any);
    await flush();
    expect(diagnostics.map((d) => d.code)).toContain('MCPWIRE_BATCH_REJECTED');
    expect(diagnostics.find((d) => d.code === 'MCPWIRE_BATCH_REJECTED')!.message).toMatch(/2025-03-26/);
  });

  it('accepts batches when allowed (2025-03-26) and handles each member', async () => {
    const [c, s] = createMemoryPair();
    const got: Msg[] = [];
    s.onmessage = (m) => got.push(m as Msg);
    const c2 = new Connection(c, { acceptBatches: () => true });
    const p = c2.request('x');
    await flush();
    await s.send([{ jsonrpc: '2.0', id: got[0].id, result: { ok: 1 } }, { jsonrpc: '2.0', id: 'q', method: 'ping' }] as any);
    c2.setRequestHandler('ping', () => ({}));
    await expect(p).resolves.toEqual({ ok: 1 });
    await c2.close();
  });

  it('reports invalid messages (missing jsonrpc, null request id) without failing', async () => {
    await server.send({ id: 1, result: {} } as any);
    await server.send({ jsonrpc: '2.0', id: null, method: 'x' } as any);
    await flush();
    const invalid = diagnostics.filter((d) => d.code === 'MCPWIRE_INVALID_MESSAGE');
    expect(invalid).toHaveLength(2);
    expect(invalid[0].message).toMatch(/"jsonrpc" must be "2.0"/);
    // the request is answered without an id (basic#8: it could not be read; see connection-defects), the
    // malformed response not at all
    expect(received).toHaveLength(1);
    expect(received[0]).not.toHaveProperty('id');
    expect(received[0].error.code).toBe(-32600);
  });
});
