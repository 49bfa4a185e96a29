#!/usr/bin/env node
// Micro benchmark of the trace writer (not a test: wall-clock numbers, run by hand).
//   npm run build && node scripts/trace-bench.mjs [--n 100000] [--reps 5] [--cpu-prof]
//   node scripts/trace-bench.mjs --client [--rounds 6] [--calls 40000] [--against OTHER/dist]
// --client: McpClient untraced and tracing to a file, over the in-process memory transport
// against a server that echoes at once (no system calls but the trace's own writes), rounds
// interleaved, CPU time of this process per call at 64 in flight and sequentially: the tracer's
// cost on the client's path without the noise of pipes and a second process.
// Feeds the bench's echo exchange (tools/call request out, result in) through a tracer writing
// to a temp file and reports µs per trace line (including close(), i.e. until the bytes are
// written), beside redaction alone and a bare SonicBoom write of the same bytes; one row gives
// each message with its JSON text, as the connection does (the line reuses it).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const arg = (name, def) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? def : Number(args[i + 1]);
};
const N = arg('n', 100_000);
const REPS = arg('reps', 5);
const dist = (p) => pathToFileURL(path.join(root, 'dist', p)).href;
if (args.includes('--client')) {
  await clientBench(arg('rounds', 6), arg('calls', 40_000));
  process.exit(0);
}
const { createTracer } = await import(dist('trace/tracer.js'));
const { Redactor } = await import(dist('trace/redact.js'));
const { default: pino } = await import('pino');

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-trace-bench-'));
const text = 'hello from the bench client';
const reqs = [];
const ress = [];
for (let i = 0; i < N; i++) {
  reqs.push({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: 'echo', arguments: { text } } });
  ress.push({ jsonrpc: '2.0', id: i + 1, result: { content: [{ type: 'text', text }] } });
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const reqTexts = reqs.map((m) => JSON.stringify(m));
const resTexts = ress.map((m) => JSON.stringify(m));

async function tracerRun(secrets, withText = false) {
  const file = path.join(dir, `t-${Math.random().toString(36).slice(2)}.jsonl`);
  const t = await createTracer({ file, serverId: 'bench', transport: 'stdio', secrets });
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < N; i++) {
    // withText: as the connection calls it (the message's JSON text, which the trace reuses)
    t.message('out', reqs[i], { kind: 'request', method: 'tools/call', id: i + 1, text: withText ? reqTexts[i] : undefined });
    t.message('in', ress[i], { kind: 'result', id: i + 1, latencyMs: 0.123456, requestMethod: 'tools/call', text: withText ? resTexts[i] : undefined });
    // let the event loop run now and then, as a client does between messages
    if (i % 32 === 31) await new Promise((r) => setImmediate(r));
  }
  const loop = ((performance.now() - t0) * 1000) / (2 * N);
  await t.close();
  const us = ((performance.now() - t0) * 1000) / (2 * N);
  const c = process.cpuUsage(c0);
  const cpu = (c.user + c.system) / (2 * N);
  const bytes = fs.statSync(file).size;
  fs.rmSync(file);
  return { us, loop, cpu, bytes };
}

function redactRun() {
  const r = new Redactor({ secrets: ['ghp_EnvValueSecret123456', 'zq9'] });
  const t0 = performance.now();
  for (let i = 0; i < N; i++) {
    if (r.redactJson) {
      r.redactJson(reqs[i]);
      r.redactJson(ress[i]);
    } else {
      JSON.stringify(r.redact(reqs[i]));
      JSON.stringify(r.redact(ress[i]));
    }
  }
  return ((performance.now() - t0) * 1000) / (2 * N);
}

async function sonicRun(lineBytes, perWrite) {
  const file = path.join(dir, 'sonic.jsonl');
  const s = pino.destination({ dest: file, sync: false, minLength: perWrite === 1 ? 4096 : 1 });
  await new Promise((r) => s.once('ready', r));
  const line = `${'x'.repeat(Math.max(1, lineBytes - 1))}\n`;
  const chunk = line.repeat(perWrite);
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < (2 * N) / perWrite; i++) {
    s.write(perWrite === 1 ? line : chunk);
    if (i % Math.max(1, Math.floor(64 / perWrite)) === 0) await new Promise((r) => setImmediate(r));
  }
  await new Promise((r) => { s.once('close', r); s.end(); });
  const us = ((performance.now() - t0) * 1000) / (2 * N);
  const c = process.cpuUsage(c0);
  fs.rmSync(file);
  return { us, cpu: (c.user + c.system) / (2 * N) };
}

