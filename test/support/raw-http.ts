/**
 * A small node:http server on 127.0.0.1, scripted inside a test, for HTTP transport misbehaviour
 * the mock cannot play (an answer that never comes, a retry: beyond the timer range, a GET
 * refused per token). Records every request; `closed` turns true when its socket side is gone.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JSONRPCMessage } from '../../src/jsonrpc/types.js';
import type { Transport, TransportDiagnostic, TransportEvent } from '../../src/transport/types.js';
import { afterEachCleanups } from './cleanups.js';

export interface RawRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  msg: Record<string, unknown> | undefined;
  closed: boolean;
}
export type RawHandler = (req: RawRequest, res: http.ServerResponse) => void;

export interface RawServer {
  url: string;
  origin: string;
  requests: RawRequest[];
  close(): Promise<void>;
}

export async function rawServer(handler: RawHandler, path = '/mcp'): Promise<RawServer> {
  const requests: RawRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let msg: Record<string, unknown> | undefined;
      try {
        msg = body ? (JSON.parse(body) as Record<string, unknown>) : undefined;
      } catch {
        msg = undefined;
      }
      const r: RawRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, msg, closed: false };
      requests.push(r);
      res.on('close', () => {
        r.closed = true;
      });
      handler(r, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}${path}`,
    origin,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export const SESSION_ID = 'raw-session-1';

/** The client's 2025-11-25 initialize request and initialized notification, as a test sends them itself. */
export const INIT: JSONRPCMessage = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'test', version: '1.0.0' } },
};
export const INITIALIZED: JSONRPCMessage = { jsonrpc: '2.0', method: 'notifications/initialized' };

/** Answers an initialize POST with JSON and a session id; true when it did. */
export function answerInitialize(r: RawRequest, res: http.ServerResponse): boolean {
  const m = r.msg;
  if (r.method !== 'POST' || m?.method !== 'initialize') return false;
  res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': SESSION_ID });
  res.end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'raw', version: '1' } } }));
  return true;
}

export function sseHead(res: http.ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.flushHeaders();
}

export async function waitFor(cond: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** `p`'s outcome, or `'pending'` when it has not settled within `ms` (a generous bound). */
export function settledWithin<T>(p: Promise<T>, ms: number): Promise<{ value?: T; error?: unknown } | 'pending'> {
  return Promise.race([
    p.then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    ),
    pause(ms).then(() => 'pending' as const),
  ]);
}

/**
 * A test file's raw servers and wired transports, each closed after its test: `server` starts a
 * raw server, `wire` collects what a transport delivers (messages, events, diagnostics).
 */
export function rawHttpHarness() {
  const cleanups = afterEachCleanups();
  return {
    cleanups,
    async server(handler: RawHandler, path?: string): Promise<RawServer> {
      const s = await rawServer(handler, path);
      cleanups.push(() => s.close());
      return s;
    },
    wire<T extends Transport>(t: T) {
      const messages: Array<Record<string, unknown>> = [];
      const events: TransportEvent[] = [];
      const diagnostics: TransportDiagnostic[] = [];
      t.onmessage = (m) => messages.push(m as Record<string, unknown>);
      t.onevent = (e) => events.push(e);
      t.ondiagnostic = (d) => diagnostics.push(d);
      cleanups.push(() => t.close());
      return { t, messages, events, diagnostics };
    },
  };
}
