// clauses: 2026-07-28
/**
 * eras/modern-tasks.ts on its own: `followTaskHandle` against a scripted `tasks/get` (no server),
 * fake timers — the edges a well-behaved mock never shows: a handle that is already terminal,
 * a server's pollIntervalMs outside the client's floor and ceiling, a tasks/get about another
 * task, a default interval backing off while nothing changes.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ProtocolError } from '../../src/errors.js';
import { followTaskHandle, type HandleDeps } from '../../src/mcp/eras/modern-tasks.js';

type Sent = { method: string; params: Record<string, unknown>; at: number };

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

const task = (status: string, extra: Record<string, unknown> = {}) => ({ taskId: 't-1', status, createdAt: '2026-07-28T00:00:00Z', lastUpdatedAt: '2026-07-28T00:00:00Z', ttlMs: null, ...extra });

/** Deps whose tasks/get answers come from `answers` in order (the last repeats). */
function deps(answers: Array<Record<string, unknown>>, poll: Partial<HandleDeps['poll']> = {}) {
  const sent: Sent[] = [];
  const d: HandleDeps = {
    serverId: 's',
    request: async (method, params) => {
      sent.push({ method, params, at: Date.now() });
      if (method !== 'tasks/get') return {};
      return answers.length > 1 ? answers.shift() : answers[0];
    },
    check: (_m, raw) => raw as never,
    inputs: undefined,
    emit: () => {},
    defaultTimeoutMs: 60_000,
    poll: { minPollIntervalMs: 100, maxPollIntervalMs: 5_000, defaultPollIntervalMs: 1_000, backoffFactor: 2, ...poll },
  };
  return { d, sent };
}

async function run<T>(p: Promise<T>, ms: number): Promise<T | unknown> {
  const settled = p.catch((e: unknown) => e);
  await vi.advanceTimersByTimeAsync(ms);
  return settled;
}

describe('followTaskHandle', () => {
  it('the tasks extension: a handle that is already completed is read once with tasks/get (a handle carries no result), without waiting', async () => {
    const { d, sent } = deps([task('completed', { result: { content: [{ type: 'text', text: 'done' }] } })]);
    const r = await run(followTaskHandle(d, { resultType: 'task', ...task('completed') }, 'tool', {}, Date.now()), 0);
    expect(r).toEqual({ content: [{ type: 'text', text: 'done' }] });
    expect(sent.map((s) => s.method)).toEqual(['tasks/get']);
  });

  it('the tasks extension: pollIntervalMs is honoured within the client\'s floor (0 → 100 ms) and ceiling (an hour → 5 s)', async () => {
    const fast = deps([task('working', { pollIntervalMs: 0 }), task('working', { pollIntervalMs: 0 }), task('completed', { result: { content: [] } })]);
    const start = Date.now();
    await run(followTaskHandle(fast.d, task('working', { pollIntervalMs: 0 }), 'tool', {}, start), 1_000);
    expect(fast.sent.map((s) => s.at - start)).toEqual([100, 200, 300]);
    const slow = deps([task('working', { pollIntervalMs: 3_600_000 }), task('completed', { result: { content: [] } })]);
    const start2 = Date.now();
    await run(followTaskHandle(slow.d, task('working', { pollIntervalMs: 3_600_000 }), 'tool', {}, start2), 20_000);
    expect(slow.sent.map((s) => s.at - start2)).toEqual([5_000, 10_000]);
  });

  it('the tasks extension: without pollIntervalMs the default interval backs off while nothing changes', async () => {
    const { d, sent } = deps([task('working'), task('working'), task('working'), task('completed', { result: { content: [] } })]);
    const start = Date.now();
    await run(followTaskHandle(d, task('working'), 'tool', {}, start), 20_000);
    // 1 s, then ×2 per unchanged answer: 2 s, 4 s (gaps)
    expect(sent.map((s) => s.at - start)).toEqual([1_000, 3_000, 7_000, 12_000]);
  });

  it('the tasks extension: a tasks/get answer about another task is a ProtocolError, and the task is cancelled', async () => {
    const { d, sent } = deps([task('working', { taskId: 't-2' })]);
    const err = await run(followTaskHandle(d, task('working'), 'tool', {}, Date.now()), 2_000);
    expect(err).toBeInstanceOf(ProtocolError);
    expect(sent.map((s) => s.method)).toEqual(['tasks/get', 'tasks/cancel']);
    expect(sent[1]!.params).toEqual({ taskId: 't-1' });
  });

  it('the tasks extension: a malformed handle (no taskId) is a ProtocolError; nothing is sent', async () => {
    const { d, sent } = deps([task('working')]);
    const err = await run(followTaskHandle(d, { resultType: 'task', status: 'working' }, 'tool', {}, Date.now()), 0);
    expect(err).toBeInstanceOf(ProtocolError);
    expect(sent).toEqual([]);
  });
});
