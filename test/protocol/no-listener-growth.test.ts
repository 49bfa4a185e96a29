/**
 * Regression: no listener growth per request, and no MaxListenersExceededWarning.
 *
 * The official SDK client adds an abort listener per request to a long-lived AbortSignal (its
 * HTTP client reuses one); after ~1,500 requests Node warns, and the listeners pile up. Here,
 * after thousands of calls (sequential and 64 in flight, with and without a caller's signal that
 * is reused for every call), every EventEmitter and EventTarget reachable from the client —
 * found by walking its object graph, so the test does not depend on private field names — has
 * exactly as many listeners as after warm-up, the caller's signal has none left, and no warning
 * was emitted. Both transports: stdio (a real child process) and Streamable HTTP (a node:http
 * server on 127.0.0.1).
 */
import { EventEmitter, getEventListeners } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { connect, type McpClient } from '../../src/index.js';
import { Connection } from '../../src/protocol/connection.js';
import { createMemoryPair } from '../../src/transport/memory.js';

/** A bare NDJSON MCP server: initialize, tools/call echo; notifications ignored. */
const STDIO_SERVER = `
let buf = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (c) => {
  buf += c;
  let nl;
  while ((nl = buf.indexOf('\\n')) !== -1) {
    const line = buf.slice(0, nl);
    buf = buf.slice(nl + 1);
    if (!line) continue;
    const m = JSON.parse(line);
    if (m.id === undefined) continue;
    const result = m.method === 'initialize'
      ? { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 't', version: '1' } }
      : { content: [{ type: 'text', text: m.params.arguments.text }] };
    process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }) + '\\n');
  }
});
process.stdin.on('end', () => process.exit(0));
`;

function handle(m: { id?: unknown; method: string; params: { protocolVersion?: string; arguments?: { text?: string } } }) {
  if (m.id === undefined) return undefined;
  const result =
    m.method === 'initialize'
      ? { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 't', version: '1' } }
      : { content: [{ type: 'text', text: m.params.arguments?.text }] };
  return { jsonrpc: '2.0', id: m.id, result };
}

/** Counts listeners on every emitter/target reachable from `roots` (bounded walk). */
function census(roots: Record<string, unknown>): Map<string, number> {
  const out = new Map<string, number>();
  const seen = new Set<unknown>();
  let budget = 20_000;
  const visit = (value: unknown, path: string, depth: number) => {
    if (value === null || (typeof value !== 'object' && typeof value !== 'function') || seen.has(value) || budget-- <= 0) return;
    seen.add(value);
    if (value instanceof EventEmitter) {
      for (const name of value.eventNames()) out.set(`${path}#${String(name)}`, value.listenerCount(name));
    }
    if (value instanceof EventTarget) {
      out.set(`${path}#abort`, getEventListeners(value, 'abort').length);
    }
    if (depth === 0 || ArrayBuffer.isView(value) || typeof value === 'function') return;
    // collections (pools of sockets, maps of in-flight work) are not walked: their members come
    // and go with load; what must not grow is the listener count on the long-lived objects.
    if (value instanceof Map || value instanceof Set || Array.isArray(value)) return;
    for (const key of Reflect.ownKeys(value as object)) {
      let child: unknown;
      try {
        child = (value as Record<string | symbol, unknown>)[key];
      } catch {
        continue;
      }
      visit(child, `${path}.${String(key)}`, depth - 1);
    }
  };
  for (const [name, root] of Object.entries(roots)) visit(root, name, 6);
  return out;
}

function growth(before: Map<string, number>, after: Map<string, number>): string[] {
  const grew: string[] = [];
  for (const [k, v] of after) {
    const b = before.get(k) ?? 0;
    if (v > b) grew.push(`${k}: ${b} → ${v}`);
  }
  return grew;
}

