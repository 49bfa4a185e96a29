#!/usr/bin/env node
// The floor of `mcpwire serve --http`'s shape: a minimal node:http relay in front of one stdio
// server, doing per call what any such gateway must do — read and parse the POST's JSON, give the
// request an id of its own, write it as one line to the server's stdin, read its answer line,
// parse it, put the client's id back, serialize it and answer the POST with it (JSON, keep-alive).
// No Host/Origin check, no sessions, no protocol logic: a notification is written and answered
// 202, GET and DELETE 405. Prints `LISTEN <url>` on stderr as `mcpwire serve --http` does, so the
// bench's gateway runs can start it in its place (bench/proc-ab.mjs --gateway --http --floor).
//
//   node bench/http-stdio-relay.mjs [--listen 127.0.0.1:0] -- <command> [args...]
import http from 'node:http';
import { optionReader, spawnAfterDash } from './lib/args.mjs';

const { child, options } = spawnAfterDash(process.argv.slice(2), 'http-stdio-relay.mjs [--listen host:port] -- <command> [args...]');
const [host, port] = optionReader(options)('listen', '127.0.0.1:0').split(':');
child.once('exit', (code) => {
  console.error(`relay: the server exited (${code})`);
  process.exit(1);
});

/** Requests in flight: the relay's id → [the POST's response, the client's id]. */
const pending = new Map();
let next = 0;
let buf = '';
child.stdout.setEncoding('utf8');
child.stdout.on('data', (chunk) => {
  // (a long line comes in many chunks: only the new chunk is searched for its end)
  if (chunk.indexOf('\n') === -1) {
    buf += chunk;
    return;
  }
  buf += chunk;
  let nl;
  while ((nl = buf.indexOf('\n')) !== -1) {
    const line = buf.slice(0, nl);
    buf = buf.slice(nl + 1);
    if (line.trim() === '') continue;
    const m = JSON.parse(line);
    const p = m.method === undefined ? pending.get(m.id) : undefined;
    if (p === undefined) continue; // a server request or notification: no stream to put it on
    pending.delete(m.id);
    m.id = p[1];
    p[0].writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(m));
  }
});

const server = http.createServer((req, res) => {
  if (req.method !== 'POST') {
    req.resume();
    return void res.writeHead(405, { allow: 'POST' }).end();
  }
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const m = JSON.parse((chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)).toString('utf8'));
    if (m.id === undefined || m.id === null) {
      child.stdin.write(`${JSON.stringify(m)}\n`);
      return void res.writeHead(202).end();
    }
    const id = next++;
    pending.set(id, [res, m.id]);
    m.id = id;
    child.stdin.write(`${JSON.stringify(m)}\n`);
  });
});
server.listen(Number(port), host, () => {
  const a = server.address();
  console.error(`LISTEN http://${a.address}:${a.port}/mcp`);
});
process.on('SIGTERM', () => {
  child.kill();
  process.exit(0);
});
