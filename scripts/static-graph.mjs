/**
 * What Node loads before a module runs: the files an ES module reaches through its static value
 * imports (`import … from`, `export … from`; `import type` is erased and a lazy `import()` is not
 * followed), with the built-ins and npm packages named on the way. One reading of the import
 * graph for the build (scripts/postbuild.mjs: what the root chunk holds), the import-time bench
 * and the tests that keep `import('mcpwire')` light (test/import-weight, test/layers,
 * test/build-bundle).
 */
import fs from 'node:fs';
import path from 'node:path';

const STATIC_IMPORT = /^\s*(?:import|export)\s+(?!type\b)(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;

/** The package a bare specifier names (`@scope/name/sub` → `@scope/name`, `name/sub` → `name`). */
function packageOf(spec) {
  return spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
}

/**
 * The static graph of `entry`. `sources: true` reads TypeScript sources: a relative `./x.js`
 * is the file `./x.ts`.
 */
export function staticGraph(entry, options = {}) {
  const files = new Set();
  const builtins = new Set();
  const packages = new Set();
  const visit = (file) => {
    if (files.has(file)) return;
    files.add(file);
    for (const m of fs.readFileSync(file, 'utf8').matchAll(STATIC_IMPORT)) {
      const spec = m[1];
      if (spec.startsWith('.')) visit(path.resolve(path.dirname(file), options.sources === true ? spec.replace(/\.js$/, '.ts') : spec));
      else if (spec.startsWith('node:')) builtins.add(spec);
      else packages.add(packageOf(spec));
    }
  };
  visit(entry);
  return { files: [...files], builtins: [...builtins].sort(), packages: [...packages].sort() };
}
