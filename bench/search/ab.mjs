#!/usr/bin/env node
// Query and build cost of two builds side by side in one process (bench/search/README.md, "Cost"):
// the same synthetic catalogs, each build's index made in turn, then every eval-set query run by
// one index then the other (the order swapped every round), so both see the same machine. CPU
// time (user + system) per query: p50 / p95 / p99.
//
//   node --expose-gc bench/search/ab.mjs --base DIR [--new DIR] [--rounds 20] [--sizes 100,1000,10000] [--builds 8]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkEvalSet, entriesOf } from './harness.mjs';
import { syntheticCatalog } from './synthetic.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i < 0 ? dflt : process.argv[i + 1];
};
const dists = { base: path.resolve(arg('--base')), new: path.resolve(arg('--new', path.join(here, '../../dist'))) };
const rounds = Number(arg('--rounds', '20'));
const builds = Number(arg('--builds', '8'));
const sizes = arg('--sizes', '100,1000,10000').split(',').map(Number);
const hostApi = await import(path.join(dists.new, 'host-api.js'));
const make = {};
for (const [k, d] of Object.entries(dists)) make[k] = (await import(path.join(d, 'host/search/tool-index.js'))).createToolIndex;
const queries = checkEvalSet(JSON.parse(fs.readFileSync(path.join(here, 'eval-set.json'), 'utf8'))).map((r) => r.query);
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const pick = (xs, p) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const f = (x) => x.toFixed(3);
console.log(`load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}; ${rounds} rounds of ${queries.length} queries; base ${dists.base}`);
for (const n of sizes) {
  const entries = entriesOf(hostApi.adaptTools(syntheticCatalog(n)));
  const b = { base: [], new: [] };
  const index = {};
  for (let i = 0; i < builds; i++) {
    for (const k of i % 2 === 0 ? ['base', 'new'] : ['new', 'base']) {
      globalThis.gc?.();
      const c0 = cpu();
      const ix = await make[k]();
      ix.sync(entries);
      b[k].push(cpu() - c0);
      index[k] = ix;
    }
  }
  const q = { base: [], new: [] };
  for (const k of ['base', 'new']) for (const s of queries) index[k].search(s, { limit: 5 });
  for (let r = 0; r < rounds; r++) {
    for (const s of queries) {
      for (const k of r % 2 === 0 ? ['base', 'new'] : ['new', 'base']) {
        const c0 = cpu();
        index[k].search(s, { limit: 5 });
        q[k].push(cpu() - c0);
      }
    }
  }
  const line = (k) => {
    b[k].sort((x, y) => x - y);
    q[k].sort((x, y) => x - y);
    return `build min/median ${f(b[k][0])}/${f(pick(b[k], 50))} ms; query p50/p95/p99 ${f(pick(q[k], 50))}/${f(pick(q[k], 95))}/${f(pick(q[k], 99))} ms`;
  };
  console.log(`${n} tools  base: ${line('base')}`);
  console.log(`${n} tools  new:  ${line('new')}`);
}
