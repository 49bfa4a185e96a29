// The transport-independent core of the 2026-07-28 (stateless) scripted mock: one incoming
// JSON-RPC request in, its answer out, with the request-scoped notifications sent through the
// caller's `ctx.send`. No sessions, no handshake: every request carries its own `_meta`
// (basic/index.md, "Per-request protocol fields"). The framing (stdio lines, HTTP POSTs and SSE)
// lives in ../stdio-server.mjs and ../http-server.mjs.

import { RpcError, INVALID_PARAMS, METHOD_NOT_FOUND, INVALID_REQUEST, isObject, sleep, forever } from '../../lib/rpc.mjs';
import { paginate, readResource, getPrompt } from '../../lib/catalog.mjs';
import { LOG_LEVELS } from '../../lib/mcp-scenario.mjs';
import { buildModernTools } from './tools.mjs';
import { createStateCodec, requestDigest } from './state.mjs';
import { createModernTaskStore, TASKS_EXTENSION } from './tasks.mjs';

export const MODERN_VERSIONS = ['2026-07-28'];
export const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];
export const MISSING_CAPABILITY = -32021;
export const UNSUPPORTED_VERSION = -32022;
export const META = {
  version: 'io.modelcontextprotocol/protocolVersion',
  caps: 'io.modelcontextprotocol/clientCapabilities',
  client: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  server: 'io.modelcontextprotocol/serverInfo',
  subscription: 'io.modelcontextprotocol/subscriptionId',
};
const CACHEABLE = ['server/discover', 'tools/list', 'prompts/list', 'resources/list', 'resources/templates/list', 'resources/read'];
const MRTR_METHODS = ['tools/call', 'prompts/get', 'resources/read'];

export const DEFAULT_MODERN_SCENARIO = {
  serverInfo: { name: 'mcpwire-modern-mock', version: '1.0.0' },
  instructions: 'A scripted 2026-07-28 mock MCP server for tests.',
  tools: ['echo', 'add', 'route', 'progress', 'log', 'slow', 'notify', 'confirm', 'sample', 'roots'],
  resources: [
    { uri: 'mem://readme', name: 'readme', mimeType: 'text/plain', text: 'Hello from the modern mock.' },
    { uri: 'mem://config.json', name: 'config', mimeType: 'application/json', text: '{"debug":false}' },
  ],
  resourceTemplates: [{ uriTemplate: 'mem://notes/{id}', name: 'note', mimeType: 'text/plain', text: 'Note {id}' }],
  prompts: [
    {
      name: 'greet',
      description: 'Greets someone',
      arguments: [{ name: 'name', required: true }],
      messages: [{ role: 'user', content: { type: 'text', text: 'Say hello to {{name}}.' } }],
    },
  ],
};

/** What a request resolves to when it was cancelled: it is never answered. */
const CANCELLED = Symbol('cancelled');
const idKey = (id) => `${typeof id}:${id}`;
const strip = (o, keys) => Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)));

/** An RpcError with the HTTP status the Streamable HTTP binding prescribes for it. */
function httpError(code, message, data, status) {
  const e = new RpcError(code, message, data);
  e.httpStatus = status;
  return e;
}

