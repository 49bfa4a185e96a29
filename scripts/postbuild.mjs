// After tsc: bundles the JavaScript tsc wrote to build/tsc/ into dist/, beside the declarations
// tsc wrote there, makes the CLI entry executable, and removes from dist/ what no source file
// builds any more.
//
// Why a bundle: Node's ESM loader costs ~0.5 ms of CPU per file (resolve, stat, open, read,
// compile, link) before any of our code runs, and `import('mcpwire')` reached 58 files. Each
// entry below keeps its path in dist/ (the package's exports, the CLI and its commands, the
// processes mcpwire spawns); the code they share lives once in dist/chunks/, so a class (an error
// type, say) is one class whichever entry loaded it; a lazy `import()` stays lazy (its own chunk).
// npm packages and node: builtins are not bundled. Source maps lead to src/*.ts (tsc's maps are
// read as each file loads, so the bundle's maps chain through them).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { directImports } from './direct-imports.mjs';
import { writeMetaValidators } from './meta-validators.mjs';
import { writeServerJsonValidators } from './server-json-validator.mjs';
import { writeSpecValidators } from './spec-validators.mjs';
import { staticGraph } from './static-graph.mjs';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const dist = path.join(root, 'dist');
const built = path.join(root, 'build', 'tsc');
const src = path.join(root, 'src');

/** Files loaded by their path: the package's exports and bin, what the CLI imports by a computed name, what mcpwire spawns, and the modules tests and bench scripts load on their own. */
function entries() {
  const names = [
    'index', 'host-api', 'check-api', 'serve-api', 'trace-api', 'apps-api',
    'cli/main', 'cli/run', 'cli/demo-server/main', 'daemon/main',
    // modules that tests and the benches (bench/micro.mjs, scripts/*-bench.mjs) load by path
    'auth/file-store', 'trace/tracer', 'trace/redact', 'transport/streamable-http',
    'jsonrpc/framer', 'protocol/registry', 'protocol/connection', 'host/search/tool-index',
  ];
  for (const f of fs.readdirSync(path.join(src, 'cli', 'commands'))) if (f.endsWith('.ts')) names.push(`cli/commands/${f.slice(0, -3)}`);
  return Object.fromEntries(names.map((n) => [n, path.join(built, `${n}.js`)]));
}

/** The files `import('mcpwire')` reaches through static imports (a lazy `import()` is not followed). */
function rootGraph() {
  return new Set(staticGraph(path.join(built, 'index.js')).files);
}

const direct = directImports(built);

/** The commands that read or edit the config and connect nothing (the suite's most frequent runs). */
const CONFIG_COMMANDS = ['mcp-list', 'mcp-add', 'mcp-remove', 'mcp-enable', 'mcp-disable', 'trust', 'untrust'];

/** Of the root's files, those the config commands reach (errors, protocol versions, secrets): the root's base. */
function rootBase(root) {
  const base = new Set();
  for (const c of CONFIG_COMMANDS) for (const f of direct.reach(path.join(built, 'cli', 'commands', `${c}.js`))) if (root.has(f)) base.add(f);
  return base;
}

/**
 * Loads tsc's output with its source map, so that the bundle's map points at src/; an import
 * through a door names the module that defines the name instead (scripts/direct-imports.mjs: an
 * entry then reaches what it uses, not all the door re-exports).
 */
const tscMaps = {
  name: 'tsc-source-maps',
  load(id) {
    if (!id.startsWith(built) || !id.endsWith('.js')) return null;
    const code = direct.rewrite(id, fs.readFileSync(id, 'utf8').replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n'));
    const mapFile = `${id}.map`;
    return { code, map: fs.existsSync(mapFile) ? fs.readFileSync(mapFile, 'utf8') : null };
  },
};

/**
 * undici's parts the code imports by name, each from its own module. undici's index loads all of
 * undici (fetch, WebSocket, EventSource, caches, mocks: ~114 CommonJS files, ~0.15 s of CPU on
 * every run that talks HTTP, and it pulls Node's own bundled undici in too); the transport uses
 * a Pool, whose module loads only the HTTP/1 and HTTP/2 clients beneath it. A static
 * `import { … } from 'undici'` resolves to the parts below; a name not listed fails the build
 * (MISSING_EXPORT), and a lazy `import('undici')` keeps the whole package. The index's one
 * setup is done here too: it gives every dispatcher `request()`, `stream()`, `pipeline()`,
 * `connect()` and `upgrade()` (test/house/build-bundle.test.ts checks the index still does no other).
 */
const UNDICI_PARTS = { Pool: 'undici/lib/dispatcher/pool.js' };
const UNDICI_SETUP = [
  "import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';",
  "import api from 'undici/lib/api/index.js';",
  'Object.assign(Dispatcher.prototype, api);',
];
const undiciParts = {
  name: 'undici-parts',
  resolveId(source, importer, extra) {
    if (source !== 'undici') return null;
    return extra?.kind === 'import-statement' ? '\0undici-parts' : { id: 'undici', external: true };
  },
  load(id) {
    if (id !== '\0undici-parts') return null;
    const code = [...UNDICI_SETUP, ...Object.entries(UNDICI_PARTS).map(([name, file]) => `export { default as ${name} } from '${file}';`)].join('\n');
    return { code, moduleSideEffects: 'no-treeshake' }; // the setup is a side effect: keep it
  },
};

/** Removes what an earlier build left: every .js and .js.map (the bundle writes them all again), and declarations no source builds. */
function prune(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, e.name);
    if (e.isDirectory()) {
      prune(file);
      if (fs.readdirSync(file).length === 0) fs.rmdirSync(file);
      continue;
    }
    if (/\.js(?:\.map)?$/.test(e.name)) {
      fs.rmSync(file);
      continue;
    }
    const declaration = /\.d\.ts(?:\.map)?$/;
    if (!declaration.test(e.name)) continue;
    const source = path.join(src, path.relative(dist, file)).replace(declaration, '.ts');
    if (!fs.existsSync(source)) fs.rmSync(file);
  }
}