async function exercise(client: McpClient, n: number): Promise<void> {
  const shared = new AbortController(); // one caller signal reused for every call
  let i = 0;
  for (; i < n / 2; i++) {
    const r = await client.callTool('echo', { text: `s${i}` }, i % 2 ? { signal: shared.signal } : { timeoutMs: 30_000 });
    expect((r.content[0] as { text: string }).text).toBe(`s${i}`);
  }
  let next = 0;
  const worker = async () => {
    while (next < n / 2) {
      const k = next++;
      await client.callTool('echo', { text: `c${k}` }, k % 2 ? { signal: shared.signal, timeoutMs: 30_000 } : {});
    }
  };
  await Promise.all(Array.from({ length: 64 }, worker));
  expect(getEventListeners(shared.signal, 'abort')).toHaveLength(0);
  expect(client.pendingCount).toBe(0);
}

let warnings: Error[] = [];
const onWarning = (w: Error) => {
  if (w.name === 'MaxListenersExceededWarning') warnings.push(w);
};
beforeEach(() => {
  warnings = [];
  process.on('warning', onWarning);
});
afterEach(() => {
  process.off('warning', onWarning);
});

async function check(client: McpClient, n: number) {
  await exercise(client, 200); // warm-up: lazily created streams, pools and listeners exist now
  await new Promise((r) => setImmediate(r));
  const before = census({ client, process });
  await exercise(client, n);
  await new Promise((r) => setTimeout(r, 20)); // let warnings (emitted on nextTick) arrive
  const after = census({ client, process });
  expect(growth(before, after)).toEqual([]);
  expect(warnings.map((w) => w.message)).toEqual([]);
}

describe('no listener growth per request (regression: SDK-style abort listener pile-up)', () => {
  it('one caller signal shared by 100 requests in flight carries one listener; aborting it cancels all, in order', async () => {
    const [a, b] = createMemoryPair();
    const client = new Connection(a);
    const server = new Connection(b);
    const cancelled: unknown[] = [];
    server.setRequestHandler('hang', () => new Promise(() => {}));
    server.setNotificationHandler('notifications/cancelled', (p) => cancelled.push(p?.requestId));
    const ac = new AbortController();
    const settled: number[] = [];
    const all = Array.from({ length: 100 }, (_, i) =>
      client.request('hang', { i }, { signal: ac.signal }).catch((e: Error) => {
        settled.push(i);
        return e;
      }),
    );
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(1);
    ac.abort('stop');
    const errors = await Promise.all(all);
    expect(errors.every((e) => e instanceof Error && e.name === 'AbortError')).toBe(true);
    expect(settled).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
    expect(client.pendingCount).toBe(0);
    await new Promise((r) => setTimeout(r, 10));
    expect(cancelled).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    await client.close();
    await server.close();
  });

  it('the shared listener goes away when the last request on the signal settles', async () => {
    const [a, b] = createMemoryPair();
    const client = new Connection(a);
    const server = new Connection(b);
    server.setRequestHandler('echo', (p) => p ?? {});
    const ac = new AbortController();
    const inFlight = Array.from({ length: 64 }, (_, i) => client.request('echo', { i }, { signal: ac.signal }));
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(1);
    await Promise.all(inFlight);
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
    await client.close();
    await server.close();
  });

  it('stdio: listeners on the child, its pipes, the client and process stay constant', async () => {
    const client = await connect({ transport: 'stdio', command: process.execPath, args: ['-e', STDIO_SERVER] });
    try {
      await check(client, 4000);
    } finally {
      await client.close();
    }
  });

  describe('Streamable HTTP', () => {
    let server: http.Server;
    let url: string;
    beforeAll(async () => {
      server = http.createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          if (req.method !== 'POST') {
            res.writeHead(405).end();
            return;
          }
          const out = handle(JSON.parse(Buffer.concat(chunks).toString('utf8')));
          if (out === undefined) {
            res.writeHead(202).end();
            return;
          }
          const body = JSON.stringify(out);
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
          res.end(body);
        });
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    });

    it('listeners on the transport, its pool, signals, the client and process stay constant', async () => {
      const client = await connect({ transport: 'http', url });
      try {
        await check(client, 2000);
      } finally {
        await client.close();
      }
    });
  });
});
