#!/usr/bin/env node
// Scripted mock MCP server over Streamable HTTP as protocol revision 2026-07-28 defines it:
// stateless (no Mcp-Session-Id; GET/DELETE → 405), one POST per message, each request answered
// by JSON or by an SSE stream scoped to it, header/body validation (MCP-Protocol-Version,
// Mcp-Method, Mcp-Name, Mcp-Param-*: -32020), closing the stream = cancelling the request.
// Written on node:http only; the MCP semantics are lib/engine.mjs, shared with stdio-server.mjs.
//
//   node mock-servers/modern/http-server.mjs [scenario.json | name] [--port 0]
//   → prints "LISTEN http://127.0.0.1:<port>/mcp"; GET /__record answers what it recorded
//
//   import { startModernHttpMock } from './mock-servers/modern/http-server.mjs'
//   const mock = await startModernHttpMock({ scenario, stream: 'auto' }); mock.url; await mock.close()
//
// Options: scenario (default DEFAULT_MODERN_SCENARIO; scenario.mode 'dual' also serves
// handshake-era clients through ../http-server.mjs), stream: 'auto' (JSON unless the server has
// something to send before the answer) | 'sse' | 'json', path '/mcp', host '127.0.0.1',
// port 0, allowedOrigins (a present Origin not listed → 403).

import http from 'node:http';
import { pathToFileURL } from 'node:url';
import { createModernEngine, DEFAULT_MODERN_SCENARIO, META } from './lib/engine.mjs';
import { validateRequestHeaders } from './lib/headers.mjs';
import { loadModernScenario, legacyScenarioOf } from './lib/scenario.mjs';
import { startHttpMock } from '../http-server.mjs';
import { kindOf, RpcError } from '../lib/rpc.mjs';

const json = (res, status, body, headers = {}) => {
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, { ...(text ? { 'content-type': 'application/json' } : {}), ...headers });
  res.end(text);
};
const rpcError = (id, code, message, data) => ({ jsonrpc: '2.0', ...(id === undefined ? {} : { id }), error: { code, message, ...(data === undefined ? {} : { data }) } });

