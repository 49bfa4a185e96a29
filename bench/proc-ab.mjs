#!/usr/bin/env node
// Process A/B of two builds' stdio clients, untraced and traced, with the yardstick's loads:
// fresh client and server processes per run, clients on CPU 0 and servers on CPU 1 (taskset),
// the four variants (A, A traced, B, B traced) interleaved round by round (the order rotates),
// against the raw NDJSON server or the SDK server. Prints per variant the median [min-max] of
// client CPU per call (sequential, 64 in flight) and calls/s, then the ratios B/A and
// traced/untraced per round (median [min-max]).
// --era 2026-07-28|2025-11-25: each build pinned to that era (clients/era-client-bench.mjs) on
// the SDK v2 dual server, untraced only (the bench's eras rows).
// --eras: both eras of each build on the SDK v2 dual server (A handshake, A modern, B handshake,
// B modern), untraced; the ratios are modern/handshake per build (the bench's eras c64 row).
// --gateway: the untraced client (this build's) through each build's `mcpwire serve` (stdio) in
// front of the SDK server instead; what is compared is the gateway process's own CPU per call.
// --gateway --http: the same through `mcpwire serve --http` (a fresh gateway per run, the client
// over HTTP on loopback; its CPU read from /proc). --floor adds a third variant: the minimal
// node:http relay (bench/http-stdio-relay.mjs) in front of the same server, the shape's floor.
//
//   node bench/proc-ab.mjs <distA> <distB> [--rounds 5] [--server raw|sdk] [--era V | --eras] [--gateway [--http [--floor]]] [--seq 3000] [--seq-warmup 1500] [--conc-n 12800]
// (--seq-warmup 30000: the sequential calls measured past V8's compiling of the per-call code)
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { optionReader } from './lib/args.mjs';
import { findHarness, stageHarness } from './lib/harness.mjs';
import { cell, table } from './lib/stats.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = optionReader(args);
const FLAGS = new Set(['--gateway', '--eras', '--http', '--floor']);
const [distA, distB] = args.filter((a, i) => !a.startsWith('--') && !(args[i - 1]?.startsWith('--') && !FLAGS.has(args[i - 1])));
const gateway = args.includes('--gateway');
const overHttp = gateway && args.includes('--http');
const floor = overHttp && args.includes('--floor');
if (!distA || !distB) {
  console.error('usage: node bench/proc-ab.mjs <distA> <distB> [--rounds N] [--server raw|sdk]');
  process.exit(2);
}
const rounds = Number(opt('rounds', 5));
const serverKind = opt('server', 'raw');
const load = ['--seq', opt('seq', '3000'), '--seq-warmup', opt('seq-warmup', '1500'), '--conc-n', opt('conc-n', '12800'), '--conc-warmup', '1280', '--blob-reps', '0', '--blob', '10'];
const staged = stageHarness(root, findHarness(root));
const H = (f) => path.join(staged.dir, f);
const pinned = spawnSync('sh', ['-c', 'command -v taskset']).status === 0 && os.cpus().length >= 2;
const cli = pinned ? ['taskset', '-c', '0', process.execPath] : [process.execPath];
const srv = [...(pinned ? ['taskset', '-c', '1'] : []), process.execPath, ...(serverKind === 'sdk' ? [H('server.mjs'), 'stdio'] : [H('raw-baseline.mjs'), 'serve-stdio'])].join(' ');
const index = (dist) => path.resolve(dist, 'index.js');
const gatewayConfig = path.join(staged.dir, 'gateway.json');
fs.writeFileSync(gatewayConfig, JSON.stringify({ version: 1, mcp: { servers: { bench: { transport: 'stdio', command: process.execPath, args: [H('server.mjs'), 'stdio'] } } } }));
const serve = (dist) => [...(pinned ? ['taskset', '-c', '1'] : []), process.execPath, path.resolve(dist, 'cli', 'main.js'), '--config', gatewayConfig, 'serve'].join(' ');
const era = opt('era', undefined);
const eras = args.includes('--eras');
const dual = [...(pinned ? ['taskset', '-c', '1'] : []), process.execPath, path.join(root, 'mock-servers', 'interop', 'sdk-v2-server.mjs'), 'stdio'].join(' ');
const eraClient = (dist, v) => [H('era-client-bench.mjs'), index(dist), 'stdio', '--server-cmd', dual, '--protocol-version', v];
const VARIANTS = eras ? {
  'A handshake': eraClient(distA, '2025-11-25'),
  'A modern': eraClient(distA, '2026-07-28'),
  'B handshake': eraClient(distB, '2025-11-25'),
  'B modern': eraClient(distB, '2026-07-28'),
} : era !== undefined ? {
  A: [H('era-client-bench.mjs'), index(distA), 'stdio', '--server-cmd', dual, '--protocol-version', era],
  B: [H('era-client-bench.mjs'), index(distB), 'stdio', '--server-cmd', dual, '--protocol-version', era],
} : gateway ? {
  A: [H('engine-client-bench.mjs'), path.join(root, 'dist', 'index.js'), 'stdio', '--server-cmd', serve(distA), '--impl', 'mcpwire'],
  B: [H('engine-client-bench.mjs'), path.join(root, 'dist', 'index.js'), 'stdio', '--server-cmd', serve(distB), '--impl', 'mcpwire'],
  ...(floor ? { floor: [] } : {}),
} : {
  A: [H('engine-client-bench.mjs'), index(distA), 'stdio', '--server-cmd', srv, '--impl', 'mcpwire'],
  'A traced': [H('traced-client-bench.mjs'), index(distA), 'stdio', '--server-cmd', srv],
  B: [H('engine-client-bench.mjs'), index(distB), 'stdio', '--server-cmd', srv, '--impl', 'mcpwire'],
  'B traced': [H('traced-client-bench.mjs'), index(distB), 'stdio', '--server-cmd', srv],
};

