/**
 * Tasks, the client as receiver (basic/utilities/tasks): a server may send `sampling/createMessage`
 * or `elicitation/create` as a task-augmented request (`params.task`) when the client declared
 * `tasks.requests.sampling.createMessage` / `tasks.requests.elicitation.create`. The client then
 * creates and owns the task: it answers with a `CreateTaskResult` at once, runs the host's
 * ordinary handler (client-features.ts) in the background, and answers the server's `tasks/get`,
 * `tasks/result` (blocks until the task is terminal), `tasks/list` (paginated) and `tasks/cancel`
 * (aborts the handler's signal). Status changes go out as `notifications/tasks/status`.
 *
 * Enabled by the host only (`ClientOptions.taskReceiver`). Limits (basic.utilities.tasks#69):
 * at most `maxTasks` tasks are kept (default 64; a new task beyond that is refused with -32603
 * unless a cancelled task can be dropped), a requested `ttl` is honoured within
 * [1 s, `maxTtlMs`] (default 1 h), and every task is deleted once its ttl has elapsed (timers
 * unref'd). Tasks belong to the connection (one requestor: the server at its other end); task
 * ids are random UUIDs (basic.utilities.tasks#64).
 */
import { AbortError, JsonRpcError } from '../errors.js';
import { ErrorCode, type JSONRPCErrorObject } from '../jsonrpc/types.js';
import type { Connection, IncomingRequestContext, RequestHandler } from '../protocol/connection.js';
import { toErrorObject } from '../protocol/incoming.js';
import { isTerminalStatus, RELATED_TASK_META_KEY } from './tasks.js';
import { TASK_RECEIVER_METHODS, taskReceiverMethods, type TaskReceiverHost, type TaskReceiverMethod, type TaskReceiverOptions } from './task-receiver-options.js';
import type { CreateTaskResult, ListTasksResult, Task, TaskStatus } from './types.js';

export { type TaskReceiverHost, type TaskReceiverMethod, type TaskReceiverOptions } from './task-receiver-options.js';

const MIN_TTL_MS = 1_000;

type Outcome = { result: Record<string, unknown> } | { error: JSONRPCErrorObject };

interface Entry {
  task: Task;
  seq: number;
  controller: AbortController;
  outcome: Outcome | undefined;
  timer: ReturnType<typeof setTimeout>;
  /** `tasks/result` requests waiting for a terminal status (or the task's deletion). */
  waiters: Set<() => void>;
}

const invalid = (message: string) => new JsonRpcError(ErrorCode.InvalidParams, message);

/** Creates the receiver on `connection` when the options enable it (its `tasks/*` handlers installed). */
export function createTaskReceiver(connection: Connection, o: TaskReceiverHost, negotiated: () => boolean): TaskReceiver | undefined {
  const methods = taskReceiverMethods(o);
  if (methods.length === 0) return undefined;
  return new TaskReceiver(connection, o.taskReceiver!, methods, negotiated);
}

export class TaskReceiver {
  private readonly tasks = new Map<string, Entry>();
  private readonly methods: ReadonlySet<string>;
  private readonly limits: Required<Omit<TaskReceiverOptions, 'enabled' | 'methods'>>;
  /** Makes this receiver's cursors its own: another connection's cursor is invalid here. */
  private readonly cursorNonce = globalThis.crypto.randomUUID().slice(0, 8);
  private seq = 0;
  private disposed = false;

  constructor(
    private readonly connection: Connection,
    o: TaskReceiverOptions,
    methods: readonly TaskReceiverMethod[],
    /** Whether the negotiated revision has tasks (versions.ts). */
    private readonly negotiated: () => boolean,
  ) {
    this.methods = new Set(methods);
    const maxTtlMs = Math.max(MIN_TTL_MS, o.maxTtlMs ?? 3_600_000);
    this.limits = {
      maxTtlMs,
      defaultTtlMs: Math.min(maxTtlMs, Math.max(MIN_TTL_MS, o.defaultTtlMs ?? 300_000)),
      maxTasks: Math.max(1, o.maxTasks ?? 64),
      pollIntervalMs: Math.max(0, o.pollIntervalMs ?? 1_000),
      listPageSize: Math.max(1, o.listPageSize ?? 50),
      statusNotifications: o.statusNotifications !== false,
    };
    // Straight on the connection: these answers carry no echoed related-task metadata (tasks#43).
    connection.setRequestHandler('tasks/get', (p) => this.snapshot(this.find(p)));
    connection.setRequestHandler('tasks/result', (p, ctx) => this.result(p, ctx));
    connection.setRequestHandler('tasks/list', (p) => this.list(p));
    connection.setRequestHandler('tasks/cancel', (p) => this.cancel(p));
  }

  /** How many tasks are kept now. */
  get size(): number {
    return this.tasks.size;
  }

