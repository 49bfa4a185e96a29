/**
 * Request timeouts without a Node timer per request (the registry's deadline lists and single
 * timer, introduced for speed): they must behave exactly like per-request timers did. Fake
 * timers, so nothing here depends on machine speed.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TimeoutError } from '../../src/errors.js';
import { Connection } from '../../src/protocol/connection.js';
import { createMemoryPair, type MemoryTransport } from '../../src/transport/memory.js';

type Msg = { id?: number; method?: string; params?: { requestId?: number; reason?: string } };

let server: MemoryTransport;
let conn: Connection;
let received: Msg[];

const flush = async () => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};
const reply = (id: number) => server.send({ jsonrpc: '2.0', id, result: {} });
/** The registry's one timer (private: read for the event-loop checks only). */
const sweepTimer = () => (conn as unknown as { registry: { timer?: NodeJS.Timeout } }).registry.timer;

beforeEach(() => {
  vi.useFakeTimers();
  const [c, s] = createMemoryPair();
  server = s;
  received = [];
  server.onmessage = (m) => received.push(m as Msg);
  conn = new Connection(c, { serverId: 'mem' });
});

afterEach(async () => {
  await conn.close();
  expect(conn.pendingCount).toBe(0);
  expect(sweepTimer()).toBeUndefined(); // close clears it
  vi.useRealTimers();
});

describe('request deadlines (one timer per connection)', () => {
  it('requests with different timeouts time out in deadline order, each exactly on time', async () => {
    const order: string[] = [];
    const watch = (name: string, timeoutMs: number) =>
      conn.request(name, undefined, { timeoutMs }).catch((e: Error) => {
        expect(e).toBeInstanceOf(TimeoutError);
        order.push(`${name}@${Date.now()}`);
      });
    const t0 = Date.now();
    const all = [watch('c', 300), watch('a', 100), watch('b', 200), watch('a2', 100)];
    vi.advanceTimersByTime(99);
    await flush();
    expect(order).toEqual([]);
    vi.advanceTimersByTime(1);
    await flush();
    expect(order).toEqual([`a@${t0 + 100}`, `a2@${t0 + 100}`]);
    vi.advanceTimersByTime(99);
    await flush();
    expect(order).toHaveLength(2);
    vi.advanceTimersByTime(1);
    await flush();
    vi.advanceTimersByTime(100);
    await Promise.all(all);
    expect(order.slice(2)).toEqual([`b@${t0 + 200}`, `c@${t0 + 300}`]);
    await flush();
    expect(received.filter((m) => m.method === 'notifications/cancelled').map((m) => m.params!.requestId)).toEqual([2, 4, 3, 1]);
  });

  it('a request answered before its deadline never times out, even when an earlier one settles first', async () => {
    const a = conn.request('a', undefined, { timeoutMs: 100 });
    vi.advanceTimersByTime(50);
    const b = conn.request('b', undefined, { timeoutMs: 100 });
    await flush();
    await reply(received[0].id!);
    await a;
    vi.advanceTimersByTime(60); // a's old deadline passes: nothing is due
    await flush();
    expect(conn.pendingCount).toBe(1);
    vi.advanceTimersByTime(39);
    await flush();
    expect(conn.pendingCount).toBe(1);
    vi.advanceTimersByTime(1); // b: 100 ms after it was sent
    await expect(b).rejects.toBeInstanceOf(TimeoutError);
  });

  it('holds the event loop only while a request has a deadline (like per-request timers)', async () => {
    const p = conn.request('a', undefined, { timeoutMs: 1000 });
    expect(sweepTimer()?.hasRef()).toBe(true);
    await flush();
    await reply(received[0].id!);
    await p;
    expect(sweepTimer()?.hasRef()).toBe(false);
    const q = conn.request('b', undefined, { timeoutMs: 1000 });
    expect(sweepTimer()?.hasRef()).toBe(true);
    await flush();
    await reply(received[1].id!);
    await q;
    expect(sweepTimer()?.hasRef()).toBe(false);
  });

  it('timeoutMs 0 means no timeout and does not hold the event loop', async () => {
    const p = conn.request('forever', undefined, { timeoutMs: 0 });
    expect(sweepTimer()).toBeUndefined();
    vi.advanceTimersByTime(10 * 24 * 3600 * 1000);
    await flush();
    expect(conn.pendingCount).toBe(1);
    await conn.close();
    await expect(p).rejects.toThrow(/connection closed/);
  });

  it('a timeout longer than Node’s 24.8-day timer limit is not cut short', async () => {
    const p = conn.request('long', undefined, { timeoutMs: 30 * 24 * 3600 * 1000 }).catch((e: Error) => e);
    vi.advanceTimersByTime(25 * 24 * 3600 * 1000);
    await flush();
    expect(conn.pendingCount).toBe(1);
    vi.advanceTimersByTime(5 * 24 * 3600 * 1000);
    expect(await p).toBeInstanceOf(TimeoutError);
  });

  it('progress restarts the countdown, bounded by the total ceiling (basic.lifecycle#19)', async () => {
    const p = conn
      .request('work', undefined, { timeoutMs: 100, resetTimeoutOnProgress: true, maxTotalTimeoutMs: 250, onProgress: () => {} })
      .catch((e: TimeoutError) => e);
    await flush();
    const token = (received[0].params as { _meta: { progressToken: string } })._meta.progressToken;
    for (let i = 1; i <= 3; i++) {
      vi.advanceTimersByTime(80);
      await server.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: i } });
      await flush();
    }
    expect(conn.pendingCount).toBe(1); // 240 ms in: kept alive by progress
    vi.advanceTimersByTime(10);
    const err = (await p) as TimeoutError;
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.message).toMatch(/250/);
  });

  it('thousands of settled requests leave nothing scheduled (no retention)', async () => {
    for (let i = 0; i < 2000; i++) {
      const p = conn.request('x', undefined, { timeoutMs: 60_000 });
      await flush();
      await reply(received[received.length - 1].id!);
      await p;
    }
    const reg = conn as unknown as { registry: { scheduled: number; due: Map<number, { head?: unknown }> } };
    expect(reg.registry.scheduled).toBe(0);
    expect([...reg.registry.due.values()].every((l) => l.head === undefined)).toBe(true);
  });
});
