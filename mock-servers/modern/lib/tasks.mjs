// The tasks extension (io.modelcontextprotocol/tasks, SEP-2663) of the 2026-07-28 mock: a tool
// marked `task: true` answers a client that declared the extension in its per-request
// capabilities with a task handle (a flat CreateTaskResult, resultType "task") and runs in the
// background; `tasks/get` answers the DetailedTask (result or error inline when terminal,
// inputRequests while input_required), `tasks/update` takes inputResponses for outstanding keys
// (others ignored), `tasks/cancel` acknowledges with an empty result and cancels the work. A
// request whose per-request capabilities do not declare the extension gets -32021 naming it
// (tasks/*; tools/call of a `task: true` tool, while a `task: "optional"` one then runs plainly).
// `task: "after-input"`: the tool's MRTR rounds run on tools/call itself, and its final answer
// comes as a task (MRTR → tasks composition). No tasks/result, no tasks/list.
//
// A tool that asks for input the MRTR way (rc.input.require, see tools.mjs) asks through its task
// instead: its input requests surface in tasks/get under keys unique for the task's life.

import { randomUUID } from 'node:crypto';
import { RpcError, INVALID_PARAMS, isObject } from '../../lib/rpc.mjs';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const TERMINAL = ['completed', 'failed', 'cancelled'];

/**
 * config: scenario.tasks ({ pollIntervalMs, ttlMs }); io.runTool(name, args, rc) runs a tool as
 * tools/call would (it may throw an RpcError: the task fails with it).
 */
export function createModernTaskStore(config, io) {
  const pollIntervalMs = config.pollIntervalMs ?? 50;
  const ttlMs = config.ttlMs === undefined ? 60_000 : config.ttlMs;
  const tasks = new Map();
  const record = { created: [], updates: [], cancels: [] };

  const now = () => new Date().toISOString();
  const known = (p) => {
    if (typeof p?.taskId !== 'string') throw new RpcError(INVALID_PARAMS, 'taskId is required');
    const t = tasks.get(p.taskId);
    if (!t) throw new RpcError(INVALID_PARAMS, `Unknown task: ${p.taskId}`);
    return t;
  };

  /** The task as tasks/get shows it (DetailedTask). */
  function view(t, detailed = true) {
    const out = { taskId: t.taskId, status: t.status, createdAt: t.createdAt, lastUpdatedAt: t.lastUpdatedAt, ttlMs, pollIntervalMs };
    if (t.statusMessage) out.statusMessage = t.statusMessage;
    if (!detailed) return out;
    // only what is still pending: an answered key leaves the map (partial fulfilment)
    if (t.status === 'input_required') out.inputRequests = Object.fromEntries([...t.outstanding].filter(([, v]) => v.answer === undefined).map(([k, v]) => [k, v.request]));
    if (t.status === 'completed') out.result = t.result;
    if (t.status === 'failed') out.error = t.error;
    return out;
  }

  function set(t, status, extra = {}) {
    if (TERMINAL.includes(t.status)) return; // terminal stays terminal
    Object.assign(t, extra, { status, lastUpdatedAt: now() });
  }

  /** Whether the request's per-request capabilities declare the extension. */
  const declared = (rc) => isObject(rc.clientCapabilities?.extensions?.[TASKS_EXTENSION]);

  /** -32021 naming the extension (HTTP 400). */
  function missing() {
    const err = new RpcError(-32021, 'Missing required client capability', { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
    err.httpStatus = 400;
    return err;
  }

  /** A tasks/* request of a client that did not declare the extension on it: refused. */
  const gate = (handler) => (p, rc) => {
    if (!declared(rc)) throw missing();
    return handler(p);
  };

  /**
   * tools/call of a task tool: a CreateTaskResult, the work running on (or, with `done`, a task
   * whose work was done before it was created: it completes with `done` at once).
   */
  function create(name, args, rc, done) {
    if (!declared(rc)) throw missing();
    const at = now();
    const t = { taskId: randomUUID(), status: 'working', createdAt: at, lastUpdatedAt: at, controller: new AbortController(), outstanding: new Map(), rounds: 0, wake: undefined };
    tasks.set(t.taskId, t);
    record.created.push({ taskId: t.taskId, tool: name });
    if (done !== undefined) setImmediate(() => set(t, 'completed', { result: { ...done, resultType: 'complete' } }));
    else void drive(t, name, args, rc);
    return { resultType: 'task', ...view(t, false) };
  }

  /** Runs the tool; an MRTR-style input request becomes the task's input_required. */
  async function drive(t, name, args, rc) {
    let state;
    let responses;
    for (;;) {
      let out;
      const input = {
        state,
        responses,
        maxRounds: 3,
        require: (inputRequests, data) => ({ resultType: 'input_required', inputRequests, data }),
      };
      try {
        out = await io.runTool(name, args, { ...rc, signal: t.controller.signal, input, progress: () => false, log: () => false });
      } catch (err) {
        if (t.controller.signal.aborted) return set(t, 'cancelled');
        const error = err instanceof RpcError ? err.toJSON() : { code: -32603, message: String(err?.message ?? err) };
        return set(t, 'failed', { error });
      }
      if (t.controller.signal.aborted) return set(t, 'cancelled');
      if (out?.resultType !== 'input_required') return set(t, 'completed', { result: { ...out, resultType: 'complete' } });
      // keys unique for the task's life: the tool's own key, numbered by round
      t.rounds++;
      for (const [key, request] of Object.entries(out.inputRequests ?? {})) t.outstanding.set(`${key}-${t.rounds}`, { key, request, answer: undefined });
      set(t, 'input_required', { statusMessage: 'waiting for input' });
      responses = await answered(t);
      if (responses === undefined) return set(t, 'cancelled');
      set(t, 'working', { statusMessage: undefined });
      state = out.data;
    }
  }

  /** Resolves with the tool's own keys → answers once every outstanding key is answered (undefined: cancelled). */
  function answered(t) {
    return new Promise((resolve) => {
      const check = () => {
        if (t.controller.signal.aborted) return resolve(undefined);
        if ([...t.outstanding.values()].some((v) => v.answer === undefined)) return;
        const out = Object.fromEntries([...t.outstanding.values()].map((v) => [v.key, v.answer]));
        t.outstanding.clear();
        t.wake = undefined;
        resolve(out);
      };
      t.wake = check;
      t.controller.signal.addEventListener('abort', check, { once: true });
    });
  }

  return {
    record,
    create,
    declared,
    'tasks/get': gate((p) => view(known(p))),
    'tasks/update': gate((p) => {
      const t = known(p);
      if (!isObject(p.inputResponses)) throw new RpcError(INVALID_PARAMS, 'inputResponses must be an object');
      record.updates.push({ taskId: t.taskId, keys: Object.keys(p.inputResponses) });
      // responses for keys not outstanding (never issued, answered, superseded) are ignored
      for (const [k, v] of Object.entries(p.inputResponses)) {
        const o = t.outstanding.get(k);
        if (o && o.answer === undefined) o.answer = v;
      }
      t.wake?.();
      return {};
    }),
    'tasks/cancel': gate((p) => {
      const t = known(p);
      record.cancels.push(t.taskId);
      if (!TERMINAL.includes(t.status)) {
        t.controller.abort(new Error('cancelled'));
        set(t, 'cancelled', { statusMessage: 'cancelled by the client' });
      }
      return {};
    }),
  };
}
