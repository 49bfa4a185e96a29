/**
 * Tasks in the 2026-07-28 era: the `io.modelcontextprotocol/tasks` extension (changelog: SEP-2663).
 * A client that declares the extension in its per-request capabilities may get, for `tools/call`,
 * a task handle (`resultType: "task"`, a flat `Result & Task`) instead of the result, whether it
 * wanted one or not: the server decides. `followTaskHandle` turns the handle back into the one
 * awaited result: it polls `tasks/get` at the server's `pollIntervalMs` (within the client's
 * floor and ceiling) until the task is terminal — the result (`completed`) or the JSON-RPC error
 * (`failed`) comes inline, there is no `tasks/result` — answers the `inputRequests` of an
 * `input_required` task through `tasks/update` with the client-feature handlers that serve
 * every other input request (elicitation, sampling, roots; each key once), and sends
 * `tasks/cancel` when the caller aborts or the call's total deadline passes.
 *
 * Loaded on first use (tasks.ts imports it lazily): a client that never meets a task never loads it.
 */
import { AbortError, CapabilityError, JsonRpcError, ProtocolError } from '../../errors.js';
import type { RequestOptions } from '../../protocol/connection.js';
import { Deadline } from '../task-deadline.js';
import type { Task, TaskStatus } from '../types.js';
import { raceAbort } from '../../util/abort.js';
import { sleep } from '../../util/sleep.js';

const STATUSES: ReadonlySet<string> = new Set<TaskStatus>(['working', 'input_required', 'completed', 'failed', 'cancelled']);
const TERMINAL: ReadonlySet<string> = new Set<TaskStatus>(['completed', 'failed', 'cancelled']);

/** Timeout of the `tasks/cancel` sent after an abort: it must not keep anything alive for long. */
const CANCEL_TIMEOUT_MS = 5_000;

/** What following a handle needs from the client (tasks.ts builds it). */
export interface HandleDeps {
  serverId: string;
  /** The client's request path (lifecycle, era `_meta`, errors). */
  request(method: string, params: Record<string, unknown>, options: RequestOptions): Promise<unknown>;
  /** The era's reading of a final result (`resultType`, shape). */
  check<T>(method: string, raw: unknown): T;
  /** The client-feature handlers an input request is answered with (the client's, handed down). */
  inputs: InputAnswers | undefined;
  emit(event: 'taskStatus' | 'diagnostic', payload: unknown): void;
  defaultTimeoutMs: number;
  poll: { minPollIntervalMs: number; maxPollIntervalMs: number; defaultPollIntervalMs: number; backoffFactor: number };
}

/**
 * How the client answers a task's input requests: its own sampling, elicitation and roots
 * handlers, handed down so that this codec depends on no client module above it.
 */
export interface InputAnswers {
  /** Why the client cannot answer `method` (no handler, not declared), or undefined when it can. */
  missing(method: unknown): string | undefined;
  answer(method: string, params: unknown, signal: AbortSignal): Promise<unknown>;
}

/** The caller's side of the call (CallToolOptions, read only). */
export interface HandleCallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  maxTotalTimeoutMs?: number;
  onTaskStatus?: (task: Task) => void;
}

/**
 * What is wrong with a task, or undefined: a `tasks/get` answer (`detailed`: a completed task
 * carries its result, a failed one its error) or a handle (which carries neither).
 */
export function detailedTaskProblem(t: unknown, detailed = true): string | undefined {
  if (t === null || typeof t !== 'object' || Array.isArray(t)) return 'the task is not an object';
  const r = t as Record<string, unknown>;
  if (typeof r.taskId !== 'string' || r.taskId === '') return '"taskId" is not a non-empty string';
  if (typeof r.status !== 'string' || !STATUSES.has(r.status)) return `"status" ${JSON.stringify(r.status)?.slice(0, 40)} is not a task status`;
  if (r.pollIntervalMs !== undefined && (typeof r.pollIntervalMs !== 'number' || !(r.pollIntervalMs >= 0))) return '"pollIntervalMs" is not a non-negative number';
  if (!detailed) return undefined;
  if (r.status === 'completed' && (r.result === null || typeof r.result !== 'object' || Array.isArray(r.result))) return 'a completed task has no "result" object';
  if (r.status === 'failed' && (r.error === null || typeof r.error !== 'object')) return 'a failed task has no "error" object';
  if (r.status === 'input_required' && r.inputRequests !== undefined && (r.inputRequests === null || typeof r.inputRequests !== 'object' || Array.isArray(r.inputRequests))) {
    return '"inputRequests" is not an object';
  }
  return undefined;
}

