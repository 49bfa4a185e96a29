// Locates the shared bench harness (the yardstick) and stages it for this run.
//
// The harness lives beside the project (../shared/bench-harness) and may be read-only, without
// its own node_modules. We copy its few .mjs files into a temp dir and symlink that dir's
// node_modules to the project's, so server.mjs and sdk-client-bench.mjs resolve the official
// SDK (a root devDependency, same pinned version) without running `npm ci` in a read-only tree.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const FILES = ['bench-lib.mjs', 'server.mjs', 'sdk-client-bench.mjs', 'raw-baseline.mjs', 'engine-client-bench.mjs', 'summarize.mjs'];

export function findHarness(root) {
  const candidates = [process.env.BENCH_HARNESS, path.join(root, '..', 'shared', 'bench-harness'), path.join(root, 'bench', 'harness')];
  for (const c of candidates) {
    if (c && FILES.every((f) => fs.existsSync(path.join(c, f)))) return path.resolve(c);
  }
  throw new Error(
    `bench harness not found (looked in ${candidates.filter(Boolean).join(', ')}); set BENCH_HARNESS=/path/to/bench-harness`,
  );
}

/** Copies the harness to a fresh temp dir with node_modules -> the project's. Returns {dir, cleanup}. */
export function stageHarness(root, source) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-bench-'));
  for (const f of FILES) fs.copyFileSync(path.join(source, f), path.join(dir, f));
  // our own clients that plug into the harness's bench-lib.mjs
  const own = path.join(root, 'bench', 'clients');
  for (const f of fs.readdirSync(own)) if (f.endsWith('.mjs')) fs.copyFileSync(path.join(own, f), path.join(dir, f));
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  fs.symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
