#!/usr/bin/env node
// Manager (seed 003, @akiojin/agents style): many servers, parallel calls, per-server limits and
// retries, one server crashing in the middle of it.
//
// - `everything` is the reference server (@modelcontextprotocol/server-everything, stdio).
// - `flaky` is the bundled scripted mock; its `crashOnce` tool kills the server process the first
//   time it is called, taking every call in flight down with it. Its entry sets
//   `max_parallel: 2` (a queue in front of the server; the wait counts against each call's
//   timeout) and `retry` (transport failures and timeouts of idempotent calls are retried after
//   the host reconnected the server — never a tool's own `isError`). A tool's `idempotentHint` is
//   the server's claim, believed only for a server marked `trust_annotations` (this one: we
//   wrote it).
// - The calls are fired at once with Promise.all; `host.callTool` never throws: each result says
//   how it ended (`isError`, and `outcome` / `attempts` for the typed view).
//
// Run: npm run build && node examples/parallel-manager.mjs
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHost } from 'mcpwire/host';

const here = path.dirname(fileURLToPath(import.meta.url));
const mock = path.join(here, '..', 'mock-servers', 'stdio-server.mjs');
// In a project of your own: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'] }
const everything = path.join(here, '..', 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-example-'));
const marker = path.join(work, 'crashed-once');

const host = createHost([], { permission: 'allow', backoff: { initialDelayMs: 100, maxDelayMs: 500 } });
const seen = [];
host.on('stateChange', ({ server, to }) => server === 'flaky' && seen.push(to));
await host.start();
await Promise.all([
  host.addServer('everything', { command: process.execPath, args: [everything, 'stdio'], max_parallel: 4 }),
  host.addServer('flaky', {
    command: process.execPath,
    args: [mock],
    env: { MOCK_SCENARIO_JSON: JSON.stringify({ tools: ['crashOnce', 'concurrent', 'inflight'] }) },
    max_parallel: 2,
    retry: { max_retries: 3, base_delay_ms: 100 },
    trust_annotations: true,
  }),
]);
for (const s of host.status()) console.log(`${s.id}: ${s.state}, ${s.tools} tools, pid ${s.pid === undefined ? '-' : 'set'}`);

const tool = (server, name) => host.tools().find((t) => t.server === server && t.tool === name).name;
const sum = tool('everything', 'get-sum');
const crashOnce = tool('flaky', 'crashOnce');

const jobs = [
  ...Array.from({ length: 8 }, (_, i) => ({ server: 'everything', run: () => host.callTool(sum, { a: i, b: 100 }) })),
  ...Array.from({ length: 4 }, (_, i) => ({ server: 'flaky', run: () => host.callTool(crashOnce, { marker, ms: 150, id: i }) })),
];
const results = await Promise.all(jobs.map((j) => j.run().then((r) => ({ server: j.server, r }))));

for (const server of ['everything', 'flaky']) {
  const mine = results.filter((x) => x.server === server);
  const ok = mine.filter((x) => !x.r.isError).length;
  const retried = mine.filter((x) => (x.r.attempts ?? 1) > 1).length;
  console.log(`${server}: ${ok}/${mine.length} ok, ${retried} retried`);
  for (const x of mine.filter((m) => m.r.isError)) console.log(`  failed: ${x.r.outcome ?? 'error'}: ${x.r.content[0]?.text}`);
}
const sums = results.filter((x) => x.server === 'everything').map((x) => x.r.content[0]?.text.match(/(\d+)\.?$/)?.[1]);
console.log(`sums: ${sums.join(' ')}`);
console.log(`flaky went: ${seen.join(' → ')}`);

// The limit is real: 10 more calls to `concurrent`, the server counts what it sees at once.
const concurrent = tool('flaky', 'concurrent');
await Promise.all(Array.from({ length: 10 }, () => host.callTool(concurrent, { ms: 50 })));
const counts = JSON.parse((await host.callTool(tool('flaky', 'inflight'), {})).content[0].text);
console.log(`flaky saw at most ${counts.maxInFlight} calls in flight`);

await host.close();
fs.rmSync(work, { recursive: true, force: true });
