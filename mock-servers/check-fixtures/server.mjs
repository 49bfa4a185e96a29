#!/usr/bin/env node
// stdio fixture for the `mcpwire check` tests: a conformant MCP 2025-11-25 server (see core.mjs)
// with misbehaviour knobs: `node server.mjs --bug=ping-nonempty[,…]` or MCPWIRE_CHECK_BUGS=….
import { createInterface } from 'node:readline';
import { bugsFrom, createSession } from './core.mjs';

const bugs = bugsFrom(process.argv.slice(2), process.env);
const write = (m) => process.stdout.write(Buffer.isBuffer(m) ? Buffer.concat([m, Buffer.from('\n')]) : `${typeof m === 'string' ? m : JSON.stringify(m)}\n`);
const session = createSession(bugs, write);
const out = { send: write, end() {} };

if (bugs.has('stdout-garbage')) write('this line is not a JSON-RPC message');

const rl = createInterface({ input: process.stdin });
rl.on('line', (line) => {
  if (line.trim() === '') return;
  if (line.includes('\uFFFD') && bugs.has('rb-crash-utf8')) process.exit(3); // a decoder that throws on invalid UTF-8
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    if (!bugs.has('parse-error-silent')) write({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    return;
  }
  if (Array.isArray(msg)) {
    // No JSON-RPC batching since 2025-06-18: refused, unless batch-accepted.
    if (!bugs.has('batch-accepted')) return write({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: batches are not supported' } });
    const replies = [];
    const sink = { send: (m) => replies.push(m), end() {} };
    Promise.all(msg.map((m) => session.handle(m, sink))).then(() => write(replies));
    return;
  }
  session.handle(msg, out).catch((e) => process.stderr.write(`fixture error: ${e?.stack ?? e}\n`));
});
rl.on('close', () => process.exit(0));
