/**
 * `check`'s raw HTTP exchange (src/check/core/raw-http.ts): a stream read for a while (`readMs`)
 * still stops as soon as `until` holds, and drops the connection then — `http.resume-delivers`
 * waits for one response on a GET stream the server keeps open, and must not sit out the whole
 * read window once it came.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { raw, type RawTarget } from '../../src/check/core/raw-http.js';

let server: ReturnType<typeof createServer>;
let target: RawTarget;
/** Resolves when the client dropped the open stream (the server never ends it). */
let dropped: Promise<void>;
const open: ServerResponse[] = [];

beforeAll(async () => {
  let drop!: () => void;
  dropped = new Promise((r) => (drop = r));
  server = createServer((req, res) => {
    open.push(res);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('id: 1\ndata: {"jsonrpc":"2.0","method":"notifications/message"}\n\n');
    setTimeout(() => res.write('id: 2\ndata: {"jsonrpc":"2.0","id":"mcpwire-check-51","result":{}}\n\n'), 50);
    req.socket.on('close', drop);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  target = { target: { transport: 'http', id: 'raw', url: `http://127.0.0.1:${port}/mcp` }, timeoutMs: 10_000, options: {} };
});

afterAll(async () => {
  for (const res of open) res.destroy();
  await new Promise((r) => server.close(r));
});

describe('raw(): a stream read with readMs', () => {
  it('ends once `until` holds, with the text up to there, and drops the connection; the read window (10 min) is not waited out', async () => {
    const r = await raw(target, 'GET', { accept: 'text/event-stream' }, undefined, {
      readMs: 600_000,
      until: (t) => t.includes('"id":"mcpwire-check-51"') && /\n\n$/.test(t),
    });
    expect(r.status).toBe(200);
    expect(r.eventIds).toEqual(['1', '2']);
    expect(r.message).toEqual({ jsonrpc: '2.0', id: 'mcpwire-check-51', result: {} });
    await dropped;
  });
});
