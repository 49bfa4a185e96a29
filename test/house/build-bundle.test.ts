/**
 * The build's bundle (scripts/postbuild.mjs): `import('mcpwire')` loads a handful of files from
 * dist/, not one per source module, and the code the entries share exists once, so that a class
 * or a constant taken from one entry is the same value taken from another (an error thrown by
 * the host API is an instance of the root's error class). Needs dist/ (`npm run build`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { staticGraph } from '../../scripts/static-graph.mjs';

const root = path.resolve(path.dirname(path.dirname(fileURLToPath(import.meta.url))), '..');
const dist = path.join(root, 'dist');
const built = fs.existsSync(path.join(dist, 'index.js'));

/** The files of dist/ that `entry` reaches through static imports (what Node loads before the entry runs). */
function staticFiles(entry: string): string[] {
  return staticGraph(entry).files.map((f) => path.relative(dist, f));
}

describe.skipIf(!built)('the bundled build (dist/)', () => {
  it("import('mcpwire') reads at most three files: the entry and the root's two chunks (the client, its base)", () => {
    const files = staticFiles(path.join(dist, 'index.js'));
    expect(files.length, files.join(' ')).toBeLessThanOrEqual(3);
  });

  it("a lazy module stays out of the root's files (the tracer, the request engine, the OAuth provider)", () => {
    const text = staticFiles(path.join(dist, 'index.js')).map((f) => fs.readFileSync(path.join(dist, f), 'utf8')).join('\n');
    for (const marker of ['class TraceWriter ', 'class Connection ', 'class Provider ']) expect(text.includes(marker), marker).toBe(false);
  });

  it('what two entries both export is one value (one class, one constant), not a copy per entry', async () => {
    // (a plain function may differ on purpose: the root's createTracer is a wrapper that loads the tracer)
    const isPlainFunction = (v: unknown) => typeof v === 'function' && !/^class\b/.test(Function.prototype.toString.call(v));
    const entries = ['index', 'host-api', 'check-api', 'serve-api', 'trace-api', 'apps-api'];
    const mods = await Promise.all(entries.map((e) => import(pathToFileURL(path.join(dist, `${e}.js`)).href) as Promise<Record<string, unknown>>));
    let shared = 0;
    for (let a = 0; a < mods.length; a++) {
      for (let b = a + 1; b < mods.length; b++) {
        for (const name of Object.keys(mods[a]!)) {
          if (!(name in mods[b]!) || isPlainFunction(mods[a]![name])) continue;
          shared++;
          expect(mods[a]![name], `${entries[a]}.${name} and ${entries[b]}.${name}`).toBe(mods[b]![name]);
        }
      }
    }
    expect(shared).toBeGreaterThan(0);
  });

  it('every entry the package names exists in dist/, and source maps lead to src/', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { bin: Record<string, string>; exports: Record<string, { import?: string; types?: string } | string> };
    const files = [...Object.values(pkg.bin), ...Object.values(pkg.exports).flatMap((e) => (typeof e === 'string' ? [e] : [e.import!, e.types!]))];
    for (const f of files) expect(fs.existsSync(path.join(root, f)), f).toBe(true);
    const core = fs.readdirSync(path.join(dist, 'chunks')).find((f) => f.startsWith('core-') && f.endsWith('.js.map'));
    const map = JSON.parse(fs.readFileSync(path.join(dist, 'chunks', core!), 'utf8')) as { sources: string[] };
    expect(map.sources).toContain('../../src/index.ts');
    expect(map.sources.every((s) => s.startsWith('../../src/') && s.endsWith('.ts'))).toBe(true);
  });

  it("undici's parts are imported from their own modules, and undici's index does no setup the build does not repeat", () => {
    // scripts/postbuild.mjs (undiciParts): `import { Pool } from 'undici'` → its module, plus the
    // index's one setup (a dispatcher's request()/stream()/…); a new setup there would be missed
    const index = fs.readFileSync(path.join(root, 'node_modules', 'undici', 'index.js'), 'utf8');
    expect(index.match(/^[^\s/].*\.prototype\b.*$/gm)).toEqual(['Object.assign(Dispatcher.prototype, api)']);
    const chunks = fs.readdirSync(path.join(dist, 'chunks')).filter((f) => f.endsWith('.js'));
    const imports = chunks.flatMap((f) => [...fs.readFileSync(path.join(dist, 'chunks', f), 'utf8').matchAll(/^import .*from "(undici[^"]*)";$/gm)].map((m) => m[1]));
    expect(imports).toContain('undici/lib/dispatcher/pool.js');
    expect(imports).not.toContain('undici');
  });
});
