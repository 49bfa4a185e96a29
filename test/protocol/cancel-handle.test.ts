// clauses: 2025-11-25
/**
 * The light cancellation handle (`Cancel`, src/util/cancel.ts) a peer's request is given in
 * place of an AbortController, and a request of ours watched through one: what a gateway does
 * with every relayed call (the upstream request's handle is the downstream request's signal).
 * Timers are fake; the connections run over in-memory transport pairs.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AbortError } from '../../src/errors.js';
import { Connection } from '../../src/protocol/connection.js';
import { createMemoryPair, type MemoryTransport } from '../../src/transport/memory.js';
import { Cancel, abortSignalOf } from '../../src/util/cancel.js';

type Msg = { jsonrpc: '2.0'; id?: number | string | null; method?: string; params?: any; result?: any; error?: any };

const tick = () => new Promise<void>((r) => queueMicrotask(r));
async function flush(n = 10) {
  for (let i = 0; i < n; i++) await tick();
}

describe('Cancel', () => {
  it('aborts once: each watcher is told once, in the order watched, with the reason; later aborts change nothing', () => {
    const c = new Cancel();
    const told: string[] = [];
    const owner = { cancelled: (item: unknown, reason: unknown) => told.push(`${String(item)}:${String(reason)}`) };
    c.watch(owner, 'a');
    c.watch(owner, 'b');
    c.watch(owner, 'c');
    c.unwatch(owner, 'b');
    expect(c.watchers).toBe(2);
    c.abort('stop');
    c.abort('again');
    expect(told).toEqual(['a:stop', 'c:stop']);
    expect(c.aborted).toBe(true);
    expect(c.reason).toBe('stop');
    expect(c.watchers).toBe(0);
    expect(() => c.throwIfAborted()).toThrow(/stop/);
  });

  it('a watcher that unwatches another while the handle aborts does not stop it being told (all were watching when it aborted)', () => {
    const c = new Cancel();
    const told: string[] = [];
    const owner = {
      cancelled: (item: unknown) => {
        told.push(String(item));
        c.unwatch(owner, 'b');
      },
    };
    c.watch(owner, 'a');
    c.watch(owner, 'b');
    c.abort('x');
    expect(told).toEqual(['a', 'b']);
  });

  it('its AbortSignal, for code that takes one: made when asked for, aborted with the same reason whether asked for before or after', () => {
    const before = new Cancel();
    const early = before.signal;
    expect(early.aborted).toBe(false);
    expect(before.signal).toBe(early);
    before.abort('why');
    expect(early.aborted).toBe(true);
    expect(early.reason).toBe('why');

    const after = new Cancel();
    after.abort('late');
    expect(after.signal.aborted).toBe(true);
    expect(after.signal.reason).toBe('late');
    expect(abortSignalOf(after)).toBe(after.signal);
    const plain = new AbortController().signal;
    expect(abortSignalOf(plain)).toBe(plain);
    expect(abortSignalOf(undefined)).toBeUndefined();
  });

  it('an abort without a reason gets an AbortError, as AbortController gives one', () => {
    const c = new Cancel();
    c.abort();
    expect((c.reason as Error).name).toBe('AbortError');
  });
});

/** A connection over an in-memory pair, and what its peer end receives. */
function memoryConnection(): { server: MemoryTransport; conn: Connection; received: Msg[] } {
  const [c, server] = createMemoryPair();
  const received: Msg[] = [];
  server.onmessage = (m) => received.push(m as Msg);
  return { server, conn: new Connection(c, { serverId: 'mem' }), received };
}

describe('a request of ours watched through a Cancel', () => {
  let server: MemoryTransport;
  let conn: Connection;
  let received: Msg[];

  beforeEach(() => {
    vi.useFakeTimers();
    ({ server, conn, received } = memoryConnection());
  });

  afterEach(async () => {
    await conn.close();
    expect(conn.pendingCount).toBe(0);
    vi.useRealTimers();
  });

  it('basic.utilities.cancellation#1: aborting the handle rejects with AbortError naming the reason and sends notifications/cancelled for the request', async () => {
    const cancel = new Cancel();
    const p = conn.request('long', undefined, { signal: cancel }).catch((e) => e);
    await flush();
    expect(cancel.watchers).toBe(1);
    cancel.abort('user pressed stop');
    const err = await p;
    expect(err).toBeInstanceOf(AbortError);
    expect(err.message).toMatch(/user pressed stop/);
    await flush();
    expect(received.find((m) => m.method === 'notifications/cancelled')?.params).toEqual({ requestId: received[0].id, reason: 'user pressed stop' });
    expect(cancel.watchers).toBe(0);
  });

  it('an already-aborted handle refuses the request and sends nothing', async () => {
    const cancel = new Cancel();
    cancel.abort('no');
    const err = await conn.request('x', undefined, { signal: cancel }).catch((e) => e);
    expect(err).toBeInstanceOf(AbortError);
    await flush();
    expect(received).toEqual([]);
  });

  it('a request that settles stops watching its handle: no watcher left, a later abort sends nothing', async () => {
    const cancel = new Cancel();
    for (let i = 0; i < 20; i++) {
      const p = conn.request('x', undefined, { signal: cancel });
      await flush();
      await server.send({ jsonrpc: '2.0', id: received[received.length - 1].id!, result: {} } as any);
      await p;
    }
    expect(cancel.watchers).toBe(0);
    const sent = received.length;
    cancel.abort('too late');
    await flush();
    expect(received.length).toBe(sent);
  });

  it('several requests on one handle are all cancelled by its abort, each once', async () => {
    const cancel = new Cancel();
    const ps = [conn.request('a', undefined, { signal: cancel }).catch((e) => e), conn.request('b', undefined, { signal: cancel }).catch((e) => e)];
    await flush();
    expect(cancel.watchers).toBe(2);
    cancel.abort('both');
    for (const e of await Promise.all(ps)) expect(e).toBeInstanceOf(AbortError);
    await flush();
    expect(received.filter((m) => m.method === 'notifications/cancelled').map((m) => m.params.requestId)).toEqual([received[0].id, received[1].id]);
  });
});

