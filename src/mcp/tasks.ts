/**
 * Tasks, the client as requestor (basic/utilities/tasks): which tool calls are task-augmented
 * (`toolCallMode`: the server's `tasks.requests.tools.call` capability and the tool's
 * `execution.taskSupport`), the typed task requests (`tools/call` with `task`, `tasks/get`,
 * `tasks/result`, `tasks/list`, `tasks/cancel`), and `callTool`, which turns a task back into
 * one awaited result: create it, follow `notifications/tasks/status` while polling `tasks/get`
 * (the server's `pollInterval`, a backoff while nothing changes, a ceiling), call `tasks/result`
 * once the task is terminal or needs input (the server's requests carrying related-task metadata
 * are answered meanwhile by the client's ordinary handlers), and send `tasks/cancel` when the
 * caller aborts or the call's total deadline passes.
 *
 * The client as task receiver (server-initiated task-augmented sampling/elicitation) lives in
 * task-receiver.ts.
 */
import { CapabilityError, JsonRpcError, ProtocolError } from '../errors.js';
import type { Connection, ConnectionDiagnostic, RequestHandler, RequestOptions } from '../protocol/connection.js';
import { UNKNOWN_PROGRESS } from '../protocol/options.js';
import type { ProgressCallback, ProgressParams } from '../protocol/registry.js';
import { missingCapability, missingTaskCapability } from './capabilities.js';
import { answerInputRequest, missingInputHandler, type ClientFeatureOptions, type ClientFeatureState } from './client-features.js';
import type { CallToolOptions, TaskPollOptions } from './client-options.js';
import { Deadline } from './task-deadline.js';
import type { ShapeTable } from './result-shapes.js';
import type { CancelTaskResult, ListTasksResult, ServerCapabilities, Task, TaskStatus, TaskSupport } from './types.js';
import { withAbortSignal } from '../util/cancel.js';

/** The `_meta` key associating a message with its task (basic.utilities.tasks#39). */
export const RELATED_TASK_META_KEY = 'io.modelcontextprotocol/related-task';

const STATUSES: ReadonlySet<string> = new Set<TaskStatus>(['working', 'input_required', 'completed', 'failed', 'cancelled']);

