#!/usr/bin/env node
// Same-process A/B of the client's request path: two builds of mcpwire (A and B, e.g. the
// previous commit's dist and this one's) each drive an McpClient over an in-process memory
// transport pair against a minimal server that answers at once, so what is measured is the
// client's CPU per call (McpClient.callTool / request → Connection → registry → settle), no I/O;
// and the request engine alone (Connection.request over a transport answering in a microtask).
// Rounds are interleaved (A B, then B A, …) and timed in this process's CPU time, so a loaded
// machine slows both alike; prints calls per CPU-second (median, min, max) and the ratio B/A
// per round pair (median, min, max). Load the same build twice (two copies) for the noise floor.
//
// --traced: each client traces to a file of its own (createTracer, as the bench's traced client),
// so the A/B measures the traced request path. --modern: the clients speak 2026-07-28 (server/discover,
// the per-request `_meta`) instead of the initialize handshake.
//
//   node bench/client-ab.mjs <distA> <distB> [--rounds 8] [--calls 20000] [--traced] [--modern]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const FLAGS = new Set(['--traced', '--modern']);
const [distA, distB] = args.filter((a, i) => !a.startsWith('--') && !(args[i - 1]?.startsWith('--') && !FLAGS.has(args[i - 1])));
const TRACED = args.includes('--traced');
const MODERN = args.includes('--modern');
if (!distA || !distB) {
  console.error('usage: node bench/client-ab.mjs <distA> <distB> [--rounds N] [--calls N]');
  process.exit(2);
}
const ROUNDS = opt('rounds', 8);
const CALLS = opt('calls', 20_000);

async function load(dist) {
  const imp = (p) => import(pathToFileURL(path.resolve(dist, p)).href);
  const { McpClient, createMemoryPair } = await imp('index.js');
  const { Connection } = await imp('protocol/connection.js');
  const createTracer = TRACED ? (await imp('trace-api.js')).createTracer : undefined;
  return { McpClient, createMemoryPair, Connection, createTracer };
}

/** A server that answers every request at once (initialize, tools/list, tools/call). */
function serve(s) {
  const tools = [{ name: 'echo', inputSchema: { type: 'object' } }];
  s.onmessage = (m) => {
    if (m.id === undefined) return;
    let result;
    if (m.method === 'server/discover') result = { supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, serverInfo: { name: 'ab', version: '1' } };
    else if (m.method === 'initialize') result = { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'ab', version: '1' } };
    else if (m.method === 'tools/list') result = { tools };
    else result = { content: [{ type: 'text', text: 'ok' }] };
    void s.send({ jsonrpc: '2.0', id: m.id, result });
  };
}

/** The request engine alone: a transport that answers each request in a microtask. */
function engine(lib) {
  const done = Promise.resolve();
  const transport = {
    kind: 'fake',
    start: async () => {},
    close: async () => {},
    send(m) {
      queueMicrotask(() => transport.onmessage({ jsonrpc: '2.0', id: m.id, result: {} }));
      return done;
    },
  };
  return new lib.Connection(transport);
}

async function client(lib) {
  const [c, s] = lib.createMemoryPair();
  serve(s);
  const traced = TRACED
    ? { observer: await lib.createTracer({ file: path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-ab-')), 'trace.jsonl'), serverId: 'ab', transport: 'stdio' }) }
    : { trace: false };
  const cl = new lib.McpClient({ transport: 'stdio', command: 'ab', id: 'ab' }, { transport: c, ...traced, telemetry: false, ...(MODERN ? { protocolVersion: '2026-07-28' } : {}) });
  await cl.connect();
  if (MODERN && cl.protocolVersion !== '2026-07-28') throw new Error(`asked for 2026-07-28, negotiated ${cl.protocolVersion}`);
  await cl.listTools();
  return cl;
}

/** Calls per second of this process's CPU time (user + system): another process taking the CPU does not count. */
async function round(cl, method) {
  const t = process.cpuUsage();
  if (method === 'callTool') for (let i = 0; i < CALLS; i++) await cl.callTool('echo', { i });
  else if (method === 'request') for (let i = 0; i < CALLS; i++) await cl.request('tools/list');
  else for (let i = 0; i < CALLS; i++) await cl.conn.request('tools/call', { name: 'echo' });
  const used = process.cpuUsage(t);
  return CALLS / ((used.user + used.system) / 1e6);
}

const med = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const libs = { A: await load(distA), B: await load(distB) };
const clients = { A: await client(libs.A), B: await client(libs.B) };
clients.A.conn = engine(libs.A);
clients.B.conn = engine(libs.B);
for (const method of ['callTool', 'request', 'Connection.request']) {
  // warm-up: both builds JIT-compiled before the first measured round
  for (const k of ['A', 'B']) await round(clients[k], method);
  const rates = { A: [], B: [] };
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? ['A', 'B'] : ['B', 'A'];
    for (const k of order) rates[k].push(await round(clients[k], method));
  }
  const ratios = rates.B.map((b, i) => b / rates.A[i]);
  const fmt = (x) => Math.round(x).toLocaleString('en');
  console.log(
    JSON.stringify({
      method,
      calls: CALLS,
      A: { median: fmt(med(rates.A)), min: fmt(Math.min(...rates.A)), max: fmt(Math.max(...rates.A)) },
      B: { median: fmt(med(rates.B)), min: fmt(Math.min(...rates.B)), max: fmt(Math.max(...rates.B)) },
      'B/A': { median: +med(ratios).toFixed(3), min: +Math.min(...ratios).toFixed(3), max: +Math.max(...ratios).toFixed(3) },
    }),
  );
}
for (const k of ['A', 'B']) await clients[k].close();
