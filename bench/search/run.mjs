#!/usr/bin/env node
// `npm run bench:search` — tool search, measured (bench/search/README.md): quality (recall@1 and
// @5 of the eval set over the real servers installed here, alone and inside a 10,000-tool synthetic
// catalog), cost (index build, query p50/p95, index heap at 100, 1,000 and 10,000 tools) and
// context (tokens of the tool list with and without search). Run with --expose-gc for the heap
// figures (the npm script does). `--tiny` skips the real servers and uses 100 synthetic tools.
// `--held-out` also runs the held-out sets (once per round, at its end: they are never tuned on).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildCost, checkEvalSet, entriesOf, key, queryCost, recall, tokens } from './harness.mjs';
import { realCatalog } from './servers.mjs';
import { syntheticCatalog } from './synthetic.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.join(here, '../../dist');
const tiny = process.argv.includes('--tiny');
const withHeldOut = process.argv.includes('--held-out');
const hostApi = await import(path.join(dist, 'host-api.js'));
const { createToolIndex } = await import(path.join(dist, 'host/search/tool-index.js'));
const requests = checkEvalSet(JSON.parse(fs.readFileSync(path.join(here, 'eval-set.json'), 'utf8')));
const heldOutSets = ['eval-held-out.json', 'eval-held-out-2.json', 'eval-held-out-3.json'].map((f) => ({ file: f, requests: checkEvalSet(JSON.parse(fs.readFileSync(path.join(here, f), 'utf8'))) }));
const pct = (x) => `${(x * 100).toFixed(1)}%`;
const ms = (x) => `${x.toFixed(3)} ms`;
const out = [];
const say = (line = '') => {
  out.push(line);
  console.log(line);
};

const synthetic = (n) => hostApi.adaptTools(syntheticCatalog(n));

// Quality
const real = tiny ? undefined : await realCatalog(hostApi);
const realReqs = requests.filter((r) => r.catalog === 'real');
if (real !== undefined) {
  const servers = new Set(real.catalog.tools.map((t) => t.server));
  say(`real catalog: ${real.catalog.tools.length} tools of ${servers.size} servers (${[...servers].join(', ')})`);
  const index = await createToolIndex();
  index.sync(entriesOf(real.catalog, real.titles));
  const big = synthetic(10_000);
  const mixed = { tools: [...real.catalog.tools, ...big.tools], byName: new Map([...real.catalog.byName, ...big.byName]) };
  // a request whose labels name no tool of the catalog could never be found: the set is wrong, not the ranking
  const known = new Set(mixed.tools.map(key));
  const unanswerable = [...requests, ...heldOutSets.flatMap((h) => h.requests)].filter((r) => !r.expect.some((e) => known.has(e)));
  if (unanswerable.length > 0) throw new Error(`eval set: no labelled tool is in the catalog for ${unanswerable.map((r) => JSON.stringify(r.query)).join(', ')}`);
  const q = recall(index, realReqs);
  say(`quality, real catalog alone: ${q.n} requests, recall@1 ${pct(q.recall1)}, recall@5 ${pct(q.recall5)}`);
  for (const m of q.misses) say(`  miss: "${m.query}" → expected ${m.expect.join(' | ')}; got ${m.got.join(', ') || 'nothing'}`);
  const both = await createToolIndex();
  both.sync(entriesOf(mixed, real.titles));
  const all = recall(both, requests);
  say(`quality, real + 10,000 synthetic tools: ${all.n} requests (${realReqs.length} real, ${all.n - realReqs.length} synthetic), recall@1 ${pct(all.recall1)}, recall@5 ${pct(all.recall5)}`);
  for (const m of all.misses) say(`  miss (mixed): "${m.query}" → expected ${m.expect.join(' | ')}; got ${m.got.join(', ') || 'nothing'}`);
  for (const { file, requests: heldOut } of withHeldOut ? heldOutSets : []) {
    const hr = recall(index, heldOut.filter((r) => r.catalog === 'real'));
    const hm = recall(both, heldOut);
    say(`held-out ${file} (never used for tuning): real catalog alone ${hr.n} requests, recall@1 ${pct(hr.recall1)}, recall@5 ${pct(hr.recall5)}; real + 10,000 synthetic ${hm.n} requests, recall@1 ${pct(hm.recall1)}, recall@5 ${pct(hm.recall5)}`);
    for (const m of hr.misses) say(`  miss (real alone): "${m.query}" → expected ${m.expect.join(' | ')}; got ${m.got.join(', ') || 'nothing'}`);
    for (const m of hm.misses) say(`  miss: "${m.query}" → expected ${m.expect.join(' | ')}; got ${m.got.join(', ') || 'nothing'}`);
  }
  if (!withHeldOut) say('held-out sets: not run (`--held-out`, once per round at its end)');
}

