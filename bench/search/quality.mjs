#!/usr/bin/env node
// Recall of one build on chosen sets, over the cached real catalog (same-ranking.mjs writes it) and
// inside 10,000 synthetic tools, without starting the servers: for working on the ranking between
// bench runs. `node bench/search/quality.mjs [--dist DIR] [--misses] eval-set.json [eval-held-out-2.json …]`
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkEvalSet, entriesOf, recall } from './harness.mjs';
import { syntheticCatalog } from './synthetic.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const at = argv.indexOf('--dist');
const dist = path.resolve(at < 0 ? path.join(here, '../../dist') : argv.splice(at, 2)[1]);
const misses = argv.includes('--misses');
const files = argv.filter((a) => !a.startsWith('--'));
const hostApi = await import(path.join(dist, 'host-api.js'));
const { createToolIndex } = await import(path.join(dist, 'host/search/tool-index.js'));
const real = JSON.parse(fs.readFileSync(path.join(here, 'results', 'real-catalog.json'), 'utf8'));
const alone = await createToolIndex();
alone.sync(real);
const mixed = await createToolIndex();
mixed.sync([...real, ...entriesOf(hostApi.adaptTools(syntheticCatalog(10_000)))]);
const pct = (x) => `${(x * 100).toFixed(1)}%`;
for (const f of files) {
  const requests = checkEvalSet(JSON.parse(fs.readFileSync(path.join(here, f), 'utf8')));
  const a = recall(alone, requests.filter((r) => r.catalog === 'real'));
  const m = recall(mixed, requests);
  console.log(`${f}: real ${a.n} @1 ${pct(a.recall1)} @5 ${pct(a.recall5)} | mixed ${m.n} @1 ${pct(m.recall1)} @5 ${pct(m.recall5)}`);
  if (misses) for (const x of m.misses) console.log(`  miss: "${x.query}" → ${x.expect.join(' | ')}; got ${x.got.join(', ')}`);
}
