// A small, spec-conformant MCP 2025-11-25 server core (no dependencies) for the `mcpwire check`
// tests, with one "bug" knob per check so each check can be proven to fail. Shared by the stdio
// (server.mjs) and Streamable HTTP (http-server.mjs) fixtures.
//
// createSession(bugs, aside) → { handle(message, out) }
//   bugs:  Set of knob names (see BUGS)
//   aside: (message | string) => void — writes outside any request (stdio: a line on stdout)
//   out:   { send(message), end() } — where messages related to a request go (HTTP: its SSE stream)

import { HTTP_BUGS } from './http-bugs.mjs';
import { ROBUST_BUGS, robustBefore, robustError } from './robust.mjs';
import { elicitFields, callSuiteTool, readSuiteResource, SUITE_BUGS, SUITE_PROMPTS, SUITE_RESOURCES, SUITE_TEMPLATES, suitePromptText, suiteTools } from './suite.mjs';

export const SUPPORTED = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];
export const LATEST = SUPPORTED[0];

/** Every knob, with the check it is meant to break. */
export const BUGS = {
  'init-missing-serverinfo': 'lifecycle.initialize-result',
  'dead-after-initialized': 'lifecycle.initialized-accepted',
  'version-no-echo': 'lifecycle.version-echo',
  'version-echo-unknown': 'lifecycle.version-unknown',
  'accept-before-init': 'lifecycle.before-initialize',
  'ping-nonempty': 'ping.empty-result',
  'unknown-method-success': 'jsonrpc.unknown-method',
  'invalid-params-success': 'jsonrpc.invalid-params',
  'undeclared-tools-served': 'capabilities.undeclared-refused',
  'declared-not-served': 'capabilities.declared-served',
  'cursor-loop': 'pagination.terminates',
  'duplicate-across-pages': 'pagination.no-duplicates',
  'invalid-cursor-accepted': 'pagination.invalid-cursor',
  'bad-tool-name': 'tools.names-format',
  'duplicate-tool-name': 'tools.names-unique',
  'bad-input-schema': 'tools.input-schema',
  'bad-output-schema': 'tools.output-schema',
  'unknown-tool-success': 'tools.unknown-tool',
  'bad-read-result': 'resources.read',
  'bad-prompt-result': 'prompts.get',
  'bad-complete-result': 'completion.complete',
  'setlevel-error': 'logging.set-level',
  'progress-decreasing': 'progress.monotonic',
  'progress-wrong-token': 'progress.token-echoed',
  'progress-over-total': 'progress.total',
  'progress-after-done': 'progress.after-completion',
  'ignore-cancel': 'cancellation.honoured',
  'cancel-unknown-error': 'cancellation.unknown-ignored',
  'cancel-race-dies': 'cancellation.race',
  'version-old-for-unknown': 'lifecycle.version-latest',
  'unstable-cursor': 'pagination.cursor-stable',
  'bad-annotations': 'tools.annotations',
  'call-result-invalid': 'tools.call-result',
  'structured-mismatch': 'tools.structured-content',
  'structured-no-text': 'tools.structured-text',
  'tool-bad-image': 'tools.content-base64',
  'echo-wrong': 'tools.fixture-expect',
  'bad-resource-uri': 'resources.uri-format',
  'bad-template': 'resources.templates',
  'not-found-wrong-code': 'resources.not-found',
  'bad-blob': 'resources.blob-base64',
  'subscribe-broken': 'resources.subscribe',
  'prompt-missing-arg-ok': 'prompts.missing-argument',
  'prompt-unknown-ok': 'prompts.unknown',
  'prompt-bad-image': 'prompts.content-base64',
  'completion-too-many': 'completion.max-values',
  'completion-total-low': 'completion.total-consistent',
  'completion-unknown-ok': 'completion.unknown-ref',
  'task-unknown-id-ok': 'tasks.unknown-id',
  'tasks-list-broken': 'tasks.list',
  'task-create-plain': 'tasks.create-result',
  'task-initial-completed': 'tasks.initial-working',
  'task-terminal-moves': 'tasks.transitions',
  'task-bad-timestamps': 'tasks.timestamps',
  'task-no-ttl': 'tasks.ttl',
  'task-result-no-meta': 'tasks.result-related-meta',
  'task-cancel-terminal-ok': 'tasks.cancel-terminal',
  'task-not-listed': 'tasks.listed',
  'tasks-undeclared-creates': 'tasks.ignored-when-undeclared',
  'task-required-runs': 'tools.task-required',
  'task-forbidden-runs': 'tools.task-forbidden',
  'setlevel-any-ok': 'logging.invalid-level',
  'log-ignores-level': 'logging.level-filter',
  'log-undeclared': 'logging.declared-if-emitted',
  'server-request-undeclared': 'server-requests.declared-only',
  'server-request-id-reuse': 'jsonrpc.request-ids-unique',
  'error-code-float': 'jsonrpc.error-code-integer',
  'tools-list-changed-undeclared': 'tools.list-changed-declared',
  'resources-list-changed-undeclared': 'resources.list-changed-declared',
  'prompts-list-changed-undeclared': 'prompts.list-changed-declared',
  'updated-unsubscribed': 'resources.updated-subscribed-only',
  'bad-meta-key': 'meta.key-format',
  'embedded-resource-undeclared': 'tools.embedded-resources-capability',
  'bad-utf8': 'transport.utf8',
  'batch-accepted': 'jsonrpc.batch-refused',
  'parse-error-silent': 'jsonrpc.parse-error',
  'elicit-bad-schema': 'elicitation.requests',
  'elicit-bad-default': 'elicitation.defaults-enums',
  'missing-jsonrpc': 'jsonrpc.envelope',
  'unknown-response-id': 'jsonrpc.response-ids',
  'stdout-garbage': 'transport.stdout-clean',
  'schema-violation': 'schema.strict',
  'early-request': 'lifecycle.no-early-requests',
  ...SUITE_BUGS,
};