/**
 * Follows the task `handle` (the answer to `tools/call` of `tool`, sent at `startedAt`) to the
 * tool's result; rejects with the task's JSON-RPC error when it failed.
 */
export async function followTaskHandle(d: HandleDeps, handle: Record<string, unknown>, tool: string, options: HandleCallOptions, startedAt: number): Promise<unknown> {
  const problem = detailedTaskProblem(handle, false);
  if (problem !== undefined) throw protocolError(d, `tools/call returned a malformed task handle: ${problem}`);
  const f = new Follower(d, handle as unknown as Task, tool, options, startedAt);
  try {
    return await f.run();
  } finally {
    f.dispose();
  }
}

class Follower {
  private last: Task;
  private key = '';
  /** `inputRequests` keys already answered (each key names one request for the task's life). */
  private readonly answered = new Set<string>();
  private readonly deadline: Deadline;
  private readonly timeoutMs: number;
  private cancelled = false;

  constructor(
    private readonly d: HandleDeps,
    first: Task,
    private readonly tool: string,
    private readonly options: HandleCallOptions,
    startedAt: number,
  ) {
    this.last = first;
    this.timeoutMs = options.timeoutMs ?? d.defaultTimeoutMs;
    const total = (options.maxTotalTimeoutMs ?? this.timeoutMs * 10) - (Date.now() - startedAt);
    this.deadline = new Deadline(options.signal, Math.max(1, total), tool, d.serverId, () => this.cancel());
  }

  async run(): Promise<unknown> {
    const signal = this.deadline.signal;
    try {
      this.report(this.last);
      // a handle carries no result, error or input requests: one that is not working is read at once
      if (this.last.status !== 'working') await this.get();
      for (let unchanged = 0; ; ) {
        const t = this.last as Task & { result?: unknown; error?: Record<string, unknown>; inputRequests?: Record<string, { method?: unknown; params?: unknown }> };
        if (t.status === 'completed') return t.result;
        if (t.status === 'failed') throw this.taskError(t.error ?? {});
        if (t.status === 'cancelled') throw new AbortError(`tools/call ${JSON.stringify(this.tool).slice(0, 130)}: its task was cancelled${t.statusMessage ? ` (${t.statusMessage})` : ''}`, { serverId: this.d.serverId, phase: 'request' });
        if (t.status === 'input_required' && (await this.answer(t.inputRequests ?? {}))) unchanged = 0;
        await sleep(this.interval(unchanged), signal);
        const before = this.key;
        await this.get();
        unchanged = this.key === before ? unchanged + 1 : 0;
      }
    } catch (err) {
      if (!signal.aborted) {
        // a task the call gives up on (a handler missing, a malformed answer) is not left running
        if (!TERMINAL.has(this.last.status)) this.cancel();
        throw err;
      }
      this.cancel();
      throw this.deadline.error(err);
    }
  }

  dispose(): void {
    this.deadline.dispose();
  }

  /** One `tasks/get`: the task's state now. */
  private async get(): Promise<void> {
    const raw = this.d.check<Record<string, unknown>>('tasks/get', await this.d.request('tasks/get', { taskId: this.last.taskId }, { signal: this.deadline.signal, timeoutMs: this.timeoutMs }));
    const problem = detailedTaskProblem(raw);
    if (problem !== undefined) throw protocolError(this.d, `tasks/get returned a malformed task: ${problem}`);
    if (raw.taskId !== this.last.taskId) throw protocolError(this.d, `tasks/get for ${JSON.stringify(this.last.taskId)} answered with task ${JSON.stringify(raw.taskId).slice(0, 80)}`);
    this.report(raw as unknown as Task);
  }

