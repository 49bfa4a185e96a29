// clauses: 2026-07-28 (the ids in this file's titles are that revision's numbering; scripts/clause-coverage.mjs)
/**
 * basic.versioning#2: a -32022 names the versions the server supports; the client retries once
 * with the newest it shares — also when that is the version it just sent (the server lists it, so
 * it has said it will take it) — and never loops. A small stateless server on 127.0.0.1 that
 * refuses the first N requests with 400 / -32022.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, type McpClient } from '../../src/index.js';

const MODERN = '2026-07-28';
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c().catch(() => {})));
});

/** Answers server/discover and tools/list statelessly; refuses the first `refusals` POSTs with -32022. */
async function refusingServer(refusals: number): Promise<{ url: string; posts: Array<{ method: string; version: unknown }> }> {
  const posts: Array<{ method: string; version: unknown }> = [];
  let left = refusals;
  const server = http.createServer((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const msg = JSON.parse(body) as { id?: number; method: string; params?: { _meta?: Record<string, unknown> } };
      posts.push({ method: msg.method, version: msg.params?._meta?.['io.modelcontextprotocol/protocolVersion'] });
      if (msg.id === undefined) {
        res.writeHead(202).end();
        return;
      }
      res.setHeader('content-type', 'application/json');
      if (left > 0) {
        left--;
        res.writeHead(400).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, error: { code: -32022, message: 'Unsupported protocol version', data: { supported: [MODERN], requested: MODERN } } }));
        return;
      }
      const result =
        msg.method === 'server/discover'
          ? { resultType: 'complete', supportedVersions: [MODERN], capabilities: { tools: {} }, serverInfo: { name: 'refuser', version: '1' } }
          : msg.method === 'tools/list'
            ? { resultType: 'complete', ttlMs: 0, cacheScope: 'private', tools: [] }
            : { resultType: 'complete' };
      res.writeHead(200).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => new Promise((r) => server.close(r)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, posts };
}

async function open(url: string): Promise<McpClient> {
  const c = await connect({ transport: 'http', id: 'r', url }, { timeoutMs: 15_000, eraProbeTimeoutMs: 5_000 });
  closers.push(() => c.close());
  return c;
}

describe('version retry after -32022', () => {
  it('basic.versioning#2: a refusal that lists the version sent is retried once with it, and the client is modern', async () => {
    const s = await refusingServer(1);
    const c = await open(s.url);
    expect(c.era).toBe('modern');
    await c.listTools();
    const discovers = s.posts.filter((p) => p.method === 'server/discover');
    expect(discovers).toHaveLength(2);
    expect(discovers.every((p) => p.version === MODERN)).toBe(true);
    expect(s.posts.some((p) => p.method === 'initialize')).toBe(false);
  });

  it('a server that keeps refusing gets exactly one retry, then an error naming its versions (no loop, no initialize)', async () => {
    const s = await refusingServer(1000);
    const err = await open(s.url).catch((e: unknown) => e);
    expect((err as Error).message).toContain(MODERN);
    expect(s.posts.filter((p) => p.method === 'server/discover')).toHaveLength(2);
    expect(s.posts.some((p) => p.method === 'initialize')).toBe(false);
  });
});
