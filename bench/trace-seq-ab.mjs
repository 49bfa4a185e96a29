#!/usr/bin/env node
// Tracing, sequentially: client CPU per call of an untraced client and traced clients of one or two
// builds, all in this one process (so a loaded machine slows them alike), each with a server of
// its own (the yardstick's SDK server or its raw NDJSON server, pinned to CPU 1 when taskset is
// there; run this script pinned to CPU 0: `taskset -c 0 node bench/trace-seq-ab.mjs …`). Every
// round runs each variant for `--calls` sequential echo calls (after a warm-up at connect), the
// order rotating round by round; CPU is `process.cpuUsage()` (user+sys) around each block. Prints
// per variant the median [min-max] of µs per call and, per round, traced / untraced.
//
// --cold: no pipes and no second process: each client over the in-process memory transport
// against a server answering at once, and before every call (not measured) a sweep of 32 MiB
// that empties the caches as a sequential client's wait does; each call's CPU is taken alone and
// the figure is the mean call of the round (the costliest 0.5 % left out).
//
//   node bench/trace-seq-ab.mjs [--server sdk|raw] [--rounds 7] [--calls 5000] [--warmup 2000]
//        [--base OTHER/dist] [--only untraced|traced|base]   (--only: one variant, for --cpu-prof)
//   node bench/trace-seq-ab.mjs --cold [--rounds 7] [--calls 2000] [--base OTHER/dist] [--sweep-mib 32]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { optionReader } from './lib/args.mjs';
import { findHarness, stageHarness } from './lib/harness.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = optionReader(args);
const ROUNDS = Number(opt('rounds', 7));
const CALLS = Number(opt('calls', 5000));
const WARMUP = Number(opt('warmup', 2000));
const serverKind = opt('server', 'sdk');
const base = opt('base', undefined);
const only = opt('only', undefined);
const TEXT = 'hello from the bench client';
const COLD = args.includes('--cold');

const staged = stageHarness(root, findHarness(root));
const H = (f) => path.join(staged.dir, f);
const pinned = spawnSync('sh', ['-c', 'command -v taskset']).status === 0 && os.cpus().length >= 2;
const serverCmd = [...(pinned ? ['taskset', '-c', '1'] : []), process.execPath, ...(serverKind === 'sdk' ? [H('server.mjs'), 'stdio'] : [H('raw-baseline.mjs'), 'serve-stdio'])];
const traceDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-trace-seq-'));

const load = (dist) => import(pathToFileURL(path.resolve(dist, 'index.js')).href);
const here = await load(path.join(root, 'dist'));
const other = base ? await load(base) : undefined;

/** The memory pair's server side: answers initialize, tools/list and the echo call at once. */
function serveEcho(s) {
  s.onmessage = (m) => {
    if (m.id === undefined) return;
    let result;
    if (m.method === 'initialize') result = { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'ab', version: '1' } };
    else if (m.method === 'tools/list') result = { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] };
    else result = { content: [{ type: 'text', text: m.params.arguments.text }] };
    void s.send({ jsonrpc: '2.0', id: m.id, result });
  };
}

async function client(lib, traced, name) {
  if (COLD) return memoryClient(lib, traced, name);
  const observer = traced ? await lib.createTracer({ file: path.join(traceDir, `${name}.jsonl`), serverId: 'bench', transport: 'stdio' }) : undefined;
  const c = await lib.connect(
    { transport: 'stdio', command: serverCmd[0], args: serverCmd.slice(1) },
    { clientInfo: { name: 'engine-bench-client', version: '0.1.0' }, ...(observer ? { observer } : {}) },
  );
  const call = async () => {
    const r = await c.callTool('echo', { text: TEXT });
    if (r.content[0].text !== TEXT) throw new Error('echo mismatch');
  };
  for (let i = 0; i < WARMUP; i++) await call();
  return { name, call, close: async () => { await c.close(); await observer?.close(); } };
}

