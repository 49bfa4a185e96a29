#!/usr/bin/env node
// Cold module load: each sample is a fresh `node` process timing `await import(...)` of the
// module (the OS file cache is warm, the V8/module caches are not); target for mcpwire: median
// <= 40 ms. Also lists the npm packages statically reachable from dist/index.js (a lazy
// `import()` is not followed), to show that OAuth, ajv, pino and undici load only when used.
// `--against DIR` also times another build's dist/ (e.g. a worktree of an earlier commit),
// alternating with this one sample by sample: on a shared machine compare those two, not runs.
//   node bench/import-time.mjs [--quick] [--sdk-dir DIR_WITH_node_modules] [--against OTHER/dist]
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { staticGraph } from '../scripts/static-graph.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist', 'index.js');
const quick = process.argv.includes('--quick');
const REPS = quick ? 5 : 11;
const i = process.argv.indexOf('--sdk-dir');
const sdkDir = i > 0 ? process.argv[i + 1] : root;
const a = process.argv.indexOf('--against');
const against = a > 0 ? path.resolve(process.argv[a + 1], 'index.js') : undefined;

function sample(code, cwd) {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  const [ms, cpu] = r.stdout.trim().split(' ').map(Number);
  return { ms, cpu };
}
/** Wall ms (`ms`, what the target is about) and the process's CPU ms meanwhile (`cpu_ms`, all threads: steadier on a loaded machine). */
function samples(code, cwd) {
  return interleaved([code], cwd)[0];
}
/** The samples of several snippets taken in turn (A B A B …), so that a change of load hits each alike. */
function interleaved(codes, cwd) {
  for (const code of codes) sample(code, cwd); // file cache warm-up
  const all = codes.map(() => []);
  for (let r = 0; r < REPS; r++) codes.forEach((code, k) => all[k].push(sample(code, cwd)));
  return all.map((xs) => ({ ms: xs.map((x) => x.ms), cpu_ms: xs.map((x) => x.cpu) }));
}
const r1 = 'const r1 = (x) => Math.round(x * 10) / 10;';
const timed = (body) =>
  `${r1} const c = process.cpuUsage(); const t = performance.now(); ${body}; const u = process.cpuUsage(c); ` +
  'process.stdout.write(`${r1(performance.now() - t)} ${r1((u.user + u.system) / 1000)}`);';

/** The graph of `entry`: its file count and the npm packages it imports statically. */
export function staticPackages(entry) {
  const g = staticGraph(entry);
  return { files: g.files.length, packages: g.packages };
}

const graph = staticPackages(dist);
const importOf = (file) => timed(`await import(${JSON.stringify(pathToFileURL(file).href)})`);
const [ours, theirs] = interleaved(against === undefined ? [importOf(dist)] : [importOf(dist), importOf(against)], root);
const other = against === undefined ? undefined : staticPackages(against);
const cases = [
  {
    name: 'mcpwire (dist/index.js)',
    ...ours,
    packages: `${graph.packages.join(', ') || 'none'} (${graph.files} files)`,
    target_ms: 40,
  },
  ...(theirs === undefined ? [] : [{ name: `mcpwire (${path.relative(root, against).startsWith('..') ? against : path.relative(root, against)})`, ...theirs, packages: `${other.packages.join(', ') || 'none'} (${other.files} files)` }]),
  {
    name: 'official SDK client (Client + stdio + streamable HTTP transports)',
    ...samples(timed(
      "await import('@modelcontextprotocol/sdk/client/index.js'); await import('@modelcontextprotocol/sdk/client/stdio.js'); await import('@modelcontextprotocol/sdk/client/streamableHttp.js')",
    ), sdkDir),
  },
  { name: 'node baseline (import node:child_process)', ...samples(timed("await import('node:child_process')"), root) },
];
process.stdout.write(JSON.stringify({ reps: REPS, graph, cases }) + '\n');