/**
 * The bundler's runtime is one helper (`__name`, for keepNames) in a file of its own that every
 * chunk imports: one more file for Node to load per entry (`import('mcpwire')` read four instead
 * of three once the root's base had a chunk of its own). Each chunk defines it instead (a hoisted
 * function: no order to keep), line for line, so the source maps still hold.
 */
function inlineRuntime(dir) {
  const chunks = path.join(dir, 'chunks');
  const runtime = fs.readdirSync(chunks).find((f) => /^rolldown-runtime-[\w-]+\.js$/.test(f));
  if (runtime === undefined) return;
  const code = fs.readFileSync(path.join(chunks, runtime), 'utf8');
  if (!/^export \{ __name as t \};$/m.test(code) || (code.match(/^export /gm) ?? []).length !== 1) throw new Error(`postbuild: the bundler's runtime changed (${runtime}): it exports more than __name`);
  const helper = 'function __name(target, value) { return Object.defineProperty(target, "name", { value, configurable: true }); }';
  const name = runtime.replace(/[.]/g, '\\.');
  const bare = new RegExp(`^import "(?:\\./|\\.\\./)+(?:chunks/)?${name}";$`, 'gm');
  const named = new RegExp(`^import \\{ t as __name \\} from "(?:\\./|\\.\\./)+(?:chunks/)?${name}";$`, 'gm');
  const visit = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const file = path.join(d, e.name);
      if (e.isDirectory()) visit(file);
      else if (e.name.endsWith('.js') && e.name !== runtime) {
        const text = fs.readFileSync(file, 'utf8');
        const out = text.replace(named, helper).replace(bare, '');
        if (out !== text) fs.writeFileSync(file, out);
      }
    }
  };
  visit(dir);
  fs.rmSync(path.join(chunks, runtime));
  fs.rmSync(path.join(chunks, `${runtime}.map`), { force: true });
}

if (fs.existsSync(dist)) prune(dist);
const { rolldown } = await import('rolldown');
const bundle = await rolldown({
  input: entries(),
  platform: 'node',
  // npm packages and builtins stay imports (a bare specifier: anything not relative or absolute; undici: see undiciParts)
  external: (id) => !id.startsWith('.') && !path.isAbsolute(id) && id !== 'undici' && !id.startsWith('\0'),
  plugins: [undiciParts, tscMaps],
  // Our modules do nothing at load but define (no import is for its side effects): an import whose
  // bindings an entry does not use is dropped, so a command that takes one helper from a door
  // (src/trace-api.ts, src/host-api.ts) does not load the chunks of the door's other modules.
  // npm packages keep their imports.
  treeshake: { moduleSideEffects: (id, external) => external },
  logLevel: 'warn',
  // the plugin's callbacks (tsc's maps, the imports rewritten) are most of a small build's time: not worth a warning
  checks: { bundlerTimings: false },
});
const rootFiles = rootGraph();
const rootBaseFiles = rootBase(rootFiles);
await bundle.write({
  dir: dist,
  format: 'esm',
  sourcemap: true,
  keepNames: true,
  entryFileNames: '[name].js',
  chunkFileNames: 'chunks/[name]-[hash].js',
  // What `import('mcpwire')` needs is two files: every entry that needs part of the client loads
  // it whole, and the base beneath it (what the config commands take from the root) alone.
  // The configuration (src/host/config/) is one chunk of its own: every command reads the config,
  // and one that only lists or edits it (`mcp list|add|remove`, `trust`) then does not load the
  // host's supervisor, which the same entries reach and would otherwise share a chunk with.
  codeSplitting: {
    groups: [
      // The root's base (what the config commands use of it: errors, protocol versions, secrets):
      // `mcp list|add|remove…` and `trust` compile it alone, not the client's 160 KB.
      { name: 'base', test: (id) => rootBaseFiles.has(id), priority: 4 },
      { name: 'core', test: (id) => rootFiles.has(id), priority: 3 },
      // The spawn's env lookup is the configuration's and the client's stdio runtime's: in the
      // config chunk (its dependencies go with it), a plain `connect()` to a stdio server loaded
      // the whole configuration (123 KB, ~12 ms of CPU) for this one helper.
      { name: 'env-lookup', test: (id) => id === path.join(built, 'transport', 'spawn', 'env-lookup.js'), priority: 2 },
      // The "did you mean" matching is the configuration's (unknown fields) and the CLI's (commands,
      // options): in the config chunk, `mcpwire <command> --help` and every argv check loaded the
      // whole configuration and the root's base (~220 KB) for this one helper.
      { name: 'close-names', test: (id) => id === path.join(built, 'util', 'close-names.js'), priority: 2 },
      { name: 'config', test: (id) => id.startsWith(path.join(built, 'host', 'config') + path.sep), priority: 1 },
    ],
  },
});
await bundle.close();
inlineRuntime(dist);
writeMetaValidators(path.join(dist, 'schema'));
// strict mode's validators of the spec schemas, generated once here rather than compiled in every check process
writeSpecValidators(path.join(root, 'schema'), path.join(dist, 'schema'));
// the registry's server.json validator, likewise (`registry show`, `mcp add --from-registry`)
writeServerJsonValidators(path.join(root, 'schema'), path.join(dist, 'schema'));
const cli = path.join(dist, 'cli', 'main.js');
if (fs.existsSync(cli)) fs.chmodSync(cli, 0o755);