  /**
   * Answers the input requests not answered before with the client's handlers and sends the
   * answers in one `tasks/update`. False when there was nothing new to answer.
   */
  private async answer(requests: Record<string, { method?: unknown; params?: unknown }>): Promise<boolean> {
    const fresh = Object.entries(requests).filter(([k]) => !this.answered.has(k));
    if (fresh.length === 0) return false;
    const inputs = this.d.inputs;
    const missing = fresh.map(([k, r]) => [k, inputs === undefined ? 'no client-feature handlers' : inputs.missing(r?.method)] as const).filter(([, m]) => m !== undefined);
    if (missing.length > 0 || inputs === undefined) {
      throw new CapabilityError(`tools/call ${JSON.stringify(this.tool).slice(0, 130)}: its task asks for input this client cannot give: ${missing.map(([k, m]) => `"${k}": ${m}`).join('; ')}`, {
        serverId: this.d.serverId,
        phase: 'request',
      });
    }
    const inputResponses: Record<string, unknown> = {};
    for (const [k, r] of fresh) {
      this.deadline.signal.throwIfAborted();
      // a handler that ignores its signal does not hold the call past its abort or deadline
      inputResponses[k] = await raceAbort(inputs.answer(r.method as string, r.params, this.deadline.signal), this.deadline.signal);
    }
    await this.d.request('tasks/update', { taskId: this.last.taskId, inputResponses }, { signal: this.deadline.signal, timeoutMs: this.timeoutMs }).then((r) => this.d.check('tasks/update', r));
    for (const [k] of fresh) this.answered.add(k);
    return true;
  }

  /** The server's `pollIntervalMs` (floor and ceiling applied), else the default backing off while nothing changes. */
  private interval(unchanged: number): number {
    const p = this.d.poll;
    const suggested = this.last.pollIntervalMs;
    const base = typeof suggested === 'number' ? suggested : p.defaultPollIntervalMs * p.backoffFactor ** unchanged;
    return Math.min(p.maxPollIntervalMs, Math.max(p.minPollIntervalMs, base));
  }

  /** A newer state: kept, and reported (event and callback) when its status or message changed. */
  private report(task: Task): void {
    if (TERMINAL.has(this.last.status) && this.key !== '' && !TERMINAL.has(task.status)) return; // terminal stays terminal
    this.last = task;
    const key = `${task.status}\0${task.statusMessage ?? ''}`;
    if (key === this.key) return;
    this.key = key;
    // what the host sees: the task's state, not its result, error or input requests
    const { result: _r, error: _e, inputRequests: _i, resultType: _t, _meta: _m, ...seen } = task as Task & Record<string, unknown>;
    this.d.emit('taskStatus', seen);
    try {
      this.options.onTaskStatus?.(seen as Task);
    } catch (err) {
      this.d.emit('diagnostic', { code: 'MCPWIRE_HANDLER_FAILED', message: `onTaskStatus callback threw: ${(err as Error)?.message ?? String(err)}`, serverId: this.d.serverId });
    }
  }

  /** The task's inline error as the JSON-RPC error `callTool` rejects with. */
  private taskError(e: Record<string, unknown>): JsonRpcError {
    const code = typeof e.code === 'number' ? e.code : -32603;
    const message = typeof e.message === 'string' ? e.message : 'the task failed';
    return new JsonRpcError(code, message, e.data, { serverId: this.d.serverId, phase: 'request' });
  }

  /** The caller gave up: ask the server to stop the task too, without waiting for the answer. */
  private cancel(): void {
    if (this.cancelled || TERMINAL.has(this.last.status)) return;
    this.cancelled = true;
    const taskId = this.last.taskId;
    this.d.request('tasks/cancel', { taskId }, { timeoutMs: CANCEL_TIMEOUT_MS }).catch((err: unknown) => {
      this.d.emit('diagnostic', { code: 'MCPWIRE_TASK_NOT_CANCELLED', message: `tasks/cancel for task ${JSON.stringify(taskId)} failed: ${(err as Error)?.message ?? String(err)}`, serverId: this.d.serverId });
    });
  }
}

function protocolError(d: HandleDeps, message: string): ProtocolError {
  return new ProtocolError(message, { serverId: d.serverId, phase: 'request', code: 'MCPWIRE_BAD_RESULT' });
}

