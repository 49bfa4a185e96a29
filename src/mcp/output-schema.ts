/**
 * Validation of `structuredContent` against a tool's `outputSchema` (server/tools: "Clients
 * SHOULD validate structured results against this schema", server.tools#15). ajv is loaded and
 * schemas compiled only when a tool with an outputSchema is first called; compiled validators
 * are cached by schema text.
 */
import type { ValidateFunction } from 'ajv';

type AjvLike = { compile(schema: object): ValidateFunction };
let ajvPromise: Promise<AjvLike> | undefined;
const cache = new Map<string, ValidateFunction | Error>();

async function ajv(): Promise<AjvLike> {
  ajvPromise ??= (async () => {
    const [{ default: Ajv2020 }, { default: addFormats }] = await Promise.all([
      import('ajv/dist/2020.js'),
      import('ajv-formats'),
    ]);
    const AjvCtor = Ajv2020 as unknown as new (o: object) => AjvLike;
    const instance = new AjvCtor({ strict: false, allErrors: true, validateFormats: true });
    (addFormats as unknown as (a: AjvLike) => void)(instance);
    return instance;
  })();
  return ajvPromise;
}

export interface SchemaProblem {
  path: string;
  message: string;
}

/** Validates `value` against `schema`; returns the problems (empty when valid). */
export async function validateAgainst(schema: object, value: unknown): Promise<SchemaProblem[]> {
  const key = JSON.stringify(schema);
  let v = cache.get(key);
  if (v === undefined) {
    try {
      v = (await ajv()).compile(schema);
    } catch (err) {
      v = err as Error;
    }
    if (cache.size > 512) cache.clear();
    cache.set(key, v);
  }
  if (v instanceof Error) return [{ path: '', message: `outputSchema does not compile: ${v.message}` }];
  if (v(value)) return [];
  return (v.errors ?? []).map((e) => ({ path: e.instancePath || '/', message: `${e.message ?? e.keyword}` }));
}
