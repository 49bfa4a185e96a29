#!/usr/bin/env node
// Does the SDK's server burn more CPU per call when mcpwire is its client than when the SDK
// client is? An A/B probe: both clients (and the raw client) send the same
// echo calls to the same SDK server, alternating, pinned like `npm run bench`; prints the
// server's CPU per call (from /proc) for each, median [min-max] over the rounds.
//
//   node bench/server-cpu-ab.mjs [--rounds 5] [--seq 2000] [--conc-n 6400] [--strace]
//
// --strace: one extra round per client with the server under `strace -f -c` (unpinned timing
// changes, so only the syscall counts are meaningful), to compare what the server does per call.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findHarness, stageHarness } from './lib/harness.mjs';
import { cell, table } from './lib/stats.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const arg = (k, d) => {
  const i = args.indexOf(`--${k}`);
  return i >= 0 && args[i + 1] !== undefined ? Number(args[i + 1]) : d;
};
const rounds = arg('rounds', 5);
const load = ['--seq', String(arg('seq', 2000)), '--seq-warmup', '1000', '--conc-n', String(arg('conc-n', 6400)), '--conc-warmup', '1280', '--blob-reps', '0', '--blob', '10'];
const staged = stageHarness(root, findHarness(root));
const H = (f) => path.join(staged.dir, f);
const pinned = spawnSync('sh', ['-c', 'command -v taskset']).status === 0 && os.cpus().length >= 2;
const cli = pinned ? ['taskset', '-c', '0', process.execPath] : [process.execPath];
const server = (wrap) => [...(wrap ?? (pinned ? ['taskset', '-c', '1'] : [])), process.execPath, H('server.mjs'), 'stdio'].join(' ');
const CLIENTS = {
  sdk: (srv) => [H('sdk-client-bench.mjs'), 'stdio', '--server-cmd', srv],
  mcpwire: (srv) => [H('engine-client-bench.mjs'), path.join(root, 'dist', 'index.js'), 'stdio', '--server-cmd', srv, '--impl', 'mcpwire'],
  raw: (srv) => [H('raw-baseline.mjs'), 'stdio', '--server-cmd', srv],
};

function once(name, srv) {
  const r = spawnSync(cli[0], [...cli.slice(1), '--expose-gc', ...CLIENTS[name](srv), ...load], { encoding: 'utf8', timeout: 300_000 });
  const line = r.stdout?.split('\n').find((l) => l.startsWith('{'));
  if (r.status !== 0 || !line) throw new Error(`${name} failed: ${r.stderr?.slice(-400)}`);
  return JSON.parse(line);
}

const rows = Object.fromEntries(Object.keys(CLIENTS).map((k) => [k, []]));
const load0 = os.loadavg()[0].toFixed(2);
try {
  for (let i = 0; i < rounds; i++) for (const name of Object.keys(CLIENTS)) rows[name].push(once(name, server()));
  const metrics = [['seq calls/s', 'seq_cps'], ['client µs/call seq', 'seq_client_cpu_us'], ['server µs/call seq', 'seq_server_cpu_us'],
    ['c64 calls/s', 'conc_cps'], ['client µs/call c64', 'conc_client_cpu_us'], ['server µs/call c64', 'conc_server_cpu_us']];
  console.log(`SDK server, ${rounds} alternating rounds, ${pinned ? 'client CPU 0 / server CPU 1' : 'unpinned'}; loadavg ${load0} -> ${os.loadavg()[0].toFixed(2)}`);
  console.log(table(['client', ...metrics.map((m) => m[0])], Object.entries(rows).map(([n, rs]) => [n, ...metrics.map((m) => cell(rs.map((r) => r[m[1]])))])));
  if (args.includes('--strace')) {
    for (const name of Object.keys(CLIENTS)) {
      const out = path.join(staged.dir, `strace-${name}.txt`);
      once(name, server(['strace', '-f', '-c', '-o', out]));
      const counts = {};
      for (const l of fs.readFileSync(out, 'utf8').split('\n')) {
        const m = /^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)$/.exec(l);
        if (m) counts[m[2]] = Number(m[1]);
      }
      const n = arg('seq', 2000) + 1000 + arg('conc-n', 6400) + 1280;
      const per = (k) => ((counts[k] ?? 0) / n).toFixed(2);
      console.log(`strace, server under ${name}: per call read ${per('read')}, write ${per('write')}, epoll_pwait ${per('epoll_pwait')}, futex ${per('futex')}`);
    }
  }
} finally {
  staged.cleanup();
}