const HTTP_DIST = { A: distA, B: distB };

/** `mcpwire serve --http` of `dist` on CPU 1: its pid and URL once it listens. */
function startHttpGateway(dist) {
  const relay = [...(pinned ? ['taskset', '-c', '1'] : []), process.execPath, path.join(root, 'bench', 'http-stdio-relay.mjs'), '--', process.execPath, H('server.mjs'), 'stdio'];
  const [cmd, ...rest] = dist === undefined ? relay : [...serve(dist).split(' '), '--http'];
  const child = spawn(cmd, rest, { stdio: ['ignore', 'ignore', 'pipe'] });
  let buf = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('serve --http did not start')), 15_000);
    child.stderr.on('data', (c) => {
      buf += c;
      const m = /LISTEN (http:\/\/\S+)/.exec(buf);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1] });
      }
    });
    child.once('exit', (code) => reject(new Error(`serve --http exited (${code}): ${buf.slice(-400)}`)));
  });
}

async function once(name) {
  if (overHttp) {
    const { child, url } = await startHttpGateway(HTTP_DIST[name]);
    try {
      const clientArgs = [H('engine-client-bench.mjs'), path.join(root, 'dist', 'index.js'), 'http', url, '--server-pid', String(child.pid), '--impl', 'mcpwire'];
      const r = await new Promise((resolve) => {
        const c = spawn(cli[0], [...cli.slice(1), '--expose-gc', ...clientArgs, ...load], { stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        c.stdout.on('data', (d) => (stdout += d));
        c.stderr.on('data', (d) => (stderr += d));
        c.once('close', (status) => resolve({ status, stdout, stderr }));
      });
      const line = r.stdout.split('\n').find((l) => l.startsWith('{'));
      if (r.status !== 0 || !line) throw new Error(`${name} failed: ${r.stderr.slice(-400)}`);
      return JSON.parse(line);
    } finally {
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await gone;
    }
  }
  const r = spawnSync(cli[0], [...cli.slice(1), '--expose-gc', ...VARIANTS[name], ...load], { encoding: 'utf8', timeout: 300_000 });
  const line = r.stdout?.split('\n').find((l) => l.startsWith('{'));
  if (r.status !== 0 || !line) throw new Error(`${name} failed: ${r.stderr?.slice(-400)}`);
  return JSON.parse(line);
}

const names = Object.keys(VARIANTS);
const rows = Object.fromEntries(names.map((k) => [k, []]));
const load0 = os.loadavg()[0].toFixed(2);
try {
  for (let i = 0; i < rounds; i++) for (let j = 0; j < names.length; j++) {
    const name = names[(i + j) % names.length];
    rows[name].push(await once(name));
  }
  const cpu = gateway ? ['gateway µs/call', 'seq_server_cpu_us', 'conc_server_cpu_us'] : ['client µs/call', 'seq_client_cpu_us', 'conc_client_cpu_us'];
  const metrics = [[`${cpu[0]} seq`, cpu[1]], [`${cpu[0]} c64`, cpu[2]], ['seq calls/s', 'seq_cps'], ['c64 calls/s', 'conc_cps']];
  if (!gateway) metrics.push(['server µs/call seq', 'seq_server_cpu_us'], ['server µs/call c64', 'conc_server_cpu_us']);
  console.log(`${gateway ? `serve (${overHttp ? 'HTTP' : 'stdio'}) before the SDK` : eras ? 'SDK v2 dual, both eras,' : era !== undefined ? `SDK v2 dual, ${era},` : serverKind} server, ${rounds} rounds, ${pinned ? 'client CPU 0 / server CPU 1' : 'unpinned'}; loadavg ${load0} -> ${os.loadavg()[0].toFixed(2)}`);
  console.log(table(['variant', ...metrics.map((m) => m[0])], names.map((n) => [n, ...metrics.map((m) => cell(rows[n].map((r) => r[m[1]])))])));
  const ratio = (x, y, key) => rows[x].map((r, i) => r[key] / rows[y][i][key]);
  const pairs = [['B / A', 'B', 'A'], ['A / floor', 'A', 'floor'], ['B / floor', 'B', 'floor'], ['B traced / A traced', 'B traced', 'A traced'], ['A traced / A', 'A traced', 'A'], ['B traced / B', 'B traced', 'B'], ['A modern / A handshake', 'A modern', 'A handshake'], ['B modern / B handshake', 'B modern', 'B handshake'], ['B modern / A modern', 'B modern', 'A modern']].filter((p) => rows[p[1]] && rows[p[2]]);
  console.log(table(['ratio (same round)', 'CPU/call seq', 'CPU/call c64', 'c64 calls/s'], pairs.map(([label, x, y]) => [label, cell(ratio(x, y, cpu[1])), cell(ratio(x, y, cpu[2])), cell(ratio(x, y, 'conc_cps'))])));
} finally {
  staged.cleanup();
}
