#!/usr/bin/env node
// `npm run soak`: a long run of the built client (dist/) against real servers
// on this machine, with tracing on, that checks nothing is lost and nothing leaks.
//
//   node scripts/soak.mjs [--short] [--calls N] [--inflight N] [--cycles N] [--renewals N]
//
//   full (default): 100k tools/call at 64 in flight over stdio, the same over Streamable HTTP,
//                   1k connect/close cycles (half stdio, half HTTP), 1k HTTP session renewals
//   --short:        the CI version (test/host/soak.test.ts): 3k calls each, 40 cycles, 40 renewals
//
// Figures printed at the end, one `SOAK <name> <value> <ok|FAIL>` line each, then `SOAK result`:
//   pendingCount       0 on every client at the end of every phase
//   failedCalls        0 (every call answered with its own text)
//   children           0 child processes left (the HTTP server fixture excepted)
//   rssGrowthPct       RSS growth after warm-up (after GC), < 10 (--short: < 20): the largest of the whole run
//                      (all clients closed) and of each long-lived client's phase (client open)
//   listenerWarnings   0 MaxListenersExceededWarning (and no other process warning)
//   fds                open descriptors (/proc/self/fd) back to the count at the start
//   renewals           every expired session renewed (sessionRenewed events, new session ids)
// Exits 1 when a figure fails, 2 when the run itself breaks.
import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';

process.on('unhandledRejection', (err) => {
  console.error('SOAK unhandled rejection:', err);
  process.exit(2);
});

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
/** RSS growth bound, % (set from --short below). */
let RSS_LIMIT_PCT = 10;

// ---- the HTTP server fixture (this file, forked with --serve) ------------------------------
if (process.argv.includes('--serve')) {
  const { startHttpMock } = await import(pathToFileURL(path.join(root, 'mock-servers', 'http-server.mjs')).href);
  const mock = await startHttpMock({ mode: 'json', getStream: false });
  // The mock records every message; a soak would grow it without end: keep the record empty.
  const trim = setInterval(() => {
    mock.record.messages.length = 0;
    mock.record.requests.length = 0;
  }, 500);
  process.on('message', async (m) => {
    if (m === 'expire') {
      mock.expireSessions();
      process.send('expired');
    } else if (m === 'stop') {
      clearInterval(trim);
      await mock.close();
      process.exit(0);
    }
  });
  process.send({ url: mock.url });
} else {
  await main();
}

