/**
 * A task call's total deadline is ten times its request timeout unless given: with an unbounded
 * request timeout (the CLI pauses it while a person answers a form) that total is beyond Node's
 * timer range, where a timer fires after 1 ms — the call must not end at once.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Deadline } from '../../src/mcp/task-deadline.js';

afterEach(() => vi.useRealTimers());

describe('task call deadline', () => {
  it('a total beyond 2^31-1 ms does not abort the call at once', async () => {
    vi.useFakeTimers();
    const d = new Deadline(undefined, (2 ** 31 - 1) * 10, 'slow', 'srv', () => {});
    await vi.advanceTimersByTimeAsync(60_000);
    expect(d.signal.aborted).toBe(false);
    d.dispose();
  });

  it('a total within range still ends the call with a TimeoutError naming the tool', async () => {
    vi.useFakeTimers();
    let aborted = 0;
    const d = new Deadline(undefined, 5_000, 'slow', 'srv', () => aborted++);
    await vi.advanceTimersByTimeAsync(5_001);
    expect(d.signal.aborted).toBe(true);
    expect(aborted).toBe(1);
    expect(d.error(new Error('x')).message).toContain('"slow"');
    d.dispose();
  });
});
