#!/usr/bin/env node
// Connect time by era (the stdio era probe, src/mcp/eras/select.ts, and the CLI's era memory,
// src/host/era-memory.ts): how long until a client is ready against a modern-only server, a
// dual server, a handshake server that answers the probe with -32601, and a probe-silent
// handshake server (drops `server/discover` before `initialize`) — one that logs the dropped
// request on stderr and answers ping (mock-servers/scenarios/drop-before-initialize.json), and
// a fully silent one. Through connect() (this library's client), the host (createHost, its
// defaults) and the CLI (`mcpwire status --json`, its first and a later command: the era memory).
//
//   node bench/connect.mjs [--rounds 5] [--dist DIR] [--json]
//
// Every sample is a fresh process (the CLI's own, or a small driver's) and a fresh server;
// variants interleaved round by round. Figures: wall ms until ready (connect(), host.start(),
// the whole CLI command) and the client process's CPU ms (process.cpuUsage in the driver; the
// CLI's user+sys from /proc/<pid>/stat just before it exits is not available, so its wall only).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');

const args = process.argv.slice(2);
const flag = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};

// --------------------------------------------------------------------------- the driver (one sample)
if (args[0] === '--sample') {
  const [, dist, mode, serverJson] = args;
  const server = JSON.parse(serverJson);
  const engine = await import(pathToFileURL(path.join(dist, mode === 'host' ? 'host-api.js' : 'index.js')).href);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let era;
  if (mode === 'host') {
    const host = engine.createHost([{ id: 'srv', file: path.join(os.tmpdir(), 'bench-connect.json'), transport: 'stdio', enabled: true, config: { ...server, requestTimeoutMs: 60_000, enabled: true } }], { backoff: { maxRetries: 0 }, auth: false });
    await host.start();
    const ms = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    era = host.status()[0]?.era;
    console.log(JSON.stringify({ ms, cpu_ms: (cpu.user + cpu.system) / 1000, era, state: host.status()[0]?.state }));
    await host.close();
  } else {
    const client = await engine.connect(server, { initializeTimeoutMs: 5000 });
    const ms = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    console.log(JSON.stringify({ ms, cpu_ms: (cpu.user + cpu.system) / 1000, era: client.era }));
    await client.close();
  }
  process.exit(0);
}

// --------------------------------------------------------------------------- the run
const rounds = Number(flag('rounds', '5'));
const dist = path.resolve(flag('dist', path.join(root, 'dist')));
const asJson = args.includes('--json');
const node = process.execPath;
const legacy = path.join(root, 'mock-servers', 'stdio-server.mjs');
const modern = path.join(root, 'mock-servers', 'modern', 'stdio-server.mjs');
const SILENT = JSON.stringify({ extends: 'default', behavior: { methods: { 'server/discover': { never: true } } } });

const servers = {
  modern: { transport: 'stdio', command: node, args: [modern] },
  dual: { transport: 'stdio', command: node, args: [modern, 'dual'] },
  'handshake-32601': { transport: 'stdio', command: node, args: [legacy] },
  'probe-silent-logs': { transport: 'stdio', command: node, args: [legacy, 'drop-before-initialize'] },
  'probe-silent-quiet': { transport: 'stdio', command: node, args: [legacy], env: { MOCK_SCENARIO_JSON: SILENT } },
};

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-connect-'));
const VARIANTS = [
  ...Object.keys(servers).map((s) => ({ label: `connect-${s}`, kind: 'client', server: s })),
  { label: 'host-handshake-32601', kind: 'host', server: 'handshake-32601' },
  { label: 'host-probe-silent-logs', kind: 'host', server: 'probe-silent-logs' },
  { label: 'host-probe-silent-quiet', kind: 'host', server: 'probe-silent-quiet' },
  { label: 'cli-handshake-32601', kind: 'cli', server: 'handshake-32601' },
  { label: 'cli-probe-silent-quiet-first', kind: 'cli', server: 'probe-silent-quiet', memory: 'fresh' },
  { label: 'cli-probe-silent-quiet-later', kind: 'cli', server: 'probe-silent-quiet', memory: 'kept' },
];

function run(cmd, argv, env) {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(cmd, argv, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.on('close', (code) => resolve({ code, out, err, ms: performance.now() - t0 }));
  });
}

