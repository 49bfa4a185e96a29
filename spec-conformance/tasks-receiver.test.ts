/**
 * basic/utilities/tasks from the client's side as RECEIVER: the scripted mock (mock-servers/lib
 * scenario core, in-process over a memory transport pair) sends task-augmented
 * `sampling/createMessage` / `elicitation/create` to the client and then drives `tasks/get`,
 * `tasks/result`, `tasks/list` and `tasks/cancel`. Every answer of the client is checked against
 * schema.json. Fake timers: nothing depends on machine speed.
 */
import { readFileSync } from 'node:fs';
import Ajv2020Import from 'ajv/dist/2020.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { JsonRpcError } from '../src/errors.js';
import { McpClient, type ClientOptions } from '../src/mcp/client.js';
import type { CreateMessageRequestParams, CreateMessageResult, ElicitResult } from '../src/mcp/types.js';
import { createMemoryPair } from '../src/transport/memory.js';
import { createScenarioServer } from '../mock-servers/lib/mcp-scenario.mjs';

type Msg = { id?: string | number; method?: string; params?: any; result?: any; error?: any };
type Answer = { result?: any; error?: any };
const RELATED = 'io.modelcontextprotocol/related-task';

const Ajv2020 = ((Ajv2020Import as unknown as { default?: unknown }).default ?? Ajv2020Import) as new (o: object) => {
  addSchema(s: object, key: string): void;
  getSchema(ref: string): ((v: unknown) => boolean) & { errors?: unknown };
};
const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false });
ajv.addSchema(JSON.parse(readFileSync(new URL('../schema/2025-11-25.schema.json', import.meta.url), 'utf8')), 'mcp');
/** Asserts `value` is a valid schema.json `$defs/<def>`. */
function expectSchema(def: string, value: unknown): void {
  const validate = ajv.getSchema(`mcp#/$defs/${def}`);
  const ok = validate(value);
  expect(ok ? [] : validate.errors, `${def}: ${JSON.stringify(value).slice(0, 300)}`).toEqual([]);
}

let clients: McpClient[] = [];
beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(async () => {
  for (const c of clients) await c.close();
  clients = [];
  vi.useRealTimers();
});

/** A host handler the test finishes by hand; `signals` are the signals it was given. */
function deferredHandler<T>() {
  const calls: { params: any; signal: AbortSignal; resolve: (v: T) => void; reject: (e: unknown) => void }[] = [];
  const handler = (params: any, ctx: { signal: AbortSignal }) =>
    new Promise<T>((resolve, reject) => calls.push({ params, signal: ctx.signal, resolve, reject }));
  return { calls, handler };
}

const SAMPLING: CreateMessageRequestParams = { messages: [{ role: 'user', content: { type: 'text', text: 'hello' } }], maxTokens: 20 } as CreateMessageRequestParams;
const SAMPLED: CreateMessageResult = { role: 'assistant', content: { type: 'text', text: 'hi there' }, model: 'test-model' } as CreateMessageResult;
const FORM = { message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } };

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

const settle = () => vi.advanceTimersByTimeAsync(0);

describe('capabilities', () => {
  it('basic.utilities.tasks#1: a client that receives tasks declares tasks.list, tasks.cancel and tasks.requests for the handlers it has', async () => {
    const sampling = deferredHandler<CreateMessageResult>();
    const elicit = deferredHandler<ElicitResult>();
    const { server } = await setup({ onSampling: sampling.handler, onElicitation: elicit.handler, taskReceiver: { enabled: true } });
    const caps = server.state.clientCapabilities as Record<string, any>;
    expectSchema('ClientCapabilities', caps);
    expect(caps.tasks).toEqual({ list: {}, cancel: {}, requests: { sampling: { createMessage: {} }, elicitation: { create: {} } } });

    // only the handlers it has; nothing without enabling it
    const only = await setup({ onSampling: sampling.handler, taskReceiver: { enabled: true } });
    expect((only.server.state.clientCapabilities as any).tasks).toEqual({ list: {}, cancel: {}, requests: { sampling: { createMessage: {} } } });
    const off = await setup({ onSampling: sampling.handler, onElicitation: elicit.handler });
    expect((off.server.state.clientCapabilities as any).tasks).toBeUndefined();
    const noHandlers = await setup({ taskReceiver: { enabled: true } });
    expect((noHandlers.server.state.clientCapabilities as any).tasks).toBeUndefined();
  });

  it('basic.utilities.tasks#16: a task-augmented request of a type not declared for tasks is processed normally, the task metadata ignored', async () => {
    const elicit = deferredHandler<ElicitResult>();
    const sampling = deferredHandler<CreateMessageResult>();
    // tasks for sampling only: elicitation/create with "task" gets its ElicitResult directly
    const { ask } = await setup({ onSampling: sampling.handler, onElicitation: elicit.handler, taskReceiver: { enabled: true, methods: ['sampling/createMessage'] } });
    const pending = ask('elicitation/create', { ...FORM, task: { ttl: 60_000 } });
    await settle();
    expect(elicit.calls).toHaveLength(1);
    expect(elicit.calls[0]!.params.task).toBeUndefined();
    elicit.calls[0]!.resolve({ action: 'accept', content: { name: 'Ada' } });
    const a = await pending;
    expectSchema('ElicitResult', a.result);
    expect(a.result).toEqual({ action: 'accept', content: { name: 'Ada' } });
    expect(a.result.task).toBeUndefined();

    // a client that does not receive tasks at all answers sampling with the result itself
    const plain = deferredHandler<CreateMessageResult>();
    const other = await setup({ onSampling: plain.handler });
    const p2 = other.ask('sampling/createMessage', { ...SAMPLING, task: {} });
    await settle();
    plain.calls[0]!.resolve(SAMPLED);
    const b = await p2;
    expectSchema('CreateMessageResult', b.result);
    expect(b.result.model).toBe('test-model');
  });
});

