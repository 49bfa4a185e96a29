// Build step (run by postbuild.mjs): the spec schemas' validators (schema/<revision>.schema.json,
// every `$defs` entry) as plain code, with ajv's standalone code generation, written to
// dist/schema/spec-<revision>.cjs. Strict mode (src/trace/strict.ts, and so every `mcpwire check`)
// loads them instead of compiling the schema in each process (~0.5 s of CPU). The options are those
// src/schema/ajv.ts gives strict mode's instance (2020-12, `format` asserted by ajv-formats, all
// errors), so the answers, messages and params are the same; test/trace/spec-validators.test.ts
// compares the violations of both on a corpus of bad messages of each revision.
//
// Two differences of form, both for the generated code's sake:
// - every `$ref` is a call (`inlineRefs: false`), so each `$def` is one function, not copied into
//   every place that refers to it (the code is about half the size);
// - each function's error `schemaPath`s are made pointers into the whole document
//   (`#/$defs/Tool/required`), as strict mode reports them; ajv writes them from the root of the
//   function that raised them (`#/required`), which says nothing once the errors of a called
//   function are gathered into its caller's.
// The code is minified (it loads in half the CPU time and weighs 40 % less).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { minifySync } from 'rolldown/utils';

const require = createRequire(import.meta.url);
const Ajv2020 = require('ajv/dist/2020.js').default;
const addFormats = require('ajv-formats');
const standaloneCode = require('ajv/dist/standalone/index.js').default;

/** The revisions whose schema ships in schema/ (src/trace/strict.ts SCHEMA_VERSIONS). */
const REVISIONS = ['2025-11-25', '2026-07-28'];
const KEY = 'document';

/** Every object of `root` → its JSON Pointer (`#/$defs/Tool`). */
function pointers(root) {
  const map = new Map();
  const visit = (node, ptr) => {
    if (node === null || typeof node !== 'object' || map.has(node)) return;
    map.set(node, ptr);
    for (const [k, v] of Object.entries(node)) visit(v, `${ptr}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`);
  };
  visit(root, '#');
  return map;
}

/** The compiled functions `v` reaches (itself and, through its scope, the `$ref`s it calls). */
function reachable(v, seen = new Set()) {
  if (seen.has(v) || !v.source) return seen;
  seen.add(v);
  for (const [prefix, names] of v.source.scopeValues ? Object.entries(v.source.scopeValues) : []) {
    if (prefix !== 'validate' && prefix !== 'wrapper' && prefix !== 'root') continue;
    for (const name of names) {
      const ref = name.value?.ref;
      const fn = typeof ref === 'function' ? ref : ref?.validate;
      if (typeof fn === 'function') reachable(fn, seen);
    }
  }
  return seen;
}

/**
 * Rewrites one function's `schemaPath:"#…"` literals to start at `base` (its schema's pointer),
 * as plain JSON Pointers: ajv writes each segment URI-encoded (`%24schema`), strict mode as the
 * schema file names it (`$schema`).
 */
function rebase(v, base) {
  const code = v.source.validateCode;
  const all = code.match(/schemaPath:/g)?.length ?? 0;
  let done = 0;
  v.source.validateCode = code.replace(/schemaPath:"#((?:\/[^"\\]*)?)"/g, (_, rest) => {
    done++;
    return `schemaPath:${JSON.stringify(base + decodeURIComponent(rest))}`;
  });
  if (done !== all) throw new Error(`spec validators: ${all - done} schemaPath(s) of ${base} are not literals; cannot rebase them`);
}

/** The generated module of one revision's schema (`schemaFile`): one export per `$def`. */
export function specValidatorsCode(schemaFile) {
  const schema = JSON.parse(fs.readFileSync(schemaFile, 'utf8'));
  const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false, validateFormats: true, verbose: false, meta: false, validateSchema: false, inlineRefs: false, code: { source: true } });
  addFormats(ajv);
  ajv.addSchema(schema, KEY);
  const where = pointers(schema);
  const exports = {};
  const functions = new Set();
  for (const name of Object.keys(schema.$defs)) {
    if (!/^[A-Za-z_$][\w$]*$/.test(name)) throw new Error(`spec validators: $defs/${name} is not a name a module can export`);
    exports[name] = `${KEY}#/$defs/${name}`;
    reachable(ajv.getSchema(exports[name]), functions);
  }
  for (const v of functions) {
    const base = where.get(v.schema);
    if (base === undefined) throw new Error('spec validators: a compiled function of no schema object of the document');
    rebase(v, base);
  }
  const code = standaloneCode(ajv, exports);
  const min = minifySync('spec-validators.cjs', code, { compress: true, mangle: true });
  if (min.errors?.length) throw new Error(`spec validators: minify: ${min.errors.map((e) => e.message).join('; ')}`);
  return min.code;
}

/** Writes dist/schema/spec-<revision>.cjs for each revision (`schemaDir`: the package's schema/). */
export function writeSpecValidators(schemaDir, dir) {
  fs.mkdirSync(dir, { recursive: true });
  for (const r of REVISIONS) {
    const code = specValidatorsCode(path.join(schemaDir, `${r}.schema.json`));
    fs.writeFileSync(path.join(dir, `spec-${r}.cjs`), `// Generated by scripts/spec-validators.mjs (ajv standalone) from schema/${r}.schema.json: do not edit.\n${code}`);
  }
}