/** basic.utilities.tasks#22: completed, failed and cancelled are terminal. */
export function isTerminalStatus(status: TaskStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/** What is wrong with a value that should be a `Task`, or undefined. */
export function taskProblem(t: unknown): string | undefined {
  if (t === null || typeof t !== 'object' || Array.isArray(t)) return 'the task is not an object';
  const r = t as Record<string, unknown>;
  // basic.utilities.tasks#17: task ids are strings.
  if (typeof r.taskId !== 'string' || r.taskId === '') return '"taskId" is not a non-empty string';
  if (typeof r.status !== 'string' || !STATUSES.has(r.status)) return `"status" ${JSON.stringify(r.status)?.slice(0, 40)} is not a task status`;
  if (r.pollInterval !== undefined && (typeof r.pollInterval !== 'number' || !(r.pollInterval >= 0))) return '"pollInterval" is not a non-negative number';
  return undefined;
}

/**
 * basic.utilities.tasks#39/#40: the answer to a server request tied to a task (an elicitation a
 * task-augmented tool call waits for) carries the same related-task metadata as the request.
 */
export function echoRelatedTask(handler: RequestHandler): RequestHandler {
  return async (params, ctx) => {
    const result = await handler(params, ctx);
    const related = (params?._meta as Record<string, unknown> | undefined)?.[RELATED_TASK_META_KEY] as { taskId?: unknown } | undefined;
    if (typeof related?.taskId !== 'string' || result === null || typeof result !== 'object') return result;
    const meta = result._meta !== null && typeof result._meta === 'object' ? (result._meta as Record<string, unknown>) : {};
    return { ...result, _meta: { ...meta, [RELATED_TASK_META_KEY]: { taskId: related.taskId } } };
  };
}

/**
 * `connection` whose request handlers (installed by client-features.ts) answer with the
 * related-task metadata of the request they answer (`echoRelatedTask`).
 */
export function relatedTaskEchoing(connection: Connection): Connection {
  return new Proxy(connection, {
    get(target, prop) {
      if (prop === 'setRequestHandler') return (method: string, handler: RequestHandler) => target.setRequestHandler(method, echoRelatedTask(handler));
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** Result shapes of the task methods (2025-11-25; versions.ts puts them in that revision's table). */
export const TASK_RESULT_SHAPES: ShapeTable = Object.freeze({
  'tasks/get': taskProblem,
  'tasks/cancel': taskProblem,
  'tasks/list': (r: Record<string, unknown>) => {
    if (!Array.isArray(r.tasks)) return '"tasks" is not an array';
    for (const t of r.tasks) {
      const p = taskProblem(t);
      if (p !== undefined) return `a listed task is malformed: ${p}`;
    }
    return undefined;
  },
});

/**
 * A task handle (the tasks extension's `CreateTaskResult`, `resultType: "task"`): what a server
 * may answer `tools/call` with when the era `has('taskHandles')`. One property read.
 */
export function isTaskHandle(raw: unknown): raw is Record<string, unknown> {
  return raw !== null && typeof raw === 'object' && (raw as { resultType?: unknown }).resultType === 'task';
}

/** How a tool call goes out, or why it cannot. */
export type ToolCallMode = { mode: 'task' | 'plain' } | { refuse: string };

/**
 * basic.utilities.tasks#4/#5/#7: the mode of a `tools/call` of `tool`, given its
 * `execution.taskSupport`, why the server cannot take task-augmented calls (undefined when it
 * can), and what the caller asked (`'auto'`: a task exactly when the tool requires one).
 */
export function toolCallMode(tool: string, support: TaskSupport | undefined, capabilityProblem: string | undefined, wanted: boolean | 'auto'): ToolCallMode {
  const s = support ?? 'forbidden'; // absent means forbidden (basic.utilities.tasks#5)
  const name = JSON.stringify(tool).slice(0, 130);
  if (s === 'required') {
    if (wanted === false) return { refuse: `tool ${name} requires task execution (execution.taskSupport "required"); it cannot be called with task: false` };
    if (capabilityProblem !== undefined) return { refuse: `tool ${name} requires task execution, but ${capabilityProblem}; it is not called as a plain request` };
    return { mode: 'task' };
  }
  if (wanted !== true) return { mode: 'plain' };
  if (capabilityProblem !== undefined) return { refuse: `task execution was asked for tool ${name}, but ${capabilityProblem}` };
  if (s === 'forbidden') return { refuse: `tool ${name} does not support task execution (execution.taskSupport ${support === undefined ? 'absent' : '"forbidden"'})` };
  return { mode: 'task' };
}

/** Polling of `tasks/get` while a task is followed. */
/** Options of a task-augmented tool call. */
export interface TaskCallOptions {
  signal?: AbortSignal;
  /** Timeout of each request of the exchange (default: the client's). */
  timeoutMs?: number;
  /** The whole call, task included (default 10 × timeoutMs); past it: `tasks/cancel`, TimeoutError. */
  maxTotalTimeoutMs?: number;
  /** Requested task lifetime (`task.ttl`, ms); the server may choose another. */
  taskTtlMs?: number;
  /** Every status change of the task (from notifications or polls). */
  onTaskStatus?: (task: Task) => void;
  /**
   * Progress of the task, its whole life long (basic/utilities/tasks: the token of the creating
   * request stays valid). Delivered as it comes, not coalesced.
   */
  onProgress?: ProgressCallback;
  progressIntervalMs?: number;
  _meta?: Record<string, unknown>;
}

/** What the requester needs from the client. */
export interface TaskDeps {
  serverId: string;
  request<T>(method: string, params: Record<string, unknown> | undefined, options: RequestOptions | undefined): Promise<T>;
  /** The negotiated revision's result-shape check. */
  check<T>(method: string, result: unknown): T;
  capabilities(): ServerCapabilities | undefined;
  /** Whether the negotiated revision has tasks (versions.ts). */
  negotiated(): boolean;
  emit(event: 'taskStatus' | 'diagnostic', payload: unknown): void;
  /** Subscribes to every `notifications/progress`; returns the unsubscribe function. */
  onProgress(listener: (params: Record<string, unknown>) => void): () => void;
  defaultTimeoutMs: number;
  poll?: TaskPollOptions;
  /** The client-feature handlers that answer a task's input requests (2026-07-28: `tasks/update`). */
  inputs?: { options: ClientFeatureOptions; features: ClientFeatureState };
}

/** A followed task: its latest known state and whoever waits for a change. */
interface Follower {
  last: Task;
  key: string;
  wake: (() => void) | undefined;
  onTaskStatus: ((task: Task) => void) | undefined;
}

/** Timeout of the `tasks/cancel` sent after an abort: it must not keep anything alive for long. */
const CANCEL_TIMEOUT_MS = 5_000;

export class TaskRequester {
  private readonly followers = new Map<string, Follower>();
  /** Progress tokens of the task calls under way: outliving their request, they are ours still. */
  private readonly progressTokens = new Set<string | number>();
  private readonly poll: Required<TaskPollOptions>;

  constructor(private readonly deps: TaskDeps) {
    const p = deps.poll ?? {};
    const min = Math.max(1, p.minPollIntervalMs ?? 100);
    const max = Math.max(min, p.maxPollIntervalMs ?? 30_000);
    this.poll = { minPollIntervalMs: min, maxPollIntervalMs: max, defaultPollIntervalMs: p.defaultPollIntervalMs ?? 1000, backoffFactor: Math.max(1, p.backoffFactor ?? 1.5) };
  }

  /** Why `tools/call` cannot be task-augmented on this server now, or undefined (tasks#2/#3/#4). */
  toolsCallProblem(): string | undefined {
    if (!this.deps.negotiated()) return 'the negotiated protocol version has no tasks';
    return missingTaskCapability('tools/call', this.deps.capabilities());
  }

  // ---- the typed requests -------------------------------------------------------------------

  /** `tools/call` with `task`: the CreateTaskResult's task (basic.utilities.tasks#34). */
  async createToolTask(name: string, args: Record<string, unknown>, options: TaskCallOptions = {}): Promise<Task> {
    const task = await this.create(name, args, options);
    if ('direct' in task) throw this.protocolError('tools/call with "task" was answered with a plain result, not a CreateTaskResult');
    return task;
  }

  /** `tasks/get`. */
  async getTask(taskId: string, options?: RequestOptions): Promise<Task> {
    const r = this.deps.check<Task>('tasks/get', await this.deps.request<unknown>('tasks/get', { taskId }, options));
    if (r.taskId !== taskId) throw this.protocolError(`tasks/get for ${JSON.stringify(taskId)} answered with task ${JSON.stringify(r.taskId).slice(0, 80)}`);
    this.observe(r);
    return r;
  }

  /**
   * `tasks/result`: blocks until the task is terminal, then resolves with what the underlying
   * request returned, or rejects with its JSON-RPC error (basic.utilities.tasks#36–#38).
   */
  async getTaskResult(taskId: string, options?: RequestOptions): Promise<Record<string, unknown>> {
    const r = await this.deps.request<unknown>('tasks/result', { taskId }, options);
    if (r === null || typeof r !== 'object' || Array.isArray(r)) throw this.protocolError('tasks/result returned a result that is not an object');
    // basic.utilities.tasks#56: the response MUST carry the related-task metadata.
    const related = ((r as { _meta?: Record<string, unknown> })._meta?.[RELATED_TASK_META_KEY] as { taskId?: unknown } | undefined)?.taskId;
    if (related !== taskId) {
      this.diagnostic('MCPWIRE_TASK_META', `tasks/result for task ${JSON.stringify(taskId)} lacks "_meta.${RELATED_TASK_META_KEY}.taskId" naming it (basic.utilities.tasks#56)`);
    }
    return r as Record<string, unknown>;
  }

  /** One page of `tasks/list` (the cursor is passed on as it came: basic.utilities.tasks#48). */
  listTasksPage(cursor?: string, options?: RequestOptions): Promise<ListTasksResult> {
    return this.deps.request<unknown>('tasks/list', cursor === undefined ? undefined : { cursor }, options).then((r) => this.deps.check<ListTasksResult>('tasks/list', r));
  }

  /** `tasks/cancel`: the task as the server left it (`cancelled`: basic.utilities.tasks#51). */
  async cancelTask(taskId: string, options?: RequestOptions): Promise<CancelTaskResult> {
    const r = this.deps.check<CancelTaskResult>('tasks/cancel', await this.deps.request<unknown>('tasks/cancel', { taskId }, options));
    this.observe(r);
    return r;
  }

  // ---- one awaited result -------------------------------------------------------------------

  /**
   * A task-augmented `tools/call` as one awaited result (see the module comment). Resolves with
   * the `tasks/result` payload (a CallToolResult), or the plain result of a server that ignored
   * the task (basic.utilities.tasks#16).
   */
  async callTool(name: string, args: Record<string, unknown>, options: TaskCallOptions = {}): Promise<unknown> {
    const timeoutMs = options.timeoutMs ?? this.deps.defaultTimeoutMs;
    let taskId: string | undefined;
    let cancelled = false;
    // Sent from the abort itself, synchronously: a program that closes the connection on the same
    // signal (the CLI on Ctrl-C) still gets tasks/cancel out first.
    const cancel = () => {
      if (taskId === undefined || cancelled) return;
      cancelled = true;
      this.cancelAfterAbort(taskId);
    };
    const deadline = new Deadline(options.signal, options.maxTotalTimeoutMs ?? timeoutMs * 10, name, this.deps.serverId, cancel);
    const progress = this.followProgress(options);
    try {
      const created = await this.create(name, args, { ...options, ...progress.options, timeoutMs, signal: deadline.signal });
      if ('direct' in created) return created.direct;
      taskId = created.taskId;
      return await this.follow(created, options.onTaskStatus, timeoutMs, deadline);
    } catch (err) {
      if (!deadline.signal.aborted) throw err;
      cancel();
      throw deadline.error(err);
    } finally {
      deadline.dispose();
      progress.stop();
      if (taskId !== undefined) this.followers.delete(taskId);
    }
  }

  /**
   * `tools/call` where the server decides which calls become tasks (the era `has('taskHandles')`:
   * 2026-07-28 with the tasks extension declared): a plain request whose answer may be a task
   * handle, then followed to the tool's result by eras/modern-tasks.ts (loaded on first use). A
   * handle that arrives after the caller gave up is cancelled.
   */
  async callDirected(name: string, args: Record<string, unknown>, options: CallToolOptions): Promise<unknown> {
    const startedAt = Date.now();
    const params: Record<string, unknown> = { name, arguments: args };
    if (options._meta !== undefined) params._meta = options._meta;
    const raw = await this.deps.request<unknown>('tools/call', params, { ...options, onLateResult: this.cancelLateHandle });
    if (!isTaskHandle(raw)) return raw;
    const { followTaskHandle } = await import('./eras/modern-tasks.js');
    return followTaskHandle(
      {
        serverId: this.deps.serverId,
        request: (method, p, o) => this.deps.request(method, p, o),
        check: (method, r) => this.deps.check(method, r),
        inputs: inputAnswers(this.deps.inputs),
        emit: (event, payload) => this.deps.emit(event, payload),
        defaultTimeoutMs: this.deps.defaultTimeoutMs,
        poll: this.poll,
      },
      raw,
      name,
      withAbortSignal(options), // (followed with a deadline that listens on a standard AbortSignal)
      startedAt,
    );
  }

  /** A task handle that came after its `tools/call` was given up on: the server runs it anyway. */
  private readonly cancelLateHandle = (result: unknown): void => {
    if (isTaskHandle(result) && typeof result.taskId === 'string') this.cancelAfterAbort(result.taskId);
  };

  /** True for the connection's "progress for an unknown token" about a token of a task under way. */
  ownsDiagnostic(d: ConnectionDiagnostic): boolean {
    if (d.code !== UNKNOWN_PROGRESS || this.progressTokens.size === 0) return false;
    const t = d.progressToken;
    return (typeof t === 'string' || typeof t === 'number') && this.progressTokens.has(t);
  }

  /**
   * The task's progress: the creating request's token (the caller's own `_meta.progressToken`, else
   * one of ours), followed through the client's progress notifications for as long as the call
   * runs, not only while the creating request is open (the token stays valid for the task's life).
   * A token another call under way follows already is not followed twice.
   */
  private followProgress(options: TaskCallOptions): { options: Partial<TaskCallOptions>; stop: () => void } {
    const onProgress = options.onProgress;
    const own = options._meta?.progressToken;
    if (onProgress === undefined) return { options: {}, stop: () => {} };
    let token: string | number;
    if (own === undefined) token = `mcpwire-task-${Math.random().toString(36).slice(2, 10)}${Date.now().toString(36)}`;
    else if ((typeof own === 'string' || typeof own === 'number') && !this.progressTokens.has(own)) token = own;
    else return { options: {}, stop: () => {} };
    this.progressTokens.add(token);
    const unsubscribe = this.deps.onProgress((p) => {
      if (p.progressToken !== token || typeof p.progress !== 'number') return;
      try {
        onProgress(p as ProgressParams);
      } catch (err) {
        this.diagnostic('MCPWIRE_HANDLER_FAILED', `onProgress callback threw: ${(err as Error)?.message ?? String(err)}`);
      }
    });
    return {
      options: { onProgress: undefined, _meta: { ...options._meta, progressToken: token } },
      stop: () => {
        unsubscribe();
        this.progressTokens.delete(token);
      },
    };
  }

  /** `notifications/tasks/status` (basic.utilities.tasks#14: a hint, never relied on). */
  onStatusNotification(params: Record<string, unknown> | undefined): void {
    const problem = taskProblem(params);
    if (problem !== undefined) {
      this.diagnostic('MCPWIRE_BAD_TASK_STATUS', `notifications/tasks/status ignored: ${problem}`);
      return;
    }
    const task = params as Task;
    const f = this.followers.get(task.taskId);
    if (f === undefined) {
      this.deps.emit('taskStatus', task);
      return;
    }
    this.report(f, task);
    f.wake?.();
  }

  private async create(name: string, args: Record<string, unknown>, options: TaskCallOptions): Promise<Task | { direct: unknown }> {
    const problem = this.toolsCallProblem();
    if (problem !== undefined) throw new CapabilityError(problem, { serverId: this.deps.serverId, phase: 'request' });
    const params: Record<string, unknown> = { name, arguments: args, task: options.taskTtlMs === undefined ? {} : { ttl: options.taskTtlMs } };
    if (options._meta !== undefined) params._meta = options._meta;
    const { signal, timeoutMs, onProgress, progressIntervalMs } = options;
    const r = await this.deps.request<unknown>('tools/call', params, { signal, timeoutMs, onProgress, progressIntervalMs, onLateResult: this.cancelLateTask });
    const obj = r !== null && typeof r === 'object' && !Array.isArray(r) ? (r as Record<string, unknown>) : undefined;
    if (obj !== undefined && obj.task === undefined && Array.isArray(obj.content)) {
      // basic.utilities.tasks#16: a receiver that does not take tasks for this request processes
      // it normally; the answer is then the result itself.
      this.diagnostic('MCPWIRE_TASK_IGNORED', `tools/call ${JSON.stringify(name).slice(0, 130)} was asked to run as a task but answered directly`);
      return { direct: r };
    }
    const problemOfTask = obj === undefined ? 'the result is not an object' : taskProblem(obj.task);
    if (problemOfTask !== undefined) throw this.protocolError(`tools/call with "task" returned a malformed CreateTaskResult: ${problemOfTask}`);
    return obj!.task as Task;
  }

  /** Polls (woken early by notifications) until the task is terminal or needs input. */
  private async follow(created: Task, onTaskStatus: TaskCallOptions['onTaskStatus'], timeoutMs: number, deadline: Deadline): Promise<unknown> {
    const f: Follower = { last: created, key: '', wake: undefined, onTaskStatus };
    this.followers.set(created.taskId, f);
    this.report(f, created);
    let key = f.key;
    let interval = this.baseInterval(f.last);
    let pollAt = Date.now() + interval;
    for (;;) {
      // basic.utilities.tasks#11/#28: poll until terminal; on input_required call tasks/result,
      // whose stream carries the server's requests (answered by the client's handlers).
      if (isTerminalStatus(f.last.status) || f.last.status === 'input_required') return this.finish(f, timeoutMs, deadline);
      const wait = pollAt - Date.now();
      if (wait > 0) {
        // basic.utilities.tasks#14: a status notification ends the wait early (re-checked above);
        // it never replaces the polls (#15), which keep their schedule.
        await this.sleep(f, wait, deadline.signal);
        continue;
      }
      await this.getTask(f.last.taskId, { signal: deadline.signal, timeoutMs });
      // basic.utilities.tasks#10: the server's pollInterval, then a backoff while nothing changes.
      interval = f.key === key ? Math.min(this.poll.maxPollIntervalMs, interval * this.poll.backoffFactor) : this.baseInterval(f.last);
      key = f.key;
      pollAt = Date.now() + interval;
    }
  }

  private async finish(f: Follower, timeoutMs: number, deadline: Deadline): Promise<unknown> {
    const remaining = deadline.remainingMs();
    const result = await this.getTaskResult(f.last.taskId, { signal: deadline.signal, timeoutMs: remaining, maxTotalTimeoutMs: remaining }).catch((err: unknown) => {
      if (err instanceof JsonRpcError) f.last = { ...f.last, status: 'failed' }; // the task's own error (tasks#60): nothing left to cancel
      throw err;
    });
    if (!isTerminalStatus(f.last.status)) {
      // tasks/result answers only once the task is terminal (tasks#37); learn its final state.
      await this.getTask(f.last.taskId, { signal: deadline.signal, timeoutMs }).catch(() => undefined);
    }
    return result;
  }

  /** Records a state learned from a response (a followed task's only). */
  private observe(task: Task): void {
    const f = this.followers.get(task.taskId);
    if (f !== undefined) this.report(f, task);
  }

  /** A newer state of a followed task: reported when status or message changed. */
  private report(f: Follower, task: Task): void {
    // basic.utilities.tasks#22: a terminal task never changes again; a late answer cannot undo it.
    if (isTerminalStatus(f.last.status) && f.key !== '' && !isTerminalStatus(task.status)) return;
    f.last = task;
    const key = `${task.status}\0${task.statusMessage ?? ''}`;
    if (key === f.key) return;
    f.key = key;
    this.deps.emit('taskStatus', task);
    try {
      f.onTaskStatus?.(task);
    } catch (err) {
      this.diagnostic('MCPWIRE_HANDLER_FAILED', `onTaskStatus callback threw: ${(err as Error)?.message ?? String(err)}`);
    }
  }

  private baseInterval(task: Task): number {
    const suggested = typeof task.pollInterval === 'number' ? task.pollInterval : this.poll.defaultPollIntervalMs;
    return Math.min(this.poll.maxPollIntervalMs, Math.max(this.poll.minPollIntervalMs, suggested));
  }

  /** Waits `ms`, or less when a status notification arrives; rejects when `signal` aborts. */
  private sleep(f: Follower, ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        f.wake = undefined;
      };
      const onAbort = () => {
        done();
        reject(signal.reason);
      };
      const timer = setTimeout(() => {
        done();
        resolve();
      }, ms);
      f.wake = () => {
        done();
        resolve();
      };
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /**
   * The CreateTaskResult of a task-augmented request given up on (aborted, timed out) arrived
   * late: the server created the task anyway. basic.utilities.cancellation#3: a task-augmented
   * request is cancelled with `tasks/cancel`, which needs the id only this late result carries.
   */
  private readonly cancelLateTask = (result: unknown): void => {
    const task = result !== null && typeof result === 'object' ? (result as { task?: unknown }).task : undefined;
    if (taskProblem(task) === undefined) this.cancelAfterAbort((task as Task).taskId);
  };

  /** The caller gave up: ask the server to stop the task too, without waiting for the answer. */
  private cancelAfterAbort(taskId: string): void {
    const f = this.followers.get(taskId);
    if (f !== undefined && isTerminalStatus(f.last.status)) return;
    const missing = missingCapability('tasks/cancel', this.deps.capabilities());
    if (missing !== undefined) {
      this.diagnostic('MCPWIRE_TASK_NOT_CANCELLED', `task ${JSON.stringify(taskId)} keeps running on the server: ${missing}`);
      return;
    }
    this.deps.request('tasks/cancel', { taskId }, { timeoutMs: CANCEL_TIMEOUT_MS }).catch((err: unknown) => {
      this.diagnostic('MCPWIRE_TASK_NOT_CANCELLED', `tasks/cancel for task ${JSON.stringify(taskId)} failed: ${(err as Error)?.message ?? String(err)}`);
    });
  }

  private diagnostic(code: string, message: string): void {
    this.deps.emit('diagnostic', { code, message, serverId: this.deps.serverId });
  }

  private protocolError(message: string): ProtocolError {
    return new ProtocolError(message, { serverId: this.deps.serverId, phase: 'request', code: 'MCPWIRE_BAD_RESULT' });
  }
}

/** The client's handlers as the 2026-07-28 task codec asks for them (eras/modern-tasks.ts). */
function inputAnswers(inputs: { options: ClientFeatureOptions; features: ClientFeatureState } | undefined) {
  if (inputs === undefined) return undefined;
  return {
    missing: (method: unknown) => missingInputHandler(inputs.options, inputs.features, method),
    answer: (method: string, params: unknown, signal: AbortSignal) => answerInputRequest(inputs.options, inputs.features, method, params, signal),
  };
}
