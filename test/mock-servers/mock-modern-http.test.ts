/**
 * The 2026-07-28 scripted Streamable HTTP mock (mock-servers/modern/http-server.mjs), on a real
 * socket on 127.0.0.1, driven with raw fetch POSTs. Imports nothing from src/: this proves the
 * mock, so that the modern client tests built on it can trust it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModernHttpMock, type ModernHttpMock } from '../../mock-servers/modern/http-server.mjs';
import { DEFAULT_MODERN_SCENARIO } from '../../mock-servers/modern/lib/engine.mjs';
import { readModernScenarioFile, resolveModernScenario } from '../../mock-servers/modern/lib/scenario.mjs';
import { meta, modernHeaders, openStream, post, postModern, type Msg } from '../support/modern-wire.js';

const SUB = 'io.modelcontextprotocol/subscriptionId';
const b64 = (s: string) => `=?base64?${Buffer.from(s, 'utf8').toString('base64')}?=`;
let seq = 1;
const req = (method: string, params: Msg = {}, m: Msg = meta()): Msg => ({ jsonrpc: '2.0', id: seq++, method, params: { ...params, _meta: m } });
const textOf = (r: Msg | undefined) => r?.result?.content?.[0]?.text;

describe('modern HTTP mock, modern-only', () => {
  let mock: ModernHttpMock;
  beforeAll(async () => {
    mock = await startModernHttpMock({ stderr: () => {} });
  });
  afterAll(() => mock.close());

  it('server/discover answers JSON with versions, capabilities and serverInfo, and mints no session id', async () => {
    const a = await postModern(mock.url, req('server/discover'));
    expect(a.status).toBe(200);
    expect(a.contentType).toContain('application/json');
    expect(a.headers.get('mcp-session-id')).toBeNull();
    expect(a.response?.result).toMatchObject({ resultType: 'complete', supportedVersions: ['2026-07-28'], _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'mcpwire-modern-mock' } } });
  });

  it('GET and DELETE on the endpoint are 405', async () => {
    expect((await fetch(mock.url, { headers: { accept: 'text/event-stream' } })).status).toBe(405);
    expect((await fetch(mock.url, { method: 'DELETE' })).status).toBe(405);
  });

  it('initialize is refused with 400 and -32022 naming the versions', async () => {
    const body = { jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'old', version: '1' } } };
    const a = await post(mock.url, body, { 'content-type': 'application/json', accept: 'application/json, text/event-stream' });
    expect(a.status).toBe(400);
    expect(a.response?.error).toMatchObject({ code: -32022, data: { supported: ['2026-07-28'], requested: '2025-11-25' } });
  });

  it('rejects a POST whose Mcp-Method, Mcp-Name or MCP-Protocol-Version disagrees with the body: 400, -32020', async () => {
    const call = req('tools/call', { name: 'echo', arguments: { text: 'x' } });
    const wrongMethod = await postModern(mock.url, call, { 'mcp-method': 'tools/list' });
    expect([wrongMethod.status, wrongMethod.response?.error?.code]).toEqual([400, -32020]);
    const wrongName = await postModern(mock.url, call, { 'mcp-name': 'add' });
    expect([wrongName.status, wrongName.response?.error?.code]).toEqual([400, -32020]);
    const wrongVersion = await postModern(mock.url, call, { 'mcp-protocol-version': '2025-11-25' });
    expect([wrongVersion.status, wrongVersion.response?.error?.code]).toEqual([400, -32020]);
    const headers = Object.fromEntries(Object.entries(modernHeaders(call)).filter(([k]) => k !== 'mcp-method'));
    const missing = await post(mock.url, call, headers);
    expect([missing.status, missing.response?.error?.code]).toEqual([400, -32020]);
    expect(mock.record.requests.filter((r) => r.rejected === -32020)).toHaveLength(4);
  });

  it('checks Mcp-Param-* headers of x-mcp-header parameters, decoding the Base64 form; a value in the body without its header is -32020', async () => {
    const args = { region: 'Zürich', tenant: { id: 42 }, dryRun: false, query: 'q' };
    const call = req('tools/call', { name: 'route', arguments: args });
    const ok = await postModern(mock.url, call, { 'mcp-param-region': b64('Zürich'), 'mcp-param-tenant': '42', 'mcp-param-dry-run': 'false' });
    expect(ok.status).toBe(200);
    expect(JSON.parse(textOf(ok.response)).headers).toEqual({ 'Mcp-Param-Region': 'Zürich', 'Mcp-Param-Tenant': '42', 'Mcp-Param-Dry-Run': 'false' });
    const absent = await postModern(mock.url, req('tools/call', { name: 'route', arguments: args }), { 'mcp-param-region': b64('Zürich'), 'mcp-param-tenant': '42' });
    expect([absent.status, absent.response?.error?.code]).toEqual([400, -32020]);
    const wrong = await postModern(mock.url, req('tools/call', { name: 'route', arguments: args }), { 'mcp-param-region': 'Zurich', 'mcp-param-tenant': '42', 'mcp-param-dry-run': 'false' });
    expect(wrong.response?.error?.message).toContain('Mcp-Param-Region');
    const encodedName = await postModern(mock.url, req('tools/call', { name: 'echo', arguments: { text: 'n' } }), { 'mcp-name': b64('echo') });
    expect(textOf(encodedName.response)).toBe('n');
  });

  it('a request with progress or a logLevel is answered on an SSE stream scoped to it; one without, as JSON', async () => {
    const a = await postModern(mock.url, req('tools/call', { name: 'progress', arguments: { steps: 2, intervalMs: 1 } }, meta({ progressToken: 7, 'io.modelcontextprotocol/logLevel': 'debug' })));
    expect(a.contentType).toContain('text/event-stream');
    expect(a.messages.map((m) => m.method ?? 'response')).toEqual(['notifications/progress', 'notifications/message', 'notifications/progress', 'notifications/message', 'response']);
    expect(a.response?.result.resultType).toBe('complete');
    const plain = await postModern(mock.url, req('tools/call', { name: 'progress', arguments: { steps: 2, intervalMs: 1 } }));
    expect(plain.contentType).toContain('application/json');
  });

  it('an unknown method is 404 with -32601; a missing capability is 400 with -32021', async () => {
    const a = await postModern(mock.url, req('completion/complete', { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: '' } }));
    expect([a.status, a.response?.error?.code]).toEqual([404, -32601]);
    const b = await postModern(mock.url, req('tools/call', { name: 'confirm', arguments: {} }));
    expect([b.status, b.response?.error?.code]).toEqual([400, -32021]);
  });

  it('MRTR round trip over HTTP', async () => {
    const caps = { elicitation: {} };
    const first = await postModern(mock.url, req('tools/call', { name: 'confirm', arguments: { message: 'ok?' } }, meta({}, caps)));
    expect(first.response?.result).toMatchObject({ resultType: 'input_required', inputRequests: { confirm: { method: 'elicitation/create' } } });
    const retry = req('tools/call', { name: 'confirm', arguments: { message: 'ok?' }, requestState: first.response?.result.requestState, inputResponses: { confirm: { action: 'decline' } } }, meta({}, caps));
    const done = await postModern(mock.url, retry);
    expect(textOf(done.response)).toBe('decline: null after 1 round(s)');
  });

  it('closing the response stream cancels the request', async () => {
    const controller = new AbortController();
    const body = req('tools/call', { name: 'slow', arguments: { ms: 5000 } }, meta({ progressToken: 'c' }));
    const pending = postModern(mock.url, body, {}, controller.signal).catch((e: Error) => e);
    await new Promise((r) => setTimeout(r, 200));
    controller.abort();
    await pending;
    for (let i = 0; i < 100 && !mock.record.cancelled.includes(body.id); i++) await new Promise((r) => setTimeout(r, 50));
    expect(mock.record.cancelled).toContain(body.id);
  });

  it('subscriptions/listen: an SSE stream acknowledged first, notifications tagged with the listen id, graceful end with a complete result', async () => {
    const listen = req('subscriptions/listen', { notifications: { promptsListChanged: true, resourceSubscriptions: ['mem://readme'] } });
    const s = await openStream(mock.url, listen);
    expect(s.contentType).toContain('text/event-stream');
    const ack = await s.waitFor((m) => m.method === 'notifications/subscriptions/acknowledged');
    expect(ack.params).toEqual({ notifications: { promptsListChanged: true, resourceSubscriptions: ['mem://readme'] }, _meta: { [SUB]: listen.id } });
    expect(mock.emit('tools')).toBe(0); // not asked for
    expect(mock.emit('prompts')).toBe(1);
    await s.waitFor((m) => m.method === 'notifications/prompts/list_changed' && m.params._meta[SUB] === listen.id);
    mock.endSubscriptions();
    const end = await s.waitFor((m) => m.id === listen.id);
    expect(end.result).toMatchObject({ resultType: 'complete', _meta: { [SUB]: listen.id } });
    await s.done;
    expect(s.messages[0].method).toBe('notifications/subscriptions/acknowledged');
  });

  it('records the headers and _meta the client sent', () => {
    const discover = mock.record.requests.find((r) => r.method === 'server/discover');
    expect(discover?.meta?.['io.modelcontextprotocol/clientInfo']).toEqual({ name: 'mcpwire-test', version: '0.0.0' });
    expect(discover?.headers?.['mcp-protocol-version']).toBe('2026-07-28');
    expect(mock.record.violations).toContain('HTTP GET on the MCP endpoint (2026-07-28 has no GET stream or sessions)');
  });
});

describe('modern HTTP mock, misbehaviour and dual mode', () => {
  const discoverWith = async (beh: Msg) => {
    const mock = await startModernHttpMock({ scenario: { ...DEFAULT_MODERN_SCENARIO, behavior: { quietViolations: true, methods: { 'server/discover': beh } } } });
    try {
      return await postModern(mock.url, req('server/discover'));
    } finally {
      await mock.close();
    }
  };

  it('server/discover answered with a 5xx, a 401, a non-JSON 2xx, an empty 2xx, an error with id null', async () => {
    expect((await discoverWith({ http: { status: 503, body: 'down' } })).status).toBe(503);
    const unauth = await discoverWith({ http: { status: 401, headers: { 'www-authenticate': 'Bearer' } } });
    expect([unauth.status, unauth.headers.get('www-authenticate')]).toEqual([401, 'Bearer']);
    const html = await discoverWith({ http: { status: 200, contentType: 'text/html', body: '<html>hi</html>' } });
    expect([html.status, html.text]).toEqual([200, '<html>hi</html>']);
    const empty = await discoverWith({ http: { status: 200 } });
    expect([empty.status, empty.text]).toEqual([200, '']);
    const nullId = await discoverWith({ nullIdError: true });
    expect(nullId.messages[0]).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it('drops a stream mid-request on demand', async () => {
    const mock = await startModernHttpMock({ scenario: { ...DEFAULT_MODERN_SCENARIO, tools: ['echo', { name: 'drop', builtin: 'echo', behavior: { dropStream: true } }] } });
    try {
      const failed = await postModern(mock.url, req('tools/call', { name: 'drop', arguments: { text: 'x' } })).then(
        () => 'answered',
        (e: Error) => e.name,
      );
      expect(failed).not.toBe('answered');
    } finally {
      await mock.close();
    }
  });

  it('dual: initialize is served by the handshake-era engine (with a session), modern requests statelessly', async () => {
    const mock = await startModernHttpMock({ scenario: { ...DEFAULT_MODERN_SCENARIO, mode: 'dual' } });
    try {
      const init = await post(
        mock.url,
        { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'old', version: '1' } } },
        { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      );
      expect(init.status).toBe(200);
      expect(init.response?.result.protocolVersion).toBe('2025-11-25');
      expect(init.headers.get('mcp-session-id')).toBeTruthy();
      const d = await postModern(mock.url, req('server/discover'));
      expect(d.response?.result.supportedVersions).toContain('2025-11-25');
      expect(d.headers.get('mcp-session-id')).toBeNull();
    } finally {
      await mock.close();
    }
  });
});

describe('modern HTTP mock, bundled scenarios (mock-servers/modern/scenarios)', () => {
  // what server/discover gets from each bundled fallback scenario: [status, body text or JSON-RPC error code]
  const cases: [string, number, string | number][] = [
    ['discover-not-found', 404, -32601],
    ['discover-garbage', 200, 'this is not JSON {{{'],
    ['discover-null-id', 400, -32600],
    ['discover-empty', 200, ''],
    ['discover-5xx', 503, 'unavailable'],
    ['discover-401', 401, ''],
  ];
  it.each(cases)('%s: server/discover answers %i', async (name, status, what) => {
    const mock = await startModernHttpMock({ scenario: resolveModernScenario(readModernScenarioFile(name)) });
    try {
      const res = await fetch(mock.url, { method: 'POST', headers: modernHeaders(req('server/discover')), body: JSON.stringify(req('server/discover')) });
      const text = await res.text();
      expect(res.status).toBe(status);
      if (typeof what === 'number') expect(JSON.parse(text).error.code).toBe(what);
      else expect(text).toBe(what);
    } finally {
      await mock.close();
    }
  });

  it('result-types and reject-state do what their names say', async () => {
    const mock = await startModernHttpMock({ scenario: resolveModernScenario(readModernScenarioFile('result-types')) });
    try {
      expect((await postModern(mock.url, req('tools/list'))).response?.result).not.toHaveProperty('resultType');
      expect((await postModern(mock.url, req('tools/call', { name: 'echo', arguments: { text: 'x' } }))).response?.result.resultType).toBe('deferred');
    } finally {
      await mock.close();
    }
    const strict = await startModernHttpMock({ scenario: resolveModernScenario(readModernScenarioFile('reject-state')) });
    try {
      const caps = { elicitation: {} };
      const first = await postModern(strict.url, req('tools/call', { name: 'confirm', arguments: {} }, meta({}, caps)));
      const retry = req('tools/call', { name: 'confirm', arguments: {}, requestState: first.response?.result.requestState, inputResponses: { confirm: { action: 'accept' } } }, meta({}, caps));
      expect((await postModern(strict.url, retry)).response?.error).toMatchObject({ code: -32602, message: 'requestState failed verification' });
    } finally {
      await strict.close();
    }
  });
});
