/**
 * basic/utilities/tasks from the client's side, as requestor of task-augmented `tools/call`:
 * the scripted mock's scenario core (mock-servers/lib) runs in-process over a memory transport
 * pair, so every wait is driven by fake timers and nothing depends on machine speed.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AbortError, CapabilityError, JsonRpcError, TimeoutError } from '../src/errors.js';
import { McpClient, type ClientOptions } from '../src/mcp/client.js';
import type { Task } from '../src/mcp/types.js';
import { createMemoryPair } from '../src/transport/memory.js';
import { createScenarioServer } from '../mock-servers/lib/mcp-scenario.mjs';

type Msg = { id?: string | number; method?: string; params?: any; result?: any; error?: any };
const RELATED = 'io.modelcontextprotocol/related-task';

let clients: McpClient[] = [];

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(async () => {
  for (const c of clients) await c.close();
  clients = [];
  vi.useRealTimers();
});

/** A client connected to an in-process scripted mock; `received` is what the mock got. */
async function setup(scenario: Record<string, unknown>, options: ClientOptions = {}) {
  const [c, s] = createMemoryPair();
  const received: Msg[] = [];
  const server = createScenarioServer(scenario, {
    send: (m) => void s.send(m).catch(() => {}),
    sendRaw: () => {},
    exit: () => {},
    stderr: () => {},
  });
  s.onmessage = (m) => {
    received.push(m as Msg);
    void server.handleMessage(m);
  };
  const client = new McpClient({ transport: 'stdio', command: 'mock', id: 'mock' }, { transport: c, ...options });
  clients.push(client);
  const diagnostics: { code: string; message: string }[] = [];
  client.on('diagnostic', (d) => diagnostics.push(d));
  await client.connect();
  const sent = (method: string) => received.filter((m) => m.method === method);
  return { client, received, sent, diagnostics, server };
}

const TASKS = { pollInterval: 1000 };
const research = (extra: Record<string, unknown> = {}) => ({ name: 'research', builtin: 'slow', execution: { taskSupport: 'required' }, ...extra });
const maybe = { name: 'maybe', builtin: 'echo', execution: { taskSupport: 'optional' } };

/** Lets microtask chains (memory transport, handlers) run without moving the clock. */
const settle = () => vi.advanceTimersByTimeAsync(0);

