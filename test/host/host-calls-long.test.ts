/**
 * Long calls through the host: reset-on-progress and a total
 * ceiling through host.callTool (per call and as per-server config defaults), cancellation,
 * and the server's log messages and other notifications tied to the call that caused them
 * (rules in src/host/call-notifications.ts) — all against the real stdio mock server.
 */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { routeCallNotifications } from '../../src/host/call-notifications.js';
import type { HostClient } from '../../src/host/server-slot.js';
import { mockServer, ownHost, textOf, toolName } from '../support/host-calls.js';

const SCENARIO = { tools: ['job', 'events', 'echo'] };

// The tests mostly wait (on jobs and timeouts in their mock server processes), each on a host
// of its own (ownHost): they run at once.
describe.concurrent('long calls: reset-on-progress and timeouts through host.callTool', () => {
  it('a 4 s job with progress every 500 ms completes with a 1.5 s reset-on-progress timeout; without progress it times out (outcome timeout)', async (ctx) => {
    const { expect } = ctx;
    const host = await ownHost(ctx, [mockServer('p', SCENARIO)]);
    const job = toolName('p', 'job');
    const seen: number[] = [];
    // the two calls run at once: each has its own request, timeout and (for the first) progress token
    const [ok, silent] = await Promise.all([
      host.callTool(job, { ms: 4000, progressEveryMs: 500 }, { timeoutMs: 1500, resetTimeoutOnProgress: true, onProgress: (p) => seen.push(p.progress) }),
      host.callTool(job, { ms: 4000, progressEveryMs: 0 }, { timeoutMs: 1500, resetTimeoutOnProgress: true }),
    ]);
    expect(ok).toMatchObject({ outcome: 'ok', code: 'OK', isError: false, retryable: false, attempts: 1, server: 'p', tool: 'job' });
    expect(textOf(ok)).toBe('job done after 4000 ms');
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen.at(-1)).toBe(4000);

    expect(silent).toMatchObject({ outcome: 'timeout', code: 'MCPWIRE_TIMEOUT', isError: true, attempts: 1 });
    expect(textOf(silent)).toMatch(/timed out after 1500 ms/);
  });

  it('without reset-on-progress the same job with progress times out: the reset is what keeps it alive', async (ctx) => {
    const { expect } = ctx;
    const host = await ownHost(ctx, [mockServer('p', SCENARIO)]);
    const r = await host.callTool(toolName('p', 'job'), { ms: 4000, progressEveryMs: 500 }, { timeoutMs: 1500, onProgress: () => {} });
    expect(r).toMatchObject({ outcome: 'timeout', code: 'MCPWIRE_TIMEOUT' });
  });

  it('per-server defaults: request_timeout_ms + reset_timeout_on_progress from config apply without call options; max_total_timeout_ms caps it', async (ctx) => {
    const { expect } = ctx;
    const host = await ownHost(ctx, [
      mockServer('cfg', SCENARIO, { requestTimeoutMs: 1500, resetTimeoutOnProgress: true }),
      mockServer('cap', SCENARIO, { requestTimeoutMs: 1500, resetTimeoutOnProgress: true, maxTotalTimeoutMs: 2500 }),
    ]);
    // two servers, two processes: the calls run at once
    const [ok, capped] = await Promise.all([
      host.callTool(toolName('cfg', 'job'), { ms: 3000, progressEveryMs: 500 }),
      host.callTool(toolName('cap', 'job'), { ms: 4000, progressEveryMs: 500 }),
    ]);
    expect(ok.outcome).toBe('ok');
    expect(capped).toMatchObject({ outcome: 'timeout', code: 'MCPWIRE_TIMEOUT' });
    expect(textOf(capped)).toMatch(/timed out/);
  });

  it('aborting the signal mid-job ends the call with outcome cancelled', async (ctx) => {
    const { expect } = ctx;
    const host = await ownHost(ctx, [mockServer('p', SCENARIO)]);
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error('user pressed stop')), 300);
    const r = await host.callTool(toolName('p', 'job'), { ms: 5000, progressEveryMs: 100 }, { signal: ac.signal, onProgress: () => {} });
    expect(r).toMatchObject({ outcome: 'cancelled', code: 'MCPWIRE_ABORTED', isError: true, retryable: false });
  });
});

