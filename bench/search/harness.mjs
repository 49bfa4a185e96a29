// The tool-search bench's measurements, as functions (bench/search/run.mjs prints them; a small
// test runs them on a tiny catalog): recall@k of the eval set, index build and query times,
// index memory, and the size of the tool list a model sees.
import { performance } from 'node:perf_hooks';

/** `server/tool` of a hit or an adapted tool. */
export const key = (t) => `${t.server}/${t.tool}`;

/** Checks the eval set's shape; throws naming the first bad entry. */
export function checkEvalSet(set) {
  if (!Array.isArray(set?.requests)) throw new Error('eval set: "requests" must be an array');
  set.requests.forEach((r, i) => {
    const where = `eval set request ${i} (${JSON.stringify(r?.query)})`;
    if (typeof r?.query !== 'string' || r.query.trim() === '') throw new Error(`${where}: "query" must be a non-empty string`);
    if (r.catalog !== 'real' && r.catalog !== 'synthetic') throw new Error(`${where}: "catalog" must be "real" or "synthetic"`);
    if (!Array.isArray(r.expect) || r.expect.length === 0 || !r.expect.every((e) => typeof e === 'string' && /^[^/]+\/.+$/.test(e))) throw new Error(`${where}: "expect" must list server/tool names`);
  });
  const seen = new Set();
  for (const r of set.requests) {
    if (seen.has(r.query)) throw new Error(`eval set: "${r.query}" is there twice`);
    seen.add(r.query);
  }
  return set.requests;
}

/** Index entries (`ToolIndex.sync`) of an adapted catalog. */
export function entriesOf(catalog, titles = {}) {
  return catalog.tools.map((tool) => ({ tool, original: catalog.byName.get(tool.name)?.tool, serverTitle: titles[tool.server] }));
}

/** recall@1 and recall@5 of `requests` against `index`; the misses (not in the top 5) with what came first. */
export function recall(index, requests) {
  let at1 = 0;
  let at5 = 0;
  const misses = [];
  for (const r of requests) {
    const hits = index.search(r.query, { limit: 5 }).map(key);
    if (r.expect.includes(hits[0])) at1++;
    if (hits.some((h) => r.expect.includes(h))) at5++;
    else misses.push({ query: r.query, expect: r.expect, got: hits.slice(0, 3) });
  }
  const n = requests.length;
  return { n, recall1: n === 0 ? 0 : at1 / n, recall5: n === 0 ? 0 : at5 / n, misses };
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Build time of a fresh index over `entries` (median and max of `rounds`), and its heap size (with --expose-gc). */
export async function buildCost(createToolIndex, entries, rounds = 5) {
  const times = [];
  const cpu = [];
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const index = await createToolIndex();
    index.sync(entries);
    cpu.push(cpuMs(process.cpuUsage(c0)));
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  globalThis.gc?.();
  const before = process.memoryUsage().heapUsed;
  const index = await createToolIndex();
  index.sync(entries);
  globalThis.gc?.();
  const heapBytes = globalThis.gc ? process.memoryUsage().heapUsed - before : undefined;
  return { index, buildMs: { p50: percentile(times, 50), max: times.at(-1) }, buildCpuMs: { p50: percentile(cpu, 50), min: cpu[0] }, heapBytes };
}

/** CPU time (user + system) of a `process.cpuUsage()` difference, in ms. */
const cpuMs = (u) => (u.user + u.system) / 1000;

/** Query latency over `queries`, each run `rounds` times after a warm-up: p50 and p95 in ms. */
export function queryCost(index, queries, rounds = 20) {
  // wall time and CPU time: on a loaded machine the CPU time is the figure that means something
  for (const q of queries) index.search(q, { limit: 5 });
  const times = [];
  const cpu = [];
  for (let r = 0; r < rounds; r++) {
    for (const q of queries) {
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      index.search(q, { limit: 5 });
      cpu.push(cpuMs(process.cpuUsage(c0)));
      times.push(performance.now() - t0);
    }
  }
  times.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95), cpuP50: percentile(cpu, 50), cpuP95: percentile(cpu, 95), n: times.length };
}

/** Estimated tokens (characters / 4) of the JSON a model gets for `definitions` ({name, description, parameters}). */
export function tokens(definitions) {
  const json = JSON.stringify(definitions.map((d) => ({ name: d.name, description: d.description, input_schema: d.parameters })));
  return { chars: json.length, tokens: Math.ceil(json.length / 4) };
}
