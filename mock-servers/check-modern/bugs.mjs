// Planted bugs for the 2026-07-28 checks of `mcpwire check` (src/check/modern*.ts): each one a
// transform around the correct modern mock (../modern/lib/engine.mjs over stdio, or a proxy in
// front of ../modern/http-server.mjs over HTTP) that makes exactly one check fail or warn.
// A bug is { check, transports, server?, request?, response?, notification?, http? }:
//   server: 'suite-mrtr' when it is planted in suite-mrtr-server.mjs (the conformance suite's MRTR
//   fixtures, which the correct modern mock does not list) instead of around the modern mock
//   request(msg, st)       → msg (changed in place or replaced), or { respond: <response> }
//   response(msg, req, st) → the response the client gets
//   notification(msg, st)  → the notification the client gets
//   http: { request?(headers, msg), response?(status, headers, msg) → { status, headers }, anyOrigin? }
//   (anyOrigin: the proxy serves a foreign Origin instead of refusing it with 403)
// `st` is per-server state (the bug that remembers something).

import { DEFAULT_MODERN_SCENARIO } from '../modern/lib/engine.mjs';

/** The correct server the bugs are planted in: the default modern scenario with the tasks extension. */
export const SCENARIO = { ...DEFAULT_MODERN_SCENARIO, tasks: {} };

const VERSION = 'io.modelcontextprotocol/protocolVersion';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const nameOf = (msg) => (msg.method === 'resources/read' ? msg.params?.uri : msg.params?.name);
const meta = (msg) => msg.params?._meta ?? {};

/** Any requestState accepted: the last one issued replaces whatever the client sent. */
const BUGS_STATE = {
  request(m, st) {
    if (typeof m.params?.requestState === 'string' && st.lastState !== undefined) m.params.requestState = st.lastState;
    return m;
  },
  response(m, _req, st) {
    if (typeof m.result?.requestState === 'string') st.lastState = m.result.requestState;
    return m;
  },
};

