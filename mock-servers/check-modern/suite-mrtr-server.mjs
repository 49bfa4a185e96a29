#!/usr/bin/env node
// A 2026-07-28 server over stdio that lists the official conformance suite's multi round-trip
// (input_required) fixtures by their suite names, none of them read-only, for the suite profile
// of `mcpwire check` (src/check/core/profile.ts):
//
//   node mock-servers/check-modern/suite-mrtr-server.mjs              behaves as the suite's reference server expects
//   node mock-servers/check-modern/suite-mrtr-server.mjs --sep-2322   the defects of the suite's broken MRTR server
//   node mock-servers/check-modern/suite-mrtr-server.mjs --bug=<name> one bug of bugs.mjs planted around it (one with server: 'suite-mrtr')
//
// Written here from the suite's scenario descriptions (input-required-result-*), not copied.
// As in the suite's reference server, `test_input_required_result_elicitation` asks for
// elicitation whatever the request declares: only `test_input_required_result_capabilities`
// is meant to respect the client capabilities. `--sep-2322`: tools/list answered input_required,
// the elicitation tool's first answer without resultType (and completed by any response),
// the tampered-state tool completing whatever requestState comes back.

import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { bugFrom } from './bugs.mjs';

const broken = process.argv.includes('--sep-2322');
let bug;
try {
  bug = bugFrom(process.argv.slice(2), process.env) ?? {};
} catch (err) {
  process.stderr.write(`suite-mrtr mock: ${err.message}\n`);
  process.exit(2);
}
const st = {};
const VERSION = 'io.modelcontextprotocol/protocolVersion';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const KEY = randomUUID();
const P = 'test_input_required_result_';
const TOOLS = broken ? ['elicitation', 'tampered_state'] : ['elicitation', 'sampling', 'list_roots', 'request_state', 'multiple_inputs', 'multi_round', 'tampered_state', 'capabilities'];

const obj = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (t) => ({ resultType: 'complete', content: [{ type: 'text', text: t }] });
const elicit = (message, field, type = 'string') => ({ method: 'elicitation/create', params: { mode: 'form', message, requestedSchema: { type: 'object', properties: { [field]: { type } }, required: [field] } } });
const sample = (t) => ({ method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: t } }], maxTokens: 50 } });
const ROOTS = { method: 'roots/list', params: {} };
const asks = (inputRequests, state) => ({ resultType: 'input_required', inputRequests, ...(state ? { requestState: seal(state) } : {}) });

