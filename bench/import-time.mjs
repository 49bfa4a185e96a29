#!/usr/bin/env node
// Cold module load: each sample is a fresh `node` process timing `await import(...)` of the
// module (the OS file cache is warm, the V8/module caches are not); target for mcpwire: median
// <= 40 ms. Also lists the npm packages statically reachable from dist/index.js (a lazy
// `import()` is not followed), to show that OAuth, ajv, pino and undici load only when used.
//   node bench/import-time.mjs [--quick] [--sdk-dir DIR_WITH_node_modules]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist', 'index.js');
const quick = process.argv.includes('--quick');
const REPS = quick ? 5 : 11;
const i = process.argv.indexOf('--sdk-dir');
const sdkDir = i > 0 ? process.argv[i + 1] : root;

function sample(code, cwd) {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  const [ms, cpu] = r.stdout.trim().split(' ').map(Number);
  return { ms, cpu };
}
/** Wall ms (`ms`, what the target is about) and the process's CPU ms meanwhile (`cpu_ms`, all threads: steadier on a loaded machine). */
function samples(code, cwd) {
  sample(code, cwd); // file cache warm-up
  const all = Array.from({ length: REPS }, () => sample(code, cwd));
  return { ms: all.map((x) => x.ms), cpu_ms: all.map((x) => x.cpu) };
}
const r1 = 'const r1 = (x) => Math.round(x * 10) / 10;';
const timed = (body) =>
  `${r1} const c = process.cpuUsage(); const t = performance.now(); ${body}; const u = process.cpuUsage(c); ` +
  'process.stdout.write(`${r1(performance.now() - t)} ${r1((u.user + u.system) / 1000)}`);';

/** Bare specifiers statically imported anywhere in the graph of `entry` (ESM `import … from`). */
export function staticPackages(entry) {
  const seen = new Set();
  const pkgs = new Set();
  const visit = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    const src = fs.readFileSync(file, 'utf8');
    const re = /^\s*(?:import|export)\s+(?!type\b)(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;
    for (const m of src.matchAll(re)) {
      const spec = m[1];
      if (spec.startsWith('.')) visit(path.resolve(path.dirname(file), spec));
      else if (!spec.startsWith('node:')) pkgs.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
    }
  };
  visit(entry);
  return { files: seen.size, packages: [...pkgs].sort() };
}

const graph = staticPackages(dist);
const cases = [
  {
    name: 'mcpwire (dist/index.js)',
    ...samples(timed(`await import(${JSON.stringify(pathToFileURL(dist).href)})`), root),
    packages: `${graph.packages.join(', ') || 'none'} (${graph.files} files)`,
    target_ms: 40,
  },
  {
    name: 'official SDK client (Client + stdio + streamable HTTP transports)',
    ...samples(timed(
      "await import('@modelcontextprotocol/sdk/client/index.js'); await import('@modelcontextprotocol/sdk/client/stdio.js'); await import('@modelcontextprotocol/sdk/client/streamableHttp.js')",
    ), sdkDir),
  },
  { name: 'node baseline (import node:child_process)', ...samples(timed("await import('node:child_process')"), root) },
];
process.stdout.write(JSON.stringify({ reps: REPS, graph, cases }) + '\n');
