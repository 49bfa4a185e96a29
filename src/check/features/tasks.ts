/**
 * Tasks (basic/utilities/tasks) as a receiver: unknown task ids, tasks/list paging, and one
 * task-augmented tools/call followed to its end (status path, timestamps, ttl, tasks/result
 * with related-task metadata, cancel of a terminal task, listed). The task is created only on
 * a tool the checker may call (read-only, --fixtures, or --allow-calls).
 */
import type { CheckContext, Session } from '../core/context.js';
import { isObject } from '../core/context.js';
import { argumentsFor, mayCall, toolCalls } from '../core/calls.js';
import { declared, listAll } from '../core/lists.js';
import { describeOutcome, messageOf, type Outcome } from '../core/probe.js';
import { notApplicable, pass, skip, violated, type CheckDef, type Verdict } from '../core/types.js';

const RELATED = 'io.modelcontextprotocol/related-task';
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);
const NEXT: Record<string, string[]> = {
  working: ['working', 'input_required', 'completed', 'failed', 'cancelled'],
  input_required: ['input_required', 'working', 'completed', 'failed', 'cancelled'],
};
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function tasksCap(s: Session): Record<string, unknown> | undefined {
  return isObject(s.capabilities.tasks) ? s.capabilities.tasks : undefined;
}

function toolsCallTasks(s: Session): boolean {
  const t = tasksCap(s);
  return isObject(t?.requests) && isObject((t.requests as Record<string, unknown>).tools) && isObject(((t.requests as Record<string, unknown>).tools as Record<string, unknown>).call);
}

async function withTasks(ctx: CheckContext): Promise<Session | Verdict> {
  const s = await ctx.session();
  if (tasksCap(s) === undefined) return notApplicable('the server does not declare the tasks capability');
  return s;
}

const unknownId: CheckDef = {
  id: 'tasks.unknown-id',
  title: 'tasks/get, tasks/result (and tasks/cancel) of an unknown task id get -32602',
  clause: 'basic.utilities.tasks#57',
  level: 'MUST',
  async run(ctx) {
    const s = await withTasks(ctx);
    if ('status' in s) return s;
    const methods = ['tasks/get', 'tasks/result', ...(isObject(tasksCap(s)?.cancel) ? ['tasks/cancel'] : [])];
    for (const m of methods) {
      const o = await s.probe.request(m, { taskId: 'mcpwire-check-no-such-task' });
      if (!(o.kind === 'error' && o.error.code === -32602)) return violated(`invalid or nonexistent taskId MUST get -32602 (Invalid params); ${m} got ${describeOutcome(o)}`, messageOf(o));
    }
    return pass(`${methods.join(', ')} → -32602`);
  },
};

const list: CheckDef = {
  id: 'tasks.list',
  title: 'tasks/list is served when declared, and its pages end (nextCursor only when more)',
  clause: 'basic.utilities.tasks#47',
  level: 'MUST',
  async run(ctx) {
    const s = await withTasks(ctx);
    if ('status' in s) return s;
    if (!isObject(tasksCap(s)?.list)) return notApplicable('tasks.list is not declared');
    const seen = new Set<string>();
    let cursor: unknown;
    let n = 0;
    for (let page = 1; page <= 50; page++) {
      const o = await s.probe.request('tasks/list', cursor === undefined ? {} : { cursor });
      if (o.kind !== 'result') return violated(`"tasks.list" is declared but tasks/list (page ${page}) got ${describeOutcome(o)}`, messageOf(o), { clause: 'basic.lifecycle#3' });
      if (!Array.isArray(o.result.tasks)) return violated('a tasks/list result has no "tasks" array', messageOf(o));
      n += o.result.tasks.length;
      const next = o.result.nextCursor;
      if (next === undefined || next === null) return pass(`${page} page(s), ${n} tasks`);
      if (o.result.tasks.length === 0) return violated('a tasks/list page with no tasks still has a nextCursor (nextCursor only when more tasks are available)', messageOf(o));
      if (seen.has(JSON.stringify(next))) return violated(`tasks/list handed out cursor ${JSON.stringify(next)} twice; following it never ends`, messageOf(o));
      seen.add(JSON.stringify(next));
      cursor = next;
    }
    return violated('tasks/list still has a nextCursor after 50 pages', undefined, { level: 'SHOULD' });
  },
};

interface TaskRun {
  tool: string;
  create: Outcome;
  taskId?: string;
  /** Every task object the server returned for it, in order (create, gets…). */
  snapshots: Array<{ task: Record<string, unknown>; from: string; message: unknown; rec?: { claims: string[] } }>;
  gets: Outcome[];
  result?: Outcome;
  cancel?: Outcome;
  listed?: boolean;
  listMessage?: unknown;
}