function seal(payload) {
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${body}.${createHmac('sha256', KEY).update(body).digest('base64url')}`;
}

/** The payload of a requestState this server issued, or undefined (tampered, foreign). */
function open(state) {
  if (typeof state !== 'string') return undefined;
  const [body, mac] = state.split('.');
  const want = createHmac('sha256', KEY).update(body ?? '').digest();
  const got = Buffer.from(mac ?? '', 'base64url');
  if (got.length !== want.length || !timingSafeEqual(got, want)) return undefined;
  return JSON.parse(Buffer.from(body, 'base64url').toString());
}

class RpcError extends Error {
  constructor(code, message, data) {
    super(message);
    this.code = code;
    this.data = data;
  }
}

/** The input responses of a retry: an object of objects, else -32602 (basic.patterns.mrtr#22, #23). */
function responsesOf(p) {
  const r = p.inputResponses;
  if (r === undefined) return {};
  if (!obj(r) || !Object.values(r).every(obj)) throw new RpcError(-32602, 'inputResponses must be an object of result objects');
  return r;
}

/** The verified requestState of a retry (a tampered one is an error), or undefined when none came. */
function stateOf(p) {
  if (p.requestState === undefined) return undefined;
  const s = open(p.requestState);
  if (s === undefined) throw new RpcError(-32602, 'requestState failed verification');
  return s;
}

const answer = (r, field) => (r?.action === 'accept' && obj(r.content) ? String(r.content[field] ?? '') : '(declined)');

const correct = {
  elicitation: (p, r) => (r.user_name ? text(`Hello, ${answer(r.user_name, 'name')}!`) : asks({ user_name: elicit('What is your name?', 'name') })),
  sampling: (p, r) => (r.sample_request ? text(`Sampling result: ${r.sample_request.content?.text ?? 'no response'}`) : asks({ sample_request: sample('What is the capital of France?') })),
  list_roots: (p, r) => (r.roots_request ? text(`Found ${(r.roots_request.roots ?? []).length} root(s)`) : asks({ roots_request: ROOTS })),
  request_state(p, r) {
    const s = stateOf(p);
    if (s?.kind === 'request-state' && r.confirm?.content?.ok === true) return text('state-ok: requestState validated');
    return asks({ confirm: elicit('Please confirm', 'ok', 'boolean') }, { kind: 'request-state', nonce: randomUUID() });
  },
  multiple_inputs(p, r) {
    const s = stateOf(p);
    if (s?.kind === 'multiple-inputs' && r.user_name && r.greeting && r.client_roots) return text(`Name: ${answer(r.user_name, 'name')}; Roots: ${(r.client_roots.roots ?? []).length}`);
    return asks({ user_name: elicit('What is your name?', 'name'), greeting: sample('Generate a greeting'), client_roots: ROOTS }, { kind: 'multiple-inputs', nonce: randomUUID() });
  },
  multi_round(p, r) {
    const s = stateOf(p);
    if (s?.round === 1 && r.step1) return asks({ step2: elicit('Step 2: What is your favorite color?', 'color') }, { round: 2, name: answer(r.step1, 'name'), nonce: randomUUID() });
    if (s?.round === 2 && r.step2) return text(`Multi-round complete for ${s.name} who likes ${answer(r.step2, 'color')}`);
    return asks({ step1: elicit('Step 1: What is your name?', 'name') }, { round: 1, nonce: randomUUID() });
  },
  tampered_state(p, r) {
    const s = stateOf(p);
    if (s?.kind === 'tamper-test' && r.confirm) return text('integrity-ok: state verified');
    return asks({ confirm: elicit('Please confirm', 'ok') }, { kind: 'tamper-test', nonce: randomUUID() });
  },
  capabilities(p, r, caps) {
    const inputRequests = {
      ...(obj(caps.elicitation) ? { elicit_input: elicit('Elicitation input', 'value') } : {}),
      ...(obj(caps.sampling) ? { sample_input: sample('Sample request') } : {}),
    };
    if (Object.keys(r).length > 0) return text(`capabilities-ok: received ${Object.keys(r).join(',')}`);
    if (Object.keys(inputRequests).length === 0) return text('No supported capabilities declared');
    return asks(inputRequests, { kind: 'capabilities-test', nonce: randomUUID() });
  },
};

const sep2322 = {
  elicitation(p) {
    if (p.inputResponses?.user_name) return { content: [{ type: 'text', text: 'Hello!' }] };
    const { resultType: _omitted, ...bare } = asks({ user_name: elicit('What is your name?', 'name') });
    return bare;
  },
  tampered_state(p) {
    if (p.inputResponses) return { content: [{ type: 'text', text: 'Accepted (no integrity check)' }] };
    return { resultType: 'input_required', inputRequests: { confirm: elicit('Confirm?', 'ok') }, requestState: `unprotected-state-${randomUUID()}` };
  },
};

const PROMPT = `${P}prompt`;
const toolDef = (n) => ({ name: P + n, description: `MRTR fixture ${n}`, inputSchema: { type: 'object', properties: {} } });

function handle(method, p) {
  const meta = obj(p._meta) ? p._meta : {};
  if (method !== 'initialize' && meta[VERSION] !== '2026-07-28') throw new RpcError(-32022, 'Unsupported protocol version', { supported: ['2026-07-28'], requested: meta[VERSION] ?? null });
  if (method === 'server/discover') return { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: { tools: {}, prompts: {} }, ttlMs: 0, cacheScope: 'public' };
  if (method === 'tools/list') {
    const list = { resultType: 'complete', tools: TOOLS.map(toolDef), ttlMs: 0, cacheScope: 'public' };
    return broken ? { ...list, resultType: 'input_required', inputRequests: { bogus: elicit('This should not happen on tools/list', 'x') } } : list;
  }
  if (method === 'prompts/list') return { resultType: 'complete', prompts: broken ? [] : [{ name: PROMPT, description: 'MRTR prompt' }], ttlMs: 0, cacheScope: 'public' };
  if (method === 'prompts/get' && p.name === PROMPT && !broken) {
    const r = responsesOf(p);
    if (r.user_context) return { resultType: 'complete', messages: [{ role: 'user', content: { type: 'text', text: `Prompt with context: ${answer(r.user_context, 'context')}` } }] };
    return asks({ user_context: elicit('What context should the prompt use?', 'context') });
  }
  if (method === 'tools/call' && typeof p.name === 'string' && p.name.startsWith(P)) {
    const fn = (broken ? sep2322 : correct)[p.name.slice(P.length)];
    if (fn) return broken ? fn(p) : fn(p, responsesOf(p), obj(meta[CAPS]) ? meta[CAPS] : {});
    throw new RpcError(-32602, `Unknown tool: ${p.name}`);
  }
  if (method === 'initialize') throw new RpcError(-32022, 'Unsupported protocol version', { supported: ['2026-07-28'], requested: p.protocolVersion ?? null });
  throw new RpcError(-32601, `Method not found: ${method}`);
}

const write = (m) => process.stdout.write(`${JSON.stringify(m)}\n`);
process.stdout.on('error', () => process.exit(0));
let pending = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  pending += chunk;
  let nl;
  while ((nl = pending.indexOf('\n')) >= 0) {
    const line = pending.slice(0, nl).trim();
    pending = pending.slice(nl + 1);
    if (!line) continue;
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      write({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
      continue;
    }
    if (typeof msg.method !== 'string' || msg.id === undefined) continue;
    const original = structuredClone(msg);
    const changed = bug.request ? bug.request(msg, st) : msg;
    if (changed?.respond) {
      write(changed.respond);
      continue;
    }
    let out;
    try {
      out = { jsonrpc: '2.0', id: changed.id, result: handle(changed.method, obj(changed.params) ? changed.params : {}) };
    } catch (err) {
      const e = err instanceof RpcError ? err : new RpcError(-32603, String(err?.message ?? err));
      out = { jsonrpc: '2.0', id: changed.id, error: { code: e.code, message: e.message, ...(e.data !== undefined ? { data: e.data } : {}) } };
    }
    write(bug.response ? bug.response(out, original, st) : out);
  }
});
process.stdin.on('end', () => process.exit(0));
