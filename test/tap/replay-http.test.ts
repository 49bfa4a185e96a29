/**
 * `mcpwire replay --listen` as the local server its host connects to (a real listener on
 * 127.0.0.1): requests for another Host or from another Origin (DNS rebinding) are refused,
 * requests for its own address are answered from the recording.
 */
import http from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import type { TraceRecord } from '../../src/index.js';
import { buildScript, serveReplayHttp, type ReplayServer } from '../../src/tap/index.js';

const base = { v: 1, ts: '2025-11-25T10:00:00.000Z', server: 's', transport: 'stdio' };
const records = [
  { ...base, t: 1, dir: 'out', kind: 'request', method: 'ping', id: 1, bytes: 1, msg: { jsonrpc: '2.0', id: 1, method: 'ping' } },
  { ...base, t: 2, dir: 'in', kind: 'result', id: 1, bytes: 1, msg: { jsonrpc: '2.0', id: 1, result: {} } },
] as TraceRecord[];

let srv: ReplayServer | undefined;
afterAll(() => srv?.close());

function post(port: number, target: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: target, method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end(JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'ping' }));
  });
}

describe('replay over HTTP answers its own address only', () => {
  // cites basic.transports#8: replay --listen is the HTTP server the host's client connects to, so validating Origin is its own job
  // cites basic.transports#9: replay --listen answers a present, invalid Origin with 403, as a server must
  it('basic.transports#8 #9: the replay server refuses another Host (403), another Origin (403) and a //host target (400), and answers its own', async () => {
    srv = await serveReplayHttp(buildScript(records), { mode: 'loose', listen: '127.0.0.1:0' });
    const own = `127.0.0.1:${srv.port}`;
    expect((await post(srv.port, '/mcp', { host: `rebound.example:${srv.port}` })).status).toBe(403);
    expect((await post(srv.port, '/mcp', { host: own, origin: 'http://rebound.example' })).status).toBe(403);
    expect((await post(srv.port, '//elsewhere/mcp', { host: own })).status).toBe(400);
    const ok = await post(srv.port, '/mcp', { host: own, origin: `http://${own}` });
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toEqual({ jsonrpc: '2.0', id: 5, result: {} });
    expect(srv.summary().answered).toBe(1);
  });
});
