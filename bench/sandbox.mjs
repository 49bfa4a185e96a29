#!/usr/bin/env node
/**
 * The cost of a sandbox (docs/sandbox.md): connect time and CPU per call of the same stdio
 * server (mock-servers/stdio-server.mjs) unsandboxed and sandboxed with bubblewrap (defaults,
 * and with a network allow-list, which adds the host's proxy and the in-sandbox relay).
 * Alternating rounds, fresh processes each; medians [min-max]. Needs `npm run build` and Linux
 * with bwrap. Not a test: nothing asserts, it prints.
 *
 *   node bench/sandbox.mjs [--rounds 5] [--calls 2000]
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const { connect } = await import(path.join(root, 'dist', 'index.js'));
const { values } = parseArgs({ options: { rounds: { type: 'string', default: '5' }, calls: { type: 'string', default: '2000' } } });
const rounds = Number(values.rounds);
const calls = Number(values.calls);
const server = path.join(root, 'mock-servers', 'stdio-server.mjs');
const TICK_MS = 10; // /proc/<pid>/stat counts CPU in clock ticks of 1/100 s on Linux

const variants = {
  plain: undefined,
  sandboxed: {},
  'sandboxed+proxy': { network: { allow: ['localhost:1'] } },
};

/** CPU ms (user + system) of `pid` and every process below it, from /proc. */
function treeCpuMs(pid) {
  const procs = new Map();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'latin1');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      procs.set(Number(d), { ppid: Number(f[1]), cpu: (Number(f[11]) + Number(f[12])) * TICK_MS });
    } catch {
      // gone meanwhile
    }
  }
  let total = 0;
  const todo = [pid];
  while (todo.length > 0) {
    const p = todo.pop();
    total += procs.get(p)?.cpu ?? 0;
    for (const [child, info] of procs) if (info.ppid === p) todo.push(child);
  }
  return total;
}

async function once(sandbox) {
  const t0 = performance.now();
  const client = await connect({ transport: 'stdio', id: 'bench', command: process.execPath, args: [server], ...(sandbox ? { sandbox } : {}) }, { timeoutMs: 30_000 });
  const connectMs = performance.now() - t0;
  for (let i = 0; i < 200; i++) await client.callTool('echo', { text: 'warm' }, {});
  const pid = client.pid;
  const serverBefore = treeCpuMs(pid);
  const cpu0 = process.cpuUsage();
  const w0 = performance.now();
  for (let i = 0; i < calls; i++) await client.callTool('echo', { text: `call ${i}` }, {});
  const wall = performance.now() - w0;
  const cpu = process.cpuUsage(cpu0);
  const serverMs = treeCpuMs(pid) - serverBefore;
  await client.close();
  return { connectMs, callUs: (wall * 1000) / calls, clientCpuUs: (cpu.user + cpu.system) / calls, serverCpuUs: (serverMs * 1000) / calls };
}

const results = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
for (let r = 0; r < rounds; r++) for (const [name, sandbox] of Object.entries(variants)) results[name].push(await once(sandbox));

const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (xs, d = 0) => `${med(xs).toFixed(d)} [${Math.min(...xs).toFixed(d)}-${Math.max(...xs).toFixed(d)}]`;
console.log(`sandbox cost: ${rounds} rounds, ${calls} sequential echo calls each (median [min-max])`);
console.log(['variant'.padEnd(16), 'connect ms'.padEnd(18), 'µs/call'.padEnd(18), 'client CPU µs/call'.padEnd(20), 'server tree CPU µs/call'].join(' '));
for (const [name, rs] of Object.entries(results)) {
  console.log([name.padEnd(16), fmt(rs.map((x) => x.connectMs)).padEnd(18), fmt(rs.map((x) => x.callUs)).padEnd(18), fmt(rs.map((x) => x.clientCpuUs), 1).padEnd(20), fmt(rs.map((x) => x.serverCpuUs), 1)].join(' '));
}
