/**
 * How a server built on the official TypeScript SDK v2 (@modelcontextprotocol/server 2.4.0;
 * mock-servers/interop/sdk-v2-server.mjs) behaves on the 2026-07-28 wire, driven in raw JSON-RPC
 * over stdio and Streamable HTTP on 127.0.0.1. These tests document what mcpwire's modern client
 * must handle from a peer no one here wrote; where the peer departs from the spec,
 * mock-servers/README.md ("Interop peers") says so.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { meta, modernHeaders, post, postModern, spawnHttpPeer, spawnLinePeer, type HttpPeer, type LinePeer, type Msg } from '../support/modern-wire.js';

const root = path.dirname(path.dirname(path.dirname(fileURLToPath(import.meta.url))));
const PEER = path.join(root, 'mock-servers', 'interop', 'sdk-v2-server.mjs');
const SERVER_INFO = { 'io.modelcontextprotocol/serverInfo': { name: 'interop-sdk-v2', version: '2.4.0' } };
const INIT = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'legacy-client', version: '1' } };
const textOf = (r: Msg | undefined) => r?.result?.content?.[0]?.text;
let seq = 1;
const req = (method: string, params: Msg = {}, m: Msg = meta()): Msg => ({ jsonrpc: '2.0', id: seq++, method, params: { ...params, _meta: m } });
const legacyHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

describe('SDK v2 peer over stdio, modern-only (legacy: reject)', () => {
  let peer: LinePeer;
  beforeAll(() => {
    peer = spawnLinePeer([PEER, 'stdio', '--legacy', 'reject']);
  });
  afterAll(() => peer.close());

  it('server/discover answers versions, capabilities and serverInfo (no resources.subscribe; ttlMs 0, private by default)', async () => {
    const r = await peer.request('server/discover', { _meta: meta() });
    expect(r.result).toEqual({
      supportedVersions: ['2026-07-28'],
      capabilities: { tools: { listChanged: true }, resources: { listChanged: true }, prompts: { listChanged: true } },
      instructions: 'SDK v2 interop peer',
      resultType: 'complete',
      ttlMs: 0,
      cacheScope: 'private',
      _meta: SERVER_INFO,
    });
  });

  it('initialize, and any request without the _meta envelope, is refused with -32022 naming the versions', async () => {
    const init = await peer.request('initialize', INIT);
    expect(init.error).toMatchObject({ code: -32022, data: { supported: ['2026-07-28'], requested: '2025-11-25' } });
    const bare = await peer.request('tools/list', {});
    expect(bare.error).toMatchObject({ code: -32022, data: { supported: ['2026-07-28'] } });
    expect(bare.error.data).not.toHaveProperty('requested');
  });

  it('tools/call with _meta carries resultType and serverInfo; progress goes out with the request token', async () => {
    const echo = await peer.request('tools/call', { name: 'echo', arguments: { text: 'hi' }, _meta: meta() });
    expect(echo.result).toEqual({ content: [{ type: 'text', text: 'hi' }], resultType: 'complete', _meta: SERVER_INFO });
    const id = peer.nextId();
    const done = await peer.request('tools/call', { name: 'progress', arguments: { steps: 2 }, _meta: meta({ progressToken: 'sdk' }) }, id);
    expect(textOf(done)).toBe('done 2 steps');
    const progress = peer.messages.filter((m) => m.method === 'notifications/progress' && m.params.progressToken === 'sdk');
    expect(progress.map((m) => m.params.progress)).toEqual([1, 2]);
  });

  it('MRTR: input_required with an elicitation keyed as the tool chose (no requestState), completed by the retry', async () => {
    const caps = { elicitation: {} };
    const first = await peer.request('tools/call', { name: 'confirm', arguments: { message: 'Ship it?' }, _meta: meta({}, caps) });
    expect(first.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: { confirm: { method: 'elicitation/create', params: { mode: 'form', message: 'Ship it?' } } },
    });
    expect(first.result).not.toHaveProperty('requestState');
    const retry = await peer.request('tools/call', {
      name: 'confirm',
      arguments: { message: 'Ship it?' },
      inputResponses: { confirm: { action: 'accept', content: { ok: true } } },
      _meta: meta({}, caps),
    });
    expect(retry.result).toMatchObject({ resultType: 'complete' });
    expect(textOf(retry)).toBe('accept: {"ok":true}');
  });

  it('resources/read, prompts/get work; a missing resource is -32602; ping is gone (-32601)', async () => {
    const read = await peer.request('resources/read', { uri: 'mem://readme', _meta: meta() });
    expect(read.result).toMatchObject({ contents: [{ text: 'Hello from the SDK v2 peer.' }], resultType: 'complete', ttlMs: 0, cacheScope: 'private' });
    const missing = await peer.request('resources/read', { uri: 'mem://nope', _meta: meta() });
    expect(missing.error).toMatchObject({ code: -32602, data: { uri: 'mem://nope' } });
    const prompt = await peer.request('prompts/get', { name: 'greet', arguments: { name: 'Ada' }, _meta: meta() });
    expect(prompt.result.messages[0].content.text).toBe('Say hello to Ada.');
    expect((await peer.request('ping', { _meta: meta() })).error.code).toBe(-32601);
  });
});

describe('SDK v2 peer over stdio, dual (legacy: serve)', () => {
  it('a server/discover probe first, then initialize: both answered (the probe instance is discarded)', async () => {
    const peer = spawnLinePeer([PEER, 'stdio']);
    try {
      const d = await peer.request('server/discover', { _meta: meta() });
      expect(d.result.supportedVersions).toEqual(['2026-07-28']); // a dual peer still lists only its modern versions
      const init = await peer.request('initialize', INIT);
      expect(init.result).toMatchObject({ protocolVersion: '2025-11-25', serverInfo: { name: 'interop-sdk-v2' } });
      expect(init.result).not.toHaveProperty('resultType');
    } finally {
      await peer.close();
    }
  });

  it('initialize first pins the process to the handshake era: a later server/discover is -32601', async () => {
    const peer = spawnLinePeer([PEER, 'stdio']);
    try {
      await peer.request('initialize', INIT);
      peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      const d = await peer.request('server/discover', { _meta: meta() });
      expect(d.error.code).toBe(-32601);
      const list = await peer.request('tools/list', {});
      expect(list.result.tools.map((t: Msg) => t.name)).toEqual(['echo', 'progress', 'confirm']);
    } finally {
      await peer.close();
    }
  });
});

describe('SDK v2 peer over Streamable HTTP', () => {
  let strict: HttpPeer;
  let dual: HttpPeer;
  beforeAll(async () => {
    [strict, dual] = await Promise.all([spawnHttpPeer([PEER, 'http', '--legacy', 'reject']), spawnHttpPeer([PEER, 'http'])]);
  });
  afterAll(async () => {
    await Promise.all([strict?.close(), dual?.close()]);
  });

  it('server/discover and tools/call answer as JSON with resultType, and no session id', async () => {
    const d = await postModern(strict.url, req('server/discover'));
    expect([d.status, d.contentType]).toEqual([200, 'application/json']);
    expect(d.headers.get('mcp-session-id')).toBeNull();
    expect(d.response?.result).toMatchObject({ supportedVersions: ['2026-07-28'], resultType: 'complete', _meta: SERVER_INFO });
    const echo = await postModern(strict.url, req('tools/call', { name: 'echo', arguments: { text: 'x' } }));
    expect(echo.response?.result).toMatchObject({ resultType: 'complete', content: [{ text: 'x' }] });
  });

  it('progress upgrades the answer to an SSE stream scoped to the request', async () => {
    const a = await postModern(strict.url, req('tools/call', { name: 'progress', arguments: { steps: 2 } }, meta({ progressToken: 1 })));
    expect(a.contentType).toContain('text/event-stream');
    expect(a.messages.map((m) => m.method ?? 'response')).toEqual(['notifications/progress', 'notifications/progress', 'response']);
  });

  it('header/body disagreements are 400 with -32020 (Mcp-Method, Mcp-Name, MCP-Protocol-Version)', async () => {
    const mismatches: Record<string, string>[] = [{ 'mcp-method': 'tools/list' }, { 'mcp-name': 'progress' }, { 'mcp-protocol-version': '2025-11-25' }];
    for (const extra of mismatches) {
      const a = await postModern(strict.url, req('tools/call', { name: 'echo', arguments: { text: 'x' } }), extra);
      expect([a.status, a.response?.error?.code]).toEqual([400, -32020]);
    }
  });

  it('a request naming 2026-07-28 in the header but without _meta is 400 with -32602; an unknown version is 400 with -32022', async () => {
    const bare = await postModern(strict.url, { jsonrpc: '2.0', id: seq++, method: 'tools/list', params: {} });
    expect([bare.status, bare.response?.error?.code]).toEqual([400, -32602]);
    const old = req('tools/list', {}, meta({ 'io.modelcontextprotocol/protocolVersion': '1999-01-01' }));
    const a = await postModern(strict.url, old, { 'mcp-protocol-version': '1999-01-01' });
    expect([a.status, a.response?.error]).toEqual([400, { code: -32022, message: 'Unsupported protocol version: 1999-01-01', data: { supported: ['2026-07-28'], requested: '1999-01-01' } }]);
  });

  it('an unknown method is 404 with -32601; GET and DELETE are 405', async () => {
    const a = await postModern(strict.url, req('bogus/method'));
    expect([a.status, a.response?.error?.code]).toEqual([404, -32601]);
    for (const peer of [strict, dual]) {
      expect((await fetch(peer.url, { headers: { accept: 'text/event-stream' } })).status).toBe(405);
      expect((await fetch(peer.url, { method: 'DELETE' })).status).toBe(405);
    }
  });

  it('MRTR round trip over HTTP', async () => {
    const caps = { elicitation: {} };
    const first = await postModern(strict.url, req('tools/call', { name: 'confirm', arguments: { message: 'go' } }, meta({}, caps)));
    expect(first.response?.result.resultType).toBe('input_required');
    const retry = req('tools/call', { name: 'confirm', arguments: { message: 'go' }, inputResponses: { confirm: { action: 'decline' } } }, meta({}, caps));
    expect(textOf((await postModern(strict.url, retry)).response)).toBe('decline: null');
  });

  it('initialize: the modern-only peer answers 400 with -32022 naming the versions; the dual peer serves it statelessly (SSE, no session)', async () => {
    const body = { jsonrpc: '2.0', id: 'init', method: 'initialize', params: INIT };
    const refused = await post(strict.url, body, legacyHeaders);
    expect([refused.status, refused.response?.error]).toEqual([400, { code: -32022, message: 'Unsupported protocol version: 2025-11-25', data: { supported: ['2026-07-28'], requested: '2025-11-25' } }]);
    const served = await post(dual.url, body, legacyHeaders);
    expect(served.status).toBe(200);
    expect(served.response?.result).toMatchObject({ protocolVersion: '2025-11-25', serverInfo: { name: 'interop-sdk-v2' } });
    expect(served.headers.get('mcp-session-id')).toBeNull();
    // the same dual endpoint still answers modern requests
    const d = await post(dual.url, req('server/discover'), modernHeaders(req('server/discover')));
    expect(d.response?.result.resultType).toBe('complete');
  });
});