describe('capability and tool-level negotiation', () => {
  it('basic.utilities.tasks#4/#7: a task-required tool on a server without tasks.requests.tools.call is refused locally, never called plain', async () => {
    const { client, sent } = await setup({ tools: [research()] });
    await client.listTools();
    const err = await client.callTool('research', { ms: 10 }).catch((e) => e);
    expect(err).toBeInstanceOf(CapabilityError);
    expect(err.message).toMatch(/requires task execution.*tasks\.requests\.tools\.call/);
    expect(sent('tools/call')).toHaveLength(0);
    // asking for a task explicitly on such a server is refused too (tasks#2/#3)
    expect(await client.callTool('maybe', {}, { task: true }).catch((e) => e)).toBeInstanceOf(CapabilityError);
    expect(sent('tools/call')).toHaveLength(0);
  });

  it('basic.utilities.tasks#5: a tool without taskSupport (or "forbidden") is never task-augmented; by default calls stay plain', async () => {
    const { client, sent } = await setup({ tasks: TASKS, tools: ['echo', { name: 'nope', builtin: 'echo', execution: { taskSupport: 'forbidden' } }, maybe] });
    await client.listTools();
    expect(await client.callTool('echo', { text: 'a' }, { task: true }).catch((e) => e)).toBeInstanceOf(CapabilityError);
    expect(await client.callTool('nope', { text: 'a' }, { task: true }).catch((e) => e)).toBeInstanceOf(CapabilityError);
    expect(sent('tools/call')).toHaveLength(0);
    // 'auto': plain for absent, forbidden and optional
    for (const name of ['echo', 'nope', 'maybe']) expect((await client.callTool(name, { text: name })).content[0]).toEqual({ type: 'text', text: name });
    expect(sent('tools/call').map((m) => m.params.task)).toEqual([undefined, undefined, undefined]);
  });

  it('basic.utilities.tasks#7: a task-required tool is called with `task` (ttl from options), even before the client listed tools', async () => {
    const { client, sent, received } = await setup({ tasks: TASKS, tools: [research()] });
    const call = client.callTool('research', { ms: 500 }, { taskTtlMs: 30_000 });
    await vi.advanceTimersByTimeAsync(1000);
    const r = await call;
    expect(r.content[0]).toEqual({ type: 'text', text: 'slept 500 ms' });
    // the tool was unknown: the client learned its taskSupport from tools/list first
    expect(received.map((m) => m.method).filter((m) => m === 'tools/list' || m === 'tools/call')).toEqual(['tools/list', 'tools/call']);
    expect(sent('tools/call')[0].params.task).toEqual({ ttl: 30_000 });
    // task: false on a required tool is refused, not sent plain
    expect(await client.callTool('research', {}, { task: false }).catch((e) => e)).toBeInstanceOf(CapabilityError);
    expect(sent('tools/call')).toHaveLength(1);
    expect(client.pendingCount).toBe(0);
  });

  it('basic.utilities.tasks#7: after tools/list_changed the tools are listed again, so a tool that became task-required is not called plain', async () => {
    const execution = { taskSupport: 'forbidden' };
    const { client, received, sent, server } = await setup({ tasks: TASKS, tools: [{ name: 'flip', builtin: 'echo', execution }] });
    await client.listTools();
    execution.taskSupport = 'required';
    server.notify('notifications/tools/list_changed');
    await settle();
    const call = client.callTool('flip', { text: 'now a task' });
    await vi.advanceTimersByTimeAsync(1000);
    const r = await call;
    expect(r.content[0]).toEqual({ type: 'text', text: 'now a task' });
    expect(received.map((m) => m.method).filter((m) => m === 'tools/list' || m === 'tools/call')).toEqual(['tools/list', 'tools/list', 'tools/call']);
    expect(sent('tools/call')[0].params.task).toBeDefined();
    expect(client.pendingCount).toBe(0);
  });

  it('basic.utilities.tasks#2: an optional tool runs as a task when asked (task: true)', async () => {
    const { client, sent } = await setup({ tasks: TASKS, tools: [maybe] });
    await client.listTools();
    const call = client.callTool('maybe', { text: 'as a task' }, { task: true });
    await vi.advanceTimersByTimeAsync(1000);
    expect((await call).content[0]).toEqual({ type: 'text', text: 'as a task' });
    expect(sent('tools/call')[0].params.task).toEqual({});
    expect(sent('tasks/result')).toHaveLength(1);
  });

  it('basic.utilities.tasks#16: a server that answers a task-augmented call directly gets its result used as it is (diagnostic)', async () => {
    const plain = { content: [{ type: 'text', text: 'direct' }] };
    const { client, diagnostics, sent } = await setup({ tasks: TASKS, tools: [research({ behavior: { result: plain } })] });
    await client.listTools();
    expect(await client.callTool('research')).toEqual(plain);
    expect(sent('tasks/get')).toHaveLength(0);
    expect(diagnostics.map((d) => d.code)).toContain('MCPWIRE_TASK_IGNORED');
  });
});

