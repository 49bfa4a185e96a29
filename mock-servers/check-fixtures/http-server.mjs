#!/usr/bin/env node
// Streamable HTTP fixture for the `mcpwire check` tests (loopback only). Prints
// {"url": "http://127.0.0.1:<port>/mcp"} on stdout once listening. Each request gets an SSE
// stream (events with ids `<stream>-<n>`, unique per session, the first a priming event with
// `retry`) that ends after its response; GET opens a standalone SSE stream (the session's
// notifications) and resumes a POST stream from `Last-Event-ID`. The checker's raw request
// "mcpwire-check-50" is answered the polling way: priming event, connection closed, the response
// kept for the resuming GET. Only loopback Host and Origin values are served (DNS rebinding).
// Knobs: core.mjs's and http-bugs.mjs's (one per HTTP check); --max-body=<bytes> (413 past it).
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { bugsFrom, createSession, SUPPORTED } from './core.mjs';

const bugs = bugsFrom(process.argv.slice(2), process.env);
const sessions = new Map();
const ORIGIN_OK = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/;
const HOST_OK = /^(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/;
const open = new Set();
// --max-body=<bytes>: a larger POST body gets HTTP 413 (as express.json() answers past its limit):
// a refusal, not a crash, for the robustness checks.
const maxBodyArg = process.argv.find((a) => a.startsWith('--max-body='));
const maxBody = maxBodyArg === undefined ? Infinity : Number(maxBodyArg.slice('--max-body='.length));

function readBody(req) {
  return new Promise((resolve, reject) => {
    let s = '';
    req.setEncoding('utf8');
    req.on('data', (c) => (s += c));
    req.on('end', () => resolve(s));
    req.on('error', reject);
  });
}

function newEntry() {
  const entry = { deleted: false, streams: new Map(), nextStream: 0, get: undefined };
  // Messages outside any request go on the GET stream, if one is open.
  entry.session = createSession(bugs, (m) => {
    if (entry.get && !Buffer.isBuffer(m) && typeof m !== 'string') writeEvent(entry, entry.get, m);
  });
  return entry;
}

/** Writes one SSE event with an id on `stream` ({ res, id, n, log }). */
function writeEvent(entry, stream, m) {
  stream.n++;
  const id = bugs.has('http-duplicate-event-ids') ? String(stream.n) : `${stream.id}-${stream.n}`;
  stream.log.push({ n: stream.n, id, m });
  if (!stream.res.writableEnded) stream.res.write(`id: ${id}\nevent: message\ndata: ${JSON.stringify(m)}\n\n`);
  // http-broadcast: a response also goes on every other open POST stream of the session.
  if (bugs.has('http-broadcast') && m && 'id' in m && !('method' in m)) {
    for (const other of entry.streams.values()) if (other !== stream && other.id.startsWith('s') && !other.res.writableEnded) other.res.write(`data: ${JSON.stringify(m)}\n\n`);
  }
}

/** The priming event (basic.transports#20): an id and empty data, with `retry` (#22). */
function writePriming(stream, retry = true) {
  stream.n++;
  const id = `${stream.id}-${stream.n}`;
  stream.log.push({ n: stream.n, id, m: undefined });
  stream.res.write(`id: ${id}\n${retry ? 'retry: 500\n' : ''}data: \n\n`);
}

function sseOut(entry, res, id, headers) {
  let started = false;
  let closedEarly = false;
  // Some of the checker's raw requests are answered after a moment (resume, concurrent streams).
  let heldUntil = 0;
  const stream = { id: `s${entry.nextStream++}`, n: 0, log: [], res };
  entry.streams.set(stream.id, stream);
  const start = () => {
    if (started || res.writableEnded) return;
    started = true;
    res.writeHead(200, { 'content-type': headers.contentType ?? 'text/event-stream', 'cache-control': 'no-store', ...headers.extra });
    if (headers.contentType === undefined && (!bugs.has('http-no-priming') || id === 'mcpwire-check-50')) writePriming(stream, !(id === 'mcpwire-check-50' && bugs.has('http-close-no-retry')));
    if (id === 'mcpwire-check-50') {
      // Polling: the connection closes before the response (kept in the log for a resuming GET).
      closedEarly = true;
      res.end();
    }
    // The client drops "mcpwire-check-51" after the priming event (http.resume-delivers);
    // concurrent requests (http.concurrent-streams) stay open together for a moment.
    if (id === 'mcpwire-check-51') heldUntil = Date.now() + 300;
    if (/^mcpwire-check-6\d$/.test(String(id))) heldUntil = Date.now() + 200;
  };
  return {
    send(m) {
      start();
      if (closedEarly) return void writeEvent(entry, stream, m); // logged; written once a GET resumed it
      if (res.writableEnded) return;
      const write = () => writeEvent(entry, stream, m);
      if (heldUntil > Date.now()) return void setTimeout(() => (write(), res.end()), heldUntil - Date.now());
      write();
    },
    end() {
      if (res.writableEnded) return;
      if (id === undefined) {
        if (bugs.has('http-notification-200')) res.writeHead(200, headers.extra).end();
        else res.writeHead(202, headers.extra).end();
        return;
      }
      start();
      if (heldUntil > Date.now()) return;
      res.end();
    },
  };
}

function badVersion(req) {
  const v = req.headers['mcp-protocol-version'];
  if (v === undefined && bugs.has('http-reject-missing-version')) return 'missing MCP-Protocol-Version';
  if (v !== undefined && !SUPPORTED.includes(v) && !bugs.has('http-accept-bad-version')) return 'unsupported MCP-Protocol-Version';
  return undefined;
}

/** The session of a request (not initialize), or writes the error and returns undefined. */
function sessionOf(req, res) {
  const sid = req.headers['mcp-session-id'];
  if (sid === undefined) {
    if (bugs.has('http-missing-session-ok')) return newEntry();
    res.writeHead(400).end('missing session');
    return undefined;
  }
  const entry = sessions.get(sid);
  if (entry === undefined && bugs.has('http-unknown-session-ok')) return newEntry();
  if (entry === undefined || (entry.deleted && !bugs.has('http-no-404-after-delete'))) {
    res.writeHead(404).end('unknown session');
    return undefined;
  }
  const bad = badVersion(req);
  if (bad !== undefined) {
    res.writeHead(400).end(bad);
    return undefined;
  }
  return entry;
}

async function onPost(req, res) {
  const origin = req.headers.origin;
  // http-origin-same-as-host: an Origin is valid when it names the request's own Host (a
  // same-origin test, which a DNS-rebinding browser passes: its Host and Origin are both foreign).
  const originOk = bugs.has('http-origin-same-as-host') ? (o) => o === `http://${req.headers.host}` : (o) => ORIGIN_OK.test(o);
  if (origin !== undefined && !originOk(origin) && !bugs.has('http-no-origin-check')) return res.writeHead(403).end('Forbidden origin');
  const text = await readBody(req);
  if (Buffer.byteLength(text) > maxBody) return res.writeHead(413, { 'content-type': 'text/plain' }).end('request entity too large');
  let msg;
  try {
    msg = JSON.parse(text);
  } catch {
    if (bugs.has('http-invalid-json-200')) return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }));
    return res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }));
  }
  if (Array.isArray(msg)) {
    if (!bugs.has('http-batch-accepted')) return res.writeHead(400).end('batches are not supported');
    const entry = sessionOf(req, res);
    if (entry === undefined) return;
    const replies = [];
    await Promise.all(msg.map((m) => entry.session.handle(m, { send: (r) => replies.push(r), end() {} })));
    return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(replies));
  }
  const isInit = msg?.method === 'initialize';
  let entry;
  const extra = {};
  if (isInit) {
    const sid = bugs.has('http-session-id-nonascii') ? `bad session ${sessions.size}` : bugs.has('http-session-id-constant') ? 'the-same-session-id' : randomUUID();
    // http-session-id-constant: every client shares one session (never deleted: DELETE → 405).
    entry = (bugs.has('http-session-id-constant') && sessions.get(sid)) || newEntry();
    sessions.set(sid, entry);
    extra['mcp-session-id'] = sid;
  } else {
    entry = sessionOf(req, res);
    if (entry === undefined) return;
    if (bugs.has('http-session-id-changes')) extra['mcp-session-id'] = 'another-session-id';
  }
  const isRequest = typeof msg?.method === 'string' && 'id' in msg;
  // http-bad-content-type: only the checker's raw probe request (id "mcpwire-check-10"), so nothing else breaks.
  const contentType = bugs.has('http-bad-content-type') && msg?.id === 'mcpwire-check-10' ? 'text/plain' : undefined;
  const out = sseOut(entry, res, isRequest ? msg.id : undefined, { contentType, extra });
  req.on('close', () => out.end());
  await entry.session.handle(msg, out);
}

