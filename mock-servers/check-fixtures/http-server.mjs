#!/usr/bin/env node
// Streamable HTTP fixture for the `mcpwire check` tests (loopback only). Prints
// {"url": "http://127.0.0.1:<port>/mcp"} on stdout once listening. Each request gets an SSE
// stream (events with ids `<stream>-<n>`, unique per session) that ends after its response; GET
// opens a standalone SSE stream (the session's notifications) and resumes a POST stream from
// `Last-Event-ID`. Knobs: core.mjs's and http-bugs.mjs's (one per HTTP check).
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { bugsFrom, createSession, SUPPORTED } from './core.mjs';

const bugs = bugsFrom(process.argv.slice(2), process.env);
const sessions = new Map();
const ORIGIN_OK = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/;
const open = new Set();

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
}

function sseOut(entry, res, id, headers) {
  let started = false;
  const stream = { id: `s${entry.nextStream++}`, n: 0, log: [], res };
  entry.streams.set(stream.id, stream);
  const start = () => {
    if (started || res.writableEnded) return;
    started = true;
    res.writeHead(200, { 'content-type': headers.contentType ?? 'text/event-stream', 'cache-control': 'no-store', ...headers.extra });
  };
  return {
    send(m) {
      if (res.writableEnded) return;
      start();
      writeEvent(entry, stream, m);
    },
    end() {
      if (res.writableEnded) return;
      if (id === undefined) {
        if (bugs.has('http-notification-200')) res.writeHead(200, headers.extra).end();
        else res.writeHead(202, headers.extra).end();
        return;
      }
      start();
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
  if (origin !== undefined && !ORIGIN_OK.test(origin) && !bugs.has('http-no-origin-check')) return res.writeHead(403).end('Forbidden origin');
  const text = await readBody(req);
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
    for (const stream of entry.streams.values()) {
      if (!bugs.has('http-replay-other-stream') && stream.id !== sid) continue;
      for (const e of stream.log) if (e.n > n || stream.id !== sid) res.write(`id: ${e.id}\nevent: message\ndata: ${JSON.stringify(e.m)}\n\n`);
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