/** A task-capable tool the checker may call, with arguments. */
async function taskTool(ctx: CheckContext, s: Session): Promise<{ name: string; args: Record<string, unknown> } | string> {
  if (!toolsCallTasks(s)) return 'tasks.requests.tools.call is not declared';
  const l = await listAll(ctx, s, 'tools/list');
  const cands = l.items.filter((t) => isObject(t.execution) && (t.execution.taskSupport === 'optional' || t.execution.taskSupport === 'required'));
  if (cands.length === 0) return 'no tool supports tasks (execution.taskSupport)';
  const ok = cands.find((t) => mayCall(ctx, t).allowed);
  if (ok === undefined) return `no task-capable tool may be called (${cands.map((t) => String(t.name)).slice(0, 3).join(', ')}: not read-only; name one in --fixtures or use --allow-calls)`;
  return { name: String(ok.name), args: argumentsFor(ok, ctx.options.fixtures?.[String(ok.name)]) };
}

function taskRun(ctx: CheckContext): Promise<TaskRun | Verdict> {
  return ctx.memo('task-run', async (): Promise<TaskRun | Verdict> => {
    const s = await withTasks(ctx);
    if ('status' in s) return s;
    const tool = await taskTool(ctx, s);
    if (typeof tool === 'string') return notApplicable(tool);
    const create = await s.probe.request('tools/call', { name: tool.name, arguments: tool.args, task: { ttl: 60_000 } }, { timeoutMs: ctx.timeoutMs + 10_000 });
    const run: TaskRun = { tool: tool.name, create, snapshots: [], gets: [] };
    if (create.kind !== 'result' || !isObject(create.result.task)) return run;
    const task = create.result.task;
    run.snapshots.push({ task, from: 'CreateTaskResult', message: messageOf(create), rec: create.message });
    if (typeof task.taskId !== 'string') return run;
    run.taskId = task.taskId;
    const deadline = Date.now() + Math.max(15_000, ctx.timeoutMs);
    let status = task.status;
    while (!TERMINAL.has(String(status)) && Date.now() < deadline && status !== 'input_required') {
      await sleep(Math.min(1000, Math.max(100, typeof task.pollInterval === 'number' ? task.pollInterval : 250)));
      const g = await s.probe.request('tasks/get', { taskId: run.taskId });
      run.gets.push(g);
      if (g.kind !== 'result') break;
      run.snapshots.push({ task: g.result, from: 'tasks/get', message: messageOf(g), rec: g.message });
      status = g.result.status;
    }
    if (TERMINAL.has(String(status))) {
      run.result = await s.probe.request('tasks/result', { taskId: run.taskId });
      if (isObject(tasksCap(s)?.cancel)) run.cancel = await s.probe.request('tasks/cancel', { taskId: run.taskId });
    }
    if (isObject(tasksCap(s)?.list)) {
      const o = await s.probe.request('tasks/list', {});
      if (o.kind === 'result' && Array.isArray(o.result.tasks)) {
        run.listMessage = messageOf(o);
        run.listed = o.result.tasks.some((t) => isObject(t) && t.taskId === run.taskId);
        for (const t of o.result.tasks) if (isObject(t) && t.taskId === run.taskId) run.snapshots.push({ task: t, from: 'tasks/list', message: messageOf(o), rec: o.message });
      }
    }
    return run;
  });
}

async function created(ctx: CheckContext): Promise<TaskRun | Verdict> {
  const r = await taskRun(ctx);
  if ('status' in r) return r;
  if (r.taskId === undefined) return skip(`blocked: ${r.tool} did not create a task (see tasks.create-result)`);
  return r;
}

const createResult: CheckDef = {
  id: 'tasks.create-result',
  title: 'a task-augmented tools/call returns a CreateTaskResult with a string taskId',
  clause: 'basic.utilities.tasks#34',
  level: 'MUST',
  async run(ctx) {
    const r = await taskRun(ctx);
    if ('status' in r) return r;
    const o = r.create;
    if (o.kind !== 'result') return violated(`a task-augmented call of ${r.tool} got ${describeOutcome(o)}`, messageOf(o));
    if (!isObject(o.result.task)) return violated(`receivers that accept a task-augmented request MUST return a CreateTaskResult; ${r.tool} returned no "task"`, messageOf(o));
    if (typeof o.result.task.taskId !== 'string') return violated('task IDs MUST be a string value (basic.utilities.tasks#17)', messageOf(o), { clause: 'basic.utilities.tasks#17' });
    return pass(`${r.tool} → task ${o.result.task.taskId}`);
  },
};

const initialWorking: CheckDef = {
  id: 'tasks.initial-working',
  title: 'a task begins in the "working" status',
  clause: 'basic.utilities.tasks#20',
  level: 'MUST',
  async run(ctx) {
    const r = await created(ctx);
    if ('status' in r) return r;
    const first = r.snapshots[0];
    if (first.task.status !== 'working') return violated(`tasks MUST begin in the working status; the CreateTaskResult says ${JSON.stringify(first.task.status)}`, first.message);
    return pass();
  },
};

