/**
 * The stateless 2026-07-28 listener's shared transport: an answer it cannot serialize still ends
 * its POST (as a JSON-RPC internal error), since its entry in the table of POSTs is gone once the
 * answer is taken.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { JSONRPCMessage } from '../../src/jsonrpc/types.js';
import { StatelessRequests } from '../../src/serve/http-stateless.js';

let server: http.Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A loopback server whose POSTs go to `transport`, and the request the transport hands on. */
async function listen(transport: StatelessRequests): Promise<{ url: string; seen: Promise<Record<string, unknown>> }> {
  let hand: (m: Record<string, unknown>) => void = () => {};
  const seen = new Promise<Record<string, unknown>>((resolve) => (hand = resolve));
  transport.onmessage = (m) => hand(m as Record<string, unknown>);
  server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c)).on('end', () => transport.accept(JSON.parse(body) as Record<string, unknown>, res, req.headers));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}/mcp`, seen };
}

describe('StatelessRequests: answers that cannot be serialized', () => {
  for (const [what, result] of [
    ['a BigInt', { value: 1n }],
    ['a cycle', (() => { const o: Record<string, unknown> = {}; o.self = o; return o; })()],
  ] as const) {
    it(`${what} in a result ends the POST with -32603 under the client's id`, async () => {
      const t = new StatelessRequests();
      const { url, seen } = await listen(t);
      const answer = fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 'c-7', method: 'tools/call', params: { name: 'x' } }) });
      const req = await seen;
      await t.send({ jsonrpc: '2.0', id: req.id, result } as unknown as JSONRPCMessage);
      const res = await answer;
      expect(res.status).toBe(200);
      const body = (await res.json()) as { id: unknown; error?: { code: number; message: string } };
      expect(body.id).toBe('c-7');
      expect(body.error?.code).toBe(-32603);
      expect(body.error?.message).toMatch(/could not be serialized/);
      await t.close();
    });
  }

  it('a serializable answer goes out as it is', async () => {
    const t = new StatelessRequests();
    const { url, seen } = await listen(t);
    const answer = fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }) });
    const req = await seen;
    await t.send({ jsonrpc: '2.0', id: req.id, result: { tools: [] } } as unknown as JSONRPCMessage);
    expect(await (await answer).json()).toEqual({ jsonrpc: '2.0', id: 3, result: { tools: [] } });
    await t.close();
  });
});
