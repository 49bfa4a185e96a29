#!/usr/bin/env node
// Streamable HTTP fixture for the `mcpwire check` tests (loopback only). Prints
// {"url": "http://127.0.0.1:<port>/mcp"} on stdout once listening. Each request gets an SSE
// stream that ends after its response. Knobs (besides core.mjs's): http-session-id-nonascii,
// http-no-404-after-delete, http-accept-bad-version, http-reject-missing-version, http-no-origin-check.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { bugsFrom, createSession, SUPPORTED } from './core.mjs';

const bugs = bugsFrom(process.argv.slice(2), process.env);
const sessions = new Map();
const ORIGIN_OK = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/;

function readBody(req) {
  return new Promise((resolve, reject) => {
    let s = '';
    req.setEncoding('utf8');
    req.on('data', (c) => (s += c));
    req.on('end', () => resolve(s));
    req.on('error', reject);
  });
}

function sseOut(res, id) {
  let open = false;
  const start = () => {
    if (open || res.writableEnded) return;
    open = true;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
  };
  return {
    send(m) {
      if (res.writableEnded) return;
      start();
      res.write(`event: message\ndata: ${JSON.stringify(m)}\n\n`);
    },
    end() {
      if (res.writableEnded) return;
      if (id === undefined) {
        res.writeHead(202).end();
        return;
      }
      start();
      res.end();
    },
  };
}

async function onPost(req, res) {
  const origin = req.headers.origin;
  if (origin !== undefined && !ORIGIN_OK.test(origin) && !bugs.has('http-no-origin-check')) return res.writeHead(403).end('Forbidden origin');
  let msg;
  try {
    msg = JSON.parse(await readBody(req));
  } catch {
    return res.writeHead(400).end('bad json');
  }
  const isInit = msg?.method === 'initialize';
  let sid = req.headers['mcp-session-id'];
  let entry;
  if (isInit) {
    sid = bugs.has('http-session-id-nonascii') ? `bad session ${sessions.size}` : randomUUID();
    entry = { session: createSession(bugs, () => {}), deleted: false };
    sessions.set(sid, entry);
    res.setHeader('mcp-session-id', sid);
  } else {
    if (sid === undefined) return res.writeHead(400).end('missing session');
    entry = sessions.get(sid);
    if (entry === undefined || (entry.deleted && !bugs.has('http-no-404-after-delete'))) return res.writeHead(404).end('unknown session');
    const v = req.headers['mcp-protocol-version'];
    if (v === undefined && bugs.has('http-reject-missing-version')) return res.writeHead(400).end('missing MCP-Protocol-Version');
    if (v !== undefined && !SUPPORTED.includes(v) && !bugs.has('http-accept-bad-version')) return res.writeHead(400).end('unsupported MCP-Protocol-Version');
  }
  const isRequest = typeof msg?.method === 'string' && 'id' in msg;
  const out = sseOut(res, isRequest ? msg.id : undefined);
  req.on('close', () => out.end());
  await entry.session.handle(msg, out);
}

const server = createServer((req, res) => {
  if (req.method === 'POST') return void onPost(req, res).catch(() => res.writableEnded || res.writeHead(500).end());
  if (req.method === 'DELETE') {
    const entry = sessions.get(req.headers['mcp-session-id']);
    if (entry === undefined || entry.deleted) return res.writeHead(404).end();
    entry.deleted = true;
    return res.writeHead(200).end();
  }
  res.writeHead(405, { allow: 'POST, DELETE' }).end();
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.address().port}/mcp` })}\n`);
});
process.stdin.on('end', () => server.close(() => process.exit(0)));
process.stdin.resume();
process.on('SIGTERM', () => process.exit(0));
