#!/usr/bin/env node
/**
 * The cost of running `serve --http` as replicas with Redis (docs/scale.md), same run, loopback:
 *
 * 1. Per call: the same mcpwire client (2025-11-25, one session) makes sequential echo calls
 *    through a gateway with its state in memory and through one with `--store redis://…`;
 *    alternating rounds, fresh gateway processes. Reports wall ms per call, the gateway's CPU per
 *    call (its process and the servers below it, from /proc) and Redis's, and the ratios
 *    Redis-backed / in-memory.
 * 2. Resumption: a stream whose client dropped after the priming event and whose response went
 *    out meanwhile, resumed with `Last-Event-ID` on the replica that wrote it and on another one
 *    (replayed from Redis): ms from the GET to the response, medians.
 *
 * Needs `npm run build`, redis-server. Not a test: nothing asserts, it prints.
 *
 *   node bench/scale.mjs [--rounds 3] [--calls 1000] [--resumes 50]
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(root, 'dist', 'cli', 'main.js');
const { connect } = await import(path.join(root, 'dist', 'index.js'));
const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3' }, calls: { type: 'string', default: '1000' }, resumes: { type: 'string', default: '50' } } });
const rounds = Number(values.rounds);
const calls = Number(values.calls);
const resumes = Number(values.resumes);
const REDIS = fs.existsSync('/usr/bin/redis-server') ? '/usr/bin/redis-server' : 'redis-server';
if (spawnSync(REDIS, ['--version']).status !== 0) {
  console.error('bench/scale.mjs needs redis-server');
  process.exit(2);
}
const TICK_MS = 10;
const SECRET = 'bench-shared-secret-not-a-credential';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-bench-scale-'));
const config = path.join(dir, 'config.json');
fs.writeFileSync(config, JSON.stringify({ version: 1, mcp: { serve_names: 'host', servers: { alpha: { transport: 'stdio', command: process.execPath, args: [path.join(root, 'mock-servers/stdio-server.mjs')], env: { MOCK_SCENARIO_JSON: JSON.stringify({ tools: ['echo', 'slow'] }) } } } } }));

const freePort = () =>
  new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = s.address().port;
      s.close(() => resolve(p));
    });
  });

/** CPU ms of `pid` and every process below it. */
function cpuMs(pid) {
  let total = 0;
  const kids = new Map();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const f = fs.readFileSync(`/proc/${d}/stat`, 'utf8').slice(fs.readFileSync(`/proc/${d}/stat`, 'utf8').lastIndexOf(')') + 2).split(' ');
      kids.set(Number(d), { ppid: Number(f[1]), cpu: (Number(f[11]) + Number(f[12])) * TICK_MS });
    } catch {}
  }
  const walk = (p) => {
    total += kids.get(p)?.cpu ?? 0;
    for (const [k, v] of kids) if (v.ppid === p) walk(k);
  };
  walk(pid);
  return total;
}

function start(args, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { env: { ...process.env, MCPWIRE_TRACE: '', ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (c) => {
      err += c;
      const m = /LISTEN (\S+)/.exec(err);
      if (m) resolve({ child, url: m[1] });
    });
    child.once('exit', (c) => reject(new Error(`exited ${c}: ${err}`)));
  });
}
const stop = (child) => new Promise((r) => (child.exitCode !== null ? r() : (child.once('exit', r), child.kill('SIGKILL'))));

async function startRedis() {
  const port = await freePort();
  const child = spawn(REDIS, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: ['ignore', 'pipe', 'ignore'] });
  await new Promise((r) => child.stdout.on('data', (c) => String(c).includes('Ready to accept') && r()));
  return { child, url: `redis://127.0.0.1:${port}` };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (xs, d = 3) => `${median(xs).toFixed(d)} [${Math.min(...xs).toFixed(d)}-${Math.max(...xs).toFixed(d)}]`;

