/**
 * The 2026-07-28 scripted stdio mock (mock-servers/modern/stdio-server.mjs), spawned as a real
 * child process and spoken to in raw NDJSON. Imports nothing from src/: this proves the mock, so
 * that the modern client tests built on it can trust it. One process per mode.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { meta, spawnLinePeer, type LinePeer, type Msg } from '../support/modern-wire.js';

const root = path.dirname(path.dirname(path.dirname(fileURLToPath(import.meta.url))));
const SERVER = path.join(root, 'mock-servers', 'modern', 'stdio-server.mjs');
const SI = 'io.modelcontextprotocol/serverInfo';
const SUB = 'io.modelcontextprotocol/subscriptionId';

function start(scenario?: unknown, env: Record<string, string> = {}): LinePeer {
  return spawnLinePeer([SERVER], { env: { ...(scenario ? { MOCK_SCENARIO_JSON: JSON.stringify(scenario) } : {}), ...env } });
}

const textOf = (r: Msg) => r.result?.content?.[0]?.text;

describe('modern stdio mock, modern-only (the default scenario)', () => {
  let peer: LinePeer;
  let recordFile: string;
  beforeAll(() => {
    recordFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mock-modern-')), 'in.jsonl');
    peer = start(undefined, { MOCK_RECORD: recordFile });
  });
  afterAll(async () => {
    await peer.close();
    fs.rmSync(path.dirname(recordFile), { recursive: true, force: true });
  });

  it('server/discover answers the supported versions, capabilities, serverInfo in _meta and cache hints', async () => {
    const r = await peer.request('server/discover', { _meta: meta() });
    expect(r.result).toMatchObject({
      resultType: 'complete',
      supportedVersions: ['2026-07-28'],
      capabilities: { tools: { listChanged: true }, resources: { subscribe: true }, prompts: {} },
      _meta: { [SI]: { name: 'mcpwire-modern-mock', version: '1.0.0' } },
      cacheScope: 'public',
    });
    expect(r.result.ttlMs).toBeGreaterThanOrEqual(0);
  });

  it('tools/call with _meta works and carries resultType; lists and reads carry cache hints; a missing resource is -32602', async () => {
    const call = await peer.request('tools/call', { name: 'echo', arguments: { text: 'hi' }, _meta: meta() });
    expect(call.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'hi' }] });
    const tools = await peer.request('tools/list', { _meta: meta() });
    expect(tools.result.tools.map((t: Msg) => t.name)).toContain('route');
    expect(tools.result).toMatchObject({ resultType: 'complete', cacheScope: 'public' });
    const read = await peer.request('resources/read', { uri: 'mem://readme', _meta: meta() });
    expect(read.result).toMatchObject({ contents: [{ text: 'Hello from the modern mock.' }], cacheScope: 'private' });
    const missing = await peer.request('resources/read', { uri: 'mem://nope', _meta: meta() });
    expect(missing.error).toMatchObject({ code: -32602, data: { uri: 'mem://nope' } });
    const prompt = await peer.request('prompts/get', { name: 'greet', arguments: { name: 'Ada' }, _meta: meta() });
    expect(JSON.stringify(prompt.result.messages)).toContain('Ada');
  });

  it('refuses a request without the required _meta (-32602), an unknown version (-32022 with supported/requested), and ping (-32601)', async () => {
    const bare = await peer.request('tools/list', {});
    expect(bare.error.code).toBe(-32602);
    const old = await peer.request('tools/list', { _meta: meta({ 'io.modelcontextprotocol/protocolVersion': '1999-01-01' }) });
    expect(old.error).toMatchObject({ code: -32022, data: { supported: ['2026-07-28'], requested: '1999-01-01' } });
    const ping = await peer.request('ping', { _meta: meta() });
    expect(ping.error.code).toBe(-32601);
  });

  it('refuses initialize with -32022 naming the versions it speaks', async () => {
    const r = await peer.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'old', version: '1' } });
    expect(r.error).toMatchObject({ code: -32022, data: { supported: ['2026-07-28'], requested: '2025-11-25' } });
    expect(r.error.message).toContain('2026-07-28');
  });

  it('MRTR: input_required with an elicitation and a requestState; the retry (new id, same state, inputResponses) completes', async () => {
    const caps = { elicitation: {} };
    const args = { message: 'Deploy?' };
    const first = await peer.request('tools/call', { name: 'confirm', arguments: args, _meta: meta({}, caps) });
    expect(first.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: { confirm: { method: 'elicitation/create', params: { mode: 'form', message: 'Deploy?' } } },
    });
    const state = first.result.requestState;
    expect(typeof state).toBe('string');
    // a retry without the answer asks again (bounded rounds), with a fresh state
    const again = await peer.request('tools/call', { name: 'confirm', arguments: args, requestState: state, _meta: meta({}, caps) });
    expect(again.result.resultType).toBe('input_required');
    const done = await peer.request('tools/call', {
      name: 'confirm',
      arguments: args,
      requestState: again.result.requestState,
      inputResponses: { confirm: { action: 'accept', content: { ok: true } } },
      _meta: meta({}, caps),
    });
    expect(done.result).toMatchObject({ resultType: 'complete' });
    expect(textOf(done)).toBe('accept: {"ok":true} after 2 round(s)');
  });

  it('MRTR: a tampered state, a state for other arguments, and a missing capability are refused', async () => {
    const caps = { sampling: {} };
    const first = await peer.request('tools/call', { name: 'sample', arguments: { message: 'a' }, _meta: meta({}, caps) });
    const state: string = first.result.requestState;
    const answer = { sample: { role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm' } };
    const tampered = `${state.slice(0, 5)}${state[5] === 'A' ? 'B' : 'A'}${state.slice(6)}`;
    const bad = await peer.request('tools/call', { name: 'sample', arguments: { message: 'a' }, requestState: tampered, inputResponses: answer, _meta: meta({}, caps) });
    expect(bad.error).toMatchObject({ code: -32602, message: 'requestState failed verification' });
    const other = await peer.request('tools/call', { name: 'sample', arguments: { message: 'b' }, requestState: state, inputResponses: answer, _meta: meta({}, caps) });
    expect(other.error).toMatchObject({ code: -32602, message: 'requestState belongs to another request' });
    const ok = await peer.request('tools/call', { name: 'sample', arguments: { message: 'a' }, requestState: state, inputResponses: answer, _meta: meta({}, caps) });
    expect(textOf(ok)).toBe('model said: hi');
    const noCap = await peer.request('tools/call', { name: 'roots', arguments: {}, _meta: meta() });
    expect(noCap.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { roots: {} } } });
  });

  it('sends request-scoped progress always with a token, and log notifications only when the request asked for a logLevel', async () => {
    const quietId = peer.nextId();
    const before = peer.messages.length;
    await peer.request('tools/call', { name: 'progress', arguments: { steps: 2, intervalMs: 1 }, _meta: meta({ progressToken: 'q' }) }, quietId);
    const quiet = peer.messages.slice(before);
    expect(quiet.filter((m) => m.method === 'notifications/progress').map((m) => m.params.progress)).toEqual([1, 2]);
    expect(quiet.some((m) => m.method === 'notifications/message')).toBe(false);
    const from = peer.messages.length;
    await peer.request('tools/call', { name: 'progress', arguments: { steps: 2, intervalMs: 1 }, _meta: meta({ 'io.modelcontextprotocol/logLevel': 'info' }) });
    const loud = peer.messages.slice(from);
    expect(loud.filter((m) => m.method === 'notifications/message').map((m) => m.params.data)).toEqual(['step 1', 'step 2']);
    expect(loud.some((m) => m.method === 'notifications/progress')).toBe(false);
    const filtered = await peer.request('tools/call', { name: 'log', arguments: { level: 'debug' }, _meta: meta({ 'io.modelcontextprotocol/logLevel': 'warning' }) });
    expect(textOf(filtered)).toBe('filtered');
  });

  it('subscriptions/listen: acknowledged first with the agreed filter, tagged notifications on demand, ended by notifications/cancelled', async () => {
    const id = 'listen-1';
    peer.send({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { _meta: meta(), notifications: { toolsListChanged: true, resourceSubscriptions: ['mem://readme'], bogus: true } } });
    const ack = await peer.waitFor((m) => m.method === 'notifications/subscriptions/acknowledged' && m.params?._meta?.[SUB] === id);
    expect(ack.params.notifications).toEqual({ toolsListChanged: true, resourceSubscriptions: ['mem://readme'] });
    const fired = await peer.request('tools/call', { name: 'notify', arguments: { kind: 'tools' }, _meta: meta() });
    expect(textOf(fired)).toBe('delivered to 1 subscription(s)');
    await peer.waitFor((m) => m.method === 'notifications/tools/list_changed' && m.params?._meta?.[SUB] === id);
    const unsubscribed = await peer.request('tools/call', { name: 'notify', arguments: { kind: 'updated', uri: 'mem://other' }, _meta: meta() });
    expect(textOf(unsubscribed)).toBe('delivered to 0 subscription(s)');
    await peer.request('tools/call', { name: 'notify', arguments: { kind: 'updated', uri: 'mem://readme' }, _meta: meta() });
    await peer.waitFor((m) => m.method === 'notifications/resources/updated' && m.params.uri === 'mem://readme' && m.params._meta[SUB] === id);
    peer.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } });
    const after = await peer.request('tools/call', { name: 'notify', arguments: { kind: 'tools' }, _meta: meta() });
    expect(textOf(after)).toBe('delivered to 0 subscription(s)');
    expect(peer.messages.some((m) => m.id === id)).toBe(false); // a cancelled listen is never answered
  });

  it('notifications/cancelled stops a request, which is never answered', async () => {
    const id = peer.nextId();
    peer.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'slow', arguments: { ms: 400 }, _meta: meta() } });
    peer.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'test' } });
    await new Promise((r) => setTimeout(r, 800));
    await peer.request('tools/call', { name: 'echo', arguments: { text: 'after' }, _meta: meta() });
    expect(peer.messages.some((m) => m.id === id)).toBe(false);
  });

  it('records what the client sent, _meta included (MOCK_RECORD)', () => {
    const lines = fs.readFileSync(recordFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const discover = lines.find((m) => m.method === 'server/discover');
    expect(discover.params._meta['io.modelcontextprotocol/clientInfo']).toEqual({ name: 'mcpwire-test', version: '0.0.0' });
    expect(peer.stderr()).toContain('[mock] client violation: initialize sent to a modern-only server');
  });
});

describe('modern stdio mock, dual and legacy-strict modes', () => {
  it('dual: answers initialize in the handshake era and still serves modern requests statelessly', async () => {
    const peer = start({ extends: 'default', mode: 'dual' });
    try {
      const d = await peer.request('server/discover', { _meta: meta() });
      expect(d.result.supportedVersions).toEqual(['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']);
      const init = await peer.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'old', version: '1' } });
      expect(init.result).toMatchObject({ protocolVersion: '2025-11-25', serverInfo: { name: 'mcpwire-modern-mock' } });
      expect(init.result.resultType).toBeUndefined();
      peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      const legacyCall = await peer.request('tools/call', { name: 'echo', arguments: { text: 'old' } });
      expect(legacyCall.result).toEqual({ content: [{ type: 'text', text: 'old' }] });
      const modernCall = await peer.request('tools/call', { name: 'echo', arguments: { text: 'new' }, _meta: meta() });
      expect(modernCall.result).toMatchObject({ resultType: 'complete', content: [{ text: 'new' }] });
    } finally {
      await peer.close();
    }
  });

  it('legacy-strict: a handshake-era server that exits on a request before initialize (the probe kills it)', async () => {
    const probe = start({ mode: 'legacy-strict' });
    probe.send({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta() } });
    expect((await probe.exited).code).toBe(1);
    expect(probe.stderr()).toContain('server/discover before initialize');
    const fresh = start({ mode: 'legacy-strict' });
    try {
      const init = await fresh.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'old', version: '1' } });
      expect(init.result.protocolVersion).toBe('2025-11-25');
    } finally {
      await fresh.close();
    }
  });
});

describe('modern stdio mock, misbehaviour on demand', () => {
  let peer: LinePeer;
  beforeAll(() => {
    peer = start({
      extends: 'default',
      behavior: {
        quietViolations: true,
        methods: {
          'server/discover': { error: { code: -32601, message: 'Method not found' } },
          'prompts/list': { nullIdError: { data: 'no id' } },
          'resources/list': { resultType: 'bogus' },
          'resources/templates/list': { omitResultType: true },
        },
      },
      tools: ['echo', { name: 'garbled', builtin: 'echo', behavior: { garbage: true } }, { name: 'dies', builtin: 'echo', behavior: { crash: { code: 7, stderr: 'boom\n' } } }],
      expect: [{ method: 'tools/call', name: 'echo' }],
    });
  });
  afterAll(() => peer.close());

  it('answers server/discover with -32601, an error with id null, an unknown resultType, a missing resultType, a non-JSON line', async () => {
    expect((await peer.request('server/discover', { _meta: meta() })).error.code).toBe(-32601);
    peer.send({ jsonrpc: '2.0', id: 'p', method: 'prompts/list', params: { _meta: meta() } });
    expect(await peer.waitFor((m) => m.id === null && m.error)).toMatchObject({ error: { code: -32600, data: 'no id' } });
    expect((await peer.request('resources/list', { _meta: meta() })).result.resultType).toBe('bogus');
    const bare = await peer.request('resources/templates/list', { _meta: meta() });
    expect(bare.result).not.toHaveProperty('resultType');
    expect(bare.result.resourceTemplates).toHaveLength(1);
    peer.send({ jsonrpc: '2.0', id: 'g', method: 'tools/call', params: { name: 'garbled', arguments: {}, _meta: meta() } });
    expect(await peer.waitFor((m) => m.__raw !== undefined)).toEqual({ __raw: 'this is not JSON {{{' });
  });

  it('reports the expectations that never arrived, then dies mid-request on demand', async () => {
    peer.send({ jsonrpc: '2.0', id: 'd', method: 'tools/call', params: { name: 'dies', arguments: {}, _meta: meta() } });
    expect((await peer.exited).code).toBe(7);
    expect(peer.stderr()).toContain('boom');
    const lonely = start({ extends: 'default', expect: [{ method: 'tools/call', name: 'echo' }, { method: 'server/discover' }] });
    await lonely.request('server/discover', { _meta: meta() });
    await lonely.close();
    expect(lonely.stderr()).toContain('[mock] expectation never met: {"method":"tools/call","name":"echo"}');
    expect(lonely.stderr()).not.toContain('server/discover');
  });
});