describe.concurrent('notifications tied to the call (onLog, onNotification)', () => {
  type Got = { logs: unknown[]; events: { method: string; params: unknown }[] };
  const listeners = (got: Got) => ({
    onLog: (p: Record<string, unknown>) => got.logs.push(p.data),
    onNotification: (method: string, params: Record<string, unknown> | undefined) => got.events.push({ method, params }),
  });
  const fresh = (): Got => ({ logs: [], events: [] });

  it('the only call in flight to a server gets its log messages and custom notifications (also a method outside notifications/, such as a pipeline tool_event)', async (ctx) => {
    const { expect } = ctx;
    const host = await ownHost(ctx, [mockServer('e', SCENARIO)]);
    const got = fresh();
    const r = await host.callTool(toolName('e', 'events'), { count: 3, intervalMs: 10, tag: 'A' }, listeners(got));
    expect(r.outcome).toBe('ok');
    expect(got.logs).toEqual([{ tag: 'A', seq: 1 }, { tag: 'A', seq: 2 }, { tag: 'A', seq: 3 }]);
    expect(got.events.map((e) => [e.method, (e.params as { seq: number }).seq])).toEqual([
      ['notifications/tool_event', 1],
      ['notifications/tool_event', 2],
      ['notifications/tool_event', 3],
    ]);
    const custom = fresh();
    await host.callTool(toolName('e', 'events'), { count: 1, intervalMs: 1, method: 'tool_event', tag: 'B' }, listeners(custom));
    expect(custom.events).toEqual([{ method: 'tool_event', params: { tag: 'B', seq: 1 } }]);
  });

  it('what reaches onLog and onNotification has the server\'s credentials taken out', async (ctx) => {
    const { expect } = ctx;
    const secret = 'tok-9b8a7c6d5e4f3a2b1c0d';
    const host = await ownHost(ctx, [mockServer('e', SCENARIO, {}, { SERVICE_TOKEN: secret })]);
    const got = fresh();
    await host.callTool(toolName('e', 'events'), { count: 1, intervalMs: 1, tag: `key=${secret}` }, listeners(got));
    expect(got.logs).toHaveLength(1);
    expect(got.events).toHaveLength(1);
    expect(JSON.stringify(got)).not.toContain(secret);
    expect(JSON.stringify(got)).toContain('key=');
  });

  it('with two calls in flight, notifications carrying a call\'s progress token go to that call only', async (ctx) => {
    const { expect } = ctx;
    const host = await ownHost(ctx, [mockServer('e', SCENARIO)]);
    const a = fresh();
    const b = fresh();
    const name = toolName('e', 'events');
    await Promise.all([
      host.callTool(name, { count: 4, intervalMs: 30, tag: 'A', withToken: true }, listeners(a)),
      host.callTool(name, { count: 4, intervalMs: 30, tag: 'B', withToken: true }, listeners(b)),
    ]);
    expect(a.events.map((e) => (e.params as { tag: string }).tag)).toEqual(['A', 'A', 'A', 'A']);
    expect(b.events.map((e) => (e.params as { tag: string }).tag)).toEqual(['B', 'B', 'B', 'B']);
    // log messages carry no token: while both are in flight they belong to neither; once one
    // has finished, the other is alone and gets them — never the other call's
    expect(a.logs.every((l) => (l as { tag: string }).tag === 'A')).toBe(true);
    expect(b.logs.every((l) => (l as { tag: string }).tag === 'B')).toBe(true);
    expect(a.logs.length + b.logs.length).toBeLessThan(8);
  });

  it('a notification without a token goes to neither of two calls in flight, and to the one left alone once the other ends', async (ctx) => {
    const { expect } = ctx;
    const host = await ownHost(ctx, [mockServer('e', SCENARIO)]);
    const a = fresh();
    const b = fresh();
    const name = toolName('e', 'events');
    // A sends at ~400 and ~800 ms and ends; B sends at ~500, ~1000, ~1500 ms: A's always go out
    // while B runs, B's first while A runs, B's last long after A ended.
    const [ra, rb] = await Promise.all([
      host.callTool(name, { count: 2, intervalMs: 400, tag: 'A' }, listeners(a)),
      host.callTool(name, { count: 3, intervalMs: 500, tag: 'B' }, listeners(b)),
    ]);
    expect([ra.outcome, rb.outcome]).toEqual(['ok', 'ok']);
    expect(a).toEqual(fresh());
    const seqs = b.events.map((e) => (e.params as { seq: number; tag: string }).seq);
    expect(b.events.every((e) => (e.params as { tag: string }).tag === 'B')).toBe(true);
    expect(seqs).toContain(3);
    expect(seqs).not.toContain(1);
    expect(b.logs).toContainEqual({ tag: 'B', seq: 3 });
  });

  it('basic.utilities.tasks#39: two task-augmented calls in flight each get their own task\'s notifications and logs (tied by related-task metadata), none of the other\'s', async (ctx) => {
    const { expect } = ctx;
    const scenario = { tasks: { pollInterval: 50 }, tools: [{ name: 'tevents', builtin: 'events', execution: { taskSupport: 'required' } }] };
    const host = await ownHost(ctx, [mockServer('t', scenario)]);
    const a = fresh();
    const b = fresh();
    const statuses: string[] = [];
    const name = toolName('t', 'tevents');
    // A sends at ~100, 200, 300 ms, all while B runs; B sends at ~150, 300, 450 ms. Neither
    // carries a progress token and two calls are in flight: only the task id can tie them.
    const [ra, rb] = await Promise.all([
      host.callTool(name, { count: 3, intervalMs: 100, tag: 'A' }, { ...listeners(a), onTaskStatus: (t) => statuses.push(t.status) }),
      host.callTool(name, { count: 3, intervalMs: 150, tag: 'B' }, listeners(b)),
    ]);
    expect([ra.outcome, rb.outcome]).toEqual(['ok', 'ok']);
    expect(statuses[0]).toBe('working'); // the caller's own onTaskStatus still sees every change
    expect(statuses.at(-1)).toBe('completed');
    const tagSeq = (xs: unknown[]) => xs.map((x) => `${(x as { tag: string }).tag}${(x as { seq: number }).seq}`);
    expect(tagSeq(a.events.map((e) => e.params))).toEqual(['A1', 'A2', 'A3']);
    expect(tagSeq(b.events.map((e) => e.params))).toEqual(['B1', 'B2', 'B3']);
    expect(tagSeq(a.logs)).toEqual(['A1', 'A2', 'A3']);
    expect(tagSeq(b.logs)).toEqual(['B1', 'B2', 'B3']);
  });
});

