/**
 * Tool `inputSchema` → agent tool `parameters` (seed §7.2). The schema is untrusted input:
 *
 * - larger than `maxBytes` serialized (default 64 KiB) → refused before any parsing work;
 *   the caller then exposes the tool with the fallback schema (default) or not at all;
 * - not an object, top-level `type` not `"object"`, or does not compile → the fallback
 *   `{"type":"object","additionalProperties":true}` with a diagnostic.
 *
 * Dialect (server/tools: "Defaults to 2020-12 if no `$schema` field is present"): 2020-12
 * by default, 2019-09 and draft-07/06 when `$schema` names them; an unknown `$schema` is a
 * warning and the schema is checked as 2020-12. Compiling uses ajv with `strict: false` and
 * no format validation: only "is this a usable schema" is asked; validating arguments is the
 * server's job. Results are cached by schema text.
 */
import Ajv2019 from 'ajv/dist/2019.js';
import Ajv2020 from 'ajv/dist/2020.js';
import AjvDraft07 from 'ajv';
import draft06 from 'ajv/dist/refs/json-schema-draft-06.json' with { type: 'json' };

/** The permissive schema used when a tool's own cannot be used. */
export const FALLBACK_PARAMETERS: Readonly<Record<string, unknown>> = Object.freeze({ type: 'object', additionalProperties: true });

/** Default cap on a serialized input schema. */
export const DEFAULT_MAX_SCHEMA_BYTES = 64 * 1024;

/** Outcome of checking one input schema. */
export interface SchemaResult {
  /** What to expose: a deep copy of the tool's schema, or a copy of the fallback. */
  parameters: Record<string, unknown>;
  /** `ok` — own schema used; `invalid`/`too_large` — fallback used; `warning` — own schema used, with a note. */
  status: 'ok' | 'warning' | 'invalid' | 'too_large';
  /** Why (never the schema itself). */
  message?: string;
}

type Compiler = { compile(schema: object): unknown; removeSchema(schema: object): unknown };
type Dialect = '2020' | '2019' | '07';
// allErrors: true generates flat code; with false, ajv nests one block per property and a
// schema with a few thousand properties overflows the stack (and compiles 5x slower).
const OPTIONS = { strict: false, logger: false, validateFormats: false, allErrors: true } as const;
const shared = new Map<Dialect, Compiler>();
const cache = new Map<string, string | null>();
const CACHE_MAX = 1024;

function newCompiler(d: Dialect): Compiler {
  if (d === '2020') return new Ajv2020.default(OPTIONS);
  if (d === '2019') return new Ajv2019.default(OPTIONS);
  const ajv = new AjvDraft07.default(OPTIONS);
  ajv.addMetaSchema(draft06);
  return ajv;
}

function dialectOf(s: unknown): { dialect: Dialect; known: boolean } {
  if (s === undefined) return { dialect: '2020', known: true };
  const t = typeof s === 'string' ? s : '';
  if (t.includes('2020-12')) return { dialect: '2020', known: true };
  if (t.includes('2019-09')) return { dialect: '2019', known: true };
  if (t.includes('draft-07') || t.includes('draft-06')) return { dialect: '07', known: true };
  return { dialect: '2020', known: false };
}

/** Checks `inputSchema` and returns the parameters to expose (see the module comment). */
export function toolParameters(inputSchema: unknown, maxBytes = DEFAULT_MAX_SCHEMA_BYTES): SchemaResult {
  let text: string | undefined;
  try {
    text = JSON.stringify(inputSchema);
  } catch {
    text = undefined;
  }
  if (text === undefined) return fallback('invalid', 'inputSchema is missing or not serializable');
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > maxBytes) return fallback('too_large', `inputSchema is ${bytes} bytes, over the ${maxBytes}-byte cap`);
  const schema = JSON.parse(text) as unknown;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return fallback('invalid', 'inputSchema is not a JSON object');
  const obj = schema as Record<string, unknown>;
  if (obj.type !== 'object') return fallback('invalid', 'inputSchema must have "type": "object"');
  const { dialect, known } = dialectOf(obj.$schema);
  const toCompile = known ? obj : withoutDollarSchema(obj);
  const problem = compileProblem(text, dialect, toCompile);
  if (problem !== null) return fallback('invalid', `inputSchema does not compile: ${problem}`);
  if (!known) return { parameters: obj, status: 'warning', message: 'inputSchema names an unknown "$schema"; checked as JSON Schema 2020-12' };
  return { parameters: obj, status: 'ok' };
}

function compileProblem(text: string, dialect: Dialect, schema: Record<string, unknown>): string | null {
  const key = `${dialect}\0${text}`;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  // A schema with `$id`s registers them in ajv; use a throwaway instance so ids never clash.
  const isolated = text.includes('"$id"');
  let ajv = isolated ? newCompiler(dialect) : shared.get(dialect);
  if (ajv === undefined) shared.set(dialect, (ajv = newCompiler(dialect)));
  let problem: string | null = null;
  try {
    ajv.compile(schema);
  } catch (err) {
    problem = String((err as Error)?.message ?? err).slice(0, 300);
  } finally {
    if (!isolated) ajv.removeSchema(schema);
  }
  if (cache.size >= CACHE_MAX) cache.clear();
  cache.set(key, problem);
  return problem;
}

function withoutDollarSchema(obj: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = obj;
  return rest;
}

function fallback(status: 'invalid' | 'too_large', message: string): SchemaResult {
  return { parameters: { ...FALLBACK_PARAMETERS }, status, message };
}