const rows = { withText: [], loop: [], tracer: [], cpu: [], tracerSecrets: [], redact: [], sonic: [], sonicCpu: [], sonicBatch: [], sonicBatchCpu: [] };
let bytesPerLine = 0;
await tracerRun(); // warm-up
for (let rep = 0; rep < REPS; rep++) {
  const a = await tracerRun();
  rows.tracer.push(a.us);
  rows.loop.push(a.loop);
  rows.cpu.push(a.cpu);
  bytesPerLine = a.bytes / (2 * N);
  rows.tracerSecrets.push((await tracerRun(['ghp_EnvValueSecret123456', 'hdr-api-key-987654321', 'zq9'])).cpu);
  rows.withText.push((await tracerRun(undefined, true)).cpu);
  rows.redact.push(redactRun());
  const s1 = await sonicRun(Math.round(bytesPerLine), 1);
  rows.sonic.push(s1.us);
  rows.sonicCpu.push(s1.cpu);
  const s2 = await sonicRun(Math.round(bytesPerLine), 56);
  rows.sonicBatch.push(s2.us);
  rows.sonicBatchCpu.push(s2.cpu);
}
fs.rmSync(dir, { recursive: true, force: true });
const f = (xs) => `${median(xs).toFixed(2)} µs [${Math.min(...xs).toFixed(2)}-${Math.max(...xs).toFixed(2)}]`;
console.log(`trace-bench: ${N} echo exchanges (${2 * N} lines, ~${bytesPerLine.toFixed(0)} B/line), median of ${REPS}, node ${process.version}`);
console.log(`  tracer, message() calls alone, per line     ${f(rows.loop)}`);
console.log(`  tracer to file until close(), per line      ${f(rows.tracer)} wall, ${f(rows.cpu)} CPU`);
console.log(`  same + 3 configured secrets, per line       ${f(rows.tracerSecrets)} CPU`);
console.log(`  with the message text (connection's path)   ${f(rows.withText)} CPU`);
console.log(`  redaction + JSON text alone, per message    ${f(rows.redact)}`);
console.log(`  SonicBoom, one write per line (minLength 4096) ${f(rows.sonic)} wall, ${f(rows.sonicCpu)} CPU`);
console.log(`  SonicBoom, 16 KiB writes, per line          ${f(rows.sonicBatch)} wall, ${f(rows.sonicBatchCpu)} CPU`);

/** `--client`: traced/untraced McpClient CPU per call over the memory transport (see the top). */
async function clientBench(rounds, calls) {
  const load = async (at) => ({
    McpClient: (await import(at('index.js'))).McpClient,
    createMemoryPair: (await import(at('index.js'))).createMemoryPair,
  });
  const here = await load(dist);
  // --against DIST: a third client, traced, from another build's dist/ (same-process A/B)
  const againstAt = args.indexOf('--against');
  const against = againstAt === -1 ? undefined : await load((p) => pathToFileURL(path.join(path.resolve(args[againstAt + 1]), p)).href);
  const text = 'hello from the bench client';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-trace-client-'));
  const open = async (trace, { McpClient, createMemoryPair } = here) => {
    const [c, s] = createMemoryPair();
    s.onmessage = (m) => {
      if (m.id === undefined) return;
      const result =
        m.method === 'initialize'
          ? { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'bench', version: '1' } }
          : m.method === 'tools/list'
            ? { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] }
            : { content: [{ type: 'text', text: m.params.arguments.text }] };
      void s.send({ jsonrpc: '2.0', id: m.id, result });
    };
    const client = new McpClient({ transport: 'stdio', command: 'bench', id: 'bench' }, { transport: c, trace, telemetry: false });
    await client.connect();
    await client.listTools();
    return client;
  };
  const cpuPerCall = async (client, conc, n) => {
    let left = n;
    const worker = async () => {
      while (left-- > 0) await client.callTool('echo', { text });
    };
    const t = process.cpuUsage();
    await Promise.all(Array.from({ length: conc }, worker));
    const u = process.cpuUsage(t);
    return (u.user + u.system) / n;
  };
  const variants = [
    { name: 'untraced', client: await open(false), c64: [], seq: [] },
    { name: 'traced to a file', client: await open(path.join(dir, 'trace.jsonl')), c64: [], seq: [] },
  ];
  if (against) variants.push({ name: 'traced, --against', client: await open(path.join(dir, 'trace-against.jsonl'), against), c64: [], seq: [] });
  for (const v of variants) await cpuPerCall(v.client, 64, 5000); // warm-up
  for (let r = 0; r < rounds; r++) {
    for (const v of r % 2 === 0 ? variants : [...variants].reverse()) {
      v.c64.push(await cpuPerCall(v.client, 64, calls));
      v.seq.push(await cpuPerCall(v.client, 1, Math.ceil(calls / 4)));
    }
  }
  for (const v of variants) await v.client.close();
  fs.rmSync(dir, { recursive: true, force: true });
  const mid = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const f = (xs) => `${mid(xs).toFixed(2)} µs [${Math.min(...xs).toFixed(2)}-${Math.max(...xs).toFixed(2)}]`;
  const ratio = (k) => mid(variants[1][k].map((x, i) => x / variants[0][k][i])).toFixed(2);
  console.log(`trace-bench --client: McpClient over the memory transport, ${rounds} interleaved rounds of ${calls} calls`);
  console.log(`  at 64 in flight and ${Math.ceil(calls / 4)} sequential, CPU per call, node ${process.version}`);
  for (const v of variants) console.log(`  ${v.name.padEnd(18)} 64 in flight ${f(v.c64)}   sequential ${f(v.seq)}`);
  console.log(`  traced/untraced (median of per-round ratios): 64 in flight ${ratio('c64')}, sequential ${ratio('seq')}`);
  if (against) {
    const vs = (k) => mid(variants[1][k].map((x, i) => x / variants[2][k][i])).toFixed(3);
    console.log(`  traced / traced --against (median of per-round ratios): 64 in flight ${vs('c64')}, sequential ${vs('seq')}`);
  }
}