describe('routeCallNotifications (the tying rules, on a fake client)', () => {
  it('by token first (a token of no running call goes to none), else only to a call that is alone; a throwing listener breaks nothing', () => {
    const client = new EventEmitter() as unknown as HostClient & EventEmitter;
    const got: string[] = [];
    const end1 = routeCallNotifications(client, { token: 't1', onNotification: (m) => got.push(`1:${m}`), onLog: () => got.push('1:log') });
    client.emit('notification', { method: 'x/alone', params: {} });
    client.emit('log', { level: 'info', data: 'alone' });
    const end2 = routeCallNotifications(client, { token: 't2', onNotification: (m) => got.push(`2:${m}`) });
    client.emit('notification', { method: 'x/untagged', params: {} }); // two in flight: none
    client.emit('notification', { method: 'x/for2', params: { _meta: { progressToken: 't2' } } });
    client.emit('notification', { method: 'x/stale', params: { _meta: { progressToken: 't9' } } }); // no such call: none
    end2();
    end2(); // idempotent
    client.emit('notification', { method: 'x/again-alone', params: {} });
    end1();
    client.emit('notification', { method: 'x/nobody', params: {} });
    expect(got).toEqual(['1:x/alone', '1:log', '2:x/for2', '1:x/again-alone']);
    const end3 = routeCallNotifications(client, { token: undefined, onNotification: () => { throw new Error('listener bug'); } });
    expect(() => client.emit('notification', { method: 'x/throws', params: {} })).not.toThrow();
    end3();
    expect(client.listenerCount('notification')).toBe(1); // one listener per client, however many calls
  });

  it('by task (basic.utilities.tasks#39) before token and exclusivity; a task no call is known to follow goes by the other rules, never to a call following another task', () => {
    const client = new EventEmitter() as unknown as HostClient & EventEmitter;
    const got: string[] = [];
    const R = 'io.modelcontextprotocol/related-task';
    const tasks1: string[] = [];
    const end1 = routeCallNotifications(client, { token: 't1', taskIds: tasks1, onNotification: (m) => got.push(`1:${m}`), onLog: (p) => got.push(`1:log ${String(p.data)}`) });
    client.emit('notification', { method: 'x/early', params: { _meta: { [R]: { taskId: 'task-1' } } } }); // not known yet: 1 is alone
    tasks1.push('task-1');
    const end2 = routeCallNotifications(client, { token: 't2', taskIds: ['task-2'], onNotification: (m) => got.push(`2:${m}`) });
    client.emit('notification', { method: 'x/task1', params: { _meta: { [R]: { taskId: 'task-1' } } } });
    client.emit('log', { level: 'info', data: 'task1', _meta: { [R]: { taskId: 'task-1' } } });
    client.emit('notification', { method: 'x/task2-token1', params: { _meta: { progressToken: 't1', [R]: { taskId: 'task-2' } } } });
    client.emit('notification', { method: 'x/bad-meta', params: { _meta: { progressToken: 't1', [R]: { taskId: 7 } } } }); // not a task id: by token
    end2();
    client.emit('notification', { method: 'x/task9', params: { _meta: { [R]: { taskId: 'task-9' } } } }); // 1 is alone, but follows task-1: none
    client.emit('notification', { method: 'x/task9-token1', params: { _meta: { progressToken: 't1', [R]: { taskId: 'task-9' } } } }); // by token
    end1();
    expect(got).toEqual(['1:x/early', '1:x/task1', '1:log task1', '2:x/task2-token1', '1:x/bad-meta', '1:x/task9-token1']);
  });
});
