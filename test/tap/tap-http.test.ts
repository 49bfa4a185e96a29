/**
 * The HTTP tap as a byte-exact reverse proxy (a hand-written upstream on 127.0.0.1 that shows
 * what reached it): request method, path, query, body and headers (session id, Last-Event-ID,
 * Authorization) arrive unchanged; status, headers and SSE bodies (event ids, events split
 * across chunks) come back unchanged and as they are produced; DELETE passes; the trace holds
 * the messages of both directions with the session hashed and the credential redacted.
 */
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseTrace } from '../../src/trace-api.js';
import { startHttpTap } from '../../src/tap/index.js';
import { tempDirs } from '../support/temp-dirs.js';

const dir = tempDirs('mcpwire-tap-http-')();
const SESSION = 'sess-0123456789abcdef-secret';
const TOKEN = 'tok_tapHttp_9b8a7c6d5e';
const seen: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders; body: string }> = [];

const SSE_PARTS = [
  'id: 41\nevent: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}\n\n',
  'id: 42\ndata: {"jsonrpc":"2.0","id":2,',
  '"result":{"content":[{"type":"text","text":"done"}]}}\n\n',
];

const upstream = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', async () => {
    const body = Buffer.concat(chunks).toString('utf8');
    seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
    if (req.method === 'DELETE') return void res.writeHead(204).end();
    const msg = body ? JSON.parse(body) : undefined;
    if (msg?.method === 'initialize') {
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': SESSION, 'x-upstream': 'yes' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'up', version: '1' } } }));
      return;
    }
    if (msg?.method === 'tools/call') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      for (const p of SSE_PARTS) {
        res.write(p);
        await new Promise((r) => setTimeout(r, 30));
      }
      res.end();
      return;
    }
    res.writeHead(202).end();
  });
});

let tap: Awaited<ReturnType<typeof startHttpTap>> | undefined;
afterAll(async () => {
  await tap?.close();
  await new Promise((r) => upstream.close(r));
});

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(body) });
  return res;
}

describe('mcpwire tap --listen/--upstream (HTTP reverse proxy)', () => {
  it('passes requests and answers unchanged, streams SSE as produced, traces both directions', async () => {
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
    const port = (upstream.address() as { port: number }).port;
    const trace = path.join(dir, 'http.jsonl');
    tap = await startHttpTap({ listen: '127.0.0.1:0', upstream: `http://127.0.0.1:${port}/mcp?v=1`, trace, name: 'up' });
    expect(tap.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp\?v=1$/);
    const auth = { authorization: `Bearer ${TOKEN}` };

    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'h', version: '1' } } };
    const r1 = await post(tap.url, init, auth);
    expect(r1.status).toBe(200);
    expect(r1.headers.get('mcp-session-id')).toBe(SESSION);
    expect(r1.headers.get('x-upstream')).toBe('yes');
    expect(((await r1.json()) as any).result.serverInfo.name).toBe('up');
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/mcp?v=1', body: JSON.stringify(init) });
    expect(seen[0].headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(seen[0].headers.host).toBe(`127.0.0.1:${port}`);

    const r2 = await post(tap.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { ...auth, 'mcp-session-id': SESSION });
    expect(r2.status).toBe(202);

    const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'slow', arguments: { token: TOKEN } } };
    const r3 = await post(tap.url, call, { ...auth, 'mcp-session-id': SESSION, 'last-event-id': '40' });
    expect(r3.headers.get('content-type')).toBe('text/event-stream');
    const reader = r3.body!.getReader();
    const got: string[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      got.push(Buffer.from(value).toString('utf8'));
    }
    expect(got.join('')).toBe(SSE_PARTS.join(''));
    expect(got.length).toBeGreaterThanOrEqual(2); // streamed as produced, not buffered to the end
    expect(seen[2].headers['last-event-id']).toBe('40');
    expect(seen[2].headers['mcp-session-id']).toBe(SESSION);

    const del = await fetch(tap.url, { method: 'DELETE', headers: { 'mcp-session-id': SESSION } });
    expect(del.status).toBe(204);
    expect(seen[3].method).toBe('DELETE');
    await tap.close();

    const text = fs.readFileSync(trace, 'utf8');
    expect(fs.statSync(trace).mode & 0o777).toBe(0o600);
    expect(text).not.toContain(SESSION);
    expect(text).not.toContain(TOKEN);
    const msgs = (parseTrace(text).records as any[]).filter((r) => r.dir);
    expect(msgs.map((m) => `${m.dir}:${m.kind}:${m.method}`)).toEqual([
      'out:request:initialize',
      'in:result:initialize',
      'out:notification:notifications/initialized',
      'out:request:tools/call',
      'in:notification:notifications/progress',
      'in:result:tools/call',
    ]);
    expect(msgs.slice(1).every((m) => /^sha256:[0-9a-f]{8}$/.test(m.session))).toBe(true);
    expect(msgs[5].latency_ms).toBeGreaterThan(0);
  });

  it('an unreachable upstream is a 502 and a diagnostic line', async () => {
    const trace = path.join(dir, 'down.jsonl');
    const down = await startHttpTap({ listen: '127.0.0.1:0', upstream: 'http://127.0.0.1:1/mcp', trace });
    const r = await post(down.url, { jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(r.status).toBe(502);
    await down.close();
    expect(fs.readFileSync(trace, 'utf8')).toMatch(/"event":"diagnostic","code":"MCPWIRE_UPSTREAM"/);
  });
});