async function readBody(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startModernHttpMock(options = {}) {
  const o = { path: '/mcp', host: '127.0.0.1', port: 0, stream: 'auto', ...options };
  const scenario = o.scenario ?? DEFAULT_MODERN_SCENARIO;
  const engine = createModernEngine(scenario, { stderr: o.stderr });
  // http: every HTTP request as received; sent: what went out, per request id
  const record = { http: [], sent: [], requests: engine.record.requests, violations: engine.record.violations, cancelled: engine.record.cancelled };
  const legacy = scenario.mode === 'dual' ? await startHttpMock({ mcpScenario: legacyScenarioOf(scenario), host: o.host }) : undefined;

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err) => {
      process.stderr.write(`modern http mock: internal error: ${err?.stack ?? err}\n`);
      if (!res.headersSent) json(res, 500, rpcError(null, -32603, 'internal error'));
      else res.destroy();
    });
  });

  async function handle(req, res) {
    const url = new URL(req.url, 'http://x');
    if (req.method === 'GET' && url.pathname === '/__record') return json(res, 200, { ...record, unmet: engine.unmet() });
    if (url.pathname !== o.path) return json(res, 404, undefined);
    const origin = req.headers.origin;
    if (o.allowedOrigins && origin !== undefined && !o.allowedOrigins.includes(origin)) return json(res, 403, rpcError(undefined, -32600, 'Forbidden origin'));
    const body = req.method === 'POST' ? await readBody(req) : '';
    record.http.push({ method: req.method, headers: { ...req.headers }, body });
    if (legacy && isLegacyTraffic(req, body)) return proxy(req, res, body);
    if (req.method !== 'POST') {
      engine.violation(`HTTP ${req.method} on the MCP endpoint (2026-07-28 has no GET stream or sessions)`);
      return json(res, 405, undefined, { allow: 'POST' });
    }
    if (req.headers['mcp-session-id'] !== undefined) engine.violation('Mcp-Session-Id sent to a stateless server');
    let msg;
    try {
      msg = JSON.parse(body);
    } catch {
      return json(res, 400, rpcError(null, -32700, 'Parse error'));
    }
    const kind = kindOf(msg);
    if (kind === 'notification') {
      engine.handleNotification(msg, 'http');
      return json(res, 202, undefined);
    }
    if (kind !== 'request') {
      engine.violation(Array.isArray(msg) ? 'a JSON-RPC batch' : 'a POST body that is not a JSON-RPC request or notification');
      return json(res, 400, rpcError(undefined, -32600, 'Invalid Request: one JSON-RPC request or notification per POST'));
    }
    return answer(req, res, msg);
  }

  async function answer(req, res, msg) {
    const get = (name) => (Array.isArray(req.headers[name]) ? req.headers[name].join(', ') : req.headers[name]);
    let paramHeaders;
    if (msg.method !== 'initialize') {
      try {
        paramHeaders = validateRequestHeaders(msg, get, engine.toolDef);
      } catch (err) {
        if (!(err instanceof RpcError)) throw err;
        engine.record.requests.push({ id: msg.id, method: msg.method, meta: msg.params?._meta, headers: { ...req.headers }, rejected: err.code });
        return json(res, 400, rpcError(msg.id, err.code, err.message, err.data));
      }
    }
    const out = streamFor(res, msg, o.stream === 'sse' || msg.method === 'subscriptions/listen');
    const controller = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) controller.abort(new Error('response stream closed'));
    });
    const result = await engine.handleRequest(msg, { send: out.send, signal: controller.signal, headers: { ...req.headers }, paramHeaders });
    if (result.cancelled) return out.end();
    if (result.behavior) return misbehave(res, out, msg, result.behavior);
    out.answer(result.response, result.httpStatus ?? (result.response.error?.code === -32601 ? 404 : 200));
  }

  /** The response of one request: JSON, or SSE once something precedes the answer (stream 'auto'). */
  function streamFor(res, msg, sseNow) {
    let sse = false;
    const startSse = () => {
      if (sse) return;
      sse = true;
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
    };
    if (sseNow) startSse();
    const write = (m) => {
      record.sent.push({ for: msg.id, message: m });
      res.write(`event: message\ndata: ${JSON.stringify(m)}\n\n`);
    };
    return {
      send(m) {
        if (res.destroyed || o.stream === 'json') return;
        startSse();
        write(m);
      },
      answer(response, status) {
        if (res.destroyed) return;
        if (sse) {
          write(response);
          return res.end();
        }
        record.sent.push({ for: msg.id, message: response });
        json(res, status, response);
      },
      end: () => (res.destroyed || res.writableEnded ? undefined : sse ? res.end() : json(res, 204, undefined)),
      get sse() {
        return sse;
      },
    };
  }

  function misbehave(res, out, msg, beh) {
    if (beh.dropStream || beh.crash) {
      // A stream dropped mid-request: SSE started, maybe an event, then the connection dies.
      out.send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'about to drop' } });
      return setTimeout(() => res.socket?.destroy(), 20);
    }
    if (beh.nullIdError) return json(res, 400, rpcError(null, -32600, 'Invalid Request', typeof beh.nullIdError === 'object' ? beh.nullIdError.data : undefined));
    if (beh.garbage) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(typeof beh.garbage === 'string' ? beh.garbage : 'this is not JSON {{{');
    }
    const h = beh.http;
    res.writeHead(h.status ?? 200, { ...(h.contentType ? { 'content-type': h.contentType } : {}), ...h.headers });
    res.end(h.body === undefined ? '' : typeof h.body === 'string' ? h.body : JSON.stringify(h.body));
  }

  /** Dual: what a handshake-era client sends (initialize, or anything on its session). */
  function isLegacyTraffic(req, body) {
    if (req.headers['mcp-session-id'] !== undefined) return true;
    if (req.method !== 'POST') return false;
    try {
      const m = JSON.parse(body);
      return m?.method === 'initialize' || (m?.params?._meta?.[META.version] === undefined && req.headers['mcp-method'] === undefined && m?.method !== 'server/discover');
    } catch {
      return false;
    }
  }

  function proxy(req, res, body) {
    return new Promise((resolve) => {
      const headers = { ...req.headers, host: new URL(legacy.url).host };
      const up = http.request(legacy.url, { method: req.method, headers }, (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
        r.on('end', resolve);
      });
      up.on('error', () => {
        if (!res.headersSent) json(res, 502, undefined);
        resolve();
      });
      res.on('close', () => up.destroy());
      up.end(body);
    });
  }

  await new Promise((resolve) => server.listen(o.port, o.host, resolve));
  const { port } = server.address();
  return {
    url: `http://${o.host}:${port}${o.path}`,
    port,
    record,
    engine,
    emit: (kind, uri) => engine.emit(kind, uri),
    endSubscriptions: () => engine.endSubscriptions(),
    unmet: () => engine.unmet(),
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(() => resolve()));
      await legacy?.close();
    },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const portAt = args.indexOf('--port');
  const port = portAt >= 0 ? Number(args[portAt + 1]) : 0;
  const ref = args.find((a, i) => !a.startsWith('--') && (portAt < 0 || i !== portAt + 1));
  const mock = await startModernHttpMock({ scenario: loadModernScenario(ref), port });
  process.stdout.write(`LISTEN ${mock.url}\n`);
  const stop = () => {
    for (const e of mock.unmet()) process.stderr.write(`[mock] expectation never met: ${e}\n`);
    mock.close().then(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
