/**
 * A `server.json` checked against the published schema (2025-12-11, shipped in
 * `schema/server-json-2025-12-11.schema.json`) through the one JSON Schema module. A document
 * that does not validate is refused, naming the field (a JSON Pointer) and what is wrong.
 *
 * The validator is the code the build generated from the schema file
 * (dist/schema/server-json-<version>.cjs, scripts/server-json-validator.mjs: ajv's standalone
 * code), so a process compiles nothing (compiling the schema cost ~0.4 s of CPU in every
 * `registry show` and `mcp add|update --from-registry`); without a build the schema is compiled
 * here, with the same answers (test/registry/server-json-validator.test.ts compares both).
 */
import { readFileSync } from 'node:fs';
import { compileSchema, generatedSchema, type CompiledSchema, type SchemaProblem } from '../schema/index.js';
import { packageFile } from '../util/package-files.js';
import { RegistryError } from './errors.js';
import type { ServerJson } from './types.js';

/** The schema version mcpwire validates with (the newest released one). */
export const SERVER_JSON_SCHEMA_VERSION = '2025-12-11';
export const SERVER_JSON_SCHEMA_FILE = `server-json-${SERVER_JSON_SCHEMA_VERSION}.schema.json`;

/** Where the validator comes from: the build's generated code (when there is a build), or compiled here. */
export type ServerJsonValidatorSource = 'build' | 'compile';
let source: ServerJsonValidatorSource = 'build';
let compiled: CompiledSchema | undefined;
let generated = false;

/** Chooses where the validator comes from (tests compare both); returns the one used before. */
export function useServerJsonValidator(s: ServerJsonValidatorSource): ServerJsonValidatorSource {
  const before = source;
  if (s !== source) compiled = undefined;
  source = s;
  return before;
}

function schema(): CompiledSchema {
  if (compiled !== undefined) return compiled;
  const built = source === 'build' ? generatedSchema(packageFile('dist', 'schema', `server-json-${SERVER_JSON_SCHEMA_VERSION}.cjs`), 'draft-07') : undefined;
  generated = built !== undefined;
  compiled = built ?? compileSchema(JSON.parse(readFileSync(packageFile('schema', SERVER_JSON_SCHEMA_FILE), 'utf8')) as object);
  return compiled;
}

/** Whether the validator in use is the build's generated code (false: compiled in this process). */
export function serverJsonValidatorIsGenerated(): boolean {
  schema();
  return generated;
}

/** The problems of `doc` against the schema (empty: valid), the most specific first. */
export function serverJsonProblems(doc: unknown): SchemaProblem[] {
  const c = schema();
  if (!c.ok) throw new Error(`the server.json schema shipped with mcpwire is unusable: ${c.schemaError}`);
  const problems = c.validate(doc);
  // anyOf/oneOf report every branch: the deepest path says most about what is wrong.
  return [...problems].sort((a, b) => b.path.split('/').length - a.path.split('/').length);
}

/** `doc` as a ServerJson, or a RegistryError naming the first field that does not validate. */
export function checkServerJson(doc: unknown, where: string): ServerJson {
  const problems = serverJsonProblems(doc);
  if (problems.length > 0) {
    const p = problems[0];
    const field = p.path === '/' ? 'the document' : p.path;
    throw new RegistryError('invalid-server-json', `${where}: server.json does not validate against the ${SERVER_JSON_SCHEMA_VERSION} schema: ${field}: ${p.message}${problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length === 2 ? '' : 's'})` : ''}`);
  }
  return doc as ServerJson;
}