describe('creating and following a task', () => {
  it('basic.utilities.tasks#34/#35/#20/#17/#18/#19/#64: a task-augmented sampling/createMessage is answered with a CreateTaskResult at once — a new working task with a unique, random (UUID v4) string id — while the handler still runs', async () => {
    const sampling = deferredHandler<CreateMessageResult>();
    const { ask } = await setup({ onSampling: sampling.handler, taskReceiver: { enabled: true, pollIntervalMs: 2000 } });
    const a = await ask('sampling/createMessage', { ...SAMPLING, task: { ttl: 60_000 } });
    expectSchema('CreateTaskResult', a.result);
    const task = a.result.task;
    expect(typeof task.taskId).toBe('string');
    expect(task.taskId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(task).toMatchObject({ status: 'working', ttl: 60_000, pollInterval: 2000 });
    expect(a.result.model).toBeUndefined(); // not the operation's result
    expect(sampling.calls).toHaveLength(1); // the handler runs, unfinished
    expect(sampling.calls[0]!.params.task).toBeUndefined();
    // two tasks, two ids generated by the client
    const b = await ask('sampling/createMessage', { ...SAMPLING, task: {} });
    expect(b.result.task.taskId).not.toBe(task.taskId);
  });

  it('basic.utilities.tasks#30/#31/#32: tasks/get gives createdAt and lastUpdatedAt (ISO 8601) and the actual ttl (capped at maxTtlMs)', async () => {
    const sampling = deferredHandler<CreateMessageResult>();
    const { ask } = await setup({ onSampling: sampling.handler, taskReceiver: { enabled: true, maxTtlMs: 120_000 } });
    const created = (await ask('sampling/createMessage', { ...SAMPLING, task: { ttl: 86_400_000 } })).result.task;
    const g = await ask('tasks/get', { taskId: created.taskId });
    expectSchema('GetTaskResult', g.result);
    expect(g.result.ttl).toBe(120_000);
    const iso = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;
    expect(g.result.createdAt).toMatch(iso);
    expect(g.result.lastUpdatedAt).toMatch(iso);
    vi.advanceTimersByTime(5_000);
    sampling.calls[0]!.resolve(SAMPLED);
    await settle();
    const done = (await ask('tasks/get', { taskId: created.taskId })).result;
    expect(done.status).toBe('completed');
    expect(done.createdAt).toBe(g.result.createdAt);
    expect(Date.parse(done.lastUpdatedAt) - Date.parse(done.createdAt)).toBe(5_000);
  });

  it('basic.utilities.tasks#37/#36/#61/#56: tasks/result blocks until the handler finishes, then returns its result with the related-task metadata', async () => {
    const sampling = deferredHandler<CreateMessageResult>();
    const { ask } = await setup({ onSampling: sampling.handler, taskReceiver: { enabled: true } });
    const { taskId } = (await ask('sampling/createMessage', { ...SAMPLING, task: {} })).result.task;
    let answer: Answer | undefined;
    void ask('tasks/result', { taskId }).then((a) => (answer = a));
    await vi.advanceTimersByTimeAsync(30_000);
    expect(answer).toBeUndefined(); // blocked while working
    sampling.calls[0]!.resolve(SAMPLED);
    await settle();
    expect(answer?.error).toBeUndefined();
    expectSchema('GetTaskPayloadResult', answer!.result);
    expectSchema('CreateMessageResult', answer!.result);
    expect(answer!.result).toMatchObject(SAMPLED);
    expect(answer!.result._meta[RELATED]).toEqual({ taskId });
    // terminal: answered at once, again
    const again = await ask('tasks/result', { taskId });
    expect(again.result).toEqual(answer!.result);
  });

  it('basic.utilities.tasks#38/#60/#59: a failing handler fails the task (statusMessage says why) and tasks/result returns the same JSON-RPC error a plain request gets', async () => {
    const onSampling = async () => {
      throw new JsonRpcError(-1, 'User rejected sampling request');
    };
    const { ask } = await setup({ onSampling, taskReceiver: { enabled: true } });
    const plainError = (await ask('sampling/createMessage', SAMPLING)).error;
    expect(plainError).toEqual({ code: -1, message: 'User rejected sampling request' });
    const { taskId } = (await ask('sampling/createMessage', { ...SAMPLING, task: {} })).result.task;
    await settle();
    const g = (await ask('tasks/get', { taskId })).result;
    expect(g.status).toBe('failed');
    expect(g.statusMessage).toContain('User rejected sampling request');
    const r = await ask('tasks/result', { taskId });
    expect(r.result).toBeUndefined();
    expect(r.error).toEqual(plainError);
    expectSchema('JSONRPCErrorResponse', { jsonrpc: '2.0', id: 1, error: r.error });

    // an invalid request (the handler's own -32602) fails the task the same way
    const bad = await ask('sampling/createMessage', { maxTokens: 5, task: {} });
    expectSchema('CreateTaskResult', bad.result);
    await settle();
    expect((await ask('tasks/result', { taskId: bad.result.task.taskId })).error).toEqual((await ask('sampling/createMessage', { maxTokens: 5 })).error);
  });

  it('basic.utilities.tasks#45: a status change is sent as notifications/tasks/status with the full task and no related-task metadata', async () => {
    const sampling = deferredHandler<CreateMessageResult>();
    const { ask, received } = await setup({ onSampling: sampling.handler, taskReceiver: { enabled: true } });
    const { taskId } = (await ask('sampling/createMessage', { ...SAMPLING, task: {} })).result.task;
    sampling.calls[0]!.resolve(SAMPLED);
    await settle();
    const notes = received.filter((m) => m.method === 'notifications/tasks/status');
    expect(notes).toHaveLength(1);
    expectSchema('TaskStatusNotification', { jsonrpc: '2.0', ...notes[0] });
    expect(notes[0]!.params).toMatchObject({ taskId, status: 'completed', ttl: expect.any(Number) });
    expect(notes[0]!.params._meta?.[RELATED]).toBeUndefined();
  });
});

describe('tasks/get, tasks/list, tasks/cancel', () => {
  it('basic.utilities.tasks#41/#42/#43: the taskId parameter names the task, a related-task _meta naming another is ignored, and the answers carry no related-task metadata', async () => {
    const sampling = deferredHandler<CreateMessageResult>();
    const { ask } = await setup({ onSampling: sampling.handler, taskReceiver: { enabled: true } });
    const one = (await ask('sampling/createMessage', { ...SAMPLING, task: {} })).result.task.taskId;
    const two = (await ask('sampling/createMessage', { ...SAMPLING, task: {} })).result.task.taskId;
    sampling.calls[1]!.resolve(SAMPLED);
    await settle();
    const g = await ask('tasks/get', { taskId: one, _meta: { [RELATED]: { taskId: two } } });
    expect(g.result).toMatchObject({ taskId: one, status: 'working' });
    expect(g.result._meta).toBeUndefined();
    const r = await ask('tasks/result', { taskId: two, _meta: { [RELATED]: { taskId: one } } });
    expect(r.result._meta[RELATED]).toEqual({ taskId: two });
    const l = await ask('tasks/list');
    expect(l.result._meta).toBeUndefined();
    const c = await ask('tasks/cancel', { taskId: one, _meta: { [RELATED]: { taskId: two } } });
    expect(c.result).toMatchObject({ taskId: one, status: 'cancelled' });
    expect(c.result._meta).toBeUndefined();
  });

  it('basic.utilities.tasks#46/#47/#48/#49: tasks/list pages through every task with an opaque nextCursor', async () => {
    const sampling = deferredHandler<CreateMessageResult>();
    const { ask } = await setup({ onSampling: sampling.handler, taskReceiver: { enabled: true, listPageSize: 2 } });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await ask('sampling/createMessage', { ...SAMPLING, task: {} })).result.task.taskId);
    sampling.calls[0]!.resolve(SAMPLED);
    await settle();
    const seen: string[] = [];
    const pages: number[] = [];
    let cursor: string | undefined;
    do {
      const page = await ask('tasks/list', cursor === undefined ? undefined : { cursor });
      expectSchema('ListTasksResult', page.result);
      pages.push(page.result.tasks.length);
      seen.push(...page.result.tasks.map((t: { taskId: string }) => t.taskId));
      cursor = page.result.nextCursor;
    } while (cursor !== undefined);
    expect(pages).toEqual([2, 2, 1]);
    // every task tasks/get can retrieve is listed, completed or not
    expect(seen).toEqual(ids);
    for (const id of ids) expect((await ask('tasks/get', { taskId: id })).result.taskId).toBe(id);
  });

  it('basic.utilities.tasks#50/#51/#52: tasks/cancel cancels before answering and aborts the handler; the task stays cancelled; cancelling a terminal task is -32602', async () => {
    const sampling = deferredHandler<CreateMessageResult>();
    const { ask } = await setup({ onSampling: sampling.handler, taskReceiver: { enabled: true } });
    const { taskId } = (await ask('sampling/createMessage', { ...SAMPLING, task: {} })).result.task;
    let blocked: Answer | undefined;
    void ask('tasks/result', { taskId }).then((a) => (blocked = a));
    await settle();
    const c = await ask('tasks/cancel', { taskId });
    expectSchema('CancelTaskResult', c.result);
    expect(c.result.status).toBe('cancelled');
    expect(sampling.calls[0]!.signal.aborted).toBe(true);
    // the handler finishing anyway changes nothing (#52)
    sampling.calls[0]!.resolve(SAMPLED);
    await settle();
    expect((await ask('tasks/get', { taskId })).result.status).toBe('cancelled');
    // the blocked tasks/result ends with an error, not the late result
    expect(blocked?.result).toBeUndefined();
    expect(blocked?.error).toMatchObject({ code: -32603, message: expect.stringMatching(/cancelled/) });
    // #50: terminal → -32602, for cancelled and completed alike
    const again = await ask('tasks/cancel', { taskId });
    expect(again.error).toMatchObject({ code: -32602, message: "Cannot cancel task: already in terminal status 'cancelled'" });
    const done = (await ask('sampling/createMessage', { ...SAMPLING, task: {} })).result.task.taskId;
    sampling.calls[1]!.resolve(SAMPLED);
    await settle();
    expect((await ask('tasks/cancel', { taskId: done })).error).toMatchObject({ code: -32602, message: "Cannot cancel task: already in terminal status 'completed'" });
    expect((await ask('tasks/get', { taskId: done })).result.status).toBe('completed');
  });

  it('basic.utilities.tasks#57/#58: an unknown taskId in tasks/get, tasks/result, tasks/cancel and an unknown cursor in tasks/list are -32602 with a message', async () => {
    const sampling = deferredHandler<CreateMessageResult>();
    const { ask } = await setup({ onSampling: sampling.handler, taskReceiver: { enabled: true } });
    for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
      const a = await ask(method, { taskId: 'no-such-task' });
      expect(a.error, method).toEqual({ code: -32602, message: 'Failed to retrieve task: Task not found' });
      expectSchema('JSONRPCErrorResponse', { jsonrpc: '2.0', id: 1, error: a.error });
    }
    expect((await ask('tasks/get', {})).error).toMatchObject({ code: -32602, message: expect.stringContaining('taskId') });
    expect((await ask('tasks/list', { cursor: 'bm90LWEtY3Vyc29y' })).error).toMatchObject({ code: -32602, message: expect.stringContaining('cursor') });
  });

  it('basic.utilities.tasks#69: a task is deleted once its ttl has elapsed (a running handler is aborted; tasks/get is then -32602)', async () => {
    const sampling = deferredHandler<CreateMessageResult>();
    const { ask } = await setup({ onSampling: sampling.handler, taskReceiver: { enabled: true } });
    const { taskId, ttl } = (await ask('sampling/createMessage', { ...SAMPLING, task: { ttl: 10_000 } })).result.task;
    expect(ttl).toBe(10_000);
    let blocked: Answer | undefined;
    void ask('tasks/result', { taskId }).then((a) => (blocked = a));
    await vi.advanceTimersByTimeAsync(9_999);
    expect((await ask('tasks/get', { taskId })).result.status).toBe('working');
    expect(blocked).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(sampling.calls[0]!.signal.aborted).toBe(true);
    expect(blocked?.error).toEqual({ code: -32602, message: 'Failed to retrieve task: Task has expired' });
    expect((await ask('tasks/get', { taskId })).error).toMatchObject({ code: -32602 });
    expect((await ask('tasks/list')).result.tasks).toEqual([]);
  });
});

