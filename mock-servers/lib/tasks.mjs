// Tasks for the scripted mock server (basic/utilities/tasks, the server as receiver):
// task-augmented tools/call, notifications/tasks/status, tasks/get, tasks/result, tasks/list,
// tasks/cancel, and input_required: a request the tool sends the client while running as a task
// carries the related-task metadata and is held until the client calls tasks/result.
//
// Scenario key `tasks` (absent: no task support; the server ignores `task` in params):
//   { "pollInterval": 50, "ttl": 60000, "maxTtl": 600000, "list": true, "cancel": true,
//     "toolsCall": true, "statusNotifications": true, "pageSize": 0 }
// A tool opts in with "execution": { "taskSupport": "optional" | "required" }.

import { randomUUID } from 'node:crypto';
import { paginate } from './catalog.mjs';
import { RpcError, INVALID_PARAMS, METHOD_NOT_FOUND, INTERNAL_ERROR, isObject } from './rpc.mjs';

export const RELATED_TASK = 'io.modelcontextprotocol/related-task';
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/** The `tasks` server capability a scenario's `tasks` key declares (undefined: none). */
export function taskCapabilities(cfg) {
  if (!cfg) return undefined;
  const caps = {};
  if (cfg.list !== false) caps.list = {};
  if (cfg.cancel !== false) caps.cancel = {};
  if (cfg.toolsCall !== false) caps.requests = { tools: { call: {} } };
  return caps;
}

/**
 * A task store bound to one scenario server. `deps`: { capabilities, notify(method, params, ctx),
 * request(method, params, {signal, ctx}), runTool(params, signal, ctx, request, taskId) → Promise<result> }.
 */