async function memoryClient(lib, traced, name) {
  const [c, s] = lib.createMemoryPair();
  serveEcho(s);
  const observer = traced ? await lib.createTracer({ file: path.join(traceDir, `${name}.jsonl`), serverId: 'bench', transport: 'stdio' }) : undefined;
  const cl = new lib.McpClient({ transport: 'stdio', command: 'ab', id: 'ab' }, { transport: c, ...(observer ? { observer } : { trace: false }), telemetry: false });
  await cl.connect();
  const call = async () => {
    const r = await cl.callTool('echo', { text: TEXT });
    if (r.content[0].text !== TEXT) throw new Error('echo mismatch');
  };
  for (let i = 0; i < WARMUP; i++) await call();
  return { name, call, close: async () => { await cl.close(); await observer?.close(); } };
}

const sweep = new Uint8Array(Number(opt('sweep-mib', 32)) * 1024 * 1024);
let sink = 0;
/** Touches 32 MiB (`--sweep-mib`), a line every 64 bytes: what a wait while other processes run leaves of the caches. */
function evict() {
  for (let i = 0; i < sweep.length; i += 64) sweep[i] = (sweep[i] + 1) & 0xff;
  sink += sweep[sink & 0xffff];
}

/**
 * µs of CPU a call in the round, each call measured alone after a sweep: the mean of all but the
 * costliest 0.5 % (not the median: held lines are encoded in one call of many, a cost the median
 * call never shows).
 */
async function coldRound(v) {
  const per = new Float64Array(CALLS);
  for (let i = 0; i < CALLS; i++) {
    evict();
    const c0 = process.cpuUsage();
    await v.call();
    const c1 = process.cpuUsage(c0);
    per[i] = c1.user + c1.system;
  }
  per.sort();
  let sum = 0;
  const keep = CALLS - Math.floor(CALLS / 200);
  for (let i = 0; i < keep; i++) sum += per[i];
  return sum / keep;
}

const variants = [];
if (!only || only === 'untraced') variants.push(await client(here, false, 'untraced'));
if (!only || only === 'traced') variants.push(await client(here, true, 'traced'));
if (other && (!only || only === 'base')) variants.push(await client(other, true, 'base traced'));

const us = Object.fromEntries(variants.map((v) => [v.name, []]));
for (let r = 0; r < ROUNDS; r++) {
  for (let k = 0; k < variants.length; k++) {
    const v = variants[(r + k) % variants.length];
    globalThis.gc?.();
    if (COLD) {
      us[v.name].push(await coldRound(v));
      continue;
    }
    const c0 = process.cpuUsage();
    for (let i = 0; i < CALLS; i++) await v.call();
    const c1 = process.cpuUsage(c0);
    us[v.name].push((c1.user + c1.system) / CALLS);
  }
}
for (const v of variants) await v.close();
fs.rmSync(traceDir, { recursive: true, force: true });
staged.cleanup();

const med = (a) => {
  const s = [...a].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const f = (x, d = 2) => x.toFixed(d);
const cellOf = (a, d) => `${f(med(a), d)} [${f(Math.min(...a), d)}–${f(Math.max(...a), d)}]`;
console.log(`${COLD ? 'memory transport, caches swept before each call (mean call, costliest 0.5 % left out)' : `${serverKind} server`}, ${ROUNDS} rounds × ${CALLS} sequential calls (after ${WARMUP}), load ${os.loadavg()[0].toFixed(1)}`);
for (const v of variants) console.log(`${v.name.padEnd(14)} µs/call ${cellOf(us[v.name], 1)}  rounds ${us[v.name].map((x) => f(x, 1)).join(' ')}`);
if (us.untraced) {
  for (const name of ['traced', 'base traced']) {
    if (!us[name]) continue;
    const ratios = us[name].map((x, i) => x / us.untraced[i]);
    console.log(`${name} / untraced  ${cellOf(ratios, 3)}  rounds ${ratios.map((x) => f(x, 3)).join(' ')}`);
  }
}
if (us.traced && us['base traced']) {
  const ratios = us.traced.map((x, i) => x / us['base traced'][i]);
  console.log(`traced / base traced  ${cellOf(ratios, 3)}  rounds ${ratios.map((x) => f(x, 3)).join(' ')}`);
}
process.exit(0);
