// After tsc: makes the CLI entry executable (tsc does not keep modes), and removes from dist/
// what no source file builds any more (a renamed or deleted src/x.ts leaves dist/x.js behind,
// and `npm pack` would ship it with a source map pointing at nothing).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const dist = path.join(root, 'dist');
const src = path.join(root, 'src');
const entry = path.join(dist, 'cli', 'main.js');
if (fs.existsSync(entry)) fs.chmodSync(entry, 0o755);

const OUTPUT = /\.(?:js|js\.map|d\.ts|d\.ts\.map)$/;

function prune(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, e.name);
    if (e.isDirectory()) {
      prune(file);
      if (fs.readdirSync(file).length === 0) fs.rmdirSync(file);
      continue;
    }
    if (!OUTPUT.test(e.name)) continue;
    const source = path.join(src, path.relative(dist, file)).replace(OUTPUT, '.ts');
    if (!fs.existsSync(source)) fs.rmSync(file);
  }
}
if (fs.existsSync(dist)) prune(dist);