/** Not bugs: other conformant shapes. caps-tools-only declares (and serves) only tools; caps-no-tools declares (and serves) no tools. */
export const PROFILES = ['caps-tools-only', 'caps-no-tools'];

const PAGE = 2;
const LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

const err = (code, message) => ({ error: { code, message } });
const ok = (result) => ({ result });

const RO = { readOnlyHint: true };

function tools(bugs) {
  const list = [
    {
      name: 'echo',
      description: bugs.has('schema-violation') ? 42 : 'Echoes its text',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      annotations: bugs.has('bad-annotations') ? { readOnlyHint: 'yes' } : RO,
    },
    { name: 'add', description: 'Adds two numbers', inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } }, annotations: RO },
    { name: 'slow', description: 'Waits ms milliseconds, reporting progress', inputSchema: { type: 'object', properties: { ms: { type: 'number' } }, required: ['ms'] }, annotations: RO },
    {
      name: 'structured',
      description: 'Returns structured content',
      inputSchema: { type: 'object', additionalProperties: false },
      outputSchema: { type: 'object', properties: { sum: { type: bugs.has('bad-output-schema') ? 'nonsense' : 'number' } }, required: ['sum'] },
      annotations: RO,
    },
    { name: 'job', description: 'A short job, as a task or not', inputSchema: { type: 'object' }, execution: { taskSupport: 'optional' }, annotations: RO },
    { name: 'must-task', description: 'Only runs as a task', inputSchema: { type: 'object' }, execution: { taskSupport: 'required' }, annotations: RO },
    { name: 'ask-elicit', description: 'Asks the user for their name (elicitation)', inputSchema: { type: 'object' }, annotations: RO },
    { name: 'write-file', description: 'Not read-only: the checker never calls it by default', inputSchema: { type: 'object' } },
    ...suiteTools(bugs),
  ];
  if (bugs.has('bad-tool-name')) list.push({ name: 'bad name!', inputSchema: { type: 'object' } });
  if (bugs.has('duplicate-tool-name')) list.push({ name: 'echo', inputSchema: { type: 'object' } });
  if (bugs.has('bad-input-schema')) list.push({ name: 'broken', inputSchema: { type: 'object', properties: { x: { type: 'nonsense' } } } });
  return list;
}