export function createModernEngine(scenario = DEFAULT_MODERN_SCENARIO, io = {}) {
  const sc = scenario;
  const gb = sc.behavior ?? {};
  const mode = sc.mode ?? 'modern-only';
  const modern = sc.protocolVersions ?? MODERN_VERSIONS;
  const supported = mode === 'dual' ? [...modern, ...(sc.legacyVersions ?? LEGACY_VERSIONS)] : modern;
  const serverInfo = sc.serverInfo ?? DEFAULT_MODERN_SCENARIO.serverInfo;
  const tools = buildModernTools(sc.tools ?? []);
  const resources = (sc.resources ?? []).map((r) => ({ def: strip(r, ['text', 'blob', 'behavior']), src: r }));
  const templates = (sc.resourceTemplates ?? []).map((r) => ({ def: strip(r, ['text', 'completions']), src: r }));
  const prompts = (sc.prompts ?? []).map((p) => ({ def: strip(p, ['messages', 'behavior']), src: p }));
  const catalog = { resources, templates, prompts };
  const capabilities = sc.capabilities ?? deriveCapabilities();
  const codec = createStateCodec({ ttlMs: sc.requestStateTtlMs });
  const maxRounds = sc.maxRounds ?? 3;
  const stderr = io.stderr ?? ((t) => process.stderr.write(t));
  // scenario.tasks: the tasks extension (tasks.mjs) for the tools marked `task: true`
  const taskStore = sc.tasks ? createModernTaskStore(sc.tasks, { runTool: (name, args, rc) => runTool(tools.get(name), name, args, rc) }) : undefined;

  const record = { requests: [], notifications: [], cancelled: [], violations: [] };
  const inflight = new Map(); // idKey → AbortController
  const subscriptions = new Map(); // idKey → { id, filter, send, end }
  const expectations = (sc.expect ?? []).map((e) => ({ ...e, met: false }));

  function deriveCapabilities() {
    const caps = {};
    if (sc.logging !== false) caps.logging = {};
    if (tools.size) caps.tools = { listChanged: true };
    if (resources.length || templates.length) caps.resources = { subscribe: true, listChanged: true };
    if (prompts.length) caps.prompts = { listChanged: true };
    if (sc.tasks) caps.extensions = { [TASKS_EXTENSION]: {} };
    return caps;
  }

  const violation = (text) => {
    record.violations.push(text);
    if (!gb.quietViolations) stderr(`[mock] client violation: ${text}\n`);
  };

  function noteExpectations(msg) {
    const meta = msg.params?._meta ?? {};
    for (const e of expectations) {
      if (e.met || e.method !== msg.method) continue;
      if (e.name !== undefined && e.name !== (msg.params?.name ?? msg.params?.uri)) continue;
      if (e.inputResponses && !isObject(msg.params?.inputResponses)) continue;
      if (e.logLevel && meta[META.logLevel] === undefined) continue;
      if (e.progressToken && meta.progressToken === undefined) continue;
      e.met = true;
    }
  }

  /** Expectations of the scenario (`expect`) that no request has met, as readable lines. */
  const unmet = () => expectations.filter((e) => !e.met).map((e) => JSON.stringify(strip(e, ['met'])));

  // ---- the per-request _meta -----------------------------------------------------------------
  function checkMeta(msg) {
    const meta = msg.params?._meta;
    const version = isObject(meta) ? meta[META.version] : undefined;
    if (typeof version !== 'string' || !isObject(meta[META.caps])) {
      violation(`${msg.method} without the required _meta protocolVersion and clientCapabilities`);
      throw httpError(INVALID_PARAMS, 'Invalid params: _meta must carry io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities', undefined, 400);
    }
    if (!modern.includes(version)) {
      throw httpError(UNSUPPORTED_VERSION, 'Unsupported protocol version', { supported, requested: version }, 400);
    }
    const level = meta[META.logLevel];
    if (level !== undefined && !LOG_LEVELS.includes(level)) throw httpError(INVALID_PARAMS, `Invalid log level: ${level}`, undefined, 400);
    return meta;
  }

  /** The `initialize` of a legacy client reaching a modern-only server (basic/versioning.md). */
  function refuseInitialize(msg) {
    violation('initialize sent to a modern-only server');
    const requested = typeof msg.params?.protocolVersion === 'string' ? msg.params.protocolVersion : 'none';
    throw httpError(UNSUPPORTED_VERSION, `Unsupported protocol version: this server speaks only ${modern.join(', ')} (no initialize handshake)`, { supported, requested }, 400);
  }

  // ---- results -------------------------------------------------------------------------------
  function finish(method, result, beh) {
    const out = { ...result };
    if (out.resultType === undefined) out.resultType = 'complete';
    // a scenario's own ttlMs/cacheScope (beh.result) win over the configured hints
    if (out.resultType === 'complete' && CACHEABLE.includes(method)) Object.assign(out, { ...cacheHint(method), ...result });
    if (!gb.omitServerInfo) out._meta = { ...out._meta, [META.server]: serverInfo };
    if (beh.resultType !== undefined) out.resultType = beh.resultType;
    if (beh.omitResultType) delete out.resultType;
    return out;
  }

  function cacheHint(method) {
    const c = sc.cache ?? {};
    const own = c[method] ?? {};
    const scope = method === 'resources/read' ? 'private' : 'public';
    return { ttlMs: own.ttlMs ?? c.ttlMs ?? 60_000, cacheScope: own.cacheScope ?? c.cacheScope ?? scope };
  }

  // ---- handlers ------------------------------------------------------------------------------
  const list = (name, items, p) => {
    const { page, nextCursor } = paginate(name, items, p, sc.pageSize ?? 0);
    return nextCursor === undefined ? { page } : { page, nextCursor };
  };
  const listed = (key, items, p) => {
    const { page, nextCursor } = list(key, items, p);
    return { [key]: page, ...(nextCursor ? { nextCursor } : {}) };
  };

  const handlers = {
    'server/discover': () => ({
      supportedVersions: supported,
      capabilities,
      ...(sc.instructions ? { instructions: sc.instructions } : {}),
    }),
    'tools/list': (p) => listed('tools', [...tools.entries()].map(([name, t]) => ({ name, ...t.def })), p),
    'resources/list': (p) => listed('resources', resources.map((r) => r.def), p),
    'resources/templates/list': (p) => listed('resourceTemplates', templates.map((r) => r.def), p),
    'prompts/list': (p) => listed('prompts', prompts.map((r) => r.def), p),
    'resources/read': (p) => {
      if (typeof p.uri !== 'string') throw new RpcError(INVALID_PARAMS, 'uri is required');
      try {
        return { contents: readResource(catalog, p.uri).contents };
      } catch (err) {
        // 2026-07-28 moved resource-not-found from -32002 to -32602 (changelog, minor change 6).
        if (err instanceof RpcError) throw new RpcError(INVALID_PARAMS, 'Resource not found', { uri: p.uri });
        throw err;
      }
    },
    'prompts/get': (p) => getPrompt({ prompts: prompts.map((x) => ({ def: x.def, src: x.src })) }, p),
    'tools/call': (p, rc) => callTool(p, rc),
    ...(taskStore ? { 'tasks/get': taskStore['tasks/get'], 'tasks/update': taskStore['tasks/update'], 'tasks/cancel': taskStore['tasks/cancel'] } : {}),
  };

  async function callTool(p, rc) {
    const tool = tools.get(p.name);
    if (!tool) throw new RpcError(INVALID_PARAMS, `Unknown tool: ${p.name}`);
    const args = isObject(p.arguments) ? p.arguments : {};
    if (!tool.task || !taskStore) return runTool(tool, p.name, args, rc);
    if (tool.task === 'optional' && !taskStore.declared(rc)) return runTool(tool, p.name, args, rc);
    if (tool.task === 'after-input') {
      const out = await runTool(tool, p.name, args, rc);
      return out?.resultType === 'input_required' ? out : taskStore.create(p.name, args, rc, out);
    }
    return taskStore.create(p.name, args, rc);
  }

  async function runTool(tool, name, args, rc) {
    if (tool.error) throw new RpcError(tool.error.code, tool.error.message, tool.error.data);
    if (tool.result) return tool.result;
    if (!tool.run) return { content: [{ type: 'text', text: `${name} called` }] };
    if (tool.capability && !isObject(rc.clientCapabilities?.[tool.capability])) {
      throw httpError(MISSING_CAPABILITY, `Tool ${name} requires the ${tool.capability} client capability`, { requiredCapabilities: { [tool.capability]: {} } }, 400);
    }
    return tool.run(args, rc);
  }

  /** MRTR: opens the echoed requestState (attacker-controlled: verified, bound, expiring). */
  function mrtrInput(msg) {
    const p = msg.params;
    const digest = requestDigest(msg.method, p);
    let state;
    if (p.requestState !== undefined) {
      if (gb.rejectState) throw new RpcError(INVALID_PARAMS, 'requestState failed verification');
      try {
        state = codec.open(p.requestState, digest);
      } catch (err) {
        throw new RpcError(INVALID_PARAMS, err.message);
      }
    } else if (p.inputResponses !== undefined) {
      violation(`${msg.method} retried with inputResponses but without the requestState`);
    }
    if (p.inputResponses !== undefined && !isObject(p.inputResponses)) throw new RpcError(INVALID_PARAMS, 'inputResponses must be an object');
    // each response is a result object (basic.patterns.mrtr#22: a valid InputResponses object)
    if (p.inputResponses !== undefined && !Object.values(p.inputResponses).every(isObject)) throw new RpcError(INVALID_PARAMS, 'each input response must be an object');
    return {
      state,
      responses: p.inputResponses,
      maxRounds,
      require: (inputRequests, data) => ({ resultType: 'input_required', inputRequests, requestState: codec.seal(data, digest) }),
    };
  }

  function requestContext(msg, meta, ctx, signal) {
    const level = meta[META.logLevel];
    const token = meta.progressToken;
    let lastProgress = -Infinity;
    return {
      signal,
      clientCapabilities: meta[META.caps],
      paramHeaders: ctx.paramHeaders,
      input: MRTR_METHODS.includes(msg.method) ? mrtrInput(msg) : undefined,
      progress(progress, total, message) {
        if (token === undefined || signal.aborted || progress <= lastProgress) return false;
        lastProgress = progress;
        ctx.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress, total, message } });
        return true;
      },
      // servers MUST NOT emit notifications/message for requests without a logLevel (changelog 5)
      log(lvl, data) {
        if (level === undefined || signal.aborted || LOG_LEVELS.indexOf(lvl) < LOG_LEVELS.indexOf(level)) return false;
        ctx.send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: lvl, logger: 'mock', data } });
        return true;
      },
      emit,
    };
  }

  // ---- subscriptions/listen (basic/patterns/subscriptions.md) --------------------------------
  function listen(msg, ctx) {
    const want = isObject(msg.params?.notifications) ? msg.params.notifications : {};
    const agreed = {};
    if (want.toolsListChanged === true && capabilities.tools) agreed.toolsListChanged = true;
    if (want.promptsListChanged === true && capabilities.prompts) agreed.promptsListChanged = true;
    if (want.resourcesListChanged === true && capabilities.resources) agreed.resourcesListChanged = true;
    if (Array.isArray(want.resourceSubscriptions) && capabilities.resources?.subscribe) agreed.resourceSubscriptions = want.resourceSubscriptions.filter((u) => typeof u === 'string');
    return new Promise((resolve) => {
      const sub = {
        id: msg.id,
        filter: agreed,
        send: (method, params) => ctx.send({ jsonrpc: '2.0', method, params: { ...params, _meta: { [META.subscription]: msg.id } } }),
        end: (graceful) => {
          subscriptions.delete(idKey(msg.id));
          resolve(graceful ? { _meta: { [META.subscription]: msg.id } } : CANCELLED);
        },
      };
      subscriptions.set(idKey(msg.id), sub);
      sub.send('notifications/subscriptions/acknowledged', { notifications: agreed });
      ctx.signal?.addEventListener('abort', () => sub.end(false), { once: true });
    });
  }

  /** Sends a change to every subscription that asked for it; returns how many got it. */
  function emit(kind, uri) {
    let n = 0;
    for (const sub of subscriptions.values()) {
      const f = sub.filter;
      if (kind === 'tools' && f.toolsListChanged) sub.send('notifications/tools/list_changed', {});
      else if (kind === 'prompts' && f.promptsListChanged) sub.send('notifications/prompts/list_changed', {});
      else if (kind === 'resources' && f.resourcesListChanged) sub.send('notifications/resources/list_changed', {});
      else if (kind === 'updated' && f.resourceSubscriptions?.includes(uri)) sub.send('notifications/resources/updated', { uri });
      else continue;
      n++;
    }
    return n;
  }

  /** Ends every subscription gracefully: its subscriptions/listen gets a complete result. */
  function endSubscriptions() {
    for (const sub of [...subscriptions.values()]) sub.end(true);
  }

  // ---- the entry points ----------------------------------------------------------------------
  /**
   * Handles one request. Resolves { response } (a JSON-RPC response object), or { cancelled }
   * when the request was cancelled and must never be answered, or { behavior } when a
   * transport-level misbehaviour (raw HTTP answer, dropped stream, crash) is asked for.
   * ctx: { send(notification), signal?, paramHeaders? }.
   */
  async function handleRequest(msg, ctx = {}) {
    record.requests.push({ id: msg.id, method: msg.method, meta: msg.params?._meta, headers: ctx.headers, at: Date.now() });
    noteExpectations(msg);
    const controller = new AbortController();
    const key = idKey(msg.id);
    if (inflight.has(key)) violation(`request id ${JSON.stringify(msg.id)} reused while in flight`);
    inflight.set(key, controller);
    ctx.signal?.addEventListener('abort', () => controller.abort(new Error('stream closed')), { once: true });
    try {
      const beh = { ...gb.methods?.[msg.method], ...(msg.method === 'tools/call' ? tools.get(msg.params?.name)?.behavior : undefined) };
      const result = await answer(msg, { ...ctx, signal: controller.signal }, beh);
      if (result === CANCELLED || controller.signal.aborted) {
        record.cancelled.push(msg.id);
        return { cancelled: true };
      }
      if (result?.behavior) return result;
      return { response: { jsonrpc: '2.0', id: msg.id, result: finish(msg.method, result, beh) } };
    } catch (err) {
      if (controller.signal.aborted) {
        record.cancelled.push(msg.id);
        return { cancelled: true };
      }
      if (err instanceof RpcError) return { response: { jsonrpc: '2.0', id: msg.id, error: err.toJSON() }, httpStatus: err.httpStatus };
      stderr(`[mock] internal error: ${err?.stack ?? err}\n`);
      return { response: { jsonrpc: '2.0', id: msg.id, error: { code: -32603, message: String(err?.message ?? err) } } };
    } finally {
      inflight.delete(key);
    }
  }

  async function answer(msg, ctx, beh) {
    if (msg.method === 'initialize') refuseInitialize(msg);
    if (msg.params !== undefined && !isObject(msg.params)) throw httpError(INVALID_PARAMS, 'params must be an object', undefined, 400);
    if (beh.delayMs) await sleep(beh.delayMs, ctx.signal).catch(() => {});
    if (ctx.signal.aborted) return CANCELLED;
    if (beh.never) return forever(ctx.signal).catch(() => CANCELLED);
    if (beh.http || beh.dropStream || beh.crash || beh.garbage || beh.nullIdError) return { behavior: beh };
    if (beh.error) throw httpError(beh.error.code, beh.error.message, beh.error.data, beh.error.httpStatus);
    const handler = handlers[msg.method];
    if (!handler && msg.method !== 'subscriptions/listen') throw httpError(METHOD_NOT_FOUND, `Method not found: ${msg.method}`, undefined, 404);
    const meta = checkMeta(msg);
    if (beh.result) return beh.result;
    if (msg.method === 'subscriptions/listen') return listen(msg, ctx);
    const rc = requestContext(msg, meta, ctx, ctx.signal);
    return handler(msg.params ?? {}, rc);
  }

  /** Client notifications: on stdio, notifications/cancelled aborts the request it names. */
  function handleNotification(msg, transport) {
    record.notifications.push(msg);
    if (msg.method !== 'notifications/cancelled') return;
    if (transport === 'http') violation('notifications/cancelled over Streamable HTTP (closing the stream is the cancellation)');
    const id = msg.params?.requestId;
    const sub = subscriptions.get(idKey(id));
    if (sub) return sub.end(false);
    inflight.get(idKey(id))?.abort(new Error('cancelled'));
  }

  return {
    mode,
    supported,
    modern,
    capabilities,
    serverInfo,
    record,
    tasks: taskStore?.record,
    handleRequest,
    handleNotification,
    emit,
    endSubscriptions,
    unmet,
    violation,
    toolDef: (name) => tools.get(name)?.def,
    invalid: (id, message) => ({ jsonrpc: '2.0', id: id ?? null, error: { code: INVALID_REQUEST, message } }),
  };
}

