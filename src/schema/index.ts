/**
 * The one JSON Schema module, used by the client's output-schema checks (src/mcp/output-schema.ts),
 * the host's input-schema checks (src/host/tool-schema.ts), strict mode (src/trace/strict.ts)
 * and `mcpwire check`. It imports ajv eagerly: callers that must stay light (the client) load it
 * with `import()` on first use.
 *
 * - Dialect from `$schema` (dialect.ts): 2020-12 by default; 2019-09, draft-07 and draft-06
 *   supported; anything else is an `unsupportedDialect` result (basic#14, #15, #17).
 * - A schema is valid when its dialect's meta-schema accepts it and ajv compiles it (basic#19);
 *   otherwise the result is a `schemaError`, never an exception.
 * - `format` is an annotation unless `assertFormats` is set (basic#16).
 * - Isolation: every schema is compiled in its own ajv instance (ajv.ts), so `$id`s never meet:
 *   the same `$id` from two servers, or from two versions of one tool, are two schemas.
 * - Compiled validators are cached by a hash of (dialect, options, schema text) in a bounded LRU.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { metaSchemaProblem, newAjv } from './ajv.js';
import { Lru } from './cache.js';
import { dialectOf, type Dialect } from './dialect.js';
import { isSimpleSchema, surelyValid } from './simple.js';

export { dialectOf, SUPPORTED_DIALECTS, type Dialect, type DialectResult } from './dialect.js';
export { generatedSchemaDocument, openSchemaDocument, type DocumentValidator, type SchemaDocument } from './document.js';
export type { ErrorObject, ValidateFunction };

export interface SchemaOptions {
  /** Assert `format` keywords (default false: formats are annotations, as in 2020-12). */
  assertFormats?: boolean;
}

export interface SchemaProblem {
  /** JSON Pointer into the value (`/` for the root). */
  path: string;
  message: string;
}

export type CompiledSchema =
  | { ok: true; dialect: Dialect; validate(value: unknown): SchemaProblem[] }
  /** The schema is unusable: nothing can be checked. `unsupportedDialect`: its `$schema`. */
  | { ok: false; schemaError: string; unsupportedDialect?: string };

export interface SchemaCheck {
  /** The schema itself is unusable (invalid, unknown dialect): nothing was checked. */
  schemaError?: string;
  problems: SchemaProblem[];
}

const DEFAULT_CACHE_MAX = 1024;
const MAX_PROBLEMS = 50;
const cache = new Lru<string, CompiledSchema>(DEFAULT_CACHE_MAX);
let compiles = 0;

/** Compiles `schema` (or returns the cached result for the same content and options). */
export function compileSchema(schema: unknown, options: SchemaOptions = {}): CompiledSchema {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
    return { ok: false, schemaError: `a schema must be a JSON object, not ${schema === null ? 'null' : Array.isArray(schema) ? 'an array' : typeof schema}` };
  }
  const d = dialectOf(schema);
  if ('unsupported' in d) {
    return { ok: false, schemaError: `unsupported JSON Schema dialect ${JSON.stringify(d.unsupported)} (supported: 2020-12, 2019-09, draft-07, draft-06)`, unsupportedDialect: d.unsupported };
  }
  let text: string;
  try {
    text = JSON.stringify(schema);
  } catch (err) {
    return { ok: false, schemaError: `schema is not serializable: ${(err as Error).message}` };
  }
  const assert = options.assertFormats === true;
  const key = createHash('sha256').update(`${d.dialect}\0${assert ? 'f' : '-'}\0${text}`).digest('base64');
  let hit = cache.get(key);
  if (hit === undefined) {
    compiles++;
    const copy = JSON.parse(text) as object;
    hit = !assert && isSimpleSchema(copy) ? simpleCompiled(d.dialect, copy) : build(d.dialect, copy, assert);
    cache.set(key, hit);
  }
  return hit;
}

/**
 * A schema of the common keywords (./simple.ts): valid and compilable as it stands, so nothing is
 * checked or compiled until a value is not surely valid; ajv then compiles it and says what is wrong.
 */
function simpleCompiled(dialect: Dialect, schema: object): CompiledSchema {
  let full: CompiledSchema | undefined;
  return {
    ok: true,
    dialect,
    validate: (value) => {
      if (surelyValid(schema, value)) return [];
      full ??= build(dialect, schema, false);
      return full.ok ? full.validate(value) : [];
    },
  };
}

function build(dialect: Dialect, schema: object, assertFormats: boolean): CompiledSchema {
  try {
    const bad = metaSchemaProblem(dialect, schema);
    if (bad !== undefined) return { ok: false, schemaError: `not a valid ${dialect} schema: ${bad.slice(0, 300)}` };
    const v = newAjv(dialect, { assertFormats, meta: false }).compile(schema);
    return { ok: true, dialect, validate: (value) => run(v, value) };
  } catch (err) {
    return { ok: false, schemaError: String((err as Error)?.message ?? err).slice(0, 300) };
  }
}

/**
 * A schema is untrusted input: one that refers to itself without end (`{"$ref":"#"}`) makes ajv's
 * validator call itself until the stack overflows, for any value. That is a problem of the
 * value's check, reported as one, never a throw out of validateValue.
 */
function run(v: ValidateFunction, value: unknown): SchemaProblem[] {
  try {
    return v(value) ? [] : toProblems(v.errors);
  } catch (err) {
    if (err instanceof RangeError) return [{ path: '/', message: 'the schema refers to itself without end (its check overflowed the stack)' }];
    throw err;
  }
}

function toProblems(errors: ErrorObject[] | null | undefined): SchemaProblem[] {
  return (errors ?? []).slice(0, MAX_PROBLEMS).map((e) => ({ path: e.instancePath || '/', message: e.message ?? e.keyword }));
}

const require = createRequire(import.meta.url);

/**
 * A schema whose validator the build generated (ajv's standalone code in `file`, a CommonJS module
 * exporting the validator, made with the options `build` compiles with), answering as a compiled
 * one does; undefined when there is none (no build) or it does not load. Nothing is compiled.
 */
export function generatedSchema(file: string, dialect: Dialect): CompiledSchema | undefined {
  let v: ValidateFunction;
  try {
    const m = require(file) as ValidateFunction & { default?: ValidateFunction };
    v = m.default ?? m;
  } catch {
    return undefined;
  }
  return typeof v === 'function' ? { ok: true, dialect, validate: (value) => run(v, value) } : undefined;
}

/** Validates `value` against `schema`; never throws. */
export function validateValue(schema: unknown, value: unknown, options: SchemaOptions = {}): SchemaCheck {
  const c = compileSchema(schema, options);
  if (!c.ok) return { schemaError: c.schemaError, problems: [] };
  return { problems: c.validate(value) };
}

/** The compiled-validator cache: entries, bound, and how many compiles ran (for tests and stats). */
export function schemaCacheInfo(): { size: number; max: number; compiles: number } {
  return { size: cache.size, max: cache.max, compiles };
}

/** Changes the cache bound (default 1024); returns the previous one. */
export function setSchemaCacheLimit(max: number): number {
  return cache.resize(max);
}