const RESOURCES = [
  { uri: 'mock://docs/readme', name: 'readme', mimeType: 'text/plain' },
  { uri: 'mock://docs/bad uri', name: 'bad', mimeType: 'text/plain', onlyWith: 'bad-resource-uri' },
  { uri: 'mock://docs/guide', name: 'guide', mimeType: 'text/plain' },
  { uri: 'mock://data/blob', name: 'blob', mimeType: 'application/octet-stream' },
  ...SUITE_RESOURCES,
];
const TEMPLATES = [{ uriTemplate: 'mock://items/{id}', name: 'item' }, ...SUITE_TEMPLATES];
const BAD_TEMPLATE = { uriTemplate: 'mock://items/{id', name: 'broken' };
const PROMPTS = [
  { name: 'greeting', description: 'Says hello' },
  { name: 'summarize', description: 'Summarizes a topic', arguments: [{ name: 'topic', required: true }] },
  ...SUITE_PROMPTS,
];

const encodeCursor = (n) => Buffer.from(`offset:${n}`).toString('base64url');
function decodeCursor(c) {
  if (typeof c !== 'string') return undefined;
  const m = /^offset:(\d+)$/.exec(Buffer.from(c, 'base64url').toString('utf8'));
  return m ? Number(m[1]) : undefined;
}

const served = new Map();

function paginate(bugs, items, key, params) {
  let start = 0;
  if (params?.cursor !== undefined) {
    start = decodeCursor(params.cursor);
    if (start === undefined) {
      if (!bugs.has('invalid-cursor-accepted')) return err(-32602, 'Invalid cursor');
      start = 0;
    }
  }
  items = items.filter((x) => x.onlyWith === undefined || bugs.has(x.onlyWith)).map(({ onlyWith: _o, ...x }) => x);
  if (key === 'resourceTemplates' && bugs.has('bad-template')) items = [...items, BAD_TEMPLATE];
  let page = items.slice(start, start + PAGE);
  if (bugs.has('unstable-cursor') && key === 'tools' && start > 0) {
    served.set(start, (served.get(start) ?? 0) + 1);
    if (served.get(start) > 1) page = [...page].reverse(); // the same cursor, another page
  }
  let next = start + PAGE < items.length ? start + PAGE : undefined;
  if (bugs.has('cursor-loop') && key === 'tools' && start > 0) next = start; // hands out the same cursor again, forever
  if (bugs.has('duplicate-across-pages') && key === 'tools' && next !== undefined) next -= 1; // pages overlap by one item
  return ok({ [key]: page, ...(next !== undefined ? { nextCursor: encodeCursor(next) } : {}) });
}

