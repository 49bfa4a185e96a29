/**
 * How a dual-era server built on tmcp 1.20 (@tmcp/transport-stdio, @tmcp/transport-http, the zod
 * adapter; mock-servers/interop/tmcp-server.mjs) behaves on the 2026-07-28 wire, driven in raw
 * JSON-RPC over stdio and Streamable HTTP on 127.0.0.1. These tests document what mcpwire's
 * modern client must handle from a peer no one here wrote; where the peer departs from the spec,
 * mock-servers/README.md ("Interop peers") says so.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { meta, openStream, post, postModern, spawnHttpPeer, spawnLinePeer, type HttpPeer, type LinePeer, type Msg } from '../support/modern-wire.js';

const root = path.dirname(path.dirname(path.dirname(fileURLToPath(import.meta.url))));
const PEER = path.join(root, 'mock-servers', 'interop', 'tmcp-server.mjs');
const SERVER_INFO = { 'io.modelcontextprotocol/serverInfo': { name: 'interop-tmcp', version: '1.20.0', description: 'tmcp interop peer' } };
const INIT = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'legacy-client', version: '1' } };
const SUB = 'io.modelcontextprotocol/subscriptionId';
const textOf = (r: Msg | undefined) => r?.result?.content?.[0]?.text;
let seq = 1;
const req = (method: string, params: Msg = {}, m: Msg = meta()): Msg => ({ jsonrpc: '2.0', id: seq++, method, params: { ...params, _meta: m } });

describe('tmcp peer over stdio (dual-era)', () => {
  let peer: LinePeer;
  beforeAll(() => {
    peer = spawnLinePeer([PEER, 'stdio']);
  });
  afterAll(() => peer.close());

  it('server/discover answers versions, capabilities and serverInfo (ttlMs 0, private)', async () => {
    const r = await peer.request('server/discover', { _meta: meta() });
    expect(r.result).toEqual({
      supportedVersions: ['2026-07-28'],
      capabilities: { tools: { listChanged: true }, prompts: { listChanged: true }, resources: { listChanged: true } },
      resultType: 'complete',
      _meta: SERVER_INFO,
      ttlMs: 0,
      cacheScope: 'private',
    });
  });

  it('tools/call with _meta carries resultType; progress goes out with the request token', async () => {
    const echo = await peer.request('tools/call', { name: 'echo', arguments: { text: 'hi' }, _meta: meta() });
    expect(echo.result).toEqual({ content: [{ type: 'text', text: 'hi' }], resultType: 'complete', _meta: SERVER_INFO });
    const done = await peer.request('tools/call', { name: 'progress', arguments: { steps: 2 }, _meta: meta({ progressToken: 'tm' }) });
    expect(textOf(done)).toBe('done 2 steps');
    expect(peer.messages.filter((m) => m.method === 'notifications/progress' && m.params.progressToken === 'tm').map((m) => m.params.progress)).toEqual([1, 2]);
  });

  it('MRTR: input_required keyed "1" (tmcp numbers its input calls), no requestState; the retry answering "1" completes', async () => {
    const caps = { elicitation: {} };
    const first = await peer.request('tools/call', { name: 'confirm', arguments: { message: 'Ship?' }, _meta: meta({}, caps) });
    expect(first.result).toMatchObject({ resultType: 'input_required', inputRequests: { '1': { method: 'elicitation/create', params: { message: 'Ship?' } } } });
    expect(first.result.inputRequests['1'].params).not.toHaveProperty('mode'); // form mode is implied, not stated
    expect(first.result).not.toHaveProperty('requestState');
    const wrongKey = await peer.request('tools/call', { name: 'confirm', arguments: { message: 'Ship?' }, inputResponses: { confirm: { action: 'accept', content: { ok: true } } }, _meta: meta({}, caps) });
    expect(wrongKey.result.resultType).toBe('input_required'); // asks again rather than failing
    const retry = await peer.request('tools/call', { name: 'confirm', arguments: { message: 'Ship?' }, inputResponses: { '1': { action: 'accept', content: { ok: true } } }, _meta: meta({}, caps) });
    expect(textOf(retry)).toBe('accept: {"ok":true}');
  });

  it('subscriptions/listen is acknowledged with the subset it honours, tagged with the listen id', async () => {
    const id = 'tm-listen';
    peer.send({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { _meta: meta(), notifications: { toolsListChanged: true, resourceSubscriptions: ['mem://readme'] } } });
    const ack = await peer.waitFor((m) => m.method === 'notifications/subscriptions/acknowledged');
    expect(ack.params._meta[SUB]).toBe(id);
    expect(ack.params.notifications.toolsListChanged).toBe(true);
    peer.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } });
  });

  it('initialize is served in the same process next to modern requests, but negotiates 2025-06-18 (it has no 2025-11-25) and leaks an "adapter" key', async () => {
    const init = await peer.request('initialize', INIT);
    expect(init.result.protocolVersion).toBe('2025-06-18');
    expect(init.result).toHaveProperty('adapter');
    peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const legacy = await peer.request('tools/call', { name: 'echo', arguments: { text: 'old' } });
    expect(legacy.result).toEqual({ content: [{ type: 'text', text: 'old' }] });
    const modern = await peer.request('tools/call', { name: 'echo', arguments: { text: 'new' }, _meta: meta() });
    expect(modern.result.resultType).toBe('complete');
  });
});

describe('tmcp peer over Streamable HTTP (dual-era)', () => {
  let peer: HttpPeer;
  beforeAll(async () => {
    peer = await spawnHttpPeer([PEER, 'http']);
  });
  afterAll(() => peer?.close());

  it('answers every request on an SSE stream (never plain JSON), with resultType and no session id', async () => {
    const d = await postModern(peer.url, req('server/discover'));
    expect([d.status, d.contentType]).toEqual([200, 'text/event-stream']);
    expect(d.headers.get('mcp-session-id')).toBeNull();
    expect(d.response?.result).toMatchObject({ supportedVersions: ['2026-07-28'], resultType: 'complete' });
    const echo = await postModern(peer.url, req('tools/call', { name: 'echo', arguments: { text: 'x' } }));
    expect(echo.response?.result).toMatchObject({ resultType: 'complete', content: [{ text: 'x' }] });
  });

  it('header/body disagreements are 400 with -32020; a missing _meta is also reported as -32020 (not -32602)', async () => {
    const mismatches: Record<string, string>[] = [{ 'mcp-method': 'tools/list' }, { 'mcp-name': 'progress' }, { 'mcp-protocol-version': '2025-11-25' }];
    for (const extra of mismatches) {
      const a = await postModern(peer.url, req('tools/call', { name: 'echo', arguments: { text: 'x' } }), extra);
      expect([a.status, a.response?.error?.code]).toEqual([400, -32020]);
    }
    const bare = await postModern(peer.url, { jsonrpc: '2.0', id: seq++, method: 'tools/list', params: {} });
    expect([bare.status, bare.response?.error?.code]).toEqual([400, -32020]);
  });

  it('an unknown version is 400 with -32022; an unknown method 404 with -32601; a missing resource -32602 in band', async () => {
    const old = req('tools/list', {}, meta({ 'io.modelcontextprotocol/protocolVersion': '1999-01-01' }));
    const a = await postModern(peer.url, old, { 'mcp-protocol-version': '1999-01-01' });
    expect([a.status, a.response?.error?.code, a.response?.error?.data]).toEqual([400, -32022, { supported: ['2026-07-28'], requested: '1999-01-01' }]);
    const b = await postModern(peer.url, req('bogus/method'));
    expect([b.status, b.response?.error?.code]).toEqual([404, -32601]);
    const c = await postModern(peer.url, req('resources/read', { uri: 'mem://nope' }));
    expect([c.status, c.response?.error?.code]).toEqual([200, -32602]);
  });

  it('MRTR round trip over HTTP', async () => {
    const caps = { elicitation: {} };
    const first = await postModern(peer.url, req('tools/call', { name: 'confirm', arguments: { message: 'go' } }, meta({}, caps)));
    expect(first.response?.result.resultType).toBe('input_required');
    const retry = req('tools/call', { name: 'confirm', arguments: { message: 'go' }, inputResponses: { '1': { action: 'decline' } } }, meta({}, caps));
    expect(textOf((await postModern(peer.url, retry)).response)).toBe('decline: null');
  });

  it('subscriptions/listen opens an SSE stream whose first message is the acknowledgment', async () => {
    const listen = req('subscriptions/listen', { notifications: { promptsListChanged: true } });
    const s = await openStream(peer.url, listen);
    try {
      expect(s.contentType).toContain('text/event-stream');
      const ack = await s.waitFor((m) => m.method === 'notifications/subscriptions/acknowledged');
      expect(ack.params._meta[SUB]).toBe(listen.id);
      expect(s.messages[0]).toBe(ack);
    } finally {
      await s.close();
    }
  });

  it('as a dual-era server it still serves the 2025 transport: initialize mints a session, and GET opens a stream (200, not 405)', async () => {
    const init = await post(peer.url, { jsonrpc: '2.0', id: 'init', method: 'initialize', params: INIT }, { 'content-type': 'application/json', accept: 'application/json, text/event-stream' });
    expect(init.status).toBe(200);
    expect(init.response?.result.protocolVersion).toBe('2025-06-18');
    expect(init.headers.get('mcp-session-id')).toBeTruthy();
    const controller = new AbortController();
    const get = await fetch(peer.url, { headers: { accept: 'text/event-stream' }, signal: controller.signal });
    expect([get.status, get.headers.get('content-type')]).toEqual([200, 'text/event-stream']);
    controller.abort();
    await get.body?.cancel().catch(() => {});
  });
});
