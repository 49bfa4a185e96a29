#!/usr/bin/env node
/**
 * What `mcpwire tap` adds per message (stdio): N sequential ping round trips to a minimal
 * JSON-RPC echo server, directly and through the tap (tracing to a temp file), interleaved in
 * rounds; prints the median round-trip time of each and the difference per message (a round trip
 * is two messages through the relay). Needs `npm run build` first.
 *
 *   node scripts/tap-bench.mjs [--n 2000] [--rounds 5]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const N = opt('--n', 2000);
const ROUNDS = opt('--rounds', 5);
const root = resolve(import.meta.dirname, '..');
const cli = join(root, 'dist/cli/main.js');
const SERVER = `let b='';process.stdin.on('data',c=>{b+=c;let i;while((i=b.indexOf('\\n'))>=0){const m=JSON.parse(b.slice(0,i));b=b.slice(i+1);process.stdout.write(JSON.stringify({jsonrpc:'2.0',id:m.id,result:{}})+'\\n');}});`;
const dir = mkdtempSync(join(tmpdir(), 'mcpwire-tap-bench-'));

function start(tapped, round) {
  const argv = tapped ? [cli, 'tap', '--trace', join(dir, `r${round}.jsonl`), '--', process.execPath, '-e', SERVER] : ['-e', SERVER];
  return spawn(process.execPath, argv, { stdio: ['pipe', 'pipe', 'inherit'] });
}

async function measure(tapped, round) {
  const child = start(tapped, round);
  let buf = '';
  let waiter;
  child.stdout.on('data', (c) => {
    buf += c;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      buf = buf.slice(i + 1);
      waiter?.();
    }
  });
  const ping = (id) =>
    new Promise((r) => {
      waiter = r;
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' })}\n`);
    });
  for (let i = 0; i < 200; i++) await ping(i); // warm up
  const times = [];
  for (let i = 0; i < N; i++) {
    const t0 = performance.now();
    await ping(i);
    times.push(performance.now() - t0);
  }
  child.stdin.end();
  await new Promise((r) => child.once('close', r));
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

const direct = [];
const tapped = [];
for (let r = 0; r < ROUNDS; r++) {
  direct.push(await measure(false, r));
  tapped.push(await measure(true, r));
}
const med = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
const d = med(direct);
const t = med(tapped);
console.log(`ping round trip, median of ${ROUNDS} rounds × ${N}: direct ${(d * 1000).toFixed(1)} µs, through tap ${(t * 1000).toFixed(1)} µs`);
console.log(`tap overhead: ${((t - d) * 1000).toFixed(1)} µs per round trip = ${(((t - d) / 2) * 1000).toFixed(1)} µs per message`);