describe("a peer's request: its handle, and the relay a gateway makes of it", () => {
  let upstream: MemoryTransport;
  let downstream: MemoryTransport;
  let gateway: Connection;
  let down: Connection;
  let up: Msg[];
  let downSeen: Msg[];

  beforeEach(() => {
    vi.useFakeTimers();
    const [gUp, u] = createMemoryPair();
    const [gDown, d] = createMemoryPair();
    upstream = u;
    downstream = d;
    up = [];
    downSeen = [];
    upstream.onmessage = (m) => up.push(m as Msg);
    downstream.onmessage = (m) => downSeen.push(m as Msg);
    gateway = new Connection(gUp, { serverId: 'upstream' });
    down = new Connection(gDown, { serverId: 'downstream' });
    // the relay: the upstream request's own handle is the downstream request's signal
    gateway.setRequestHandler('tools/call', (params, ctx) => down.request('tools/call', params, { signal: ctx.cancel, timeoutMs: 1000 }));
  });

  afterEach(async () => {
    await gateway.close();
    await down.close();
    expect(down.pendingCount).toBe(0);
    vi.useRealTimers();
  });

  it('basic.utilities.cancellation#4: the peer cancels: the relayed request is cancelled downstream and the peer gets no answer', async () => {
    await upstream.send({ jsonrpc: '2.0', id: 'c1', method: 'tools/call', params: { name: 'slow' } } as any);
    await flush();
    expect(downSeen.map((m) => m.method)).toEqual(['tools/call']);
    await upstream.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'c1', reason: 'stop it' } } as any);
    await flush();
    expect(downSeen[1]).toMatchObject({ method: 'notifications/cancelled', params: { requestId: downSeen[0].id, reason: expect.stringContaining('stop it') } });
    await downstream.send({ jsonrpc: '2.0', id: downSeen[0].id!, result: { late: true } } as any);
    await flush();
    expect(up.find((m) => m.id === 'c1')).toBeUndefined();
  });

  it('the upstream connection closes: every relayed request is cancelled downstream', async () => {
    await upstream.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'a' } } as any);
    await upstream.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'b' } } as any);
    await flush();
    await gateway.close();
    await flush();
    expect(downSeen.filter((m) => m.method === 'notifications/cancelled').map((m) => m.params.requestId)).toEqual([downSeen[0].id, downSeen[1].id]);
  });

  it('basic.lifecycle#16: the relayed request times out as before: the peer gets the timeout as an error, the server a notifications/cancelled', async () => {
    await upstream.send({ jsonrpc: '2.0', id: 't', method: 'tools/call', params: { name: 'never' } } as any);
    await flush();
    vi.advanceTimersByTime(1000);
    await flush();
    expect(downSeen[1]).toMatchObject({ method: 'notifications/cancelled', params: { requestId: downSeen[0].id } });
    expect(up.find((m) => m.id === 't')?.error?.message).toMatch(/timed out|timeout/i);
  });

  it("a handler's signal, read when it is needed, is aborted by the peer's cancel as the handle is", async () => {
    let seen: AbortSignal | undefined;
    let early: AbortSignal | undefined;
    gateway.setRequestHandler('wait', (_p, ctx) => {
      early = ctx.signal;
      return new Promise((resolve) =>
        setTimeout(() => {
          seen = ctx.signal;
          resolve({});
        }, 50),
      );
    });
    await upstream.send({ jsonrpc: '2.0', id: 'w', method: 'wait' } as any);
    await flush();
    await upstream.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'w', reason: 'no' } } as any);
    vi.advanceTimersByTime(50);
    await flush();
    expect(early?.aborted).toBe(true);
    expect(seen).toBe(early);
    expect(up.find((m) => m.id === 'w')).toBeUndefined();
  });

  it('every request is answered when nothing cancels it, and leaves no watcher behind', async () => {
    for (let i = 0; i < 5; i++) await upstream.send({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'echo' } } as any);
    await flush();
    for (const m of downSeen) await downstream.send({ jsonrpc: '2.0', id: m.id!, result: { content: [] } } as any);
    await flush();
    expect(up.map((m) => m.id)).toEqual([0, 1, 2, 3, 4]);
    expect(down.pendingCount).toBe(0);
  });
});