const transitions: CheckDef = {
  id: 'tasks.transitions',
  title: 'task statuses only move along valid paths; a terminal status never changes',
  clause: 'basic.utilities.tasks#21',
  level: 'MUST',
  async run(ctx) {
    const r = await created(ctx);
    if ('status' in r) return r;
    let prev: string | undefined;
    for (const snap of r.snapshots) {
      const st = String(snap.task.status);
      if (prev !== undefined && prev !== st) {
        if (TERMINAL.has(prev)) return violated(`a task in terminal status ${prev} MUST NOT transition; ${snap.from} then said ${st}`, snap.message, { clause: 'basic.utilities.tasks#22' });
        if (!(NEXT[prev] ?? []).includes(st)) return violated(`invalid task transition ${prev} → ${st}`, snap.message);
      }
      prev = st;
    }
    return pass(r.snapshots.map((x) => x.task.status).filter((v, i, a) => a[i - 1] !== v).join(' → '));
  },
};

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

const timestamps: CheckDef = {
  id: 'tasks.timestamps',
  title: 'every task response has ISO 8601 createdAt and lastUpdatedAt',
  clause: 'basic.utilities.tasks#30',
  level: 'MUST',
  async run(ctx) {
    const r = await created(ctx);
    if ('status' in r) return r;
    const badTs = (t: Record<string, unknown>) => ['createdAt', 'lastUpdatedAt'].some((k) => typeof t[k] !== 'string' || !ISO.test(t[k] as string));
    for (const snap of r.snapshots) if (badTs(snap.task)) snap.rec?.claims.push('');
    for (const snap of r.snapshots) {
      for (const k of ['createdAt', 'lastUpdatedAt']) {
        const v = snap.task[k];
        if (typeof v !== 'string' || !ISO.test(v)) return violated(`${snap.from}: receivers MUST include an ISO 8601 "${k}" in all task responses; got ${JSON.stringify(v)}`, snap.message, k === 'lastUpdatedAt' ? { clause: 'basic.utilities.tasks#31' } : {});
      }
    }
    return pass(`${r.snapshots.length} task responses`);
  },
};

const ttl: CheckDef = {
  id: 'tasks.ttl',
  title: 'tasks/get responses include the actual ttl (a number, or null for unlimited)',
  clause: 'basic.utilities.tasks#32',
  level: 'MUST',
  async run(ctx) {
    const r = await created(ctx);
    if ('status' in r) return r;
    const gets = r.snapshots.filter((x) => x.from === 'tasks/get');
    if (gets.length === 0) return notApplicable('the task was terminal at once: no tasks/get was needed');
    const bad = gets.filter((g) => !('ttl' in g.task) || (g.task.ttl !== null && typeof g.task.ttl !== 'number'));
    for (const g of bad) g.rec?.claims.push('');
    if (bad.length > 0) return violated(`tasks/get MUST include the actual ttl (or null); got ${JSON.stringify(bad[0].task.ttl)}`, bad[0].message);
    return pass(`ttl ${JSON.stringify(gets[0].task.ttl)}`);
  },
};

const resultMeta: CheckDef = {
  id: 'tasks.result-related-meta',
  title: `tasks/result carries _meta["${RELATED}"] with the task id`,
  clause: 'basic.utilities.tasks#56',
  level: 'MUST',
  async run(ctx) {
    const r = await created(ctx);
    if ('status' in r) return r;
    const o = r.result;
    if (o === undefined) return notApplicable('the task did not reach a terminal status in time');
    if (o.kind === 'error') return pass(`the underlying request failed (error ${o.error.code})`);
    if (o.kind !== 'result') return violated(`tasks/result of a terminal task got ${describeOutcome(o)}`, undefined, { clause: 'basic.utilities.tasks#36' });
    const meta = isObject(o.result._meta) ? o.result._meta[RELATED] : undefined;
    if (!isObject(meta) || meta.taskId !== r.taskId) return violated(`the tasks/result response MUST include _meta["${RELATED}"] = {"taskId": ${JSON.stringify(r.taskId)}}; got ${JSON.stringify(meta)}`, messageOf(o));
    return pass();
  },
};

const cancelTerminal: CheckDef = {
  id: 'tasks.cancel-terminal',
  title: 'tasks/cancel of a task in a terminal status gets -32602',
  clause: 'basic.utilities.tasks#50',
  level: 'MUST',
  async run(ctx) {
    const r = await created(ctx);
    if ('status' in r) return r;
    const o = r.cancel;
    if (o === undefined) return notApplicable('tasks.cancel is not declared, or the task did not finish in time');
    if (o.kind === 'error' && o.error.code === -32602) return pass();
    return violated(`cancelling a task already in a terminal status MUST be rejected with -32602; it got ${describeOutcome(o)}`, messageOf(o));
  },
};