function onGet(req, res) {
  const entry = sessionOf(req, res);
  if (entry === undefined) return;
  if (bugs.has('http-get-200-json')) return res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
  res.flushHeaders();
  open.add(res);
  res.on('close', () => open.delete(res));
  const last = req.headers['last-event-id'];
  if (typeof last === 'string') {
    // Resume: the events after `last` on its stream (every stream's with http-replay-other-stream).
    const [sid, n] = bugs.has('http-duplicate-event-ids') ? [undefined, Number(last)] : [last.slice(0, last.lastIndexOf('-')), Number(last.slice(last.lastIndexOf('-') + 1))];
    if (bugs.has('http-resume-drops')) return;
    for (const stream of entry.streams.values()) {
      if (!bugs.has('http-replay-other-stream') && stream.id !== sid) continue;
      for (const e of stream.log) if (e.m !== undefined && (e.n > n || stream.id !== sid)) res.write(`id: ${e.id}\nevent: message\ndata: ${JSON.stringify(e.m)}\n\n`);
      // The rest of the resumed stream comes on this GET.
      if (stream.id === sid) stream.res = res;
    }
    return;
  }
  const stream = { id: `g${entry.nextStream++}`, n: 0, log: [], res };
  entry.streams.set(stream.id, stream);
  entry.get = stream;
  res.on('close', () => {
    if (entry.get === stream) entry.get = undefined;
  });
  res.write(': standalone stream\n\n');
  if (bugs.has('http-get-sends-response')) writeEvent(entry, stream, { jsonrpc: '2.0', id: 'not-on-this-stream', result: {} });
}

const server = createServer((req, res) => {
  if (!HOST_OK.test(req.headers.host ?? '') && !bugs.has('http-no-host-check') && !bugs.has('http-origin-same-as-host')) return void res.writeHead(403).end('Forbidden host');
  if (req.method === 'POST') return void onPost(req, res).catch(() => res.writableEnded || res.writeHead(500).end());
  if (req.method === 'GET') return onGet(req, res);
  if (req.method === 'DELETE' && bugs.has('http-session-id-constant')) return res.writeHead(405).end();
  if (req.method === 'DELETE') {
    const entry = sessions.get(req.headers['mcp-session-id']);
    if (entry === undefined || entry.deleted) return res.writeHead(404).end();
    entry.deleted = true;
    return res.writeHead(200).end();
  }
  res.writeHead(405, { allow: 'GET, POST, DELETE' }).end();
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.address().port}/mcp` })}\n`);
});
const shutdown = () => {
  for (const r of open) r.destroy();
  server.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 500).unref();
};
process.stdin.on('end', shutdown);
process.stdin.resume();
process.on('SIGTERM', () => process.exit(0));