describe('following a task to its result', () => {
  it('basic.utilities.tasks#10/#11/#15: polls tasks/get no sooner than pollInterval, backs off while nothing changes, up to a ceiling, until terminal', async () => {
    const { client, sent } = await setup(
      { tasks: { ...TASKS, statusNotifications: false }, tools: [research()] },
      { taskPolling: { backoffFactor: 2, maxPollIntervalMs: 3000 } },
    );
    await client.listTools();
    const call = client.callTool('research', { ms: 9000 });
    await settle();
    expect(sent('tasks/get')).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(999);
    expect(sent('tasks/get')).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1); // t=1000: first poll (pollInterval)
    expect(sent('tasks/get')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1999); // unchanged: next after 2000
    expect(sent('tasks/get')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1); // t=3000
    expect(sent('tasks/get')).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(3000); // 4000 capped at the 3000 ceiling: t=6000
    expect(sent('tasks/get')).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(3000); // t=9000: still working at the poll? the task ends at 9000
    await vi.advanceTimersByTimeAsync(3000);
    const r = await call;
    expect(r.content[0]).toEqual({ type: 'text', text: 'slept 9000 ms' });
    expect(sent('tasks/result')).toHaveLength(1);
    expect(sent('tasks/get').every((m) => m.params.taskId === sent('tasks/result')[0].params.taskId)).toBe(true);
    // basic.utilities.tasks#55: no related-task metadata on tasks/get
    expect(sent('tasks/get').every((m) => m.params._meta === undefined)).toBe(true);
    expect(client.pendingCount).toBe(0);
  });

  it('basic.utilities.tasks#14: a status notification shortens the wait (no waiting for the next poll) and is reported once', async () => {
    const { client, sent } = await setup({ tasks: { pollInterval: 10_000 }, tools: [research()] });
    await client.listTools();
    const statuses: string[] = [];
    const events: Task[] = [];
    client.on('taskStatus', (t: Task) => events.push(t));
    const call = client.callTool('research', { ms: 300 }, { onTaskStatus: (t) => statuses.push(t.status) });
    await vi.advanceTimersByTimeAsync(300);
    const r = await call;
    expect(r.content[0]).toEqual({ type: 'text', text: 'slept 300 ms' });
    expect(sent('tasks/get').length).toBeLessThanOrEqual(1); // at most the final-state check, no poll at 10 s
    expect(statuses).toEqual(['working', 'completed']);
    expect(events.map((t) => t.status)).toEqual(['working', 'completed']);
  });

  it('basic.utilities.tasks#15/#44: frequent status notifications do not replace polling: tasks/get keeps its pollInterval schedule', async () => {
    const { client, sent, server } = await setup({ tasks: TASKS, tools: [research()] });
    await client.listTools();
    const call = client.callTool('research', { ms: 5000 });
    await settle();
    const taskId = sent('tools/call').length === 1 ? (await client.listTasks())[0].taskId : '';
    for (let i = 1; i <= 5; i++) {
      await vi.advanceTimersByTimeAsync(400);
      server.notify('notifications/tasks/status', { taskId, status: 'working', statusMessage: `step ${i}`, createdAt: 'x', lastUpdatedAt: 'x', ttl: null, pollInterval: 1000 });
    }
    await settle();
    expect(sent('tasks/get')).toHaveLength(1); // t=1000, despite a notification every 400 ms
    await vi.advanceTimersByTimeAsync(500);
    expect(sent('tasks/get')).toHaveLength(2); // t=2500: the server's own state unchanged, backoff × 1.5
    await vi.advanceTimersByTimeAsync(3000);
    expect((await call).content[0]).toEqual({ type: 'text', text: 'slept 5000 ms' });
  });

  it('basic.utilities.tasks#28/#27/#39/#40: on input_required the client calls tasks/result; the server\'s elicitation carries the related task and is answered by the ordinary handler', async () => {
    const asked: any[] = [];
    const { client, sent, received } = await setup(
      { tasks: { pollInterval: 200 }, tools: [{ name: 'clarify', builtin: 'ask', execution: { taskSupport: 'required' } }] },
      {
        onElicitation: async (params) => {
          asked.push(params);
          return { action: 'accept', content: { interpretation: 'technical' } };
        },
      },
    );
    await client.listTools();
    const statuses: string[] = [];
    const call = client.callTool(
      'clarify',
      { method: 'elicitation/create', params: { message: 'Which one?', requestedSchema: { type: 'object', properties: { interpretation: { type: 'string' } } } } },
      { onTaskStatus: (t) => statuses.push(t.status) },
    );
    await vi.advanceTimersByTimeAsync(1000);
    const r = await call;
    const taskId = sent('tools/call')[0] && sent('tasks/result')[0].params.taskId;
    expect(asked).toHaveLength(1);
    expect(asked[0]._meta[RELATED]).toEqual({ taskId });
    expect(JSON.parse((r.content[0] as { text: string }).text)).toEqual({ action: 'accept', content: { interpretation: 'technical' }, _meta: { [RELATED]: { taskId } } });
    expect(statuses).toEqual(['working', 'input_required', 'working', 'completed']);
    // the elicitation answer went back to the server, naming the same task (tasks#39/#40)
    const answer = received.find((m) => m.id !== undefined && m.result?.action === 'accept');
    expect(answer?.result._meta).toEqual({ [RELATED]: { taskId } });
    expect(r._meta?.[RELATED]).toEqual({ taskId });
  });

  it('basic.utilities.progress#5: the task\'s progress reaches onProgress for the task\'s whole life (the token outlives the creating request), with no unknown-token diagnostic', async () => {
    const { client, sent, diagnostics, server } = await setup({ tasks: TASKS, tools: [{ name: 'steps', builtin: 'progress', execution: { taskSupport: 'required' } }] });
    await client.listTools();
    const seen: number[] = [];
    const call = client.callTool('steps', { steps: 3, intervalMs: 400 }, { onProgress: (p) => seen.push(p.progress) });
    await vi.advanceTimersByTimeAsync(3000);
    expect((await call).content[0]).toEqual({ type: 'text', text: 'done 3 steps' });
    expect(seen).toEqual([1, 2, 3]);
    expect(typeof sent('tools/call')[0].params._meta.progressToken).toBe('string');
    expect(diagnostics.map((d) => d.code)).not.toContain('MCPWIRE_UNKNOWN_PROGRESS');
    // after the call, the token is no longer ours: a late notification is reported as usual
    const progressToken = sent('tools/call')[0].params._meta.progressToken;
    server.notify('notifications/progress', { progressToken, progress: 4 });
    await settle();
    expect(seen).toEqual([1, 2, 3]);
    expect(diagnostics.map((d) => d.code)).toContain('MCPWIRE_UNKNOWN_PROGRESS');
  });

  it('basic.utilities.progress#5: with the caller\'s own progressToken in _meta, the task\'s progress still reaches onProgress for its whole life, once each', async () => {
    const { client, sent, diagnostics } = await setup({ tasks: TASKS, tools: [{ name: 'steps', builtin: 'progress', execution: { taskSupport: 'required' } }] });
    await client.listTools();
    const seen: number[] = [];
    const call = client.callTool('steps', { steps: 3, intervalMs: 400 }, { _meta: { progressToken: 'mine-7' }, onProgress: (p) => seen.push(p.progress) });
    await vi.advanceTimersByTimeAsync(3000);
    expect((await call).content[0]).toEqual({ type: 'text', text: 'done 3 steps' });
    expect(sent('tools/call')[0].params._meta.progressToken).toBe('mine-7');
    expect(seen).toEqual([1, 2, 3]);
    expect(diagnostics.map((d) => d.code)).not.toContain('MCPWIRE_UNKNOWN_PROGRESS');
  });

  it('basic.utilities.tasks#39: the mock\'s task sends its own notifications with the related-task metadata naming the task', async () => {
    const { client, sent } = await setup({ tasks: TASKS, tools: [{ name: 'ev', builtin: 'events', execution: { taskSupport: 'required' } }] });
    await client.listTools();
    const got: { method: string; params: any }[] = [];
    client.on('notification', (n: { method: string; params: any }) => got.push(n));
    client.on('log', (params: any) => got.push({ method: 'notifications/message', params }));
    const call = client.callTool('ev', { count: 2, intervalMs: 100 });
    await vi.advanceTimersByTimeAsync(3000);
    await call;
    expect(sent('tasks/result')).toHaveLength(1);
    const taskId = sent('tasks/result')[0].params.taskId;
    const own = got.filter((n) => n.method === 'notifications/tool_event' || n.method === 'notifications/message');
    expect(own).toHaveLength(4);
    for (const n of own) expect(n.params._meta[RELATED]).toEqual({ taskId });
  });

  it('basic.utilities.tasks#60/#61: a failed task\'s JSON-RPC error is what callTool rejects with; an isError result stays a result', async () => {
    const { client } = await setup({
      tasks: TASKS,
      tools: [
        { name: 'broken', execution: { taskSupport: 'required' }, error: { code: -32050, message: 'backend down' } },
        { name: 'fails', builtin: 'fail', execution: { taskSupport: 'required' } },
      ],
    });
    await client.listTools();
    const statuses: string[] = [];
    const broken = client.callTool('broken', {}, { onTaskStatus: (t) => statuses.push(t.status) }).catch((e) => e);
    await vi.advanceTimersByTimeAsync(2000);
    const err = await broken;
    expect(err).toBeInstanceOf(JsonRpcError);
    expect(err.rpcCode).toBe(-32050);
    expect(statuses).toContain('failed');
    const fails = client.callTool('fails', { message: 'no luck' });
    await vi.advanceTimersByTimeAsync(2000);
    const r = await fails;
    expect(r.isError).toBe(true);
    expect(r.content[0]).toEqual({ type: 'text', text: 'no luck' });
    expect(client.pendingCount).toBe(0);
  });

  it('basic.utilities.tasks#56: a tasks/result answer without related-task metadata is reported (and still used)', async () => {
    const bare = { content: [{ type: 'text', text: 'bare' }] };
    const { client, diagnostics } = await setup({ tasks: TASKS, tools: [research()], behavior: { methods: { 'tasks/result': { result: bare } } } });
    await client.listTools();
    const call = client.callTool('research', { ms: 10 });
    await vi.advanceTimersByTimeAsync(1000);
    expect(await call).toEqual(bare);
    expect(diagnostics.map((d) => d.code)).toContain('MCPWIRE_TASK_META');
  });
});

