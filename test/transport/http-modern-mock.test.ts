/**
 * The stateless Streamable HTTP transport with the request metadata of src/mcp/eras/http-headers.ts,
 * against the 2026-07-28 HTTP mock (mock-servers/modern/http-server.mjs) on 127.0.0.1: the mock
 * checks every header against the body (-32020), answers 400/-32022 to initialize, treats a
 * closed stream as the cancellation and keeps subscriptions/listen streams open.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startModernHttpMock, type ModernHttpMock } from '../../mock-servers/modern/http-server.mjs';
import { AbortError } from '../../src/errors.js';
import type { JSONRPCMessage } from '../../src/jsonrpc/types.js';
import { headerAnnotationProblems, requestHeaders } from '../../src/mcp/eras/http-headers.js';
import { StreamableHttpTransport } from '../../src/transport/streamable-http.js';
import { meta, type Msg } from '../support/modern-wire.js';
import { waitFor } from '../support/raw-http.js';

let mock: ModernHttpMock;
beforeAll(async () => {
  mock = await startModernHttpMock({ stderr: () => {} });
});
afterAll(() => mock.close());

let seq = 1;
const req = (method: string, params: Msg = {}): JSONRPCMessage => ({ jsonrpc: '2.0', id: seq++, method, params: { ...params, _meta: meta() } }) as JSONRPCMessage;

/** A stateless transport whose messages are collected; `call` sends a request with its metadata headers and waits for its answer. */
function client() {
  const t = new StreamableHttpTransport({ url: mock.url, serverId: 'modern', sessions: false });
  const messages: Msg[] = [];
  t.onmessage = (m) => messages.push(m as Msg);
  const answerTo = (id: unknown) => waitFor(() => messages.some((m) => m.id === id), `the answer to ${String(id)}`).then(() => messages.find((m) => m.id === id)!);
  const call = async (message: JSONRPCMessage, inputSchema?: unknown, headers = true) => {
    const m = message as { id: number; method: string; params: Record<string, unknown> };
    await t.send(message, headers ? { headers: requestHeaders(m.method, m.params, inputSchema) } : {});
    return answerTo(m.id);
  };
  return { t, messages, call, answerTo };
}

describe('stateless Streamable HTTP against the 2026-07-28 mock', () => {
  test('requests carrying requestHeaders() pass the mock’s header–body validation, x-mcp-header parameters included', async () => {
    const { t, call } = client();
    const [violations, requests] = [mock.record.violations.length, mock.record.requests.length];
    const list = await call(req('tools/list'));
    const route = (list.result.tools as Msg[]).find((tool) => tool.name === 'route')!;
    expect(headerAnnotationProblems(route.inputSchema)).toEqual([]);
    const args = { region: 'Zürich', tenant: { id: 42 }, dryRun: false, query: 'q' };
    const answer = await call(req('tools/call', { name: 'route', arguments: args }), route.inputSchema);
    expect(answer.error).toBeUndefined();
    expect(JSON.parse(answer.result.content[0].text)).toMatchObject({ arguments: args });
    const read = await call(req('resources/read', { uri: 'mem://readme' }));
    expect(read.error).toBeUndefined();
    await t.close();
    expect(mock.record.violations.slice(violations)).toEqual([]);
    expect(mock.record.requests.slice(requests).filter((r) => r.rejected !== undefined)).toEqual([]);
  });

  test('without the metadata headers the mock answers 400 with -32020, delivered as the request’s error', async () => {
    const { t, call } = client();
    const answer = await call(req('tools/call', { name: 'echo', arguments: { text: 'x' } }), undefined, false);
    expect(answer.error).toMatchObject({ code: -32020 });
    await t.close();
  });

  test('an initialize is answered 400 with -32022 and the supported versions, delivered — no legacy fallback', async () => {
    const t = new StreamableHttpTransport({ url: mock.url, serverId: 'modern' });
    const messages: Msg[] = [];
    t.onmessage = (m) => messages.push(m as Msg);
    const init = { jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } } as JSONRPCMessage;
    await t.send(init, { isInitialize: true });
    expect(messages).toEqual([expect.objectContaining({ id: 'init', error: expect.objectContaining({ code: -32022, data: expect.objectContaining({ supported: ['2026-07-28'] }) }) })]);
    expect(t.kind).toBe('streamable-http');
    await t.close();
  });

  test('basic.patterns.cancellation (Streamable HTTP): aborting a request closes its stream, which the mock records as the cancellation', async () => {
    const { t } = client();
    const violations = mock.record.violations.length;
    const slow = req('tools/call', { name: 'slow', arguments: { ms: 60_000 } });
    const m = slow as unknown as { id: number; method: string; params: Record<string, unknown> };
    const ctrl = new AbortController();
    const sent = t.send(slow, { signal: ctrl.signal, headers: requestHeaders(m.method, m.params) });
    await waitFor(() => mock.record.requests.some((r) => r.id === m.id), 'the mock to get the call');
    ctrl.abort();
    await expect(sent).rejects.toBeInstanceOf(AbortError);
    await waitFor(() => mock.record.cancelled.includes(m.id), 'the mock to see the cancellation');
    expect(t.cancelsByClosing).toBe(true);
    await t.close();
    expect(mock.record.violations.slice(violations)).toEqual([]);
  });

  test('subscriptions/listen sent longLived stays open for notifications until aborted; nothing is ever sent with GET or DELETE', async () => {
    const { t, messages } = client();
    const listen = req('subscriptions/listen', { notifications: { toolsListChanged: true } });
    const m = listen as unknown as { id: number; method: string; params: Record<string, unknown> };
    const ctrl = new AbortController();
    const sent = t.send(listen, { signal: ctrl.signal, longLived: true, headers: requestHeaders(m.method, m.params) });
    await waitFor(() => messages.some((x) => x.method === 'notifications/subscriptions/acknowledged'), 'the acknowledgement');
    expect(mock.emit('tools')).toBe(1);
    await waitFor(() => messages.some((x) => x.method === 'notifications/tools/list_changed'), 'the list_changed notification');
    ctrl.abort();
    await expect(sent).rejects.toBeInstanceOf(AbortError);
    await t.close();
    expect(mock.record.http.filter((h) => h.method !== 'POST')).toEqual([]);
    expect(mock.record.http.every((h) => h.headers['mcp-session-id'] === undefined)).toBe(true);
  });
});
