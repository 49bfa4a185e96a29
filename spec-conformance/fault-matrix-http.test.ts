/**
 * The fault matrix, Streamable HTTP rows (the table is in README.md "Fault
 * matrix"). A host with a faulty HTTP server on 127.0.0.1 (test/fixtures/faults/fault-http.ts,
 * configured with a secret header) beside a healthy stdio server; `FaultBench.finish()` checks
 * what every row shares (healthy server answers, nothing pending, no process left, no unhandled
 * rejection, no secret in any output — the session ids the server issued included).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FaultBench, SECRET, until } from '../test/fixtures/faults/bench.js';
import { startFaultHttp, type FaultHttp, type FaultHttpOptions } from '../test/fixtures/faults/fault-http.js';

let bench: FaultBench | undefined;
let server: FaultHttp | undefined;
afterEach(async () => {
  const b = bench;
  bench = undefined;
  try {
    await b?.finish(server?.issued ?? []);
  } finally {
    await server?.close();
    server = undefined;
  }
});

const text = FaultBench.text;
const isWork = (msg: { method?: string; params?: any }) => msg.method === 'tools/call' && msg.params?.name === 'work';

async function start(fault: FaultHttpOptions, requestTimeoutMs = 20_000): Promise<FaultBench> {
  server = await startFaultHttp(fault);
  bench = await FaultBench.start({ id: 'faulty', transport: 'http', config: { url: server.url, headers: { 'X-Api-Key': SECRET }, requestTimeoutMs } });
  expect(bench.status('faulty').state).toBe('ready');
  return bench;
}

const sse = (res: import('node:http').ServerResponse) => {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.flushHeaders();
};
const answerEvent = (eventId: string, id: unknown) =>
  `id: ${eventId}\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'worked' }] } })}\n\n`;

describe('fault matrix: Streamable HTTP', { timeout: 60_000 }, () => {
  it('fault: SSE stream cut mid-event (resumable) → the half event is dropped, the call resumes with Last-Event-ID and settles once (basic.transports#37)', async () => {
    let workId: unknown;
    const b = await start({
      onPost: ({ res, msg }) => {
        if (!isWork(msg)) return false;
        workId = msg.id;
        sse(res);
        res.write('id: w-0\nretry: 300\ndata: \n\n');
        res.write(`id: w-1\ndata: {"jsonrpc":"2.0","id":${JSON.stringify(msg.id)},"result":{"content":[{"type":"te`);
        setTimeout(() => server!.reset(res), 30);
        return true;
      },
      onGet: (req, res) => {
        if (req.headers['last-event-id'] !== 'w-0') return false;
        sse(res);
        res.end(answerEvent('w-1', workId));
        return true;
      },
    });
    const r = await b.call('faulty', 'work');
    expect(r).toMatchObject({ isError: false, content: [{ type: 'text', text: 'worked' }] });
    expect(server!.log.filter((e) => e.http === 'GET' && e.lastEventId === 'w-0')).toHaveLength(1);
    await b.expectHealthy();
  });

  it('fault: SSE stream cut mid-event (no event id: not resumable) → the call fails at once naming the server and the request', async () => {
    const b = await start({
      onPost: ({ res, msg }) => {
        if (!isWork(msg)) return false;
        sse(res);
        res.write(`data: {"jsonrpc":"2.0","id":${JSON.stringify(msg.id)},"result":{"content":[{"type":"te`);
        setTimeout(() => server!.reset(res), 30);
        return true;
      },
    });
    const r = await b.call('faulty', 'work');
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/server "faulty" during request/);
    expect(text(r)).not.toMatch(/timed out/);
    const e = await b.call('faulty', 'echo', { text: 'next' });
    expect(text(e)).toBe('next');
  });

  it('fault: `retry: 0` on a stream that keeps closing → reconnects still wait ≥ 250 ms (no hot loop), the call settles when the answer comes (basic.transports#23)', async () => {
    let workId: unknown;
    let gets = 0;
    const b = await start({
      onPost: ({ res, msg }) => {
        if (!isWork(msg)) return false;
        workId = msg.id;
        sse(res);
        res.end('id: r-0\nretry: 0\ndata: \n\n');
        return true;
      },
      onGet: (req, res) => {
        if (req.headers['last-event-id'] !== 'r-0') return false;
        sse(res);
        if (++gets < 3) res.end('retry: 0\n\n');
        else res.end(answerEvent('r-1', workId));
        return true;
      },
    });
    const r = await b.call('faulty', 'work');
    expect(r).toMatchObject({ isError: false, content: [{ type: 'text', text: 'worked' }] });
    const at = server!.log.filter((e) => e.http === 'GET' && e.lastEventId === 'r-0').map((e) => e.at);
    expect(at).toHaveLength(3);
    // A lower bound only (timers never fire early): at least ~250 ms between attempts despite retry: 0.
    for (let i = 1; i < at.length; i++) expect(at[i] - at[i - 1]).toBeGreaterThanOrEqual(200);
  });

  it('fault: HTTP 503 during a call (body quoting the secret) → the call fails naming the server, the request and the status; the connection carries on', async () => {
    const b = await start({
      onPost: ({ res, msg }) => {
        if (!isWork(msg)) return false;
        res.writeHead(503, { 'content-type': 'text/plain' }).end(`upstream unavailable (X-Api-Key: ${SECRET})`);
        return true;
      },
    });
    const r = await b.call('faulty', 'work');
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/server "faulty" during request/);
    expect(text(r)).toMatch(/503/);
    const e = await b.call('faulty', 'echo', { text: 'next' });
    expect(text(e)).toBe('next');
  });

  it('fault: connection reset during a call → the call fails at once naming the server and the request; the next call works', async () => {
    const b = await start({
      onPost: ({ res, msg }) => {
        if (!isWork(msg)) return false;
        server!.reset(res);
        return true;
      },
    });
    const r = await b.call('faulty', 'work');
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/server "faulty" during request/);
    expect(text(r)).not.toMatch(/timed out/);
    const e = await b.call('faulty', 'echo', { text: 'next' });
    expect(text(e)).toBe('next');
  });

  it('fault: 404 during a call (session expired) → one new session, the call is replayed once and answers (basic.transports#45)', async () => {
    let expired = false;
    const b = await start({
      onPost: ({ msg }) => {
        if (isWork(msg) && !expired) {
          expired = true;
          server!.expireSessions();
        }
        return false;
      },
    });
    const r = await b.call('faulty', 'work');
    expect(r).toMatchObject({ isError: false, content: [{ type: 'text', text: 'worked' }] });
    expect(server!.log.filter((e) => e.rpc === 'initialize')).toHaveLength(2);
    expect(server!.log.filter((e) => e.rpc === 'tools/call')).toHaveLength(2);
    expect(b.status('faulty').state).toBe('ready');
  });

  for (const [what, fail] of [
    ['HTTP 500', (res: import('node:http').ServerResponse) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`renewal refused (X-Api-Key: ${SECRET})`)],
    ['connection reset', (res: import('node:http').ServerResponse) => server!.reset(res)],
    ['404', (res: import('node:http').ServerResponse) => res.writeHead(404).end()],
  ] as const) {
    it(`fault: ${what} during session renewal → the call fails naming the server; the connection fails with the renewal's cause (state error), no client stuck in initializing`, async () => {
      const b = await start({
        onPost: ({ res, msg, inits }) => {
          if (isWork(msg)) server!.expireSessions();
          if (msg.method === 'initialize' && inits >= 1) {
            fail(res);
            return true;
          }
          return false;
        },
      });
      const r = await b.call('faulty', 'work');
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(/server "faulty"/);
      expect(text(r)).not.toMatch(/timed out/);
      await until(() => b.status('faulty').state === 'error', 'faulty in state error');
      expect(b.status('faulty').lastError).toMatch(/server "faulty"/);
      await b.expectHealthy();
    });
  }
});