describe('elicitation as a task', () => {
  it('basic.utilities.tasks#34/#36/#56: a task-augmented elicitation/create runs the elicitation handler as a task; tasks/result gives its ElicitResult', async () => {
    const elicit = deferredHandler<ElicitResult>();
    const { ask } = await setup({ onElicitation: elicit.handler, taskReceiver: { enabled: true } });
    const a = await ask('elicitation/create', { ...FORM, task: { ttl: 30_000 } });
    expectSchema('CreateTaskResult', a.result);
    const { taskId } = a.result.task;
    expect(elicit.calls[0]!.params).toMatchObject({ message: 'Your name?', mode: 'form' });
    elicit.calls[0]!.resolve({ action: 'accept', content: { name: 'Ada' } });
    const r = await ask('tasks/result', { taskId });
    expectSchema('ElicitResult', r.result);
    expect(r.result).toEqual({ action: 'accept', content: { name: 'Ada' }, _meta: { [RELATED]: { taskId } } });
  });
});

describe('status transitions', () => {
  it('basic.utilities.tasks#21/#22: every status a receiver task goes through follows the valid paths, and a terminal task never moves again', async () => {
    const sampling = deferredHandler<CreateMessageResult>();
    const { ask, received } = await setup({ onSampling: sampling.handler, taskReceiver: { enabled: true } });
    const history = new Map<string, string[]>();
    const note = (taskId: string, status: string) => {
      const h = history.get(taskId) ?? [];
      if (h.at(-1) !== status) h.push(status);
      history.set(taskId, h);
    };
    const start = async () => {
      const t = (await ask('sampling/createMessage', { ...SAMPLING, task: {} })).result.task;
      note(t.taskId, t.status);
      return { taskId: t.taskId as string, call: sampling.calls.at(-1)! };
    };
    const completed = await start();
    const failed = await start();
    const cancelledThenDone = await start();
    const cancelledThenFails = await start();
    completed.call.resolve(SAMPLED);
    failed.call.reject(new Error('model unavailable'));
    await settle();
    await ask('tasks/cancel', { taskId: cancelledThenDone.taskId });
    await ask('tasks/cancel', { taskId: cancelledThenFails.taskId });
    // the handlers finish after the cancel: a terminal task must not move (#22)
    cancelledThenDone.call.resolve(SAMPLED);
    cancelledThenFails.call.reject(new Error('late failure'));
    await settle();
    await vi.advanceTimersByTimeAsync(50);
    for (const t of [completed, failed, cancelledThenDone, cancelledThenFails]) {
      note(t.taskId, (await ask('tasks/get', { taskId: t.taskId })).result.status);
    }
    // every status the client announced, in order, merged with what tasks/get said
    const ordered = new Map<string, string[]>();
    for (const m of received) {
      if (m.method !== 'notifications/tasks/status') continue;
      const h = ordered.get(m.params.taskId) ?? [];
      if (h.at(-1) !== m.params.status) h.push(m.params.status);
      ordered.set(m.params.taskId, h);
    }
    const VALID: Record<string, string[]> = {
      working: ['input_required', 'completed', 'failed', 'cancelled'],
      input_required: ['working', 'completed', 'failed', 'cancelled'],
      completed: [],
      failed: [],
      cancelled: [],
    };
    for (const [taskId, h] of history) {
      const seq = ['working', ...(ordered.get(taskId) ?? []), h.at(-1)!].filter((s, i, a) => i === 0 || a[i - 1] !== s);
      for (let i = 1; i < seq.length; i++) expect(VALID[seq[i - 1]!], `${taskId}: ${seq.join(' → ')}`).toContain(seq[i]);
    }
    expect(history.get(completed.taskId)!.at(-1)).toBe('completed');
    expect(history.get(failed.taskId)!.at(-1)).toBe('failed');
    expect(history.get(cancelledThenDone.taskId)!.at(-1)).toBe('cancelled');
    expect(history.get(cancelledThenFails.taskId)!.at(-1)).toBe('cancelled');
    // no status notification for a cancelled task after its cancellation
    expect(ordered.get(cancelledThenDone.taskId) ?? []).not.toContain('completed');
    expect(ordered.get(cancelledThenFails.taskId) ?? []).not.toContain('failed');
  });
});
