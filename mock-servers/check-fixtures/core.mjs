// A small, spec-conformant MCP 2025-11-25 server core (no dependencies) for the `mcpwire check`
// tests, with one "bug" knob per check so each check can be proven to fail. Shared by the stdio
// (server.mjs) and Streamable HTTP (http-server.mjs) fixtures.
//
// createSession(bugs, aside) → { handle(message, out) }
//   bugs:  Set of knob names (see BUGS)
//   aside: (message | string) => void — writes outside any request (stdio: a line on stdout)
//   out:   { send(message), end() } — where messages related to a request go (HTTP: its SSE stream)

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
  'progress-decreasing': 'progress.well-formed',
  'progress-wrong-token': 'progress.well-formed',
  'ignore-cancel': 'cancellation.honoured',
  'missing-jsonrpc': 'jsonrpc.envelope',
  'unknown-response-id': 'jsonrpc.response-ids',
  'stdout-garbage': 'transport.stdout-clean',
  'schema-violation': 'schema.strict',
  'early-request': 'lifecycle.no-early-requests',
};

/** Not bugs: other conformant shapes. caps-tools-only declares (and serves) only tools. */
export const PROFILES = ['caps-tools-only'];

const PAGE = 2;
const LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

const err = (code, message) => ({ error: { code, message } });
const ok = (result) => ({ result });

function tools(bugs) {
  const list = [
    {
      name: 'echo',
      description: 'Echoes its text',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      ...(bugs.has('schema-violation') ? { annotations: { readOnlyHint: 'yes' } } : {}),
    },
    { name: 'add', description: 'Adds two numbers', inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } } },
    { name: 'slow', description: 'Waits ms milliseconds, reporting progress', inputSchema: { type: 'object', properties: { ms: { type: 'number' } }, required: ['ms'] } },
    {
      name: 'structured',
      description: 'Returns structured content',
      inputSchema: { type: 'object', additionalProperties: false },
      outputSchema: { type: 'object', properties: { sum: { type: bugs.has('bad-output-schema') ? 'nonsense' : 'number' } }, required: ['sum'] },
    },
  ];
  if (bugs.has('bad-tool-name')) list.push({ name: 'bad name!', inputSchema: { type: 'object' } });
  if (bugs.has('duplicate-tool-name')) list.push({ name: 'echo', inputSchema: { type: 'object' } });
  if (bugs.has('bad-input-schema')) list.push({ name: 'broken', inputSchema: { type: 'object', properties: { x: { type: 'nonsense' } } } });
  return list;
}

const RESOURCES = [
  { uri: 'mock://docs/readme', name: 'readme', mimeType: 'text/plain' },
  { uri: 'mock://docs/guide', name: 'guide', mimeType: 'text/plain' },
  { uri: 'mock://data/blob', name: 'blob', mimeType: 'application/octet-stream' },
];
const TEMPLATES = [{ uriTemplate: 'mock://items/{id}', name: 'item' }];
const PROMPTS = [
  { name: 'greeting', description: 'Says hello' },
  { name: 'summarize', description: 'Summarizes a topic', arguments: [{ name: 'topic', required: true }] },
];

const encodeCursor = (n) => Buffer.from(`offset:${n}`).toString('base64url');
function decodeCursor(c) {
  if (typeof c !== 'string') return undefined;
  const m = /^offset:(\d+)$/.exec(Buffer.from(c, 'base64url').toString('utf8'));
  return m ? Number(m[1]) : undefined;
}

function paginate(bugs, items, key, params) {
  let start = 0;
  if (params?.cursor !== undefined) {
    start = decodeCursor(params.cursor);
    if (start === undefined) {
      if (!bugs.has('invalid-cursor-accepted')) return err(-32602, 'Invalid cursor');
      start = 0;
    }
  }
  const page = items.slice(start, start + PAGE);
  let next = start + PAGE < items.length ? start + PAGE : undefined;
  if (bugs.has('cursor-loop') && key === 'tools' && start > 0) next = start; // hands out the same cursor again, forever
  if (bugs.has('duplicate-across-pages') && key === 'tools' && next !== undefined) next -= 1; // pages overlap by one item
  return ok({ [key]: page, ...(next !== undefined ? { nextCursor: encodeCursor(next) } : {}) });
}

