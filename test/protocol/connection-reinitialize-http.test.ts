/**
 * `reinitialize()` over a real Streamable HTTP server on 127.0.0.1 (the scripted mock): the old
 * session, still alive, is ended with DELETE (basic.transports#46) before the new `initialize`.
 */
import { afterEach, expect, it } from 'vitest';
// @ts-expect-error plain JavaScript mock without type declarations
import { startHttpMock } from '../../mock-servers/http-server.mjs';
import { connect, type McpClient } from '../../src/index.js';

type Mock = { url: string; record: { requests: { method: string; headers: Record<string, string>; body?: string }[] }; close(): Promise<void> };
let mock: Mock | undefined;
let client: McpClient | undefined;

afterEach(async () => {
  await client?.close();
  await mock?.close();
  client = undefined;
  mock = undefined;
});

it('basic.transports#46: reinitialize() DELETEs the live session before the new initialize, then works on the new one', async () => {
  mock = (await startHttpMock({ mode: 'json' })) as Mock;
  client = await connect({ transport: 'http', id: 'renew', url: mock.url }, { timeoutMs: 10_000 });
  const old = client.sessionId!;
  expect(old).toBeTruthy();
  const before = mock.record.requests.length;
  await client.reinitialize();
  const after = mock.record.requests.slice(before);
  const del = after.findIndex((r) => r.method === 'DELETE');
  const init = after.findIndex((r) => r.method === 'POST' && String(r.body).includes('"initialize"'));
  expect(del).toBeGreaterThanOrEqual(0);
  expect(after[del]!.headers['mcp-session-id']).toBe(old);
  expect(init).toBeGreaterThan(del);
  expect(after[init]!.headers['mcp-session-id']).toBeUndefined();
  expect(client.sessionId).toBeTruthy();
  expect(client.sessionId).not.toBe(old);
  expect((await client.callTool('echo', { text: 'new session' })).content[0]).toEqual({ type: 'text', text: 'new session' });
});