const redis = await startRedis();
const per = { memory: { wall: [], cpu: [] }, redis: { wall: [], cpu: [], redisCpu: [] } };
for (let r = 0; r < rounds; r++) {
  for (const kind of r % 2 === 0 ? ['memory', 'redis'] : ['redis', 'memory']) {
    const g = await start(['serve', '--http', '--config', config, ...(kind === 'redis' ? ['--store', redis.url] : [])], kind === 'redis' ? { MCPWIRE_SERVE_SECRET: SECRET } : {});
    const c = await connect({ id: 'gw', transport: 'http', url: g.url }, { protocolVersion: '2025-11-25', timeoutMs: 30_000 });
    const echo = (await c.listTools()).find((t) => t.name.startsWith('mcp_alpha_echo')).name;
    for (let i = 0; i < 200; i++) await c.callTool(echo, { text: 'warm' });
    const cpu0 = cpuMs(g.child.pid);
    const rcpu0 = cpuMs(redis.child.pid);
    const t0 = performance.now();
    for (let i = 0; i < calls; i++) await c.callTool(echo, { text: `call ${i}` });
    const wall = (performance.now() - t0) / calls;
    per[kind].wall.push(wall);
    per[kind].cpu.push((cpuMs(g.child.pid) - cpu0) / calls);
    if (kind === 'redis') per.redis.redisCpu.push((cpuMs(redis.child.pid) - rcpu0) / calls);
    await c.close();
    await stop(g.child);
  }
}

// Resumption: two replicas; the stream written on a, resumed on a and on b.
const a = await start(['serve', '--http', '--config', config, '--store', redis.url], { MCPWIRE_SERVE_SECRET: SECRET });
const b = await start(['serve', '--http', '--config', config, '--store', redis.url], { MCPWIRE_SERVE_SECRET: SECRET });
const H = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const init = await fetch(a.url, { method: 'POST', headers: H, body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '0' } } }) });
const sid = init.headers.get('mcp-session-id');
await init.text();
const SH = { ...H, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' };
const tools = await (await fetch(a.url, { method: 'POST', headers: SH, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }) })).text();
const slow = /"(mcp_alpha_slow[^"]*)"/.exec(tools)[1];
const resumeMs = { same: [], other: [] };
let id = 2;
for (let i = 0; i < resumes * 2; i++) {
  const where = i % 2 === 0 ? 'same' : 'other';
  const ac = new AbortController();
  const res = await fetch(a.url, { method: 'POST', headers: SH, signal: ac.signal, body: JSON.stringify({ jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name: slow, arguments: { ms: 30 } } }) });
  const reader = res.body.getReader();
  let got = '';
  while (!/^id: /m.test(got)) got += new TextDecoder().decode((await reader.read()).value);
  const lastId = /^id: (\S+)$/m.exec(got)[1];
  ac.abort();
  await new Promise((r) => setTimeout(r, 150)); // the call answers meanwhile (into the history)
  const t0 = performance.now();
  const resumed = await fetch((where === 'same' ? a : b).url, { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25', 'last-event-id': lastId } });
  const text = await resumed.text();
  if (!text.includes('slept 30 ms')) throw new Error(`resumption on ${where} did not bring the response: ${resumed.status} ${text.slice(0, 200)}`);
  resumeMs[where].push(performance.now() - t0);
}
await stop(a.child);
await stop(b.child);
await stop(redis.child);
fs.rmSync(dir, { recursive: true, force: true });

const ratio = (x, y) => (median(x) / median(y)).toFixed(2);
console.log(`serve --http, ${calls} sequential echo calls × ${rounds} rounds (medians [min-max]), ${os.cpus().length} CPUs`);
console.log(`  in memory : ${fmt(per.memory.wall)} ms/call wall, ${fmt(per.memory.cpu)} ms/call gateway CPU`);
console.log(`  redis     : ${fmt(per.redis.wall)} ms/call wall, ${fmt(per.redis.cpu)} ms/call gateway CPU, ${fmt(per.redis.redisCpu)} ms/call redis-server CPU`);
console.log(`  ratio redis / memory: wall ${ratio(per.redis.wall, per.memory.wall)}, gateway CPU ${ratio(per.redis.cpu, per.memory.cpu)}, gateway+redis CPU ${(
  (median(per.redis.cpu) + median(per.redis.redisCpu)) / median(per.memory.cpu)
).toFixed(2)}`);
console.log(`resumption (Last-Event-ID → response), ${resumes} each: same replica ${fmt(resumeMs.same, 2)} ms, another replica ${fmt(resumeMs.other, 2)} ms`);
