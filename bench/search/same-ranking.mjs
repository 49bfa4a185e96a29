#!/usr/bin/env node
// The ranking's fingerprint, to prove that a change meant for speed changed no answer:
// every request of the eval and held-out sets, searched over the real catalog alone and inside
// 10,000 synthetic tools, top 5 (names and scores), plus a few edge queries and the filters.
//
//   node bench/search/same-ranking.mjs --write before.json [--dist DIR]   the lists of a build
//   node bench/search/same-ranking.mjs --check before.json [--dist DIR]   the same lists, or exit 1
//
// The real servers are started once and their catalog kept in bench/search/results/real-catalog.json
// (`--fresh` starts them again), so both builds rank the very same tools.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkEvalSet, entriesOf, key } from './harness.mjs';
import { syntheticCatalog } from './synthetic.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const arg = (name) => {
  const i = process.argv.indexOf(name);
  return i < 0 ? undefined : process.argv[i + 1];
};
const dist = path.resolve(arg('--dist') ?? path.join(here, '../../dist'));
const write = arg('--write');
const check = arg('--check');
if ((write === undefined) === (check === undefined)) throw new Error('usage: same-ranking.mjs --write FILE | --check FILE [--dist DIR] [--fresh]');
const hostApi = await import(path.join(dist, 'host-api.js'));
const { createToolIndex } = await import(path.join(dist, 'host/search/tool-index.js'));

const cacheFile = path.join(here, 'results', 'real-catalog.json');
async function realEntries() {
  if (!process.argv.includes('--fresh') && fs.existsSync(cacheFile)) return JSON.parse(fs.readFileSync(cacheFile, 'utf8'));
  const { realCatalog } = await import('./servers.mjs');
  const real = await realCatalog(hostApi);
  const entries = entriesOf(real.catalog, real.titles);
  fs.mkdirSync(path.dirname(cacheFile), { recursive: true });
  fs.writeFileSync(cacheFile, JSON.stringify(entries));
  return entries;
}

const sets = fs.readdirSync(here).filter((f) => /^eval-.*\.json$/.test(f)).sort();
const requests = sets.flatMap((f) => checkEvalSet(JSON.parse(fs.readFileSync(path.join(here, f), 'utf8'))).map((r) => ({ ...r, set: f })));
const edge = ['', 'the a of', 'ünïcödé façade', 'getUserById', 'screensh', 'delete delete delete', 'x'.repeat(2000), 'list list files files in in the the folder'];

const real = await realEntries();
const big = hostApi.adaptTools(syntheticCatalog(10_000));
const mixed = [...real, ...entriesOf(big)];
const lists = {};
for (const [name, entries] of [['real', real], ['mixed', mixed]]) {
  const index = await createToolIndex();
  index.sync(entries);
  const servers = [...new Set(entries.map((e) => e.tool.server))].slice(0, 3);
  for (const r of requests) {
    if (name === 'real' && r.catalog !== 'real') continue;
    const top = (opts) => index.search(r.query, opts).map((h) => `${key(h)} ${h.score}`);
    lists[`${name} ${r.set} ${r.query}`] = top({ limit: 5 });
    lists[`${name} ${r.set} ${r.query} [10]`] = top({ limit: 10 });
    lists[`${name} ${r.set} ${r.query} [servers]`] = top({ limit: 5, servers });
    lists[`${name} ${r.set} ${r.query} [readOnly]`] = top({ limit: 5, readOnly: true });
  }
  for (const q of edge) lists[`${name} edge ${q}`] = index.search(q, { limit: 50 }).map((h) => `${key(h)} ${h.score}`);
}

const n = Object.keys(lists).length;
if (write !== undefined) {
  fs.writeFileSync(write, JSON.stringify(lists, null, 1));
  console.log(`${n} lists written to ${write} (${requests.length} requests of ${sets.join(', ')}; real catalog ${real.length} tools)`);
} else {
  const before = JSON.parse(fs.readFileSync(check, 'utf8'));
  const keys = new Set([...Object.keys(before), ...Object.keys(lists)]);
  let differ = 0;
  for (const k of keys) {
    const a = JSON.stringify(before[k]);
    const b = JSON.stringify(lists[k]);
    if (a === b) continue;
    if (++differ <= 10) console.log(`differs: ${k}\n  before ${a}\n  now    ${b}`);
  }
  console.log(`${keys.size - differ} of ${keys.size} lists identical (${requests.length} requests of ${sets.join(', ')})`);
  if (differ > 0) process.exit(1);
}
