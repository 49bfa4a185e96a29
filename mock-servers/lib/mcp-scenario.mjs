// The transport-independent half of the scripted mock MCP server: a scenario (see
// ../README.md) becomes a handler of incoming JSON-RPC messages. The transport gives it
//   io = { send(message), sendRaw(text), exit(code), stderr(text) }
// and feeds it messages with handleMessage(msg, ctx?) or raw lines with handleText(text, ctx?).
// `ctx` may carry its own send/sendRaw so an HTTP transport can route a request's answer (and
// whatever the handler emits meanwhile) to that request's stream.

import { buildCatalog, deriveCapabilities, paginate, readResource, getPrompt, complete } from './catalog.mjs';
import { BUILTIN_TOOLS } from './builtin-tools.mjs';
import { createTaskStore, RELATED_TASK, taskCapabilities } from './tasks.mjs';
import {
  RpcError, PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR,
  isObject, isId, kindOf, sleep, forever,
} from './rpc.mjs';

export { DEFAULT_SCENARIO, resolveScenario } from './default-scenario.mjs';

export const DEFAULT_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];
export const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

const idKey = (id) => `${typeof id}:${id}`;
const isThenable = (v) => v !== null && typeof v === 'object' && typeof v.then === 'function';
/** f(v) now if v is a plain value, v.then(f) if it is a Promise: stays synchronous when it can. */
const chain = (v, f) => (isThenable(v) ? v.then(f) : f(v));
const CANCELLED = Symbol('cancelled');