// Cost
const queries = requests.map((r) => r.query);
say();
say('cost (synthetic catalogs; every eval-set query, 20 rounds):');
say(`load average at start: ${os.loadavg().map((x) => x.toFixed(1)).join(' ')} on ${os.cpus().length} CPUs (wall times include waiting for a CPU; CPU times do not)`);
say('| tools | build wall p50 (max of 5) | build CPU p50 (min of 5) | query wall p50 / p95 | query CPU p50 / p95 | index heap |');
say('| ---: | ---: | ---: | ---: | ---: | ---: |');
for (const n of tiny ? [100] : [100, 1_000, 10_000]) {
  const entries = entriesOf(synthetic(n));
  const b = await buildCost(createToolIndex, entries);
  const qc = queryCost(b.index, queries, tiny ? 2 : 20);
  const heap = b.heapBytes === undefined ? 'n/a (run with --expose-gc)' : `${(b.heapBytes / 1024 / 1024).toFixed(1)} MiB`;
  say(`| ${n.toLocaleString('en')} | ${ms(b.buildMs.p50)} (${ms(b.buildMs.max)}) | ${ms(b.buildCpuMs.p50)} (${ms(b.buildCpuMs.min)}) | ${ms(qc.p50)} / ${ms(qc.p95)} | ${ms(qc.cpuP50)} / ${ms(qc.cpuP95)} | ${heap} |`);
}

// Context
if (real !== undefined) {
  const without = tokens(real.all);
  const withSearch = tokens(real.search);
  const serverTools = tokens(real.catalog.tools);
  const twoTools = tokens(real.search.filter((d) => d.name === 'mcp_tools_search' || d.name === 'mcp_tool_call'));
  say();
  say(`context, real catalog (characters / 4 of the tool list's JSON: name, description, input_schema):`);
  say(`  whole list: every tool ${without.tokens.toLocaleString('en')} tokens (${real.all.length} tools, the host's ${real.all.length - real.catalog.tools.length} resource/prompt/result tools included); with search ${withSearch.tokens.toLocaleString('en')} tokens (${real.search.length} tools); ${(without.tokens / withSearch.tokens).toFixed(1)}× smaller`);
  say(`  the servers' tools alone: ${serverTools.tokens.toLocaleString('en')} tokens (${real.catalog.tools.length} tools) → the two search tools ${twoTools.tokens.toLocaleString('en')} tokens; ${(serverTools.tokens / twoTools.tokens).toFixed(1)}× smaller`);
  const index = await createToolIndex();
  index.sync(entriesOf(real.catalog, real.titles));
  const sizes = realReqs.map((r) => JSON.stringify({ tools: index.search(r.query, { limit: 5 }).map((h) => ({ name: h.name, server: h.server, tool: h.tool, score: h.score, description: h.description, inputSchema: h.parameters })) }).length / 4);
  sizes.sort((a, b) => a - b);
  say(`  one search's answer (5 tools with schemas), median over the real requests: ${Math.round(sizes[Math.floor(sizes.length / 2)]).toLocaleString('en')} tokens`);
}
fs.mkdirSync(path.join(here, 'results'), { recursive: true });
fs.writeFileSync(path.join(here, 'results', tiny ? 'tiny.txt' : 'latest.txt'), `${out.join('\n')}\n`);
