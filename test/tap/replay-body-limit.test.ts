/**
 * `replay --listen` bounds what it reads of a POST body, as `mcpwire serve` does: a body past the
 * bound is read to its end and dropped, never held, and refused with 413 and a JSON-RPC error; a
 * request within it is still answered from the recording.
 */
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { TraceRecord } from '../../src/index.js';
import { buildScript, serveReplayHttp, type ReplayServer } from '../../src/tap/index.js';

const base = { v: 1, ts: '2025-11-25T10:00:00.000Z', server: 's', transport: 'stdio' };
const records = [
  { ...base, t: 1, dir: 'out', kind: 'request', method: 'ping', id: 1, bytes: 1, msg: { jsonrpc: '2.0', id: 1, method: 'ping' } },
  { ...base, t: 2, dir: 'in', kind: 'result', id: 1, bytes: 1, msg: { jsonrpc: '2.0', id: 1, result: {} } },
] as TraceRecord[];

let srv: ReplayServer | undefined;
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});

function post(port: number, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('replay --listen: the POST body bound', () => {
  it('a body over maxBodyBytes is refused with 413 and a JSON-RPC error; one within is answered', async () => {
    srv = await serveReplayHttp(buildScript(records), { mode: 'loose', listen: '127.0.0.1:0', maxBodyBytes: 4096 });
    const ping = { jsonrpc: '2.0', id: 5, method: 'ping' };
    const big = await post(srv.port, JSON.stringify({ ...ping, params: { _meta: { pad: 'x'.repeat(64 * 1024) } } }));
    expect(big.status).toBe(413);
    expect(JSON.parse(big.body)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringContaining('too large') } });
    const ok = await post(srv.port, JSON.stringify(ping));
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toEqual({ jsonrpc: '2.0', id: 5, result: {} });
  });
});