describe('cancellation', () => {
  it('aborting a task-augmented call sends tasks/cancel, rejects with AbortError and pendingCount returns to 0 (basic.utilities.tasks#51)', async () => {
    const { client, sent } = await setup({ tasks: TASKS, tools: [research()] });
    await client.listTools();
    const ac = new AbortController();
    const statuses: string[] = [];
    const call = client.callTool('research', { ms: 60_000 }, { signal: ac.signal, onTaskStatus: (t) => statuses.push(t.status) }).catch((e) => e);
    await vi.advanceTimersByTimeAsync(2500);
    expect(sent('tasks/get').length).toBeGreaterThan(0);
    expect(client.pendingCount).toBe(0); // between polls nothing is in flight
    ac.abort('user gave up');
    const err = await call;
    expect(err).toBeInstanceOf(AbortError);
    await settle();
    const taskId = sent('tools/call')[0] && sent('tasks/get')[0].params.taskId;
    expect(sent('tasks/cancel').map((m) => m.params)).toEqual([{ taskId }]);
    await settle();
    expect(client.pendingCount).toBe(0);
    expect((await client.getTask(taskId)).status).toBe('cancelled');
    // no more polling after the abort
    const polls = sent('tasks/get').length;
    await vi.advanceTimersByTimeAsync(10_000);
    expect(sent('tasks/get')).toHaveLength(polls);
  });

  it('basic.utilities.cancellation#3: a task-augmented tools/call aborted before its CreateTaskResult arrives gets tasks/cancel for the task the late result names', async () => {
    // The server creates the task only after the abort (it ignores notifications/cancelled and
    // answers late): the task id is known from the late CreateTaskResult alone.
    const { client, sent } = await setup({ tasks: TASKS, tools: [research({ behavior: { delayMs: 500, ignoreCancel: true } })] });
    await client.listTools();
    const ac = new AbortController();
    const call = client.callTool('research', { ms: 60_000 }, { signal: ac.signal }).catch((e) => e);
    await vi.advanceTimersByTimeAsync(100);
    ac.abort('user gave up');
    expect(await call).toBeInstanceOf(AbortError);
    expect(sent('tasks/cancel')).toHaveLength(0); // no task id yet
    await vi.advanceTimersByTimeAsync(500); // the late CreateTaskResult
    await settle();
    const tasks = await client.listTasks();
    expect(tasks).toHaveLength(1);
    expect(sent('tasks/cancel').map((m) => m.params)).toEqual([{ taskId: tasks[0]!.taskId }]);
    expect(tasks[0]!.status).toBe('cancelled');
    expect(client.pendingCount).toBe(0);
  });

  it('basic.utilities.cancellation#3: createTask whose request timed out cancels the task its late CreateTaskResult names', async () => {
    const { client, sent } = await setup({ tasks: TASKS, tools: [research({ behavior: { delayMs: 2000, ignoreCancel: true } })] });
    const err = await Promise.all([client.createTask('research', { ms: 60_000 }, { timeoutMs: 1000 }).catch((e) => e), vi.advanceTimersByTimeAsync(1000)]);
    expect(err[0]).toBeInstanceOf(TimeoutError);
    await vi.advanceTimersByTimeAsync(1000);
    await settle();
    const tasks = await client.listTasks();
    expect(sent('tasks/cancel').map((m) => m.params)).toEqual([{ taskId: tasks[0]!.taskId }]);
    expect(tasks[0]!.status).toBe('cancelled');
  });

  it('aborting while tasks/result is blocked (input_required) cancels both the request and the task', async () => {
    const { client, sent } = await setup({ tasks: { pollInterval: 100 }, tools: [{ name: 'clarify', builtin: 'ask', execution: { taskSupport: 'required' } }] }, { onElicitation: () => new Promise(() => {}) });
    await client.listTools();
    const ac = new AbortController();
    const call = client.callTool('clarify', { method: 'elicitation/create', params: { message: 'x', requestedSchema: { type: 'object', properties: {} } } }, { signal: ac.signal }).catch((e) => e);
    await vi.advanceTimersByTimeAsync(500);
    expect(sent('tasks/result')).toHaveLength(1);
    ac.abort();
    expect(await call).toBeInstanceOf(AbortError);
    await settle();
    expect(sent('notifications/cancelled').map((m) => m.params.requestId)).toEqual([sent('tasks/result')[0].id]);
    expect(sent('tasks/cancel')).toHaveLength(1);
    await settle();
    expect(client.pendingCount).toBe(0);
  });

  it('the total deadline (maxTotalTimeoutMs) passing is a TimeoutError and sends tasks/cancel', async () => {
    const { client, sent } = await setup({ tasks: TASKS, tools: [research()] });
    await client.listTools();
    const call = client.callTool('research', { ms: 60_000 }, { timeoutMs: 1000, maxTotalTimeoutMs: 5000 }).catch((e) => e);
    await vi.advanceTimersByTimeAsync(5000);
    const err = await call;
    expect(err).toBeInstanceOf(TimeoutError);
    await settle();
    expect(sent('tasks/cancel')).toHaveLength(1);
    expect(client.pendingCount).toBe(0);
  });

  it('without tasks.cancel no tasks/cancel is sent after an abort (a diagnostic says the task keeps running)', async () => {
    const { client, sent, diagnostics } = await setup({ tasks: { ...TASKS, cancel: false }, tools: [research()] });
    await client.listTools();
    const ac = new AbortController();
    const call = client.callTool('research', { ms: 60_000 }, { signal: ac.signal }).catch((e) => e);
    await vi.advanceTimersByTimeAsync(100);
    ac.abort();
    expect(await call).toBeInstanceOf(AbortError);
    expect(sent('tasks/cancel')).toHaveLength(0);
    expect(diagnostics.map((d) => d.code)).toContain('MCPWIRE_TASK_NOT_CANCELLED');
    await expect(client.cancelTask('x')).rejects.toBeInstanceOf(CapabilityError);
  });
});