async function sample(v, round) {
  const server = servers[v.server];
  if (v.kind !== 'cli') {
    const r = await run(node, [fileURLToPath(import.meta.url), '--sample', dist, v.kind, JSON.stringify(server)]);
    const line = r.out.split('\n').find((l) => l.startsWith('{'));
    if (r.code !== 0 || !line) return { error: r.err.slice(-300) };
    return JSON.parse(line);
  }
  const config = path.join(work, `${v.label}.json`);
  fs.writeFileSync(config, JSON.stringify({ version: 1, mcp: { servers: { srv: { transport: 'stdio', command: server.command, args: server.args, ...(server.env ? { env: server.env } : {}) } } } }));
  const home = path.join(work, `${v.label}-${v.memory === 'kept' ? 'kept' : round}`);
  if (v.memory === 'kept' && !fs.existsSync(home)) await run(node, [path.join(dist, 'cli', 'main.js'), '--config', config, 'status', '--json'], { XDG_CONFIG_HOME: home, MCPWIRE_CONFIG_PATH: '' });
  const r = await run(node, [path.join(dist, 'cli', 'main.js'), '--config', config, 'status', '--json'], { XDG_CONFIG_HOME: home, MCPWIRE_CONFIG_PATH: '' });
  if (r.code !== 0) return { error: r.err.slice(-300) };
  const row = JSON.parse(r.out)[0];
  return { ms: r.ms, era: row?.era, state: row?.state };
}

const med = (xs) => {
  const s = xs.filter((x) => typeof x === 'number').sort((a, b) => a - b);
  return s.length === 0 ? undefined : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const results = new Map(VARIANTS.map((v) => [v.label, []]));
const load0 = os.loadavg()[0];
for (let round = 1; round <= rounds; round++) {
  for (const v of VARIANTS) results.get(v.label).push(await sample(v, round));
}
fs.rmSync(work, { recursive: true, force: true });

const rows = VARIANTS.map((v) => {
  const rs = results.get(v.label);
  const ms = rs.map((r) => r.ms);
  const cpu = rs.map((r) => r.cpu_ms);
  return {
    label: v.label,
    what: v.kind === 'cli' ? 'wall ms of the whole `mcpwire status --json`' : v.kind === 'host' ? 'host.start() ms' : 'connect() ms',
    ms: med(ms),
    ms_min: Math.min(...ms.filter((x) => x !== undefined)),
    ms_max: Math.max(...ms.filter((x) => x !== undefined)),
    cpu_ms: med(cpu),
    era: rs.find((r) => r.era)?.era ?? rs.find((r) => r.error)?.error,
    errors: rs.filter((r) => r.error).length,
  };
});
const by = new Map(rows.map((r) => [r.label, r]));
const rel = (a, b) => (by.get(a)?.ms !== undefined && by.get(b)?.ms ? by.get(a).ms / by.get(b).ms : undefined);
// Targets (bench/README.md "Connect"): a probe-silent server costs about what a -32601 server
// costs once its silence is cut short (logs) or the verdict is kept (a later CLI command).
const RATIOS = [
  // a difference in ms: the sign of life costs a fixed grace (PROBE_GRACE_MS) and a ping's round trip, not a share
  { name: 'connect, probe-silent (logs) - handshake -32601, ms', num: 'connect-probe-silent-logs', den: 'connect-handshake-32601', diff: true, op: '<=', target: 250 },
  { name: 'host, probe-silent (logs) - handshake -32601, ms', num: 'host-probe-silent-logs', den: 'host-handshake-32601', diff: true, op: '<=', target: 250 },
  { name: 'CLI later command, probe-silent (quiet) / handshake -32601', num: 'cli-probe-silent-quiet-later', den: 'cli-handshake-32601', op: '<=', target: 1.2 },
  { name: 'CLI first command, probe-silent (quiet) / handshake -32601', num: 'cli-probe-silent-quiet-first', den: 'cli-handshake-32601' },
  { name: 'connect, dual / modern', num: 'connect-dual', den: 'connect-modern' },
  { name: 'connect, handshake -32601 / modern', num: 'connect-handshake-32601', den: 'connect-modern' },
].map((r) => {
  const value = r.diff ? (by.get(r.num)?.ms !== undefined && by.get(r.den)?.ms !== undefined ? by.get(r.num).ms - by.get(r.den).ms : undefined) : rel(r.num, r.den);
  return { ...r, value, pass: r.target === undefined || value === undefined ? undefined : value <= r.target };
});
const out = { rounds, dist, loadavg: [load0, os.loadavg()[0]], rows, ratios: RATIOS };
if (asJson) {
  console.log(JSON.stringify(out));
} else {
  const f = (x) => (x === undefined ? '' : x >= 100 ? x.toFixed(0) : x.toFixed(1));
  console.log(`connect (${rounds} rounds, ${dist}; loadavg ${load0.toFixed(2)} -> ${os.loadavg()[0].toFixed(2)})`);
  for (const r of rows) console.log(`${r.label.padEnd(32)} ${f(r.ms).padStart(7)} ms [${f(r.ms_min)}-${f(r.ms_max)}]  cpu ${f(r.cpu_ms).padStart(6)} ms  ${r.era ?? ''}${r.errors ? `  (${r.errors} failed)` : ''}`);
  for (const r of RATIOS) console.log(`${r.name.padEnd(62)} ${r.value === undefined ? '' : r.value.toFixed(r.diff ? 0 : 2)}${r.target === undefined ? '' : `  (${r.op} ${r.target}: ${r.pass ? 'yes' : 'NO'})`}`);
}