export function createScenarioServer(scenario, io) {
  const sc = scenario ?? {};
  const gb = sc.behavior ?? {};
  const catalog = buildCatalog(sc);
  const capabilities = deriveCapabilities(sc, catalog);
  if (sc.tasks && !sc.capabilities) capabilities.tasks = taskCapabilities(sc.tasks);
  const versions = sc.protocolVersions ?? DEFAULT_VERSIONS;
  const state = {
    phase: 'new', // new → initializing (initialize answered) → ready (notifications/initialized)
    protocolVersion: undefined,
    clientInfo: undefined,
    clientCapabilities: undefined,
    logLevel: sc.logLevel ?? 'debug',
    subscriptions: new Set(),
    violations: [],
    rootsListChanged: 0, // notifications/roots/list_changed received
    roots: undefined, // the last roots/list answer asked for by behavior.refetchRoots
  };
  const inflight = new Map(); // idKey → { id, method, controller, cancelled, ignoreCancel }
  const seenIds = new Set();
  const pendingToClient = new Map(); // our request id → { resolve, reject }
  let nextServerId = 1;

  // ---- output -------------------------------------------------------------------------------
  const frame = (obj, omit = gb.omitJsonrpc) => (omit ? obj : { jsonrpc: '2.0', ...obj });
  const sendVia = (ctx) => ctx?.send ?? io.send;
  const rawVia = (ctx) => ctx?.sendRaw ?? io.sendRaw;
  const notify = (method, params, ctx) => sendVia(ctx)(frame(params === undefined ? { method } : { method, params }));
  const violation = (text) => {
    state.violations.push(text);
    if (!gb.quietViolations) io.stderr(`[mock] client violation: ${text}\n`);
  };

  function log(level, data, logger, ctx, taskId) {
    const at = LOG_LEVELS.indexOf(level);
    if (at < 0 || at < LOG_LEVELS.indexOf(state.logLevel)) return false;
    notify('notifications/message', relatedTo(taskId, { level, ...(logger ? { logger } : {}), data }), ctx);
    return true;
  }

  /** A task's own notification carries the related-task metadata (basic.utilities.tasks#39). */
  function relatedTo(taskId, params) {
    if (taskId === undefined) return params;
    return { ...(params ?? {}), _meta: { ...(isObject(params?._meta) ? params._meta : {}), [RELATED_TASK]: { taskId } } };
  }

  /** Sends a request to the client; resolves with {result} or {error}. */
  function request(method, params, { signal, ctx } = {}) {
    const id = `s${nextServerId++}`;
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        pendingToClient.delete(id);
        notify('notifications/cancelled', { requestId: id, reason: 'the tool call that asked was cancelled' }, ctx);
        reject(signal.reason);
      };
      pendingToClient.set(id, {
        resolve: (answer) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(answer);
        },
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      sendVia(ctx)(frame({ id, method, ...(params === undefined ? {} : { params }) }));
    });
  }

  // ---- behaviour steps (shared by onStart, onInitialized and every request) -------------------

  /**
   * Runs the pre-answer steps of a behaviour: false if the server exited, else true — or a
   * Promise of that when the behaviour waits (delayMs), so that messages without a delay are
   * handled synchronously and in order.
   */
  function preSteps(b, signal, ctx, deferred) {
    if (b.stderr) io.stderr(String(b.stderr));
    for (const n of b.notifications ?? []) {
      if (deferred) deferred.push(frame({ method: n.method, ...(n.params ? { params: n.params } : {}) }));
      else notify(n.method, n.params, ctx);
    }
    if (b.delayMs) return sleep(b.delayMs, signal).then(() => afterDelay(b, ctx));
    return afterDelay(b, ctx);
  }

  function afterDelay(b, ctx) {
    const crash = b.crash ?? b.exit;
    if (crash) {
      if (crash.stderr) io.stderr(String(crash.stderr));
      io.exit(crash.code ?? 1);
      return false;
    }
    if (b.garbage) rawVia(ctx)(typeof b.garbage === 'string' ? b.garbage : 'this is not JSON {{{');
    if (b.hugeLine) rawVia(ctx)(hugeLine(b.hugeLine));
    return true;
  }

  async function start() {
    const noise = gb.stderrNoise;
    if (noise) {
      const n = typeof noise === 'string' ? { text: noise } : noise;
      const line = `${n.text ?? 'mock server stderr noise: nothing to see here'}\n`;
      for (let i = 0; i < (n.lines ?? 3); i++) io.stderr(line);
      if (n.intervalMs) setInterval(() => io.stderr(line), n.intervalMs).unref();
    }
    return gb.onStart ? preSteps(gb.onStart) : true;
  }

  // ---- incoming -----------------------------------------------------------------------------

  function handleText(text, ctx) {
    let msg;
    try {
      msg = JSON.parse(text);
    } catch {
      sendVia(ctx)(frame({ id: null, error: { code: PARSE_ERROR, message: 'Parse error' } }));
      return Promise.resolve();
    }
    return handleMessage(msg, ctx);
  }

  function handleMessage(msg, ctx) {
    if (Array.isArray(msg)) {
      if (msg.length === 0) {
        sendVia(ctx)(frame({ id: null, error: { code: INVALID_REQUEST, message: 'Invalid Request: empty batch' } }));
        return Promise.resolve();
      }
      violation('received a JSON-RPC batch (removed from MCP in 2025-06-18)');
      return Promise.all(msg.map((m) => handleMessage(m, ctx)));
    }
    const kind = kindOf(msg);
    if (kind === 'invalid' || (kind === 'request' && (msg.jsonrpc !== '2.0' || !isId(msg.id)))) {
      const id = isObject(msg) && isId(msg.id) ? msg.id : null;
      sendVia(ctx)(frame({ id, error: { code: INVALID_REQUEST, message: 'Invalid Request' } }));
      return Promise.resolve();
    }
    if (msg.jsonrpc !== '2.0') violation(`${kind} without "jsonrpc": "2.0"`);
    if (kind === 'notification') return Promise.resolve(onNotification(msg, ctx));
    if (kind === 'response') return Promise.resolve(onResponse(msg));
    return onRequest(msg, ctx);
  }

  function onResponse(msg) {
    const p = pendingToClient.get(msg.id);
    if (!p) return violation(`response for unknown request id ${JSON.stringify(msg.id)}`);
    pendingToClient.delete(msg.id);
    p.resolve(msg.error !== undefined ? { error: msg.error } : { result: msg.result });
  }

  function onNotification(msg, ctx) {
    const params = msg.params ?? {};
    switch (msg.method) {
      case 'notifications/initialized':
        if (state.phase === 'new') violation('notifications/initialized before the initialize response');
        state.phase = 'ready';
        return gb.onInitialized ? preSteps(gb.onInitialized, undefined, ctx) : undefined;
      case 'notifications/cancelled': {
        const entry = inflight.get(idKey(params.requestId));
        if (!entry) return undefined; // unknown or finished: ignore (cancellation.md)
        if (entry.method === 'initialize') return violation('cancelled the initialize request');
        if (entry.ignoreCancel || gb.ignoreCancel) return undefined;
        entry.cancelled = true;
        entry.controller.abort(CANCELLED);
        return undefined;
      }
      case 'notifications/roots/list_changed':
        // client/roots message flow: the server asks for the new list (behavior.refetchRoots).
        state.rootsListChanged += 1;
        if (gb.refetchRoots) {
          request('roots/list', undefined, { ctx }).then((a) => {
            state.roots = a.result?.roots ?? { error: a.error };
          }, () => {});
        }
        return undefined;
      default:
        return undefined; // progress, …: nothing to do
    }
  }

  function onRequest(msg, ctx) {
    const key = idKey(msg.id);
    if (seenIds.has(key)) violation(`request id ${JSON.stringify(msg.id)} reused`);
    seenIds.add(key);
    const b = behaviorFor(msg);
    const entry = { id: msg.id, method: msg.method, controller: new AbortController(), cancelled: false, ignoreCancel: !!b.ignoreCancel };
    inflight.set(key, entry);
    const signal = entry.controller.signal;
    const deferred = b.batch ? [] : undefined;
    const gateError = lifecycleGate(msg); // judged when the request arrives, not when answered
    const finish = () => inflight.delete(key);
    const fail = (err) => {
      finish();
      if (err !== CANCELLED) throw err;
    };
    try {
      const out = chain(preSteps(b, signal, ctx, deferred), (alive) => {
        if (!alive) return undefined;
        const ready = b.never ? forever(signal) : undefined;
        return chain(ready, () =>
          chain(compute(msg, b, entry, gateError, ctx), (payload) => {
            finish();
            if (!entry.cancelled) respond(msg.id, payload, b, ctx, deferred); // a cancelled request is never answered
          }),
        );
      });
      return isThenable(out) ? out.catch(fail) : Promise.resolve();
    } catch (err) {
      fail(err);
      return Promise.resolve();
    }
  }

  /** The answer payload ({result} or {error}), or a Promise of it; throws CANCELLED. */
  function compute(msg, b, entry, gateError, ctx) {
    const ok = (result) => {
      if (msg.method === 'initialize' && state.phase === 'new') state.phase = 'initializing';
      return { result };
    };
    const bad = (err) => {
      if (err === CANCELLED || entry.cancelled) throw CANCELLED;
      return { error: err instanceof RpcError ? err.toJSON() : { code: INTERNAL_ERROR, message: String(err?.message ?? err) } };
    };
    try {
      if (gateError) throw gateError;
      if (b.error) throw new RpcError(b.error.code ?? INTERNAL_ERROR, b.error.message ?? 'error', b.error.data);
      const r = b.result !== undefined ? b.result : dispatch(msg, entry.controller.signal, ctx);
      return isThenable(r) ? r.then(ok, bad) : ok(r);
    } catch (err) {
      return bad(err);
    }
  }

  function lifecycleGate(msg) {
    if (msg.method === 'initialize' || msg.method === 'ping' || !Object.hasOwn(handlers, msg.method)) return undefined;
    const lc = sc.lifecycle ?? {};
    if (state.phase === 'new' && !lc.allowBeforeInitialize) return new RpcError(INVALID_REQUEST, 'Server not initialized');
    if (state.phase !== 'ready' && lc.requireInitialized) return new RpcError(INVALID_REQUEST, 'notifications/initialized not received yet');
    return undefined;
  }

  function respond(id, payload, b, ctx, deferred) {
    const wrong = b.wrongId === true ? (typeof id === 'number' ? id + 1000 : `${id}-wrong`) : b.wrongId;
    const res = frame({ id: b.wrongId !== undefined && b.wrongId !== false ? wrong : id, ...payload }, b.omitJsonrpc ?? gb.omitJsonrpc);
    const copies = b.duplicate ? 2 : 1;
    for (let i = 0; i < copies; i++) {
      if (deferred) sendVia(ctx)([...deferred, res]);
      else sendVia(ctx)(res);
    }
  }

  /** The behaviour for one request: global methods[method] ← onInitialize ← the tool's own. */
  function behaviorFor(msg) {
    let b = { ...gb.methods?.[msg.method] };
    if (msg.method === 'initialize') b = { ...b, ...gb.onInitialize };
    if (msg.method === 'tools/call' && isObject(msg.params)) {
      const tool = catalog.tools.find((t) => t.def.name === msg.params.name);
      if (tool) b = { ...b, ...tool.behavior };
    }
    return b;
  }

  // ---- dispatch -----------------------------------------------------------------------------

  const taskStore = createTaskStore(sc.tasks, { capabilities, notify, request, runTool: callTool });

  const served = {
    tools: () => capabilities.tools || catalog.tools.length,
    resources: () => capabilities.resources || catalog.resources.length || catalog.templates.length,
    prompts: () => capabilities.prompts || catalog.prompts.length,
    completions: () => capabilities.completions || catalog.prompts.length || catalog.templates.length,
    logging: () => capabilities.logging || sc.logging !== false,
  };
  const pageSize = (list) => (typeof sc.pageSize === 'object' ? sc.pageSize?.[list] : sc.pageSize);
  const loopOf = (list) => (typeof gb.cursorLoop === 'object' ? gb.cursorLoop?.[list] : gb.cursorLoop);
  const list = (name, items, params) => {
    const { page, nextCursor } = paginate(name, items, params, pageSize(name), loopOf(name));
    return { [name === 'templates' ? 'resourceTemplates' : name]: page.map((x) => x.def), ...(nextCursor ? { nextCursor } : {}) };
  };

  const handlers = {
    initialize: (p) => initialize(p),
    ping: () => ({}),
    'tools/list': (p) => served.tools() && list('tools', catalog.tools, p),
    'tools/call': (p, signal, ctx) => served.tools() && (taskStore.maybeCreate(p, catalog.tools.find((t) => t.def.name === p.name)) ?? callTool(p, signal, ctx)),
    'resources/list': (p) => served.resources() && list('resources', catalog.resources, p),
    'resources/templates/list': (p) => served.resources() && list('templates', catalog.templates, p),
    'resources/read': (p) => served.resources() && ({ contents: readResource(catalog, needString(p, 'uri')).contents }),
    'resources/subscribe': (p) => served.resources() && (state.subscriptions.add(needString(p, 'uri')), {}),
    'resources/unsubscribe': (p) => served.resources() && (state.subscriptions.delete(needString(p, 'uri')), {}),
    'prompts/list': (p) => served.prompts() && list('prompts', catalog.prompts, p),
    'prompts/get': (p) => served.prompts() && (needString(p, 'name'), getPrompt(catalog, p)),
    'completion/complete': (p) => served.completions() && complete(catalog, p),
    'logging/setLevel': (p) => served.logging() && setLevel(p),
    ...taskStore.handlers,
  };

  /** The handler's result (or a Promise of it, for tools/call); throws RpcError. */
  function dispatch(msg, signal, ctx) {
    if (msg.params !== undefined && !isObject(msg.params)) throw new RpcError(INVALID_PARAMS, 'params must be an object');
    const handler = Object.hasOwn(handlers, msg.method) ? handlers[msg.method] : undefined;
    const result = handler ? handler(msg.params ?? {}, signal, ctx) : undefined;
    if (result) return result;
    if (gb.unknownMethodResult !== undefined) return gb.unknownMethodResult;
    throw new RpcError(METHOD_NOT_FOUND, `Method not found: ${msg.method}`);
  }

  function initialize(p) {
    if (state.phase !== 'new') throw new RpcError(INVALID_REQUEST, 'initialize was already received');
    if (typeof p.protocolVersion !== 'string' || !isObject(p.capabilities) || !isObject(p.clientInfo)) {
      throw new RpcError(INVALID_PARAMS, 'initialize needs protocolVersion, capabilities and clientInfo');
    }
    const ob = gb.onInitialize ?? {};
    state.protocolVersion = ob.protocolVersion ?? (versions.includes(p.protocolVersion) ? p.protocolVersion : versions[0]);
    state.clientInfo = p.clientInfo;
    state.clientCapabilities = p.capabilities;
    const result = { protocolVersion: state.protocolVersion, capabilities, serverInfo: sc.serverInfo ?? { name: 'mcpwire-mock', version: '1.0.0' } };
    if (sc.instructions) result.instructions = sc.instructions;
    return result;
  }

  function setLevel(p) {
    if (!LOG_LEVELS.includes(p.level)) throw new RpcError(INVALID_PARAMS, `Invalid log level: ${p.level}`);
    state.logLevel = p.level;
    return {};
  }

  /**
   * `taskRequest`: how a tool running as a task asks the client (tasks.mjs holds it for
   * tasks/result); `taskId`: that task's id, which its notifications carry.
   */
  async function callTool(p, signal, ctx, taskRequest, taskId) {
    const name = needString(p, 'name');
    if (p.arguments !== undefined && !isObject(p.arguments)) throw new RpcError(INVALID_PARAMS, 'arguments must be an object');
    const tool = catalog.tools.find((t) => t.def.name === name);
    if (!tool) throw new RpcError(INVALID_PARAMS, `Unknown tool: ${name}`);
    if (tool.error) throw new RpcError(tool.error.code ?? INTERNAL_ERROR, tool.error.message ?? 'error', tool.error.data);
    if (tool.result !== undefined) return tool.result;
    if (!tool.builtin) return { content: [{ type: 'text', text: `${name} called` }] };
    const token = p._meta?.progressToken;
    let last = -Infinity;
    return BUILTIN_TOOLS[tool.builtin].run({
      args: p.arguments ?? {},
      signal,
      progressToken: token,
      progress: (progress, total, message) => {
        if (token === undefined || progress <= last) return;
        last = progress;
        notify('notifications/progress', relatedTo(taskId, { progressToken: token, progress, ...(total !== undefined ? { total } : {}), ...(message ? { message } : {}) }), ctx);
      },
      notify: (method, params) => notify(method, relatedTo(taskId, params), ctx),
      request: (method, params) => (taskRequest ? taskRequest(method, params) : request(method, params, { signal, ctx })),
      log: (level, data, logger) => log(level, data, logger, ctx, taskId),
      crash: (code, text) => {
        if (text) io.stderr(String(text));
        io.exit(code);
      },
      resourceUpdated: (uri) => resourceUpdated(uri, ctx),
      state,
      sleep: (ms) => sleep(ms, signal),
      forever: () => forever(signal),
    });
  }

  function resourceUpdated(uri, ctx) {
    if (!state.subscriptions.has(uri)) return false;
    notify('notifications/resources/updated', { uri }, ctx);
    return true;
  }

  return { start, handleMessage, handleText, notify, request, log, resourceUpdated, state, capabilities };
}

function needString(p, key) {
  if (typeof p[key] !== 'string') throw new RpcError(INVALID_PARAMS, `params.${key} must be a string`);
  return p[key];
}

/** A valid JSON-RPC notification line of exactly `bytes` bytes (at least its fixed overhead). */
export function hugeLine(bytes) {
  const head = '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"';
  const tail = '"}}';
  return head + 'x'.repeat(Math.max(0, Number(bytes) - head.length - tail.length)) + tail;
}
