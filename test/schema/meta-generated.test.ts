/**
 * 2020-12's meta-schema check as the build generates it (scripts/meta-validators.mjs writes
 * dist/schema/meta-2020-12.cjs with ajv's standalone code; src/schema/ajv.ts uses it instead of
 * building an ajv instance that compiles the meta-schema): the same answers and the same error
 * text as ajv's meta instance, for valid schemas and for broken ones.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compileSchema, openSchemaDocument } from '../../src/schema/index.js';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const generatedFile = path.join(root, 'dist', 'schema', 'meta-2020-12.cjs');
const S2020 = 'https://json-schema.org/draft/2020-12/schema';

type Check = ((schema: unknown) => boolean) & { errors?: Array<{ instancePath: string; message?: string }> | null };
type MetaAjv = { validateSchema(s: unknown): boolean; errorsText(e: unknown, o: { dataVar: string }): string; errors: unknown };

const SCHEMAS: unknown[] = [
  { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  { $schema: S2020, type: 'object' },
  { $schema: `${S2020}#`, type: 'objekt' },
  { type: 'objekt' },
  { type: 'object', properties: { a: { type: 3 } }, required: 'a' },
  { $defs: { x: { type: 'string' } }, $ref: '#/$defs/x' },
  { minLength: -1, items: [1] },
  { properties: { a: { $dynamicRef: '#x', enum: [] } } },
  { anyOf: [] },
  { type: ['string', 'string'] },
  { $schema: S2020, pattern: 5 },
  { format: 'email', additionalProperties: 'no' },
];

describe('the generated 2020-12 meta-schema check', () => {
  it('the build writes it, and it answers as ajv does: validity and every error', () => {
    expect(fs.existsSync(generatedFile), 'npm run build writes dist/schema/meta-2020-12.cjs').toBe(true);
    const loaded = require(generatedFile) as Check | { default: Check };
    const check = 'default' in loaded ? loaded.default : loaded;
    const Ajv2020 = (require('ajv/dist/2020.js') as { default: new (o: object) => MetaAjv }).default;
    const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false, validateFormats: false, verbose: false, meta: true, validateSchema: true });
    for (const schema of SCHEMAS) {
      const expected = ajv.validateSchema(schema);
      expect(check(schema), JSON.stringify(schema)).toBe(expected);
      if (!expected) {
        const text = (check.errors ?? []).map((e) => `schema${e.instancePath} ${e.message}`).join(', ');
        expect(text).toBe(ajv.errorsText(ajv.errors, { dataVar: 'schema' }));
      }
    }
  });

  it('a schema that breaks the meta-schema is a schema error naming the dialect and what is wrong', () => {
    const c = compileSchema({ type: 'object', properties: { a: { type: 'strin' } }, required: 'a' });
    expect(c.ok).toBe(false);
    expect(!c.ok && c.schemaError).toBe(
      'not a valid 2020-12 schema: schema/properties/a/type must be equal to one of the allowed values, schema/properties/a/type must be array, schema/properties/a/type must match a schema in anyOf, schema/required must be array',
    );
    expect(compileSchema({ $schema: `${S2020}#`, anyOf: [] })).toEqual({ ok: false, schemaError: 'not a valid 2020-12 schema: schema/anyOf must NOT have fewer than 1 items' });
    expect(compileSchema({ type: 'object', properties: { n: { type: 'integer' } } }).ok).toBe(true);
  });

  it("a whole document (strict mode's spec schema) is checked by the same generated check: a broken one is refused naming what is wrong, the spec's opens", () => {
    expect(() => openSchemaDocument({ $schema: S2020, $defs: { A: { type: 'strin' } } })).toThrow(
      'not a valid 2020-12 schema: schema/$defs/A/type must be equal to one of the allowed values, schema/$defs/A/type must be array, schema/$defs/A/type must match a schema in anyOf',
    );
    const spec = JSON.parse(fs.readFileSync(path.join(root, 'schema', '2025-11-25.schema.json'), 'utf8')) as object;
    const tool = openSchemaDocument(spec, { assertFormats: true }).validator('/$defs/Tool');
    expect(tool?.({ name: 'echo', inputSchema: { type: 'object' } })).toBe(true);
    expect(tool?.({ inputSchema: { type: 'object' } })).toBe(false);
  });
});
