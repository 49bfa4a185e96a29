#!/usr/bin/env node
// A real MCP server over Streamable HTTP (and, with `legacy: true`, over the 2024-11-05
// HTTP+SSE transport), written on node:http only, for tests of the client's HTTP transports.
// MCP semantics live in ./http-lib/mcp.mjs; this file is the HTTP plumbing and misbehaviour.
//
//   node mock-servers/http-server.mjs --port 0 [--mode json|sse] [--legacy] [--scenario file.json]
//   → prints "LISTEN <port>" on stdout
//
//   import { startHttpMock } from './mock-servers/http-server.mjs'
//   const mock = await startHttpMock({ mode: 'sse' }); mock.url; mock.record; await mock.close()
//
// Options (all optional):
//   mode: 'json' | 'sse'       how requests are answered (default json)
//   path: '/mcp'               the MCP endpoint
//   host: '127.0.0.1'
//   sessions: true             assign MCP-Session-Id at initialize; 404 for unknown/expired ids
//   requireSession: true       400 for non-initialize requests without a session id
//   getStream: true            false → GET answers 405
//   deleteStatus: 200          e.g. 405 to refuse DELETE
//   priming: true              SSE streams start with `id` + `retry` + empty data
//   eventIds: true             false → message events carry no `id` (not resumable)
//   retryMs: 200               the `retry:` value sent in priming events
//   allowedOrigins: [..]       when set, a present Origin not in the list gets 403
//   replayDuplicates: false    on resume, replay from the stream's start (a redelivery test)
//   legacy: false              be a 2024-11-05 HTTP+SSE server only (POST to the path → 405)
//   legacyPostStatus: 405      what a legacy server answers to POST on the SSE path
//   legacyEndpointOrigin: undefined
//                              the legacy `endpoint` event is relative (/messages?sessionId=…);
//                              'self' → absolute on the origin the request's Host names, any
//                              other string → absolute on that origin (e.g. 'http://127.0.0.2:9')
//   failures: [{ httpMethod?, rpcMethod?, status, body?, headers?, times? }]
//                              answer matching requests with this status (times: how often)
//   bearer: undefined          when set, every request without `Authorization: Bearer <bearer>`
//                              gets 401 with a Bearer challenge (change `options.bearer` to rotate)
//   serverInfo: {name, version}
//   endPostStreams: true       false → a POST's SSE stream is never ended after its response
//                              (the client must close it; see sockets())
//   mcpScenario: undefined     a scenario of the scripted stdio mock (mock-servers/lib; e.g.
//                              { tasks: {…}, tools: [{ name, builtin, execution }] }): MCP is then
//                              served by that engine, one instance per session, instead of
//                              ./http-lib/mcp.mjs. A request's answer and what the server sends
//                              while handling it go on the POST's SSE stream (mode sse; in mode
//                              json the answer is the body and the rest goes on the GET stream);
//                              what it sends on its own (task status, a task's notifications,
//                              list_changed…) goes on the session's GET stream, or nowhere when
//                              none is open. Requests the server sends come back as POSTs.
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { readFileSync } from 'node:fs';
import { handleRequest, RpcError, SUPPORTED_VERSIONS } from './http-lib/mcp.mjs';
import { createScenarioServer } from './lib/mcp-scenario.mjs';

const sse = (res, fields) => {
  let out = '';
  if (fields.event) out += `event: ${fields.event}\n`;
  if (fields.id !== undefined) out += `id: ${fields.id}\n`;
  if (fields.retry !== undefined) out += `retry: ${fields.retry}\n`;
  out += `data: ${fields.data ?? ''}\n\n`;
  res.write(out);
};