const listed: CheckDef = {
  id: 'tasks.listed',
  title: 'a task retrievable with tasks/get is in tasks/list',
  clause: 'basic.utilities.tasks#49',
  level: 'MUST',
  async run(ctx) {
    const r = await created(ctx);
    if ('status' in r) return r;
    if (r.listed === undefined) return notApplicable('tasks.list is not declared (or tasks/list failed: see tasks.list)');
    if (!r.listed) return violated(`task ${JSON.stringify(r.taskId)} is retrievable via tasks/get but not in tasks/list (first page)`, r.listMessage);
    return pass();
  },
};

const ignoredWhenUndeclared: CheckDef = {
  id: 'tasks.ignored-when-undeclared',
  title: 'without tasks for tools/call, a call with task metadata is processed normally',
  clause: 'basic.utilities.tasks#16',
  level: 'MUST',
  async run(ctx) {
    const s = await ctx.session();
    if (!declared(s, 'tools')) return notApplicable('the server does not declare the tools capability');
    if (toolsCallTasks(s)) return notApplicable('the server declares tasks for tools/call');
    const c = await toolCalls(ctx);
    const call = c.calls.find((x) => x.outcome.kind === 'result');
    if (call === undefined) return notApplicable(c.none ?? 'no callable tool returned a result');
    const o = await s.probe.request('tools/call', { name: call.name, arguments: call.args, task: { ttl: 60_000 } });
    if (o.kind === 'result' && isObject(o.result.task)) return violated(`receivers that do not declare the task capability for a request type MUST process it normally; ${call.name} with task metadata returned a CreateTaskResult`, messageOf(o));
    if (o.kind !== 'result') return violated(`${call.name} with task metadata got ${describeOutcome(o)}, without it a result`, messageOf(o));
    return pass(`${call.name} answered normally`);
  },
};

const requiredNoTask: CheckDef = {
  id: 'tools.task-required',
  title: 'a tool with taskSupport "required" called without a task gets -32601',
  clause: 'basic.utilities.tasks#8',
  level: 'MUST',
  async run(ctx) {
    const s = await ctx.session();
    if (!declared(s, 'tools')) return notApplicable('the server does not declare the tools capability');
    const l = await listAll(ctx, s, 'tools/list');
    const req = l.items.filter((t) => isObject(t.execution) && t.execution.taskSupport === 'required');
    if (req.length === 0) return notApplicable('no tool requires tasks');
    // A non-conformant server would run the tool: only tools the checker may call.
    const t = req.find((x) => mayCall(ctx, x).allowed);
    if (t === undefined) return notApplicable(`${String(req[0].name)} requires tasks but may not be called (not read-only; name it in --fixtures or use --allow-calls)`);
    const o = await s.probe.request('tools/call', { name: t.name, arguments: argumentsFor(t, ctx.options.fixtures?.[String(t.name)]) });
    if (o.kind === 'error' && o.error.code === -32601) return pass(`${String(t.name)} → -32601`);
    return violated(`servers MUST return -32601 when a task-required tool is called without a task; ${String(t.name)} got ${describeOutcome(o)}`, messageOf(o));
  },
};

const forbiddenTask: CheckDef = {
  id: 'tools.task-forbidden',
  title: 'a task-augmented call of a tool without task support gets -32601',
  clause: 'basic.utilities.tasks#6',
  level: 'SHOULD',
  async run(ctx) {
    const s = await ctx.session();
    if (!declared(s, 'tools')) return notApplicable('the server does not declare the tools capability');
    if (!toolsCallTasks(s)) return notApplicable('tasks.requests.tools.call is not declared (see tasks.ignored-when-undeclared)');
    const c = await toolCalls(ctx);
    const call = c.calls.find((x) => !isObject(x.tool.execution) || x.tool.execution.taskSupport === undefined || x.tool.execution.taskSupport === 'forbidden');
    if (call === undefined) return notApplicable('no callable tool without task support');
    const o = await s.probe.request('tools/call', { name: call.name, arguments: call.args, task: { ttl: 60_000 } });
    if (o.kind === 'error' && o.error.code === -32601) return pass(`${call.name} → -32601`);
    return violated(`servers SHOULD return -32601 when a tool without task support is invoked as a task; ${call.name} got ${describeOutcome(o)}`, messageOf(o));
  },
};

export const taskChecks: CheckDef[] = [
  unknownId,
  list,
  createResult,
  initialWorking,
  transitions,
  timestamps,
  ttl,
  resultMeta,
  cancelTerminal,
  listed,
  ignoredWhenUndeclared,
  requiredNoTask,
  forbiddenTask,
];