export function createTaskStore(cfg, deps) {
  const tasks = new Map(); // taskId → { task, outcome?, controller, queue, waiters, resultCtx }
  const conf = cfg ?? {};
  const acceptsToolTasks = () => isObject(deps.capabilities.tasks?.requests?.tools?.call);

  const pub = (t) => ({ ...t.task });
  const now = () => new Date().toISOString();

  function setStatus(t, status, statusMessage) {
    if (TERMINAL.has(t.task.status)) return; // terminal is final (basic.utilities.tasks#22, #52)
    t.task.status = status;
    if (statusMessage === undefined) delete t.task.statusMessage;
    else t.task.statusMessage = statusMessage;
    t.task.lastUpdatedAt = now();
    if (conf.statusNotifications !== false) deps.notify('notifications/tasks/status', pub(t), t.ctx);
    if (TERMINAL.has(status)) for (const w of t.waiters.splice(0)) w();
  }

  /**
   * tools/call: undefined when the call is to be processed normally, else the CreateTaskResult.
   * Throws -32601 when the tool's taskSupport forbids what the client did (tasks#6, #8).
   */
  function maybeCreate(params, tool) {
    const support = tool?.def.execution?.taskSupport ?? 'forbidden';
    const augmented = isObject(params.task);
    if (!acceptsToolTasks()) return undefined; // tasks#16: not declared → ignore `task`
    if (!augmented) {
      if (support === 'required') throw new RpcError(METHOD_NOT_FOUND, `Tool ${params.name} requires task augmentation`);
      return undefined;
    }
    if (!tool) throw new RpcError(INVALID_PARAMS, `Unknown tool: ${params.name}`);
    if (support === 'forbidden') throw new RpcError(METHOD_NOT_FOUND, `Tool ${params.name} does not support task augmentation`);
    return create(params);
  }

  /**
   * The task outlives the tools/call exchange (over HTTP, its response stream), so what it sends
   * on its own — status notifications, the tool's notifications — goes out on the default stream
   * (stdio; the HTTP GET stream: basic.utilities.tasks#23). Held requests go on tasks/result's.
   */
  function create(params) {
    const requested = Number.isFinite(params.task.ttl) ? params.task.ttl : conf.ttl ?? 60_000;
    const ttl = conf.maxTtl ? Math.min(requested, conf.maxTtl) : requested;
    const created = now();
    const t = {
      task: { taskId: randomUUID(), status: 'working', createdAt: created, lastUpdatedAt: created, ttl, ...(conf.pollInterval !== undefined ? { pollInterval: conf.pollInterval } : {}) },
      controller: new AbortController(),
      queue: [],
      waiters: [],
      ctx: undefined,
      resultCtx: undefined,
    };
    tasks.set(t.task.taskId, t);
    const { task: _omit, ...callParams } = params;
    // Defer the start so the CreateTaskResult goes out first (tasks#35).
    queueMicrotask(() => run(t, callParams));
    return { task: pub(t) };
  }

  async function run(t, callParams) {
    const taskRequest = (method, params) => held(t, method, params);
    try {
      const result = await deps.runTool(callParams, t.controller.signal, t.ctx, taskRequest, t.task.taskId);
      finish(t, { result }, result?.isError ? 'failed' : 'completed');
    } catch (err) {
      if (t.task.status === 'cancelled') return;
      const error = err instanceof RpcError ? err.toJSON() : { code: INTERNAL_ERROR, message: String(err?.message ?? err) };
      finish(t, { error }, 'failed', error.message);
    }
  }

  function finish(t, outcome, status, message) {
    if (TERMINAL.has(t.task.status)) return;
    t.outcome = outcome;
    setStatus(t, status, message);
  }

  /** A request of the running task to the client: input_required until answered (tasks#26, #27, #29). */
  function held(t, method, params) {
    const meta = { ...(isObject(params?._meta) ? params._meta : {}), [RELATED_TASK]: { taskId: t.task.taskId } };
    return new Promise((resolve, reject) => {
      t.queue.push({ method, params: { ...(params ?? {}), _meta: meta }, resolve, reject });
      setStatus(t, 'input_required', `waiting for the client to answer ${method}`);
      if (t.resultCtx !== undefined) flush(t);
    }).then((answer) => {
      if (t.queue.length === 0) setStatus(t, 'working', undefined);
      return answer;
    });
  }

  function flush(t) {
    for (const q of t.queue.splice(0)) deps.request(q.method, q.params, { signal: t.controller.signal, ctx: t.resultCtx }).then(q.resolve, q.reject);
  }

  function get(params) {
    const id = params?.taskId;
    const t = typeof id === 'string' ? tasks.get(id) : undefined;
    if (!t) throw new RpcError(INVALID_PARAMS, `Failed to retrieve task: Task not found`);
    return t;
  }

  /** tasks/result: blocks until terminal (tasks#37); delivers held requests meanwhile. */
  async function result(params, ctx) {
    const t = get(params);
    t.resultCtx = ctx ?? null;
    flush(t);
    if (!TERMINAL.has(t.task.status)) await new Promise((resolve) => t.waiters.push(resolve));
    t.resultCtx = undefined;
    const related = { [RELATED_TASK]: { taskId: t.task.taskId } };
    if (t.outcome?.error) throw new RpcError(t.outcome.error.code, t.outcome.error.message, t.outcome.error.data);
    if (!t.outcome) throw new RpcError(INTERNAL_ERROR, `Task ${t.task.taskId} was cancelled`);
    return { ...t.outcome.result, _meta: { ...(t.outcome.result?._meta ?? {}), ...related } };
  }

  function cancel(params) {
    const t = get(params);
    if (TERMINAL.has(t.task.status)) throw new RpcError(INVALID_PARAMS, `Cannot cancel task: already in terminal status '${t.task.status}'`);
    setStatus(t, 'cancelled', 'The task was cancelled by request.');
    t.controller.abort('cancelled');
    for (const q of t.queue.splice(0)) q.reject(new Error('cancelled'));
    return pub(t);
  }

  function list(params) {
    const { page, nextCursor } = paginate('tasks', [...tasks.values()], params, conf.pageSize);
    return { tasks: page.map(pub), ...(nextCursor ? { nextCursor } : {}) };
  }

  const declared = (key) => isObject(deps.capabilities.tasks?.[key]);
  const handlers = {
    'tasks/get': (p) => deps.capabilities.tasks && pub(get(p)),
    'tasks/result': (p, _signal, ctx) => deps.capabilities.tasks && result(p, ctx),
    'tasks/list': (p) => declared('list') && list(p),
    'tasks/cancel': (p) => declared('cancel') && cancel(p),
  };

  return { maybeCreate, handlers, tasks };
}
