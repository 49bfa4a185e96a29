/**
 * The client as task receiver (src/mcp/task-receiver.ts), beyond the spec clauses
 * (spec-conformance/tasks-receiver.test.ts): the bounded store, ttl limits and timers, the
 * connection closing, message order, and older revisions. In-process scripted mock over a memory
 * pair, fake timers.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { McpClient, type ClientOptions } from '../../src/mcp/client.js';
import type { CreateMessageResult } from '../../src/mcp/types.js';
import { createMemoryPair } from '../../src/transport/memory.js';
import { createScenarioServer } from '../../mock-servers/lib/mcp-scenario.mjs';

type Msg = { id?: string | number; method?: string; params?: any; result?: any; error?: any };
type Answer = { result?: any; error?: any };

let clients: McpClient[] = [];
beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(async () => {
  for (const c of clients) await c.close();
  clients = [];
  vi.restoreAllMocks();
  vi.useRealTimers();
});

const SAMPLING = { messages: [{ role: 'user', content: { type: 'text', text: 'hello' } }], maxTokens: 20 };
const SAMPLED = { role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm' } as CreateMessageResult;

function deferredSampling() {
  const calls: { signal: AbortSignal; serverId?: string; resolve: (v: CreateMessageResult) => void }[] = [];
  const onSampling = (_p: unknown, ctx: { signal: AbortSignal; serverId?: string }) =>
    new Promise<CreateMessageResult>((resolve) => calls.push({ signal: ctx.signal, serverId: ctx.serverId, resolve }));
  return { calls, onSampling };
}

async function setup(options: ClientOptions, scenario: Record<string, unknown> = {}) {
  const [c, s] = createMemoryPair();
  const received: Msg[] = [];
  const server = createScenarioServer(scenario, { send: (m) => void s.send(m).catch(() => {}), sendRaw: () => {}, exit: () => {}, stderr: () => {} });
  s.onmessage = (m) => {
    received.push(m as Msg);
    void server.handleMessage(m);
  };
  const client = new McpClient({ transport: 'stdio', command: 'mock', id: 'mock' }, { transport: c, ...options });
  clients.push(client);
  await client.connect();
  const ask = (method: string, params?: Record<string, unknown>) => server.request(method, params) as Promise<Answer>;
  return { client, server, received, ask };
}

describe('task receiver limits', () => {
  it('keeps at most maxTasks tasks: one more is refused with -32603 until a cancelled task can be dropped', async () => {
    const s = deferredSampling();
    const { ask } = await setup({ onSampling: s.onSampling, taskReceiver: { enabled: true, maxTasks: 2 } });
    const a = (await ask('sampling/createMessage', { ...SAMPLING, task: {} })).result.task.taskId;
    const b = (await ask('sampling/createMessage', { ...SAMPLING, task: {} })).result.task.taskId;
    const refused = await ask('sampling/createMessage', { ...SAMPLING, task: {} });
    expect(refused.error).toMatchObject({ code: -32603, message: expect.stringContaining('at most 2 tasks') });
    expect(s.calls).toHaveLength(2); // the refused request never reached the handler
    // completed tasks are kept for their ttl: still no room
    s.calls[1]!.resolve(SAMPLED);
    await vi.advanceTimersByTimeAsync(0);
    expect((await ask('sampling/createMessage', { ...SAMPLING, task: {} })).error?.code).toBe(-32603);
    // a cancelled task may go at any time: it makes room
    await ask('tasks/cancel', { taskId: a });
    const c = await ask('sampling/createMessage', { ...SAMPLING, task: {} });
    expect(c.result.task.status).toBe('working');
    expect((await ask('tasks/get', { taskId: a })).error?.code).toBe(-32602);
    expect((await ask('tasks/list')).result.tasks.map((t: { taskId: string }) => t.taskId)).toEqual([b, c.result.task.taskId]);
  });

  it('ttl: none requested → defaultTtlMs; below 1 s → 1 s; above maxTtlMs → maxTtlMs; a non-number → default', async () => {
    const s = deferredSampling();
    const { ask } = await setup({ onSampling: s.onSampling, taskReceiver: { enabled: true, defaultTtlMs: 20_000, maxTtlMs: 50_000 } });
    const ttl = async (task: Record<string, unknown>) => (await ask('sampling/createMessage', { ...SAMPLING, task })).result.task.ttl;
    expect(await ttl({})).toBe(20_000);
    expect(await ttl({ ttl: 0 })).toBe(1_000);
    expect(await ttl({ ttl: 30_000 })).toBe(30_000);
    expect(await ttl({ ttl: 1e12 })).toBe(50_000);
    expect(await ttl({ ttl: 'soon' })).toBe(20_000);
  });

  it('the expiry timers do not keep the process alive (unref) and are cleared once the task is gone', async () => {
    const made: { delay: number; timer: { hasRef(): boolean } }[] = [];
    const real = globalThis.setTimeout;
    vi.spyOn(globalThis, 'setTimeout').mockImplementation(((fn: () => void, delay?: number) => {
      const timer = real(fn, delay) as unknown as { hasRef(): boolean };
      made.push({ delay: delay ?? 0, timer });
      return timer;
    }) as typeof setTimeout);
    const s = deferredSampling();
    const { ask } = await setup({ onSampling: s.onSampling, taskReceiver: { enabled: true } });
    await ask('sampling/createMessage', { ...SAMPLING, task: { ttl: 7_777 } });
    const expiry = made.filter((m) => m.delay === 7_777);
    expect(expiry).toHaveLength(1);
    expect(expiry[0]!.timer.hasRef()).toBe(false);
    const before = vi.getTimerCount();
    await vi.advanceTimersByTimeAsync(7_777);
    expect(vi.getTimerCount()).toBe(before - 1);
  });

  it('a task-augmented request with a "task" that is not an object is -32602', async () => {
    const s = deferredSampling();
    const { ask } = await setup({ onSampling: s.onSampling, taskReceiver: { enabled: true } });
    expect((await ask('sampling/createMessage', { ...SAMPLING, task: 5 })).error).toMatchObject({ code: -32602, message: expect.stringContaining('"task"') });
    expect(s.calls).toHaveLength(0);
  });
});

describe('task receiver and the connection', () => {
  it('closing the client aborts the running handlers and answers nothing more', async () => {
    const s = deferredSampling();
    const { client, ask } = await setup({ onSampling: s.onSampling, taskReceiver: { enabled: true } });
    await ask('sampling/createMessage', { ...SAMPLING, task: {} });
    expect(s.calls[0]!.signal.aborted).toBe(false);
    await client.close();
    expect(s.calls[0]!.signal.aborted).toBe(true);
  });

  it('the handler gets its own signal and the server id; the CreateTaskResult goes out before any status notification, even for a handler that answers at once', async () => {
    let seen: { aborted: boolean; serverId?: string } | undefined;
    const { ask, received } = await setup({
      onSampling: async (_p, ctx) => {
        seen = { aborted: ctx.signal.aborted, ...(ctx.serverId !== undefined ? { serverId: ctx.serverId } : {}) };
        return SAMPLED;
      },
      taskReceiver: { enabled: true },
    });
    const created = await ask('sampling/createMessage', { ...SAMPLING, task: {} });
    await vi.advanceTimersByTimeAsync(0);
    expect(seen).toEqual({ aborted: false, serverId: 'mock' });
    const order = received.filter((m) => m.method === 'notifications/tasks/status' || m.result?.task !== undefined).map((m) => m.method ?? 'CreateTaskResult');
    expect(order).toEqual(['CreateTaskResult', 'notifications/tasks/status']);
    expect((await ask('tasks/result', { taskId: created.result.task.taskId })).result.model).toBe('m');
  });

  it('statusNotifications: false sends none', async () => {
    const { ask, received } = await setup({ onSampling: async () => SAMPLED, taskReceiver: { enabled: true, statusNotifications: false } });
    const { taskId } = (await ask('sampling/createMessage', { ...SAMPLING, task: {} })).result.task;
    await vi.advanceTimersByTimeAsync(0);
    expect((await ask('tasks/get', { taskId })).result.status).toBe('completed');
    expect(received.filter((m) => m.method === 'notifications/tasks/status')).toEqual([]);
  });

  it('a revision without tasks (2025-06-18): a request carrying "task" is processed normally', async () => {
    const { client, ask } = await setup({ onSampling: async () => SAMPLED, taskReceiver: { enabled: true } }, { protocolVersions: ['2025-06-18'] });
    expect(client.protocolVersion).toBe('2025-06-18');
    const a = await ask('sampling/createMessage', { ...SAMPLING, task: {} });
    expect(a.result).toEqual(SAMPLED);
  });

  it('a cursor from another connection is refused', async () => {
    const one = await setup({ onSampling: deferredSampling().onSampling, taskReceiver: { enabled: true, listPageSize: 1 } });
    const two = await setup({ onSampling: deferredSampling().onSampling, taskReceiver: { enabled: true, listPageSize: 1 } });
    for (const s of [one, two]) for (let i = 0; i < 2; i++) await s.ask('sampling/createMessage', { ...SAMPLING, task: {} });
    const cursor = (await one.ask('tasks/list')).result.nextCursor;
    expect(typeof cursor).toBe('string');
    expect((await one.ask('tasks/list', { cursor })).result.tasks).toHaveLength(1);
    expect((await two.ask('tasks/list', { cursor })).error?.code).toBe(-32602);
  });
});