  /**
   * `connection` whose `sampling/createMessage` and `elicitation/create` handlers (installed by
   * client-features.ts) run task-augmented requests as tasks.
   */
  augmenting(connection: Connection): Connection {
    return new Proxy(connection, {
      get: (target, prop) => {
        if (prop === 'setRequestHandler') {
          return (method: string, handler: RequestHandler) =>
            target.setRequestHandler(method, (TASK_RECEIVER_METHODS as readonly string[]).includes(method) ? this.wrap(method, handler) : handler);
        }
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  }

  /** The connection closed: every task ends with it (handlers aborted, timers cleared). */
  dispose(): void {
    this.disposed = true;
    for (const e of [...this.tasks.values()]) this.remove(e, 'the connection closed');
  }

  private wrap(method: string, handler: RequestHandler): RequestHandler {
    return (params, ctx) => {
      const task = params?.task;
      if (task === undefined) return handler(params, ctx);
      const plain = { ...params };
      delete plain.task;
      // basic.utilities.tasks#16: a request type not declared for tasks (or a revision without
      // tasks) is processed normally, the task metadata ignored.
      if (!this.methods.has(method) || !this.negotiated() || this.disposed) return handler(plain, ctx);
      if (task === null || typeof task !== 'object' || Array.isArray(task)) throw invalid('"task" must be an object (TaskMetadata)');
      return this.create((task as { ttl?: unknown }).ttl, (signal) => handler(plain, { id: ctx.id, signal, cancel: signal }));
    };
  }

  /** basic.utilities.tasks#18/#20/#34/#35: a new `working` task, answered at once; the handler runs on. */
  private create(requestedTtl: unknown, run: (signal: AbortSignal) => ReturnType<RequestHandler>): CreateTaskResult {
    this.makeRoom();
    const now = new Date().toISOString();
    const ttl = this.ttlFor(requestedTtl);
    // basic.utilities.tasks#17/#19/#64: a string id, unique, unguessable.
    const task: Task = { taskId: globalThis.crypto.randomUUID(), status: 'working', createdAt: now, lastUpdatedAt: now, ttl, pollInterval: this.limits.pollIntervalMs };
    const entry: Entry = { task, seq: this.seq++, controller: new AbortController(), outcome: undefined, timer: undefined as never, waiters: new Set() };
    // After its ttl a task may be deleted, whatever its status (basic/utilities/tasks: TTL).
    entry.timer = setTimeout(() => this.remove(entry, 'its ttl elapsed'), ttl);
    entry.timer.unref?.();
    this.tasks.set(task.taskId, entry);
    let out: ReturnType<RequestHandler>;
    try {
      out = run(entry.controller.signal);
    } catch (err) {
      out = Promise.reject(err);
    }
    Promise.resolve(out).then(
      (result) => this.settle(entry, { result: result ?? {} }),
      (err: unknown) => this.settle(entry, { error: toErrorObject(err) }),
    );
    return { task: { ...task } };
  }

  private ttlFor(requested: unknown): number {
    if (typeof requested !== 'number' || !Number.isFinite(requested)) return this.limits.defaultTtlMs;
    return Math.min(this.limits.maxTtlMs, Math.max(MIN_TTL_MS, Math.floor(requested)));
  }

  /** basic.utilities.tasks#69: the store is bounded; only a cancelled task may make room early. */
  private makeRoom(): void {
    if (this.tasks.size < this.limits.maxTasks) return;
    const cancelled = [...this.tasks.values()].find((e) => e.task.status === 'cancelled');
    if (cancelled !== undefined) {
      this.remove(cancelled, 'dropped to make room');
      return;
    }
    throw new JsonRpcError(ErrorCode.InternalError, `Cannot create task: this client keeps at most ${this.limits.maxTasks} tasks; retry once one has expired`);
  }

  /** The handler finished: the task becomes completed or failed, unless already cancelled (#52). */
  private settle(entry: Entry, outcome: Outcome): void {
    if (this.tasks.get(entry.task.taskId) !== entry || isTerminalStatus(entry.task.status)) return;
    entry.outcome = outcome;
    if ('result' in outcome) this.transition(entry, 'completed');
    // basic.utilities.tasks#59: a failed task's statusMessage says why.
    else this.transition(entry, 'failed', `The request failed: ${outcome.error.message}`.slice(0, 500));
  }

  /** basic.utilities.tasks#21/#22: working → terminal only; a terminal task never changes. */
  private transition(entry: Entry, status: TaskStatus, statusMessage?: string): void {
    const { statusMessage: _old, ...rest } = entry.task;
    entry.task = { ...rest, status, lastUpdatedAt: new Date().toISOString(), ...(statusMessage !== undefined ? { statusMessage } : {}) };
    for (const wake of entry.waiters) wake();
    entry.waiters.clear();
    if (this.limits.statusNotifications) this.notifyStatus(entry.task);
  }

  /**
   * `notifications/tasks/status` (MAY), the full task and no related-task metadata (tasks#45).
   * Sent from a timer so it never overtakes the CreateTaskResult of a task that finishes at once.
   */
  private notifyStatus(task: Task): void {
    const params = { ...task } as Record<string, unknown>;
    setTimeout(() => {
      if (!this.disposed) this.connection.notify('notifications/tasks/status', params).catch(() => {});
    }, 0).unref?.();
  }

  /** Deletes a task (ttl elapsed, room needed, connection closed); a running handler is aborted. */
  private remove(entry: Entry, why: string): void {
    if (this.tasks.get(entry.task.taskId) !== entry) return;
    clearTimeout(entry.timer);
    this.tasks.delete(entry.task.taskId);
    if (!isTerminalStatus(entry.task.status)) entry.controller.abort(new AbortError(`task ${entry.task.taskId} deleted: ${why}`));
    for (const wake of entry.waiters) wake();
    entry.waiters.clear();
  }

  /** basic.utilities.tasks#41/#42/#57: `params.taskId` names the task (never `_meta`); unknown → -32602. */
  private find(params: Record<string, unknown> | undefined): Entry {
    const id = params?.taskId;
    if (typeof id !== 'string') throw invalid('"taskId" must be a string');
    const entry = this.tasks.get(id);
    if (entry === undefined) throw invalid('Failed to retrieve task: Task not found');
    return entry;
  }

  /** A copy of the task for a response (#30/#31/#32: createdAt, lastUpdatedAt, ttl always there). */
  private snapshot(entry: Entry): Record<string, unknown> {
    return { ...entry.task };
  }

  /**
   * `tasks/result`: blocks until the task is terminal (#37), then answers exactly what the
   * request would have (#36/#38/#60/#61), the result with related-task metadata (#56).
   */
  private async result(params: Record<string, unknown> | undefined, ctx: IncomingRequestContext): Promise<Record<string, unknown>> {
    const entry = this.find(params);
    if (!isTerminalStatus(entry.task.status)) await this.untilTerminal(entry, ctx.signal);
    if (this.tasks.get(entry.task.taskId) !== entry) throw invalid('Failed to retrieve task: Task has expired');
    const outcome = entry.outcome;
    if (outcome === undefined) throw new JsonRpcError(ErrorCode.InternalError, `Task ${entry.task.taskId} was cancelled`);
    if ('error' in outcome) throw new JsonRpcError(outcome.error.code, outcome.error.message, outcome.error.data);
    const meta = outcome.result._meta !== null && typeof outcome.result._meta === 'object' ? (outcome.result._meta as Record<string, unknown>) : {};
    return { ...outcome.result, _meta: { ...meta, [RELATED_TASK_META_KEY]: { taskId: entry.task.taskId } } };
  }

  /** Resolves when the task turns terminal or is deleted; rejects when the server cancels the wait. */
  private untilTerminal(entry: Entry, signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        entry.waiters.delete(wake);
        reject(signal.reason);
      };
      const wake = () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      if (signal.aborted) return onAbort();
      entry.waiters.add(wake);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** `tasks/list` in creation order, `listPageSize` at a time (#46/#47/#49); a bad cursor → -32602. */
  private list(params: Record<string, unknown> | undefined): Record<string, unknown> {
    const after = params?.cursor === undefined ? -1 : this.readCursor(params.cursor);
    const rest = [...this.tasks.values()].filter((e) => e.seq > after);
    const page = rest.slice(0, this.limits.listPageSize);
    const out: ListTasksResult = { tasks: page.map((e) => ({ ...e.task })) };
    if (rest.length > page.length) out.nextCursor = Buffer.from(`${this.cursorNonce}:${page[page.length - 1]!.seq}`).toString('base64url');
    return out as unknown as Record<string, unknown>;
  }

  private readCursor(cursor: unknown): number {
    const [nonce, seq] = typeof cursor === 'string' ? Buffer.from(cursor, 'base64url').toString('utf8').split(':') : [];
    const n = Number(seq);
    if (nonce !== this.cursorNonce || seq === undefined || !/^\d+$/.test(seq) || !Number.isSafeInteger(n)) throw invalid('Invalid cursor for tasks/list');
    return n;
  }

  /** `tasks/cancel`: terminal → -32602 (#50); else cancelled before the answer (#51), handler aborted. */
  private cancel(params: Record<string, unknown> | undefined): Record<string, unknown> {
    const entry = this.find(params);
    if (isTerminalStatus(entry.task.status)) throw invalid(`Cannot cancel task: already in terminal status '${entry.task.status}'`);
    this.transition(entry, 'cancelled', 'The task was cancelled by request.');
    entry.controller.abort(new AbortError(`task ${entry.task.taskId} cancelled by the server (tasks/cancel)`));
    return this.snapshot(entry);
  }
}
