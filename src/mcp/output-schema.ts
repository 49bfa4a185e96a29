/**
 * Validation of `structuredContent` against a tool's `outputSchema` (server/tools: "Clients
 * SHOULD validate structured results against this schema", server.tools#15). ajv is loaded and
 * schemas compiled only when a tool with an outputSchema is first called; compiled validators
 * are cached by schema text.
 *
 * Dialect: JSON Schema 2020-12 unless the schema names another with `$schema` (servers built on
 * zod-to-json-schema commonly send draft-07); draft-07/06 and 2019-09 are supported too.
 */
import type { ValidateFunction } from 'ajv';

type AjvLike = { compile(schema: object): ValidateFunction };
type Dialect = '2020' | '2019' | '07';
const instances = new Map<Dialect, Promise<AjvLike>>();
const cache = new Map<string, ValidateFunction | Error>();

function dialectOf(schema: Record<string, unknown>): Dialect | undefined {
  const s = schema.$schema;
  if (s === undefined) return '2020';
  if (typeof s !== 'string') return undefined;
  if (s.includes('2020-12')) return '2020';
  if (s.includes('2019-09')) return '2019';
  if (s.includes('draft-07') || s.includes('draft-06')) return '07';
  return undefined;
}

function ajvFor(dialect: Dialect): Promise<AjvLike> {
  let p = instances.get(dialect);
  if (p === undefined) {
    p = (async () => {
      const mod =
        dialect === '2020' ? await import('ajv/dist/2020.js') : dialect === '2019' ? await import('ajv/dist/2019.js') : await import('ajv');
      const { default: addFormats } = await import('ajv-formats');
      const Ctor = (mod as unknown as { default: new (o: object) => AjvLike }).default;
      const ajv = new Ctor({ strict: false, allErrors: true, validateFormats: true });
      if (dialect === '07') {
        const draft6 = (await import('ajv/dist/refs/json-schema-draft-06.json', { with: { type: 'json' } })).default;
        (ajv as unknown as { addMetaSchema(s: object): void }).addMetaSchema(draft6);
      }
      (addFormats as unknown as (a: AjvLike) => void)(ajv);
      return ajv;
    })();
    instances.set(dialect, p);
  }
  return p;
}

export interface SchemaProblem {
  path: string;
  message: string;
}

export interface SchemaCheck {
  /** The schema itself is unusable (does not compile, unknown dialect): nothing was checked. */
  schemaError?: string;
  problems: SchemaProblem[];
}

/** Compiles (once) and returns a validator, or the reason the schema is unusable. */
export async function compileSchema(schema: object): Promise<ValidateFunction | Error> {
  const key = JSON.stringify(schema);
  let v = cache.get(key);
  if (v === undefined) {
    const dialect = dialectOf(schema as Record<string, unknown>);
    try {
      if (dialect === undefined) throw new Error(`unsupported JSON Schema dialect ${JSON.stringify((schema as { $schema?: unknown }).$schema)}`);
      v = (await ajvFor(dialect)).compile(schema);
    } catch (err) {
      v = err as Error;
    }
    if (cache.size > 512) cache.clear();
    cache.set(key, v);
  }
  return v;
}

/** Validates `value` against `schema`. */
export async function validateAgainst(schema: object, value: unknown): Promise<SchemaCheck> {
  const v = await compileSchema(schema);
  if (v instanceof Error) return { schemaError: v.message, problems: [] };
  if (v(value)) return { problems: [] };
  return { problems: (v.errors ?? []).map((e) => ({ path: e.instancePath || '/', message: `${e.message ?? e.keyword}` })) };
}