export async function startHttpMock(options = {}) {
  const o = {
    mode: 'json',
    path: '/mcp',
    host: '127.0.0.1',
    sessions: true,
    requireSession: true,
    getStream: true,
    deleteStatus: 200,
    priming: true,
    eventIds: true,
    retryMs: 200,
    replayDuplicates: false,
    legacy: false,
    legacyPostStatus: 405,
    failures: [],
    endPostStreams: true,
    ...options,
  };
  // messages: what clients POSTed; sent (mcpScenario only): what the server sent, and on which
  // stream (`get`, or `post <method>` for the POST of the request it answered or came during)
  const record = { requests: [], messages: [], sent: [] };
  const sessions = new Map(); // id → { expired, getStream }
  const streams = new Map(); // stream id → { id, events, sink, done, session }
  const pendingServerRequests = new Map(); // id → resolve
  const legacySessions = new Map(); // id → res
  let streamSeq = 0;
  let serverRequestSeq = 0;

  // ---- streams with replayable events --------------------------------------------------

  function newStream(session) {
    const st = { id: `s${++streamSeq}`, seq: 0, events: [], sink: undefined, done: false, session };
    streams.set(st.id, st);
    return st;
  }
  function emit(st, message) {
    const ev = { id: `${st.id}_${++st.seq}`, data: JSON.stringify(message) };
    if (!o.eventIds) ev.id = undefined;
    st.events.push(ev);
    if (st.sink) sse(st.sink, ev);
  }
  function prime(st, res) {
    if (!o.priming) return;
    const ev = { id: `${st.id}_${++st.seq}`, data: '', retry: o.retryMs, priming: true };
    st.events.push(ev);
    sse(res, ev);
  }
  function emitRaw(st, text) {
    const ev = { id: o.eventIds ? `${st.id}_${++st.seq}` : undefined, data: text };
    st.events.push(ev);
    if (st.sink) sse(st.sink, ev);
  }
  function finish(st) {
    st.done = true;
    if (st.sink) {
      st.sink.end();
      st.sink = undefined;
    }
  }

  function serverRequest(send, method, params) {
    const id = `srv-${++serverRequestSeq}`;
    return new Promise((resolve, reject) => {
      pendingServerRequests.set(id, (msg) => (msg.error ? reject(new RpcError(msg.error.code, msg.error.message)) : resolve(msg.result)));
      send({ jsonrpc: '2.0', id, method, params });
    });
  }

  function contextFor(send, session, onDrop) {
    return {
      serverInfo: o.serverInfo,
      notify: (method, params) => send({ jsonrpc: '2.0', method, params }),
      request: (method, params) => serverRequest(send, method, params),
      dropConnection: onDrop,
      notifyGet: (method, params) => {
        const g = session?.getStream;
        if (!g || !g.sink) return false;
        emit(g, { jsonrpc: '2.0', method, params });
        return true;
      },
    };
  }

  async function answer(msg, ctx) {
    try {
      return { jsonrpc: '2.0', id: msg.id, result: await handleRequest(msg, ctx) };
    } catch (e) {
      const err = e instanceof RpcError ? { code: e.code, message: e.message } : { code: -32603, message: String(e?.message ?? e) };
      return { jsonrpc: '2.0', id: msg.id, error: err };
    }
  }

  // ---- HTTP ---------------------------------------------------------------------------

  function reply(res, status, body, headers = {}) {
    const h = { ...headers };
    if (body !== undefined) h['content-type'] = h['content-type'] ?? 'application/json';
    res.writeHead(status, h);
    res.end(body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body));
  }

  function matchFailure(req, msg) {
    for (const f of o.failures) {
      if (f.httpMethod && f.httpMethod !== req.method) continue;
      if (f.rpcMethod && f.rpcMethod !== msg?.method) continue;
      if (f.times !== undefined) {
        if (f.times <= 0) continue;
        f.times--;
      }
      return f;
    }
    return undefined;
  }

  function checkOrigin(req, res) {
    const origin = req.headers.origin;
    if (o.allowedOrigins && origin !== undefined && !o.allowedOrigins.includes(origin)) {
      // basic.transports#9: 403, body MAY be a JSON-RPC error without id.
      reply(res, 403, { jsonrpc: '2.0', error: { code: -32000, message: 'Forbidden origin' } });
      return false;
    }
    return true;
  }

  /** Session check for non-initialize requests: returns the session or answers 400/404. */
  function sessionFor(req, res) {
    if (!o.sessions) return {};
    const id = req.headers['mcp-session-id'];
    if (id === undefined) {
      if (o.requireSession) {
        reply(res, 400, { jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: missing session id' } });
        return undefined;
      }
      return {};
    }
    const s = sessions.get(id);
    if (!s || s.expired) {
      reply(res, 404, { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' } });
      return undefined;
    }
    return s;
  }

  function checkVersion(req, res) {
    const v = req.headers['mcp-protocol-version'];
    if (v !== undefined && !SUPPORTED_VERSIONS.includes(v)) {
      reply(res, 400, { jsonrpc: '2.0', error: { code: -32000, message: `Unsupported protocol version ${v}` } });
      return false;
    }
    return true;
  }

  /** The SSE stream that answers a POST (replayable; detached when its connection closes). */
  function openPostStream(session, res, headers) {
    const st = newStream(session);
    st.sink = res;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...headers });
    res.flushHeaders();
    prime(st, res);
    res.on('close', () => {
      if (st.sink === res) st.sink = undefined;
    });
    return st;
  }

  async function onPost(req, res, body) {
    let msg;
    try {
      msg = JSON.parse(body);
    } catch {
      return reply(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    }
    record.messages.push(msg);
    const failure = matchFailure(req, msg);
    if (failure) return reply(res, failure.status, failure.body ?? `mock failure ${failure.status}`, failure.headers);
    if (!checkOrigin(req, res)) return;
    const isInit = msg.method === 'initialize';
    let session;
    const headers = {};
    if (isInit) {
      if (o.sessions) {
        const id = randomUUID();
        session = { id, expired: false, getStream: undefined };
        sessions.set(id, session);
        headers['mcp-session-id'] = id;
      } else session = {};
    } else {
      session = sessionFor(req, res);
      if (!session) return;
      if (!checkVersion(req, res)) return;
    }
    if (o.mcpScenario !== undefined) return onScenarioPost(msg, session, headers, res);
    if (msg.method === undefined) {
      const resolve = pendingServerRequests.get(msg.id);
      pendingServerRequests.delete(msg.id);
      resolve?.(msg);
      return reply(res, 202);
    }
    if (msg.id === undefined) return reply(res, 202);

    if (o.mode === 'json') {
      const getSend = (m) => {
        const g = session.getStream;
        if (g?.sink) emit(g, m);
      };
      const response = await answer(msg, contextFor(getSend, session, () => {}));
      return reply(res, 200, response, headers);
    }
    const st = openPostStream(session, res, headers);
    const ctx = contextFor((m) => emit(st, m), session, () => {
      // Close the connection without ending the logical stream (SEP-1699 polling).
      if (st.sink) {
        st.sink.end();
        st.sink = undefined;
      }
    });
    const response = await answer(msg, ctx);
    emit(st, response);
    if (o.endPostStreams) finish(st);
  }

  // ---- MCP by the scenario engine (option mcpScenario) -------------------------------------

  /** Sessionless (sessions: false): one engine for every request. */
  let sharedScenario;
  function scenarioFor(session) {
    if (!o.sessions) {
      sharedScenario ??= newScenario(undefined);
      return sharedScenario;
    }
    session.mcp ??= newScenario(session);
    return session.mcp;
  }
  /** What the scenario server sends outside a POST's stream: on the session's GET stream, if open. */
  function toGet(session, m) {
    const g = session?.getStream;
    if (!g?.sink) return;
    for (const one of Array.isArray(m) ? m : [m]) {
      record.sent.push({ via: 'get', message: one });
      emit(g, one);
    }
  }
  function rawToGet(session, text) {
    const g = session?.getStream;
    if (g?.sink) emitRaw(g, text);
  }
  function newScenario(session) {
    return createScenarioServer(o.mcpScenario, {
      send: (m) => toGet(session, m),
      sendRaw: (text) => rawToGet(session, text),
      exit: () => {},
      stderr: () => {},
    });
  }

  async function onScenarioPost(msg, session, headers, res) {
    const mcp = scenarioFor(session);
    if (msg.id === undefined || msg.method === undefined) {
      // a notification, or the client's answer to one of our requests
      reply(res, 202, undefined, headers);
      await mcp.handleMessage(msg);
      return;
    }
    const ours = (m) => m !== null && typeof m === 'object' && m.method === undefined && m.id === msg.id;
    let answered = false;
    if (o.mode === 'json') {
      const send = (m) => {
        for (const one of Array.isArray(m) ? m : [m]) {
          if (!answered && ours(one)) {
            answered = true;
            record.sent.push({ via: `post ${msg.method}`, message: one });
            reply(res, 200, one, headers);
          } else toGet(session, one);
        }
      };
      await mcp.handleMessage(msg, { send, sendRaw: (text) => rawToGet(session, text) });
      return;
    }
    const st = openPostStream(session, res, headers);
    const send = (m) => {
      for (const one of Array.isArray(m) ? m : [m]) {
        if (st.sink) record.sent.push({ via: `post ${msg.method}`, message: one });
        emit(st, one);
        if (!answered && ours(one)) {
          answered = true;
          if (o.endPostStreams) finish(st);
        }
      }
    };
    await mcp.handleMessage(msg, { send, sendRaw: (text) => emitRaw(st, text) });
  }

  function onGet(req, res) {
    if (!checkOrigin(req, res)) return;
    const failure = matchFailure(req, undefined);
    if (failure) return reply(res, failure.status, failure.body ?? `mock failure ${failure.status}`, failure.headers);
    if (!o.getStream) return reply(res, 405, 'Method Not Allowed', { allow: 'POST, DELETE' });
    const session = sessionFor(req, res);
    if (!session) return;
    if (!checkVersion(req, res)) return;
    const last = req.headers['last-event-id'];
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders();
    if (last !== undefined) {
      const [sid, n] = String(last).split('_');
      const st = streams.get(sid);
      if (!st || st.session !== session) {
        res.end();
        return;
      }
      // basic.transports#38: replay only this stream's events after the cursor.
      const from = o.replayDuplicates ? 0 : Number(n);
      for (const ev of st.events) {
        if (ev.id === undefined) continue;
        const seq = Number(ev.id.split('_')[1]);
        if (seq > from && !ev.priming) sse(res, ev);
      }
      if (st.done) {
        res.end();
        return;
      }
      st.sink = res;
      res.on('close', () => {
        if (st.sink === res) st.sink = undefined;
      });
      return;
    }
    const st = newStream(session);
    st.sink = res;
    session.getStream = st;
    prime(st, res);
    res.on('close', () => {
      if (st.sink === res) st.sink = undefined;
    });
  }

  function onDelete(req, res) {
    if (o.deleteStatus !== 200) return reply(res, o.deleteStatus, 'Method Not Allowed');
    const session = sessionFor(req, res);
    if (!session) return;
    if (session.id) {
      sessions.delete(session.id);
      if (session.getStream?.sink) session.getStream.sink.end();
    }
    reply(res, 200);
  }

  // ---- legacy HTTP+SSE (2024-11-05) ------------------------------------------------------

  function onLegacyGet(req, res) {
    if (!checkOrigin(req, res)) return;
    const id = randomUUID();
    legacySessions.set(id, res);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const origin = o.legacyEndpointOrigin === 'self' ? `http://${req.headers.host}` : (o.legacyEndpointOrigin ?? '');
    sse(res, { event: 'endpoint', data: `${origin}/messages?sessionId=${id}` });
    res.on('close', () => legacySessions.delete(id));
  }

  async function onLegacyPost(req, res, body, url) {
    const sink = legacySessions.get(url.searchParams.get('sessionId') ?? '');
    if (!sink) return reply(res, 404, 'unknown session');
    let msg;
    try {
      msg = JSON.parse(body);
    } catch {
      return reply(res, 400, 'parse error');
    }
    record.messages.push(msg);
    reply(res, 202, 'Accepted', { 'content-type': 'text/plain' });
    const send = (m) => sse(sink, { event: 'message', data: JSON.stringify(m) });
    if (msg.method === undefined) {
      const resolve = pendingServerRequests.get(msg.id);
      pendingServerRequests.delete(msg.id);
      resolve?.(msg);
      return;
    }
    if (msg.id === undefined) return;
    send(await answer(msg, contextFor(send, {}, () => {})));
  }

  // ---- server ---------------------------------------------------------------------------

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://mock');
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      record.requests.push({ method: req.method, path: url.pathname + url.search, headers: { ...req.headers }, body });
      const done = (p) => Promise.resolve(p).catch((e) => {
        if (!res.headersSent) reply(res, 500, String(e?.message ?? e));
        else res.end();
      });
      if (o.bearer !== undefined && req.headers.authorization !== `Bearer ${o.bearer}`) {
        return reply(res, 401, 'Unauthorized', { 'www-authenticate': 'Bearer realm="mcp", error="invalid_token"' });
      }
      if (o.legacy) {
        if (req.method === 'GET' && url.pathname === o.path) return done(onLegacyGet(req, res));
        if (req.method === 'POST' && url.pathname === '/messages') return done(onLegacyPost(req, res, body, url));
        if (req.method === 'POST' && url.pathname === o.path) return reply(res, o.legacyPostStatus, 'Method Not Allowed');
        return reply(res, 404, 'not found');
      }
      if (url.pathname !== o.path) return reply(res, 404, 'not found');
      if (req.method === 'POST') return done(onPost(req, res, body));
      if (req.method === 'GET') return done(onGet(req, res));
      if (req.method === 'DELETE') return done(onDelete(req, res));
      reply(res, 405, 'Method Not Allowed');
    });
  });
  const sockets = { open: 0, total: 0 };
  server.on('connection', (socket) => {
    sockets.open++;
    sockets.total++;
    socket.once('close', () => sockets.open--);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, o.host, resolve);
  });
  const port = server.address().port;

  return {
    url: `http://${o.host}:${port}${o.path}`,
    port,
    record,
    options: o,
    /** The server forgets every session: later requests carrying it get 404. */
    expireSessions() {
      for (const s of sessions.values()) {
        s.expired = true;
        if (s.getStream?.sink) s.getStream.sink.end();
      }
    },
    /** Sends a message on every open standalone GET stream; returns how many got it. */
    pushToGet(message) {
      let n = 0;
      for (const s of sessions.values()) {
        if (s.getStream?.sink) {
          emit(s.getStream, message);
          n++;
        }
      }
      return n;
    },
    /** Closes the connection of every standalone GET stream (after a retry hint), keeping the stream resumable. */
    dropGetStreams(retryMs = o.retryMs) {
      for (const s of sessions.values()) {
        const g = s.getStream;
        if (g?.sink) {
          g.sink.write(`retry: ${retryMs}\n\n`);
          g.sink.end();
          g.sink = undefined;
        }
      }
    },
    /** Ends every legacy SSE stream (the client must see its transport close). */
    endLegacyStreams() {
      for (const res of legacySessions.values()) res.end();
    },
    sessionIds: () => [...sessions.keys()],
    /** TCP connections seen by the server: currently open, and accepted in total. */
    sockets: () => ({ ...sockets }),
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

// ---- CLI ------------------------------------------------------------------------------------

function parseArgs(argv) {
  const out = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--port') out.port = Number(argv[++i]);
    else if (a === '--mode') out.mode = argv[++i];
    else if (a === '--legacy') out.legacy = true;
    else if (a === '--path') out.path = argv[++i];
    else if (a === '--scenario') Object.assign(out, JSON.parse(readFileSync(argv[++i], 'utf8')));
  }
  return out;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const opts = parseArgs(process.argv.slice(2));
  const mock = await startHttpMock(opts);
  process.stdout.write(`LISTEN ${mock.port}\n`);
  const stop = () => mock.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