export const BUGS = {
  // server/discover without its supportedVersions list
  'discover-malformed': {
    check: 'modern.discover',
    response: (m, req) => (req.method === 'server/discover' && m.result ? { ...m, result: { ...m.result, supportedVersions: undefined } } : m),
  },
  // serves any protocol version it is asked for instead of -32022
  'any-version': {
    check: 'modern.unsupported-version',
    request(m) {
      if (m.params?._meta?.[VERSION] !== undefined && m.params._meta[VERSION] !== '2026-07-28') m.params._meta[VERSION] = '2026-07-28';
      return m;
    },
    http: { request: (h) => ({ ...h, 'mcp-protocol-version': '2026-07-28' }) },
  },
  // -32022 without data.requested (the version the request named)
  'unsupported-no-requested': {
    check: 'modern.unsupported-version',
    response: (m) => (m.error?.code === -32022 && m.error.data ? { ...m, error: { ...m.error, data: { supported: m.error.data.supported } } } : m),
  },
  // initialize refused without naming the versions the server supports
  'initialize-unnamed': {
    check: 'modern.initialize-refused',
    response: (m, req) => (req.method === 'initialize' && m.error ? { ...m, error: { code: -32600, message: 'Bad request' } } : m),
  },
  // prompts served but not declared in server/discover
  'prompts-undeclared': {
    check: 'modern.capabilities-declared',
    response: (m, req) => (req.method === 'server/discover' && m.result ? { ...m, result: { ...m.result, capabilities: { ...m.result.capabilities, prompts: undefined } } } : m),
  },
  // a _meta without clientCapabilities is served as if it had declared none
  'meta-lenient': {
    check: 'modern.meta-required',
    request(m) {
      if (m.params?._meta?.[VERSION] !== undefined && m.params._meta[CAPS] === undefined) m.params._meta[CAPS] = {};
      return m;
    },
  },
  // tools/list results without ttlMs
  'no-ttl': {
    check: 'modern.cache-hints',
    response: (m, req) => (req.method === 'tools/list' && m.result ? { ...m, result: { ...m.result, ttlMs: undefined } } : m),
  },
  // an unknown resource read as an empty contents array
  'not-found-empty': {
    check: 'modern.resource-not-found',
    response: (m, req) => (req.method === 'resources/read' && m.error ? { jsonrpc: '2.0', id: m.id, result: { contents: [], resultType: 'complete', ttlMs: 0, cacheScope: 'private' } } : m),
    http: { response: (status, h, m) => ({ status: m?.result ? 200 : status, headers: h }) },
  },
  // the subscription's acknowledgement names another subscription id
  'listen-wrong-id': {
    check: 'modern.subscriptions-listen',
    notification: (n) => (n.method === 'notifications/subscriptions/acknowledged' ? { ...n, params: { ...n.params, _meta: { 'io.modelcontextprotocol/subscriptionId': 'not-the-request-id' } } } : n),
  },
  // an extension identifier without a prefix
  'extension-unprefixed': {
    check: 'modern.extensions',
    response: (m, req) => (req.method === 'server/discover' && m.result ? { ...m, result: { ...m.result, capabilities: { ...m.result.capabilities, extensions: { tasks: {} } } } } : m),
  },
  // the tasks extension declared, its tasks/get not implemented (Method not found)
  'tasks-not-implemented': {
    check: 'modern.extensions',
    response: (m, req) => (req.method === 'tasks/get' ? { jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found' } } : m),
  },
  // capabilities remembered from an earlier request (relies on prior requests: basic#23)
  'caps-sticky': {
    check: 'modern.capabilities-per-request',
    request(m, st) {
      const caps = m.params?._meta?.[CAPS];
      if (caps && typeof caps === 'object') {
        st.caps = { ...st.caps, ...caps };
        m.params._meta[CAPS] = st.caps;
      }
      return m;
    },
  },
  // any requestState accepted: the last one issued is used whatever the client sent
  'state-unverified': { check: 'modern.request-state-integrity', ...BUGS_STATE },
  // a retry without its input responses is an error instead of a new input_required
  'input-missing-error': {
    check: 'modern.input-missing',
    request: (m) => (m.method === 'tools/call' && m.params?.requestState !== undefined && m.params.inputResponses === undefined ? { respond: { jsonrpc: '2.0', id: m.id, error: { code: -32602, message: 'inputResponses missing' } } } : m),
  },
  // an unexpected input response is an error instead of being ignored
  'input-extra-error': {
    check: 'modern.input-extra-ignored',
    request: (m) => (m.params?.inputResponses?.['mcpwire-check-unexpected'] !== undefined ? { respond: { jsonrpc: '2.0', id: m.id, error: { code: -32602, message: 'unexpected input response' } } } : m),
  },
  // tools/list results with neither resultType nor cache hints (the sep-2549 suite server's bug)
  'no-hints-no-result-type': {
    check: 'modern.cache-hints',
    response: (m, req) => (req.method === 'tools/list' && m.result ? { ...m, result: { ...m.result, resultType: undefined, ttlMs: undefined, cacheScope: undefined } } : m),
  },
  // any requestState accepted, and the tool's answer then carries no resultType (the sep-2322 suite server's bug)
  'state-unverified-bare': {
    check: 'modern.request-state-integrity',
    request: BUGS_STATE.request,
    response(m, req, st) {
      const r = BUGS_STATE.response(m, req, st);
      return req.method === 'tools/call' && r.result?.resultType === 'complete' ? { ...r, result: { ...r.result, resultType: undefined } } : r;
    },
  },
  // a listed tool without its inputSchema (schema.json Tool: required)
  'tool-no-input-schema': {
    check: 'modern.schema',
    response: (m, req) => (req.method === 'tools/list' && Array.isArray(m.result?.tools) ? { ...m, result: { ...m.result, tools: m.result.tools.map((t, i) => (i === 0 ? { ...t, inputSchema: undefined } : t)) } } : m),
  },
  // malformed input responses (null, or a number for an answer) read as declined ones (the suite reference server's leniency)
  'input-responses-unvalidated': {
    check: 'modern.input-responses-validated',
    request(m, st) {
      const r = m.params?.inputResponses;
      const malformed = r === null || (r !== undefined && (typeof r !== 'object' || Object.values(r).some((v) => typeof v !== 'object' || v === null)));
      if (m.method === 'tools/call' && malformed) m.params.inputResponses = Object.fromEntries((st.inputKeys ?? []).map((k) => [k, { action: 'decline' }]));
      return m;
    },
    response(m, _req, st) {
      if (m.result?.resultType === 'input_required' && m.result.inputRequests) st.inputKeys = Object.keys(m.result.inputRequests);
      return m;
    },
  },
  // tools/list results without resultType
  'no-result-type': {
    check: 'modern.result-type',
    response: (m, req) => (req.method === 'tools/list' && m.result ? { ...m, result: { ...m.result, resultType: undefined } } : m),
  },
  // prompts/list answered with input_required (only tools/call, prompts/get, resources/read may be)
  'input-required-on-list': {
    check: 'modern.input-required',
    response: (m, req) => (req.method === 'prompts/list' && m.result ? { ...m, result: { resultType: 'input_required', requestState: 'x' } } : m),
  },
  // the suite's MRTR fixtures answered well: the echoed requestState is lost before the tool reads it, so every retry starts over
  'state-dropped': {
    check: 'modern.request-state-honoured',
    server: 'suite-mrtr',
    transports: ['stdio'],
    request(m) {
      if (m.method === 'tools/call' && m.params?.requestState !== undefined) delete m.params.requestState;
      return m;
    },
  },
  // a retry carrying the server's own requestState is refused as if it had been tampered with (the suite's jsonrpc-error mode)
  'state-refused': {
    check: 'modern.request-state-honoured',
    server: 'suite-mrtr',
    transports: ['stdio'],
    request: (m) =>
      m.method === 'tools/call' && typeof m.params?.requestState === 'string' && m.params.inputResponses !== undefined
        ? { respond: { jsonrpc: '2.0', id: m.id, error: { code: -32602, message: 'requestState failed verification' } } }
        : m,
  },
  // the request-state fixture completes without the "state-ok" its scenario looks for (the suite's missing-marker mode)
  'state-ok-missing': {
    check: 'modern.request-state-honoured',
    server: 'suite-mrtr',
    transports: ['stdio'],
    response: (m, req) =>
      req.method === 'tools/call' && m.result?.resultType === 'complete' && JSON.stringify(m.result.content ?? []).includes('state-ok')
        ? { ...m, result: { ...m.result, content: [{ type: 'text', text: 'confirmed' }] } }
        : m,
  },
  // of the inputs asked at once, only the first answer is read: the others are asked for again
  'inputs-one-read': {
    check: 'modern.input-all-answered',
    server: 'suite-mrtr',
    transports: ['stdio'],
    request(m) {
      const r = m.params?.inputResponses;
      if (m.method === 'tools/call' && r && typeof r === 'object' && Object.keys(r).length > 1) m.params.inputResponses = Object.fromEntries(Object.entries(r).slice(0, 1));
      return m;
    },
  },
  // the multi-round fixture completes after its first round instead of asking the second
  'one-round': {
    check: 'modern.input-rounds',
    server: 'suite-mrtr',
    transports: ['stdio'],
    response: (m, req) =>
      req.method === 'tools/call' && req.params?.inputResponses?.step1 !== undefined && m.result?.resultType === 'input_required'
        ? { ...m, result: { resultType: 'complete', content: [{ type: 'text', text: 'Multi-round complete after one round' }] } }
        : m,
  },
  // the second round re-issues the first round's requestState: the answer to step 1 is carried nowhere, and the third round starts over
  'round-state-stale': {
    check: 'modern.input-rounds',
    server: 'suite-mrtr',
    transports: ['stdio'],
    response(m, req) {
      const echoed = req.params?.requestState;
      if (req.method !== 'tools/call' || typeof echoed !== 'string' || m.result?.resultType !== 'input_required' || m.result.inputRequests?.step2 === undefined) return m;
      return { ...m, result: { ...m.result, requestState: echoed } };
    },
  },
  // the sampling fixture completes without the sampled text its scenario asks the result to carry
  'sampling-text-dropped': {
    check: 'modern.input-sampling-answered',
    server: 'suite-mrtr',
    transports: ['stdio'],
    response: (m, req) =>
      req.method === 'tools/call' && req.params?.name === 'test_input_required_result_sampling' && req.params.inputResponses !== undefined && m.result?.resultType === 'complete'
        ? { ...m, result: { ...m.result, content: [{ type: 'text', text: 'Sampling result: no response' }] } }
        : m,
  },
  // the roots fixture never reads the roots answered: each retry asks for them again
  'roots-unread': {
    check: 'modern.input-roots-answered',
    server: 'suite-mrtr',
    transports: ['stdio'],
    request(m) {
      if (m.method === 'tools/call' && m.params?.name === 'test_input_required_result_list_roots') delete m.params.inputResponses;
      return m;
    },
  },
  // the input_required prompt, answered, completes with a tool's content instead of the prompt's messages
  'prompt-messages-missing': {
    check: 'modern.prompt-input-answered',
    server: 'suite-mrtr',
    transports: ['stdio'],
    response: (m, req) =>
      req.method === 'prompts/get' && req.params?.inputResponses !== undefined && Array.isArray(m.result?.messages)
        ? { ...m, result: { resultType: 'complete', content: m.result.messages.map((x) => x.content) } }
        : m,
  },
  // HTTP: Mcp-Method not compared with the body
  'method-header-ignored': {
    check: 'modern.http-method-header',
    transports: ['http'],
    http: { request: (h, m) => ({ ...h, 'mcp-method': m.method }) },
  },
  // HTTP: Mcp-Name not compared with the body
  'name-header-ignored': {
    check: 'modern.http-name-header',
    transports: ['http'],
    http: { request: (h, m) => (nameOf(m) === undefined ? h : { ...h, 'mcp-name': String(nameOf(m)) }) },
  },
  // HTTP: MCP-Protocol-Version not compared with _meta
  'version-header-ignored': {
    check: 'modern.http-version-header',
    transports: ['http'],
    http: { request: (h, m) => (meta(m)[VERSION] === undefined ? h : { ...h, 'mcp-protocol-version': meta(m)[VERSION] }) },
  },
  // HTTP: an unknown method answered with 200
  'unknown-method-200': {
    check: 'modern.http-method-not-found',
    transports: ['http'],
    http: { response: (status, h) => ({ status: status === 404 ? 200 : status, headers: h }) },
  },
  // HTTP: a foreign Origin served (no DNS-rebinding defence), as the SDK v2 server run without allowed origins
  'origin-ignored': {
    check: 'modern.http-origin',
    transports: ['http'],
    http: { anyOrigin: true },
  },
  // HTTP: ping, removed in 2026-07-28, still served (200 and an empty result)
  'removed-ping-served': {
    check: 'modern.http-method-not-found',
    transports: ['http'],
    response: (m, req) => (req.method === 'ping' && m.error ? { jsonrpc: '2.0', id: m.id, result: { resultType: 'complete' } } : m),
    http: { response: (status, h, m) => ({ status: m?.result ? 200 : status, headers: h }) },
  },
  // HTTP: a session id minted on every response
  'mints-session': {
    check: 'modern.http-stateless',
    transports: ['http'],
    http: { response: (status, h) => ({ status, headers: { ...h, 'mcp-session-id': 'planted-session' } }) },
  },
};

/** The bug named by `--bug=<name>` (argv) or MODERN_BUG (env), or undefined. */
export function bugFrom(argv, env) {
  const arg = argv.find((a) => a.startsWith('--bug='));
  const name = arg ? arg.slice(6) : env.MODERN_BUG;
  if (!name) return undefined;
  const bug = BUGS[name];
  if (!bug) throw new Error(`unknown bug "${name}" (one of ${Object.keys(BUGS).join(', ')})`);
  return bug;
}