async function main() {
  const args = process.argv.slice(2);
  // glibc gives each thread that allocates (the libuv pool writing trace files) its own malloc
  // arena; their pages make RSS step up in ways no leak explains. Two arenas make RSS a figure
  // about our memory: re-run under MALLOC_ARENA_MAX=2 unless the caller chose a value.
  if (process.platform === 'linux' && process.env.MALLOC_ARENA_MAX === undefined) {
    const { spawnSync } = await import('node:child_process');
    const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), ...args], { stdio: 'inherit', env: { ...process.env, MALLOC_ARENA_MAX: '2' } });
    process.exit(r.status ?? 2);
  }
  const flag = (name, dflt) => {
    const i = args.indexOf(`--${name}`);
    return i === -1 ? dflt : Number(args[i + 1]);
  };
  const short = args.includes('--short');
  // The full soak holds RSS growth under 10 %. The 30-second CI run (3k calls, allocator still
  // settling) measures 2-9 % on a quiet box and more on a loaded one: its bound is 20 %, still far
  // below what a leak of the size the soak is for (hundreds of MB over 1k renewals) produces.
  RSS_LIMIT_PCT = short ? 20 : 10;
  const cfg = {
    calls: flag('calls', short ? 3_000 : 100_000),
    inflight: flag('inflight', 64),
    cycles: flag('cycles', short ? 40 : 1_000),
    renewals: flag('renewals', short ? 40 : 1_000),
  };
  const dist = path.join(root, 'dist', 'index.js');
  if (!fs.existsSync(dist)) {
    console.error('dist/ is missing: run `npm run build` first');
    process.exit(2);
  }
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc');
  const { McpClient } = await import(pathToFileURL(dist).href);

  const warnings = [];
  process.on('warning', (w) => warnings.push(`${w.name}: ${w.message}`));
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-soak-'));
  const stdioCfg = { transport: 'stdio', command: process.execPath, args: [path.join(root, 'mock-servers', 'stdio-server.mjs')] };
  const started = Date.now();
  const log = (s) => console.log(`[soak +${((Date.now() - started) / 1000).toFixed(1)}s] ${s}`);
  log(`${short ? 'short' : 'full'} run: ${JSON.stringify(cfg)}`);

  // The HTTP server lives in its own process: its memory and sockets are not ours to count.
  const server = fork(fileURLToPath(import.meta.url), ['--serve'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const { url } = await new Promise((resolve, reject) => {
    server.once('message', resolve);
    server.once('exit', (code) => reject(new Error(`HTTP server fixture exited with ${code}`)));
  });
  const httpCfg = { transport: 'http', url };
  const expire = () =>
    new Promise((resolve) => {
      server.once('message', resolve);
      server.send('expire');
    });

  const fdsAtStart = countFds();
  const pendingSeen = [];
  let failedCalls = 0;
  let callsDone = 0;

  /** `n` echo calls, `inflight` at a time; every answer must be its own text. */
  async function calls(client, n, label) {
    let next = 0;
    let maxPending = 0;
    const worker = async () => {
      while (next < n) {
        const i = next++;
        const text = `${label}-${i}`;
        try {
          const r = await client.callTool('echo', { text });
          if (r?.content?.[0]?.text !== text) failedCalls++;
        } catch (err) {
          failedCalls++;
          if (failedCalls <= 5) log(`call failed: ${err?.message ?? err}`);
        }
        callsDone++;
        if (client.pendingCount > maxPending) maxPending = client.pendingCount;
      }
    };
    await Promise.all(Array.from({ length: Math.min(cfg.inflight, n) }, worker));
    pendingSeen.push({ phase: label, pending: client.pendingCount });
    return maxPending;
  }

  const connect = async (config, traceName) => {
    const client = new McpClient({ ...config, id: traceName }, { trace: path.join(tmp, `${traceName}.jsonl`), timeoutMs: 60_000 });
    await client.connect();
    return client;
  };

  async function cycle(i) {
    const client = await connect(i % 2 === 0 ? stdioCfg : httpCfg, 'cycles');
    const r = await client.callTool('echo', { text: `cycle-${i}` });
    if (r?.content?.[0]?.text !== `cycle-${i}`) failedCalls++;
    pendingSeen.push({ phase: 'cycle', pending: client.pendingCount });
    await client.close();
  }

  let renewed = 0;
  let renewalFailures = 0;
  async function renewals(client, n) {
    client.on('sessionRenewed', () => renewed++);
    let lap = Date.now();
    for (let i = 0; i < n; i++) {
      if (i > 0 && i % 200 === 0) {
        log(`  renewals ${i - 200}-${i}: ${((Date.now() - lap) / 200).toFixed(1)} ms each`);
        lap = Date.now();
      }
      const before = client.sessionId;
      await expire();
      try {
        const r = await client.callTool('echo', { text: `renewal-${i}` });
        if (r?.content?.[0]?.text !== `renewal-${i}` || client.sessionId === before) renewalFailures++;
      } catch (err) {
        renewalFailures++;
        if (renewalFailures <= 5) log(`renewal ${i} failed: ${err?.message ?? err}`);
      }
    }
    pendingSeen.push({ phase: 'renewals', pending: client.pendingCount });
  }

  const settle = async () => {
    for (let i = 0; i < 3; i++) {
      await new Promise((r) => setTimeout(r, 50));
      gc();
    }
  };

  // ---- warm-up: every path under the soak's own load (10 % of the calls, at least 2k), so pools,
  // JIT, caches and the heap's high-water mark exist before the baseline. Twice: the second HTTP
  // client's first calls raise RSS by ~17 MB once, and never again (heap used +1 MB: memory the
  // process keeps, not a leak); with one round that step fell after the baseline and counted as
  // growth (15–21 % of an 85–115 MB baseline in the short run; 0–1 % after two rounds) -------
  const warm = Math.min(cfg.calls, Math.max(2_000, Math.round(cfg.calls / 10)));
  for (let round = 0; round < 2; round++) {
    const s = await connect(stdioCfg, 'warmup');
    await calls(s, warm, 'warm-stdio');
    await s.close();
    const h = await connect(httpCfg, 'warmup');
    await calls(h, warm, 'warm-http');
    await renewals(h, Math.min(5, cfg.renewals));
    await h.close();
    for (let i = 0; i < Math.min(4, cfg.cycles); i++) await cycle(i);
    renewed = 0;
    renewalFailures = 0;
  }
  await settle();
  const rssBase = process.memoryUsage().rss;
  const heapBase = process.memoryUsage().heapUsed;
  // RSS after GC at the start and the end of each long-lived client's phase, client open: a leak
  // that a close frees (per-client state growing with each call or renewal) shows as growth
  // within the phase, not at the very end.
  const samples = new Map();
  const phaseGrowth = [];
  const sample = async (what, since) => {
    await settle();
    const rss = process.memoryUsage().rss;
    samples.set(what, rss);
    const from = since === undefined ? undefined : samples.get(since);
    if (from !== undefined) phaseGrowth.push(((rss - from) / from) * 100);
    log(`rss at ${what}: ${mb(rss)} MB${from === undefined ? '' : ` (${(((rss - from) / from) * 100).toFixed(1)} % in the phase)`}`);
  };
  log(`warm-up done: rss ${mb(rssBase)} MB, fds ${countFds()} (start ${fdsAtStart})`);

  // ---- the soak ------------------------------------------------------------------------------
  let t = Date.now();
  const stdio = await connect(stdioCfg, 'stdio');
  const stdioPid = stdio.pid;
  await calls(stdio, Math.min(warm, 5_000), 'stdio-start');
  await sample('stdio start (client open)');
  const maxStdio = await calls(stdio, cfg.calls, 'stdio');
  await sample('stdio end (client open)', 'stdio start (client open)');
  await stdio.close();
  log(`stdio: ${cfg.calls} calls in ${((Date.now() - t) / 1000).toFixed(1)} s (max in flight ${maxStdio}), rss ${mb(process.memoryUsage().rss)} MB`);

  t = Date.now();
  const http = await connect(httpCfg, 'http');
  await calls(http, Math.min(warm, 5_000), 'http-start');
  await sample('http start (client open)');
  const maxHttp = await calls(http, cfg.calls, 'http');
  log(`http: ${cfg.calls} calls in ${((Date.now() - t) / 1000).toFixed(1)} s (max in flight ${maxHttp}), rss ${mb(process.memoryUsage().rss)} MB`);

  t = Date.now();
  await renewals(http, cfg.renewals);
  await sample('http + renewals end (client open)', 'http start (client open)');
  await http.close();
  log(`renewals: ${renewed}/${cfg.renewals} in ${((Date.now() - t) / 1000).toFixed(1)} s, rss ${mb(process.memoryUsage().rss)} MB`);

  t = Date.now();
  for (let i = 0; i < cfg.cycles; i++) await cycle(i);
  log(`cycles: ${cfg.cycles} connect/close in ${((Date.now() - t) / 1000).toFixed(1)} s, rss ${mb(process.memoryUsage().rss)} MB`);

  // ---- figures ---------------------------------------------------------------------------------
  // Sockets and children close asynchronously: give them a moment (bounded) to be gone.
  let children = childPids().filter((p) => p !== server.pid);
  let fds = countFds();
  for (let i = 0; i < 50 && (children.length > 0 || fds > fdsAtStart); i++) {
    await new Promise((r) => setTimeout(r, 100));
    children = childPids().filter((p) => p !== server.pid);
    fds = countFds();
  }
  await settle();
  const rssEnd = process.memoryUsage().rss;
  const heapEnd = process.memoryUsage().heapUsed;
  const growth = Math.max(((rssEnd - rssBase) / rssBase) * 100, ...phaseGrowth);
  const pendingMax = Math.max(...pendingSeen.map((p) => p.pending));
  const leakWarnings = warnings.filter((w) => w.startsWith('MaxListenersExceededWarning'));
  const stdioAlive = stdioPid !== undefined && isAlive(stdioPid);

  server.send('stop');
  await new Promise((r) => server.once('exit', r));
  const traceBytes = fs.readdirSync(tmp).reduce((n, f) => n + fs.statSync(path.join(tmp, f)).size, 0);
  fs.rmSync(tmp, { recursive: true, force: true });

  const figures = [
    ['calls', callsDone, callsDone >= 2 * cfg.calls],
    ['pendingCount', pendingMax, pendingMax === 0],
    ['failedCalls', failedCalls, failedCalls === 0],
    ['children', children.length + (stdioAlive ? 1 : 0), children.length === 0 && !stdioAlive],
    ['rssBaseMB', mb(rssBase), true],
    ['rssEndMB', mb(rssEnd), true],
    ['heapBaseMB', mb(heapBase), true],
    ['heapEndMB', mb(heapEnd), true],
    ['rssGrowthPct', growth.toFixed(1), growth < RSS_LIMIT_PCT],
    ['listenerWarnings', leakWarnings.length, leakWarnings.length === 0],
    ['otherWarnings', warnings.length - leakWarnings.length, warnings.length === leakWarnings.length],
    ['fdsStart', fdsAtStart, true],
    ['fdsEnd', fds, fds <= fdsAtStart],
    ['renewals', `${renewed}/${cfg.renewals}`, renewed >= cfg.renewals && renewalFailures === 0],
    ['cycles', cfg.cycles, true],
    ['traceMB', mb(traceBytes), traceBytes > 0],
    ['seconds', ((Date.now() - started) / 1000).toFixed(1), true],
  ];
  for (const w of warnings) console.log(`SOAK warning ${w}`);
  for (const [name, value, ok] of figures) console.log(`SOAK ${name} ${value} ${ok ? 'ok' : 'FAIL'}`);
  const failed = figures.filter(([, , ok]) => !ok).map(([n]) => n);
  console.log(`SOAK result ${failed.length === 0 ? 'ok' : `FAIL (${failed.join(', ')})`}`);
  process.exit(failed.length === 0 ? 0 : 1);
}

function mb(bytes) {
  return (bytes / 1024 / 1024).toFixed(1);
}

function countFds() {
  try {
    return fs.readdirSync('/proc/self/fd').length;
  } catch {
    return 0; // not Linux: no figure
  }
}

/** Live child processes of this process (Linux /proc; zombies count: they were not reaped). */
function childPids() {
  const out = [];
  let entries = [];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return out;
  }
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === process.pid) out.push(Number(e));
    } catch {
      /* gone meanwhile */
    }
  }
  return out;
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
