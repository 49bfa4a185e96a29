/**
 * A whole schema document with many `$defs` (the spec's schema.json, for strict mode), validated
 * by pointer. Two ways to the same validators:
 *
 * - `generatedSchemaDocument(file)`: the code the build generated for it (ajv's standalone code,
 *   scripts/spec-validators.mjs): nothing to compile, so opening a document costs no ajv instance;
 * - `openSchemaDocument(schema)`: ajv compiles it in this process, each `$def` on first use.
 *
 * Either way a validator's errors name the failing rule by its place in the whole document
 * (`schemaPath` `#/$defs/Tool/required`, the rule's schema object's pointer and the keyword),
 * whichever `$def` the rule sits in: the generated code is written so, and the compiled one's
 * errors are mapped so from the schema objects ajv reports (`verbose`). Errors carry
 * `instancePath`, `schemaPath`, `keyword`, `params` and `message`, as ajv words them.
 */
import { createRequire } from 'node:module';
import type { ErrorObject } from 'ajv';
import { metaSchemaProblem, newAjv } from './ajv.js';
import { dialectOf } from './dialect.js';

/** A subschema's check: `errors` (after a false) locate each rule in the whole document. */
export type DocumentValidator = ((value: unknown) => boolean) & { errors?: ErrorObject[] | null };

/** A whole schema document (e.g. the spec's schema.json), validated by pointer. */
export interface SchemaDocument {
  /** The validator for the subschema at `pointer` (`/$defs/Tool`), compiled on first use. */
  validator(pointer: string): DocumentValidator | undefined;
}

const require = createRequire(import.meta.url);

/**
 * The document the build generated into `file` (a CommonJS module exporting one validator per
 * `$def`, by its name), or undefined when there is none (no build) or it does not load.
 */
export function generatedSchemaDocument(file: string): SchemaDocument | undefined {
  let code: Record<string, DocumentValidator>;
  try {
    code = require(file) as Record<string, DocumentValidator>;
  } catch {
    return undefined;
  }
  return {
    validator: (pointer) => {
      const name = /^\/\$defs\/([A-Za-z_$][\w$]*)$/.exec(pointer)?.[1];
      return name !== undefined && Object.hasOwn(code, name) && typeof code[name] === 'function' ? code[name] : undefined;
    },
  };
}

/**
 * Loads a document into an ajv instance of its own (checked against its meta-schema), never
 * shared with any other schema; each subschema compiles on its first `validator`.
 */
export function openSchemaDocument(schema: object, options: { assertFormats?: boolean } = {}): SchemaDocument {
  const d = dialectOf(schema);
  if ('unsupported' in d) throw new Error(`unsupported JSON Schema dialect ${JSON.stringify(d.unsupported)}`);
  // Checked against its meta-schema the way compileSchema checks one (the build's generated
  // 2020-12 check), so opening the spec's schema compiles no meta-schema.
  const bad = metaSchemaProblem(d.dialect, schema);
  if (bad !== undefined) throw new Error(`not a valid ${d.dialect} schema: ${bad.slice(0, 300)}`);
  // verbose: each error names its rule's schema object, which `pointers` places in the document
  const ajv = newAjv(d.dialect, { assertFormats: options.assertFormats === true, verbose: true, meta: false });
  const KEY = 'document';
  ajv.addSchema(schema, KEY);
  const where = pointers(schema);
  const made = new Map<string, DocumentValidator | undefined>();
  return {
    validator: (pointer) => {
      if (made.has(pointer)) return made.get(pointer);
      const v = ajv.getSchema(`${KEY}#${pointer}`);
      const located: DocumentValidator | undefined =
        v === undefined
          ? undefined
          : Object.assign(
              (value: unknown): boolean => {
                const ok = v(value) as boolean;
                located!.errors = ok ? null : (v.errors ?? []).map((e) => locate(e, where, pointer));
                return ok;
              },
              { errors: null },
            );
      made.set(pointer, located);
      return located;
    },
  };
}

/** An error of a compiled subschema at `pointer`, its rule placed in the whole document, the verbose fields dropped. */
function locate(e: ErrorObject, where: WeakMap<object, string>, pointer: string): ErrorObject {
  const { schema: _schema, parentSchema, data: _data, ...error } = e;
  const parent = parentSchema !== undefined ? where.get(parentSchema) : undefined;
  return { ...error, schemaPath: parent !== undefined ? `${parent}/${e.keyword}` : `#${pointer}${decodeURIComponent(e.schemaPath.slice(1))}` };
}

/** Every schema object of `root` → its JSON Pointer in the document (`#/$defs/Tool`). */
function pointers(root: object): WeakMap<object, string> {
  const map = new WeakMap<object, string>();
  const visit = (node: unknown, ptr: string): void => {
    if (node === null || typeof node !== 'object' || map.has(node)) return;
    map.set(node, ptr);
    for (const [k, v] of Object.entries(node)) visit(v, `${ptr}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`);
  };
  visit(root, '#');
  return map;
}