export function createSession(bugs, aside) {
  let state = 'new'; // new → initializing → ready (→ dead with dead-after-initialized)
  const inflight = new Map();

  function capabilities() {
    if (bugs.has('caps-tools-only')) return { tools: {} };
    const caps = { resources: { subscribe: true, listChanged: true }, prompts: {}, completions: {}, logging: {} };
    if (!bugs.has('undeclared-tools-served')) caps.tools = { listChanged: true };
    return caps;
  }

  function initialize(params) {
    const requested = params?.protocolVersion;
    let version = SUPPORTED.includes(requested) ? requested : LATEST;
    if (bugs.has('version-echo-unknown') && typeof requested === 'string') version = requested;
    if (bugs.has('version-no-echo')) version = requested === '2025-06-18' ? '2025-03-26' : '2025-06-18';
    state = 'initializing';
    return ok({
      protocolVersion: version,
      capabilities: capabilities(),
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
          const progress = bugs.has('progress-decreasing') ? total - step + 1 : step;
          const progressToken = bugs.has('progress-wrong-token') ? `${token}-not-yours` : token;
          out.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken, progress, total } });
        }
        if (step >= total) {
          clearInterval(timer);
          inflight.delete(id);
          resolve(ok({ content: [{ type: 'text', text: `waited ${total * 100} ms` }] }));
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
    switch (params.name) {
      case 'echo':
        return ok({ content: [{ type: 'text', text: String(a.text ?? '') }] });
      case 'add':
        return ok({ content: [{ type: 'text', text: String(Number(a.a) + Number(a.b)) }] });
      case 'slow':
        return slow(id, a, params._meta, out);
      case 'structured':
        return ok({ content: [{ type: 'text', text: '{"sum":3}' }], structuredContent: { sum: 3 } });
      default:
        if (bugs.has('unknown-tool-success')) return ok({ content: [{ type: 'text', text: 'done' }] });
        return err(-32602, `Unknown tool: ${params.name}`);
    }
  }

  function readResource(params) {
    if (typeof params?.uri !== 'string') return err(-32602, 'Invalid params: "uri" is required');
    if (bugs.has('bad-read-result')) return ok({ contents: [{ text: 'no uri here' }] });
    const r = RESOURCES.find((x) => x.uri === params.uri);
    if (r === undefined) return { error: { code: -32002, message: 'Resource not found', data: { uri: params.uri } } };
    if (r.mimeType === 'application/octet-stream') return ok({ contents: [{ uri: r.uri, mimeType: r.mimeType, blob: 'AAEC' }] });
    return ok({ contents: [{ uri: r.uri, mimeType: r.mimeType, text: `contents of ${r.name}` }] });
  }

  function getPrompt(params) {
    if (bugs.has('declared-not-served')) return err(-32601, 'Method not found: prompts/get');
    if (typeof params?.name !== 'string') return err(-32602, 'Invalid params: "name" is required');
    const p = PROMPTS.find((x) => x.name === params.name);
    if (p === undefined) return err(-32602, `Unknown prompt: ${params.name}`);
    for (const a of p.arguments ?? []) if (a.required && typeof params.arguments?.[a.name] !== 'string') return err(-32602, `Missing argument ${a.name}`);
    if (bugs.has('bad-prompt-result')) return ok({ messages: [{ role: 'robot', content: { type: 'text', text: 'hi' } }] });
    return ok({ messages: [{ role: 'user', content: { type: 'text', text: `${p.name} ${params.arguments?.topic ?? ''}`.trim() } }] });
  }

  function complete(params) {
    const ref = params?.ref;
    let values;
    if (ref?.type === 'ref/prompt' && ref.name === 'summarize') values = ['alpha', 'beta'];
    else if (ref?.type === 'ref/resource' && ref.uri === TEMPLATES[0].uriTemplate) values = ['1', '2'];
    else return err(-32602, 'Unknown reference');
    if (bugs.has('bad-complete-result')) return ok({ completion: { values: 'nope' } });
    return ok({ completion: { values, total: values.length, hasMore: false } });
  }

  async function dispatch(id, method, params, out) {
    if (bugs.has('caps-tools-only') && !/^(initialize|ping|tools\/)/.test(method)) return err(-32601, `Method not found: ${method}`);
    switch (method) {
      case 'initialize':
        return initialize(params);
      case 'ping':
        return ok(bugs.has('ping-nonempty') ? { pong: true } : {});
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
        return typeof params?.uri === 'string' ? ok({}) : err(-32602, 'Invalid params: "uri" is required');
      case 'prompts/list':
        return bugs.has('declared-not-served') ? err(-32601, 'Method not found: prompts/list') : paginate(bugs, PROMPTS, 'prompts', params);
      case 'prompts/get':
        return getPrompt(params);
      case 'completion/complete':
        return complete(params);
      case 'logging/setLevel':
        if (bugs.has('setlevel-error')) return err(-32603, 'logging is broken');
        return LEVELS.includes(params?.level) ? ok({}) : err(-32602, 'Invalid log level');
      default:
        return bugs.has('unknown-method-success') ? ok({}) : err(-32601, `Method not found: ${method}`);
    }
  }

  function onNotification(msg) {
    if (msg.method === 'notifications/initialized') {
      state = bugs.has('dead-after-initialized') ? 'dead' : 'ready';
      if (bugs.has('missing-jsonrpc')) aside({ method: 'notifications/message', params: { level: 'info', data: 'hello' } });
    } else if (msg.method === 'notifications/cancelled' && !bugs.has('ignore-cancel')) {
      inflight.get(msg.params?.requestId)?.();
    }
  }

  async function handle(msg, out) {
    if (msg === null || typeof msg !== 'object' || Array.isArray(msg)) return out.end();
    if (typeof msg.method !== 'string') return out.end(); // a response from the client
    if (!('id' in msg)) {
      onNotification(msg);
      return out.end();
    }
    if (state === 'dead') return; // never answers again
    const { id, method, params } = msg;
    let answer;
    if (state === 'new' && method !== 'initialize' && method !== 'ping' && !bugs.has('accept-before-init')) {
      answer = err(-32600, 'Server not initialized');
    } else {
      answer = await dispatch(id, method, params, out);
    }
    if (answer !== undefined) out.send({ jsonrpc: '2.0', id, ...answer });
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
  for (const n of names) if (!(n in BUGS) && !PROFILES.includes(n) && !n.startsWith('http-')) throw new Error(`unknown bug knob: ${n}`);
  return new Set(names);
}