export function createSession(bugs, aside) {
  let state = 'new'; // new → initializing → ready (→ dead with dead-after-initialized)
  let caps = capabilities(); // what initialize will declare (accept-before-init serves by it)
  let clientCaps = {};
  const inflight = new Map();

  const tasks = new Map();
  let taskSeq = 0;
  let logLevel = 'info';

  function capabilities() {
    if (bugs.has('caps-tools-only')) return { tools: {} };
    const caps = { resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true }, completions: {}, logging: {} };
    if (!bugs.has('undeclared-tools-served')) caps.tools = { listChanged: true };
    if (!bugs.has('tasks-undeclared-creates')) caps.tasks = { list: {}, cancel: {}, requests: { tools: { call: {} } } };
    if (bugs.has('log-undeclared')) delete caps.logging;
    if (bugs.has('tools-list-changed-undeclared')) caps.tools = {};
    if (bugs.has('resources-list-changed-undeclared')) caps.resources = { subscribe: true };
    if (bugs.has('prompts-list-changed-undeclared')) caps.prompts = {};
    if (bugs.has('embedded-resource-undeclared')) delete caps.resources;
    if (bugs.has('caps-no-tools')) delete caps.tools;
    return caps;
  }

  // ---- tasks (basic/utilities/tasks) ----
  const now = () => new Date().toISOString();
  const TERMINAL = ['completed', 'failed', 'cancelled'];
  function taskView(t) {
    const v = { taskId: t.taskId, status: t.status, createdAt: t.createdAt, lastUpdatedAt: t.lastUpdatedAt, ttl: t.ttl, pollInterval: 100 };
    if (bugs.has('task-bad-timestamps')) v.createdAt = 'yesterday';
    return v;
  }
  function createTask(name, args) {
    const t = { taskId: `task-${++taskSeq}-${Math.random().toString(36).slice(2)}`, status: 'working', createdAt: now(), lastUpdatedAt: now(), ttl: 60000, result: undefined };
    tasks.set(t.taskId, t);
    const finish = () => {
      if (t.status !== 'working') return;
      t.status = 'completed';
      t.lastUpdatedAt = now();
      t.result = { content: [{ type: 'text', text: `${name} done` }] };
    };
    if (bugs.has('task-initial-completed')) finish();
    else setTimeout(finish, 300);
    return ok({ task: taskView(t) });
  }
  function taskOp(method, params) {
    const t = tasks.get(params?.taskId);
    if (t === undefined) return bugs.has('task-unknown-id-ok') ? ok({ taskId: params?.taskId, status: 'completed', createdAt: now(), lastUpdatedAt: now(), ttl: null }) : err(-32602, 'Invalid params: unknown taskId');
    switch (method) {
      case 'tasks/get': {
        const v = taskView(t);
        if (bugs.has('task-no-ttl')) delete v.ttl;
        return ok(v);
      }
      case 'tasks/result':
        return new Promise((resolve) => {
          const poll = setInterval(() => {
            if (!TERMINAL.includes(t.status)) return;
            clearInterval(poll);
            resolve(ok({ ...t.result, ...(bugs.has('task-result-no-meta') ? {} : { _meta: { 'io.modelcontextprotocol/related-task': { taskId: t.taskId } } }) }));
          }, 50);
        });
      case 'tasks/cancel':
        if (TERMINAL.includes(t.status) && !bugs.has('task-cancel-terminal-ok')) return err(-32602, `task ${t.taskId} is already ${t.status}`);
        if (!TERMINAL.includes(t.status)) {
          t.status = 'cancelled';
          t.lastUpdatedAt = now();
        }
        return ok(taskView(t));
    }
    return err(-32601, `Method not found: ${method}`);
  }
  function listTasks(params) {
    if (bugs.has('tasks-list-broken')) return err(-32603, 'tasks/list is broken');
    let list = [...tasks.values()].map((t) => {
      const v = taskView(t);
      if (bugs.has('task-terminal-moves') && TERMINAL.includes(v.status)) v.status = 'working'; // a terminal task moves again
      return v;
    });
    if (bugs.has('task-not-listed')) list = [];
    return paginate(bugs, list, 'tasks', params);
  }

  function initialize(params) {
    const requested = params?.protocolVersion;
    let version = SUPPORTED.includes(requested) ? requested : LATEST;
    if (bugs.has('version-echo-unknown') && typeof requested === 'string') version = requested;
    if (bugs.has('version-no-echo')) version = requested === '2025-06-18' ? '2025-03-26' : '2025-06-18';
    if (bugs.has('version-old-for-unknown') && !SUPPORTED.includes(requested)) version = '2024-11-05';
    state = 'initializing';
    caps = capabilities();
    clientCaps = params?.capabilities ?? {};
    return ok({
      protocolVersion: version,
      capabilities: caps,
      ...(bugs.has('init-missing-serverinfo') ? {} : { serverInfo: { name: 'check-fixture', version: '1.0.0' } }),
    });
  }

  function slow(id, args, meta, out) {
    const total = Math.max(1, Math.round((Number(args?.ms) || 500) / 100));
    const token = meta?.progressToken;
    return new Promise((resolve) => {
      let step = 0;
      const timer = setInterval(() => {
        step++;
        if (token !== undefined) {
          const progress = bugs.has('progress-decreasing') ? total - step + 1 : bugs.has('progress-over-total') ? step * 2 : step;
          const progressToken = bugs.has('progress-wrong-token') ? `${token}-not-yours` : token;
          out.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken, progress, total } });
        }
        if (step >= total) {
          clearInterval(timer);
          inflight.delete(id);
          resolve(ok({ content: [{ type: 'text', text: `waited ${total * 100} ms` }] }));
          if (bugs.has('progress-after-done') && token !== undefined) {
            setTimeout(() => aside({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: total + 0.5, total: total + 1 } }), 20);
          }
        }
      }, 100);
      inflight.set(id, () => {
        clearInterval(timer);
        inflight.delete(id);
        resolve(undefined); // cancelled: no response (basic.utilities.cancellation#4)
      });
    });
  }

  async function callTool(id, params, out) {
    if (typeof params?.name !== 'string') {
      return bugs.has('invalid-params-success') ? ok({ content: [] }) : err(-32602, 'Invalid params: "name" is required');
    }
    const a = params.arguments ?? {};
    const known = tools(bugs).find((t) => t.name === params.name);
    if (params.task !== undefined && known !== undefined) {
      const support = known.execution?.taskSupport;
      if (!caps.tasks && bugs.has('tasks-undeclared-creates')) return createTask(params.name, a);
      if (caps.tasks && (support === 'optional' || support === 'required')) {
        if (!bugs.has('task-create-plain')) return createTask(params.name, a);
      } else if (caps.tasks && !bugs.has('task-forbidden-runs')) {
        return err(-32601, `Method not found: ${params.name} does not support tasks`);
      }
    }
    if (known?.execution?.taskSupport === 'required' && params.task === undefined && !bugs.has('task-required-runs')) {
      return err(-32601, `Method not found: ${params.name} must be called as a task`);
    }
    switch (params.name) {
      case 'echo':
        return ok({ content: [{ type: 'text', text: bugs.has('echo-wrong') ? 'nope' : String(a.text ?? '') }] });
      case 'add':
        if (bugs.has('tool-bad-image')) return ok({ content: [{ type: 'image', data: 'not base64!', mimeType: 'image/png' }] });
        if (bugs.has('call-result-invalid')) return ok({ content: 'not an array' });
        if (bugs.has('embedded-resource-undeclared')) return ok({ content: [{ type: 'resource', resource: { uri: 'mock://docs/readme', text: 'embedded' } }] });
        return ok({ content: [{ type: 'text', text: String(Number(a.a) + Number(a.b)) }] });
      case 'slow':
        return slow(id, a, params._meta, out);
      case 'structured': {
        const sc = bugs.has('structured-mismatch') ? { sum: 'three' } : { sum: 3 };
        return ok({ content: bugs.has('structured-no-text') ? [] : [{ type: 'text', text: JSON.stringify(sc) }], structuredContent: sc });
      }
      case 'ask-elicit':
        if (clientCaps.elicitation) {
          const requestedSchema = bugs.has('elicit-bad-schema')
            ? { type: 'object', properties: { address: { type: 'object', properties: { city: { type: 'string' } } } } }
            : { type: 'object', properties: { name: { type: 'string' }, ...elicitFields(bugs) }, required: ['name'] };
          out.send({ jsonrpc: '2.0', id: `elicit-${id}`, method: 'elicitation/create', params: { mode: 'form', message: 'Your name?', requestedSchema } });
          return ok({ content: [{ type: 'text', text: 'asked' }] });
        }
        return ok({ content: [{ type: 'text', text: 'the client cannot elicit' }] });
      case 'job':
      case 'must-task':
        return ok({ content: [{ type: 'text', text: `${params.name} done` }] });
      case 'write-file':
        return ok({ content: [{ type: 'text', text: 'wrote a file (the checker should never call this by default)' }] });
      default:
        if (known !== undefined && callSuiteTool(bugs, params.name)) return ok(callSuiteTool(bugs, params.name));
        if (bugs.has('unknown-tool-success')) return ok({ content: [{ type: 'text', text: 'done' }] });
        if (bugs.has('error-code-float')) return err(-32602.5, `Unknown tool: ${params.name}`);
        return err(-32602, `Unknown tool: ${params.name}`);
    }
  }

  function readResource(params) {
    if (typeof params?.uri !== 'string') return err(-32602, 'Invalid params: "uri" is required');
    if (bugs.has('bad-read-result') && params.uri === 'mock://docs/readme') return ok({ contents: [{ text: 'no uri here' }] });
    const suite = readSuiteResource(bugs, params.uri);
    if (suite !== undefined) return suite;
    const r = RESOURCES.find((x) => x.uri === params.uri);
    if (r === undefined) return { error: { code: bugs.has('not-found-wrong-code') ? -32603 : -32002, message: 'Resource not found', data: { uri: params.uri } } };
    if (r.mimeType === 'application/octet-stream') return ok({ contents: [{ uri: r.uri, mimeType: r.mimeType, blob: bugs.has('bad-blob') ? 'AA=A!' : 'AAEC' }] });
    return ok({ contents: [{ uri: r.uri, mimeType: r.mimeType, text: `contents of ${r.name}` }] });
  }

  function getPrompt(params) {
    if (bugs.has('declared-not-served')) return err(-32601, 'Method not found: prompts/get');
    if (typeof params?.name !== 'string') return err(-32602, 'Invalid params: "name" is required');
    const p = PROMPTS.find((x) => x.name === params.name);
    if (p === undefined) return bugs.has('prompt-unknown-ok') ? ok({ messages: [] }) : err(-32602, `Unknown prompt: ${params.name}`);
    for (const a of p.arguments ?? []) if (a.required && typeof params.arguments?.[a.name] !== 'string' && !bugs.has('prompt-missing-arg-ok')) return err(-32602, `Missing argument ${a.name}`);
    // The suite's prompt is prompts.arguments-substituted's; the knobs below break the others.
    if (p.name === 'test_prompt_with_arguments') return ok({ messages: [{ role: 'user', content: { type: 'text', text: suitePromptText(bugs, params.arguments) } }] });
    if (bugs.has('bad-prompt-result')) return ok({ messages: [{ role: 'robot', content: { type: 'text', text: 'hi' } }] });
    if (bugs.has('prompt-bad-image')) return ok({ messages: [{ role: 'user', content: { type: 'image', data: 'not base64!', mimeType: 'image/png' } }] });
    return ok({ messages: [{ role: 'user', content: { type: 'text', text: `${p.name} ${params.arguments?.topic ?? ''}`.trim() } }] });
  }

  function complete(params) {
    const ref = params?.ref;
    let values;
    if (ref?.type === 'ref/prompt' && ref.name === 'summarize') values = ['alpha', 'beta'];
    else if (ref?.type === 'ref/resource' && ref.uri === TEMPLATES[0].uriTemplate) values = ['1', '2'];
    else return bugs.has('completion-unknown-ok') ? ok({ completion: { values: [] } }) : err(-32602, 'Unknown reference');
    if (bugs.has('bad-complete-result')) return ok({ completion: { values: 'nope' } });
    if (bugs.has('completion-too-many')) values = Array.from({ length: 101 }, (_, i) => `v${i}`);
    return ok({ completion: { values, total: bugs.has('completion-total-low') ? 1 : values.length, hasMore: false } });
  }

  async function dispatch(id, method, params, out) {
    if (bugs.has('caps-tools-only') && !/^(initialize|ping|tools\/)/.test(method)) return err(-32601, `Method not found: ${method}`);
    if (!caps.resources && method.startsWith('resources/')) return err(-32601, `Method not found: ${method}`);
    if (bugs.has('caps-no-tools') && method.startsWith('tools/')) return err(-32601, `Method not found: ${method}`);
    switch (method) {
      case 'initialize':
        return initialize(params);
      case 'ping':
        return ok(bugs.has('ping-nonempty') ? { pong: true } : bugs.has('bad-meta-key') ? { _meta: { '-not.a/valid-key-': 1 } } : {});
      case 'tasks/get':
      case 'tasks/result':
      case 'tasks/cancel':
        return caps.tasks ? taskOp(method, params) : err(-32601, `Method not found: ${method}`);
      case 'tasks/list':
        return caps.tasks ? listTasks(params) : err(-32601, `Method not found: ${method}`);
      case 'tools/list':
        return paginate(bugs, tools(bugs), 'tools', params);
      case 'tools/call':
        return callTool(id, params, out);
      case 'resources/list':
        return paginate(bugs, RESOURCES, 'resources', params);
      case 'resources/templates/list':
        return paginate(bugs, TEMPLATES, 'resourceTemplates', params);
      case 'resources/read':
        return readResource(params);
      case 'resources/subscribe':
      case 'resources/unsubscribe':
        if (bugs.has('subscribe-broken')) return err(-32603, 'subscriptions are broken');
        return typeof params?.uri === 'string' ? ok({}) : err(-32602, 'Invalid params: "uri" is required');
      case 'prompts/list':
        return bugs.has('declared-not-served') ? err(-32601, 'Method not found: prompts/list') : paginate(bugs, PROMPTS, 'prompts', params);
      case 'prompts/get':
        return getPrompt(params);
      case 'completion/complete':
        return complete(params);
      case 'logging/setLevel':
        if (bugs.has('setlevel-error')) return err(-32603, 'logging is broken');
        if (!caps.logging) return err(-32601, `Method not found: ${method}`);
        if (!LEVELS.includes(params?.level)) return bugs.has('setlevel-any-ok') ? ok({}) : err(-32602, 'Invalid log level');
        logLevel = params.level;
        // One log message right after (at the level set; "debug" with log-ignores-level).
        setTimeout(() => aside({ jsonrpc: '2.0', method: 'notifications/message', params: { level: bugs.has('log-ignores-level') ? 'debug' : logLevel, data: `level set to ${logLevel}` } }), 50);
        return ok({});
      default:
        return bugs.has('unknown-method-success') ? ok({}) : err(-32601, `Method not found: ${method}`);
    }
  }

  const answered = new Set();
  const robust = { seen: new Set(), cancels: 0, pings: [] };

  function onNotification(msg, out) {
    if (msg.method === 'notifications/initialized') {
      state = bugs.has('dead-after-initialized') ? 'dead' : 'ready';
      if (bugs.has('missing-jsonrpc')) aside({ method: 'notifications/message', params: { level: 'info', data: 'hello' } });
      if (bugs.has('server-request-undeclared')) aside({ jsonrpc: '2.0', id: 'srv-s1', method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 10 } });
      if (bugs.has('server-request-id-reuse')) for (let i = 0; i < 2; i++) aside({ jsonrpc: '2.0', id: 'srv-p', method: 'ping' });
      if (bugs.has('log-undeclared')) aside({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'hello' } });
      if (bugs.has('tools-list-changed-undeclared')) aside({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
      if (bugs.has('resources-list-changed-undeclared')) aside({ jsonrpc: '2.0', method: 'notifications/resources/list_changed' });
      if (bugs.has('prompts-list-changed-undeclared')) aside({ jsonrpc: '2.0', method: 'notifications/prompts/list_changed' });
      if (bugs.has('updated-unsubscribed')) aside({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'mock://docs/guide' } });
      if (bugs.has('bad-utf8')) aside(Buffer.concat([Buffer.from('{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}}')]));
    } else if (msg.method === 'notifications/cancelled') {
      robust.cancels++;
      const id = msg.params?.requestId;
      if (answered.has(id) && bugs.has('cancel-race-dies')) state = 'dead';
      if (!inflight.has(id) && !answered.has(id) && bugs.has('cancel-unknown-error')) out.send({ jsonrpc: '2.0', id: null, error: { code: -32602, message: `no request ${id}` } });
      if (!bugs.has('ignore-cancel')) inflight.get(id)?.();
    }
  }

  async function handle(msg, out) {
    if (msg === null || typeof msg !== 'object' || Array.isArray(msg)) return out.end();
    if (typeof msg.method !== 'string') return out.end(); // a response from the client
    if (!('id' in msg)) {
      onNotification(msg, out);
      return out.end();
    }
    if (state === 'dead') return; // never answers again
    const { id, method, params } = msg;
    let answer;
    if (state === 'new' && method !== 'initialize' && method !== 'ping' && !bugs.has('accept-before-init')) {
      answer = err(-32600, 'Server not initialized');
    } else {
      const r = robustBefore(bugs, msg, robust);
      if (r === 'exit') process.exit(3);
      if (r === 'hang') return;
      answer = r ?? (await dispatch(id, method, params, out));
    }
    answer = robustError(bugs, answer);
    if (answer !== undefined) out.send({ jsonrpc: '2.0', id, ...answer });
    answered.add(id);
    out.end();
    if (method === 'initialize') {
      if (bugs.has('early-request')) aside({ jsonrpc: '2.0', id: 'srv-1', method: 'roots/list' });
      if (bugs.has('unknown-response-id')) aside({ jsonrpc: '2.0', id: 987654, result: {} });
    }
  }

  return { handle };
}

/** Knobs from `--bug=a,b` arguments and the MCPWIRE_CHECK_BUGS environment variable. */
export function bugsFrom(argv, env) {
  const names = [...argv.filter((a) => a.startsWith('--bug=')).map((a) => a.slice(6)), env.MCPWIRE_CHECK_BUGS ?? '']
    .flatMap((s) => s.split(','))
    .map((s) => s.trim())
    .filter(Boolean);
  for (const n of names) if (!(n in BUGS) && !PROFILES.includes(n) && !(n in HTTP_BUGS) && !(n in ROBUST_BUGS)) throw new Error(`unknown bug knob: ${n}`);
  return new Set(names);
}
