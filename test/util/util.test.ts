/** The engine's shared waits and one-at-a-time chain (src/util/). */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { KeyedSerial, Serial } from '../../src/util/serial.js';
import { MAX_TIMER_MS, sleep, timerMs, wait } from '../../src/util/sleep.js';

afterEach(() => vi.useRealTimers());

describe('wait / sleep', () => {
  it('clamps a delay beyond 2^31-1 ms instead of letting Node fire it after 1 ms', async () => {
    expect(timerMs(2 ** 31)).toBe(MAX_TIMER_MS);
    expect(timerMs(Number.NaN)).toBe(0);
    expect(timerMs(-5)).toBe(0);
    vi.useFakeTimers();
    let done = false;
    void wait(2 ** 32).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(10_000);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(MAX_TIMER_MS);
    expect(done).toBe(true);
  });

  it('wait resolves false on abort and removes its listener; sleep rejects with the chosen error', async () => {
    const ac = new AbortController();
    const p = wait(60_000, ac.signal);
    ac.abort(new Error('stop'));
    await expect(p).resolves.toBe(false);
    await expect(wait(10, ac.signal)).resolves.toBe(false);
    await expect(sleep(10, ac.signal)).rejects.toThrow('stop');
    await expect(sleep(10, ac.signal, () => new Error('mine'))).rejects.toThrow('mine');
    await expect(wait(1)).resolves.toBe(true);
  });
});

describe('Serial', () => {
  it('runs one call at a time, in order, and a failure does not block the next', async () => {
    const s = new Serial();
    const log: string[] = [];
    const step = (name: string, fail = false) => async () => {
      log.push(`start ${name}`);
      await new Promise((r) => setTimeout(r, 5));
      log.push(`end ${name}`);
      if (fail) throw new Error(name);
      return name;
    };
    const a = s.run(step('a', true));
    const b = s.run(step('b'));
    await expect(a).rejects.toThrow('a');
    await expect(b).resolves.toBe('b');
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b']);
    await Promise.resolve();
    await new Promise((r) => setTimeout(r, 0));
    expect(s.busy).toBe(false);
  });

  it('KeyedSerial forgets a key once its queue is empty', async () => {
    const k = new KeyedSerial<string>();
    const order: string[] = [];
    await Promise.all([
      k.run('x', async () => void order.push('x1')),
      k.run('x', async () => void order.push('x2')),
      k.run('y', async () => void order.push('y1')),
    ]);
    expect(order).toEqual(['x1', 'y1', 'x2']);
    await new Promise((r) => setTimeout(r, 0));
    expect(k.size).toBe(0);
  });
});