describe('the lower-level task API', () => {
  it('basic.utilities.tasks#48/#49: createTask, getTask, listTasks over every page (cursors passed verbatim), getTaskResult, cancelTask', async () => {
    const { client, sent } = await setup({ tasks: { ...TASKS, pageSize: 1 }, tools: [research()] });
    const a = await client.createTask('research', { ms: 100 }, { ttlMs: 5000 });
    const b = await client.createTask('research', { ms: 60_000 });
    expect(a.status).toBe('working'); // basic.utilities.tasks#20
    expect(typeof a.taskId).toBe('string');
    expect(a.ttl).toBe(5000);
    const first = await client.listTasksPage();
    expect(first.tasks).toHaveLength(1);
    expect(typeof first.nextCursor).toBe('string');
    const listed = await client.listTasks();
    expect(listed.map((t) => t.taskId)).toEqual([a.taskId, b.taskId]);
    const pages = sent('tasks/list');
    expect(pages).toHaveLength(3);
    expect(pages[1].params).toBeUndefined();
    expect(pages[2].params.cursor).toBe(first.nextCursor);
    await vi.advanceTimersByTimeAsync(100);
    expect((await client.getTask(a.taskId)).status).toBe('completed');
    const result = await client.getTaskResult(a.taskId);
    expect(result.content).toEqual([{ type: 'text', text: 'slept 100 ms' }]);
    const cancelled = await client.cancelTask(b.taskId);
    expect(cancelled.status).toBe('cancelled');
    // basic.utilities.tasks#50: cancelling a terminal task is -32602
    const again = await client.cancelTask(b.taskId).catch((e) => e);
    expect(again).toBeInstanceOf(JsonRpcError);
    expect(again.rpcCode).toBe(-32602);
  });

  it('capability gating: tasks/list needs tasks.list; tasks/* need tasks; nothing is sent when missing', async () => {
    const { client, sent } = await setup({ tasks: { ...TASKS, list: false }, tools: [research()] });
    await expect(client.listTasks()).rejects.toBeInstanceOf(CapabilityError);
    expect(sent('tasks/list')).toHaveLength(0);
    const none = await setup({ tools: ['echo'] });
    await expect(none.client.getTask('t')).rejects.toBeInstanceOf(CapabilityError);
    await expect(none.client.getTaskResult('t')).rejects.toBeInstanceOf(CapabilityError);
    await expect(none.client.createTask('echo')).rejects.toBeInstanceOf(CapabilityError);
    expect(none.sent('tasks/get')).toHaveLength(0);
    expect(none.sent('tools/call')).toHaveLength(0);
  });

  it('basic.utilities.tasks#4: an older negotiated revision (2025-06-18) has no tasks, whatever the server declares', async () => {
    const { client, sent } = await setup({ tasks: TASKS, tools: [research()], protocolVersions: ['2025-06-18'] }, { protocolVersion: '2025-06-18' });
    await client.listTools();
    await expect(client.callTool('research', {})).rejects.toBeInstanceOf(CapabilityError);
    expect(sent('tools/call')).toHaveLength(0);
  });

  it('a malformed status notification is ignored with a diagnostic; one about an unfollowed task is passed on as a taskStatus event', async () => {
    const { client, server, diagnostics } = await setup({ tasks: TASKS, tools: ['echo'] });
    const events: Task[] = [];
    client.on('taskStatus', (t: Task) => events.push(t));
    server.notify('notifications/tasks/status', { taskId: 7, status: 'working' });
    server.notify('notifications/tasks/status', { taskId: 'other', status: 'done?' });
    server.notify('notifications/tasks/status', { taskId: 'other', status: 'working', createdAt: 'x', lastUpdatedAt: 'x', ttl: null });
    await settle();
    expect(diagnostics.filter((d) => d.code === 'MCPWIRE_BAD_TASK_STATUS')).toHaveLength(2);
    expect(events.map((t) => t.taskId)).toEqual(['other']);
  });
});
