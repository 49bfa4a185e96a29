/**
 * The schemas most tools declare are answered without ajv (src/schema/simple.ts): a schema of
 * the common keywords is valid and compiles as it stands, and a value that surely meets it needs
 * no compiled validator. What that must not change: every answer ajv gives — the schema's
 * validity, and for every value the same problems, in ajv's words (a value not surely valid goes
 * to ajv). Compared here with ajv itself on generated schemas and values, in each dialect.
 */
import fc from 'fast-check';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { metaSchemaProblem, newAjv } from '../../src/schema/ajv.js';
import { compileSchema, dialectOf, type Dialect, type SchemaProblem } from '../../src/schema/index.js';
import { isSimpleSchema, surelyValid } from '../../src/schema/simple.js';
import { fuzz } from '../support/fuzz.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const hostApi = path.join(ROOT, 'dist', 'host-api.js');

const DIALECTS: Record<Dialect, string | undefined> = {
  '2020-12': undefined,
  '2019-09': 'https://json-schema.org/draft/2019-09/schema',
  'draft-07': 'http://json-schema.org/draft-07/schema#',
  'draft-06': 'http://json-schema.org/draft-06/schema#',
};

/** What ajv alone says: the schema's problem, or each value's problems as compileSchema reports them. */
function ajvAnswers(schema: object, values: unknown[]): ({ schemaError: true } | { problems: SchemaProblem[] })[] {
  const d = dialectOf(schema);
  const bad = () => values.map(() => ({ schemaError: true as const }));
  if ('unsupported' in d || metaSchemaProblem(d.dialect, schema) !== undefined) return bad();
  let v;
  try {
    v = newAjv(d.dialect, { meta: false }).compile(schema);
  } catch {
    return bad();
  }
  return values.map((value) => ({ problems: v(value) ? [] : (v.errors ?? []).slice(0, 50).map((e) => ({ path: e.instancePath || '/', message: e.message ?? e.keyword })) }));
}

function ours(schema: object, value: unknown): { schemaError: true } | { problems: SchemaProblem[] } {
  const c = compileSchema(schema);
  return c.ok ? { problems: c.validate(value) } : { schemaError: true };
}

const KEYS = ['a', 'b', 'name', 'constructor', '__proto__', 'é'];
/** Property names in schemas: mostly plain, sometimes one a plain object inherits (left to ajv). */
const schemaKey = fc.oneof({ weight: 40, arbitrary: fc.constantFrom('a', 'b', 'name', 'é') }, { weight: 1, arbitrary: fc.constantFrom('constructor', '__proto__') });

/** Mostly a value the meta-schemas take, sometimes one they refuse. */
const mostly = <T>(valid: fc.Arbitrary<T>, invalid: fc.Arbitrary<unknown>) => fc.oneof({ weight: 60, arbitrary: valid }, { weight: 1, arbitrary: invalid });

/** Schemas of the common keywords, sometimes with a keyword the hand check leaves to ajv. */
const { schema } = fc.letrec((tie) => ({
  schema: fc.oneof(
    { maxDepth: 3, depthIdentifier: 'schema', withCrossShrink: true },
    { weight: 1, arbitrary: fc.boolean() },
    {
      weight: 6,
      arbitrary: fc
        .tuple(
          fc.record(
            {
              type: mostly(fc.constantFrom('string', 'number', 'integer', 'boolean', 'object', 'array', 'null', ['string', 'null']), fc.constantFrom(['number', 'number'], [], 'float', 3)),
              enum: mostly(fc.uniqueArray(fc.constantFrom('x', 'y', 1, 2.5, 0, true, null), { minLength: 1, maxLength: 3 }), fc.constantFrom([], [{}], 'x', [1, 1])),
              minimum: mostly(fc.constantFrom(0, 1, -2.5), fc.constantFrom('1')),
              maximum: fc.constantFrom(10, 2, 1e21),
              exclusiveMinimum: mostly(fc.constantFrom(0), fc.constantFrom(true)),
              exclusiveMaximum: fc.constantFrom(5, 1.5),
              minLength: mostly(fc.constantFrom(0, 1, 2), fc.constantFrom(-1, 1.5)),
              maxLength: fc.constantFrom(1, 3),
              minItems: fc.constantFrom(0, 1),
              maxItems: mostly(fc.constantFrom(2), fc.constantFrom('2')),
              required: mostly(fc.uniqueArray(schemaKey, { maxLength: 3 }), fc.constantFrom(['a', 'a'], [1], 'a')),
              properties: fc.dictionary(schemaKey, tie('schema'), { maxKeys: 3 }),
              additionalProperties: tie('schema'),
              items: mostly(tie('schema'), fc.constantFrom([{ type: 'string' }])),
              description: mostly(fc.constantFrom('d'), fc.constantFrom(3)),
              title: fc.constantFrom('t'),
              default: fc.constantFrom(0, 'x', null, {}),
              examples: mostly(fc.constantFrom([1]), fc.constantFrom('e')),
              deprecated: mostly(fc.constantFrom(true), fc.constantFrom('no')),
              readOnly: fc.constantFrom(false),
              format: mostly(fc.constantFrom('uri', 'email', 'whatever'), fc.constantFrom(7)),
              $comment: fc.constantFrom('c'),
            },
            { requiredKeys: [] },
          ),
          // keywords the hand check leaves to ajv
          fc.oneof({ weight: 40, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: fc.constantFrom({ pattern: '^a' }, { pattern: '(' }, { const: 1 }, { nullable: true }, { minProperties: 1 }, { toString: 1 }, { constructor: {} }, { hasOwnProperty: [] }) }),
        )
        .map(([common, other]) => ({ ...common, ...other })),
    },
  ),
}));

/** A whole schema: the root object, its `$schema` naming one of the dialects. */
const document = fc.tuple(schema, fc.constantFrom(...(Object.keys(DIALECTS) as Dialect[]))).map(([s, d]) => {
  const root = typeof s === 'boolean' ? { type: 'object' } : s;
  // as a schema arrives (parsed JSON; fast-check also makes objects without a prototype)
  return JSON.parse(JSON.stringify(DIALECTS[d] === undefined ? root : { $schema: DIALECTS[d], ...root })) as object;
});

/** Values near what such schemas describe: the same keys, numbers at the bounds, strings in code points. */
const { value } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(0, -0, 1, 2, 2.5, 5, 10, -3, 1e21, 'x', 'y', '', 'ab', '😀😀', 'a😀', true, false, null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.array(fc.tuple(fc.constantFrom(...KEYS, 'extra'), tie('value')), { maxLength: 4 }).map((pairs) => Object.fromEntries(pairs)),
  ),
}));

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const count = (v: unknown, dflt: number): number => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? Math.min(v, 4) : dflt);

/** Values shaped by `schema` (its types, enum, bounds, properties, items), which mostly meet it; sometimes anything. */
function valueFor(schema: unknown, depth = 0): fc.Arbitrary<unknown> {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema) || depth > 4) return value;
  const s = schema as Record<string, unknown>;
  const shaped: fc.Arbitrary<unknown>[] = [];
  if (Array.isArray(s.enum) && s.enum.length > 0) shaped.push(fc.constantFrom(...(s.enum as unknown[])));
  const types = typeof s.type === 'string' ? [s.type] : Array.isArray(s.type) ? s.type : ['string', 'number', 'object', 'array'];
  const lo = num(s.minimum) ?? num(s.exclusiveMinimum) ?? -5;
  const hi = Math.max(lo, num(s.maximum) ?? num(s.exclusiveMaximum) ?? 20);
  // within the bounds, or a little past them (and an object maybe without its required keys)
  for (const past of [0, 2]) {
    for (const t of types) {
      if (t === 'string') shaped.push(fc.string({ unit: fc.constantFrom('a', 'é', '😀'), minLength: Math.max(0, count(s.minLength, 0) - past), maxLength: Math.max(count(s.minLength, 0), count(s.maxLength, 4)) + past }));
      if (t === 'number') shaped.push(past === 0 ? fc.double({ min: lo, max: hi, noNaN: true, noDefaultInfinity: true }) : fc.constantFrom(lo, hi, lo - 1, hi + 1, lo - 0.5, hi + 0.5));
      if (t === 'integer') shaped.push(past === 0 ? fc.integer({ min: Math.ceil(lo), max: Math.max(Math.ceil(lo), Math.floor(hi)) }) : fc.constantFrom(Math.ceil(lo) - 1, Math.floor(hi) + 1, Math.ceil(lo), Math.floor(hi)));
      if (t === 'boolean') shaped.push(fc.boolean());
      if (t === 'null') shaped.push(fc.constant(null));
      if (t === 'array') shaped.push(fc.array(valueFor(s.items ?? true, depth + 1), { minLength: Math.max(0, count(s.minItems, 0) - past), maxLength: Math.max(count(s.minItems, 0), count(s.maxItems, 3)) + past }));
      if (t === 'object') {
        const props = typeof s.properties === 'object' && s.properties !== null ? (s.properties as Record<string, unknown>) : {};
        const keys = Object.keys(props).filter((k) => k !== '__proto__');
        const required = past === 0 && Array.isArray(s.required) ? s.required.filter((k): k is string => typeof k === 'string' && keys.includes(k)) : [];
        shaped.push(fc.record(Object.fromEntries(keys.map((k) => [k, valueFor(props[k], depth + 1)])), { requiredKeys: required }));
      }
    }
  }
  return shaped.length === 0 ? value : fc.oneof({ weight: 4, arbitrary: fc.oneof(...shaped) }, { weight: 1, arbitrary: value });
}

describe('a simple schema answered without ajv gives ajv\'s answers', () => {
  it('generated schemas and values: a simple schema is one ajv takes; surely valid only where ajv says valid; the same problems either way', () => {
    let simple = 0;
    let sure = 0;
    let total = 0;
    fuzz('schema simple path', 300, document.chain((d) => fc.tuple(fc.constant(d), fc.array(valueFor(d), { minLength: 1, maxLength: 4 }))), ([s, values]) => {
      total++;
      const isSimple = isSimpleSchema(s);
      if (isSimple) simple++;
      const answers = ajvAnswers(s, values);
      for (const [i, v] of values.entries()) {
        const want = answers[i];
        if (isSimple) expect(want).not.toHaveProperty('schemaError');
        if (isSimple && surelyValid(s, v)) {
          sure++;
          expect(want).toEqual({ problems: [] });
        }
        expect(ours(s, v)).toEqual(want);
      }
    });
    expect(simple / total).toBeGreaterThan(0.1);
    expect(sure).toBeGreaterThan(50);
  });

  it('every bound at its edge, in each dialect: the same answers as ajv, and surely valid wherever ajv says valid', () => {
    const schemas = [
      { type: 'number', minimum: 1, maximum: 10 },
      { type: 'number', exclusiveMinimum: 1, exclusiveMaximum: 10 },
      { type: 'integer', minimum: 0, maximum: 2 },
      { type: 'string', minLength: 2, maxLength: 3 },
      { type: 'array', minItems: 1, maxItems: 2, items: { type: 'string' } },
      { type: 'object', properties: { a: { type: 'string' }, n: { type: ['integer', 'null'] } }, required: ['a'], additionalProperties: false },
      { type: 'object', additionalProperties: { type: 'boolean' } },
      { enum: ['x', 1, null] },
    ];
    const values = [0, 1, 1.5, 2, 10, 10.5, 11, -1, 'a', 'ab', 'abc', 'abcd', '😀', '😀😀', '😀😀😀', '😀😀😀😀', 'x', [], ['a'], ['a', 'b'], ['a', 'b', 'c'], [1], {}, { a: 'x' }, { a: 1 }, { a: 'x', n: 2 }, { a: 'x', n: 2.5 }, { a: 'x', n: null }, { a: 'x', b: 1 }, { b: true }, null, true];
    let sure = 0;
    for (const [dialect, id] of Object.entries(DIALECTS)) {
      for (const bare of schemas) {
        const s = id === undefined ? bare : { $schema: id, ...bare };
        expect(isSimpleSchema(s), `${dialect} ${JSON.stringify(bare)}`).toBe(true);
        const answers = ajvAnswers(s, values);
        for (const [i, v] of values.entries()) {
          expect(ours(s, v), `${dialect} ${JSON.stringify(bare)} ${JSON.stringify(v)}`).toEqual(answers[i]);
          const valid = (answers[i] as { problems: SchemaProblem[] }).problems.length === 0;
          expect(surelyValid(s, v), `${dialect} ${JSON.stringify(bare)} ${JSON.stringify(v)}`).toBe(valid);
          if (valid) sure++;
        }
      }
    }
    expect(sure).toBeGreaterThan(80);
  });

  it('the schemas of the mock server and server-everything are simple, their usual arguments surely valid', () => {
    const getSum = { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { a: { type: 'number', description: 'First number' }, b: { type: 'number' } }, required: ['a', 'b'] };
    const annotated = { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { messageType: { type: 'string', enum: ['error', 'success', 'debug'] }, includeImage: { default: false, type: 'boolean' } }, required: ['messageType'] };
    const echo = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };
    expect([getSum, annotated, echo].every((s) => isSimpleSchema(s))).toBe(true);
    expect(surelyValid(getSum, { a: 2, b: 3 })).toBe(true);
    expect(surelyValid(annotated, { messageType: 'debug', includeImage: true })).toBe(true);
    expect(surelyValid(echo, { text: 'hi' })).toBe(true);
    expect(surelyValid(getSum, { a: 2 })).toBe(false);
    // a keyword named like a method of every object is not one the hand check knows
    expect([{ type: 'object', toString: 1 }, { type: 'object', constructor: {} }].some((s) => isSimpleSchema(s))).toBe(false);
    const compiled = compileSchema(getSum);
    expect(compiled.ok && compiled.validate({ a: 'x', b: 3 })).toEqual([{ path: '/a', message: 'must be number' }]);
  });
});

describe.skipIf(!fs.existsSync(hostApi))('checking arguments against a simple schema loads no ajv (the built mcpwire/host)', () => {
  it('valid arguments: no ajv module loaded; invalid ones: ajv says what is wrong', () => {
    const program = `
      import { createRequire } from 'node:module';
      const { validateValue } = await import(${JSON.stringify(pathToFileURL(hostApi).href)});
      const require = createRequire(${JSON.stringify(hostApi)});
      const ajv = () => Object.keys(require.cache).some((f) => /[\\\\/]node_modules[\\\\/]ajv[\\\\/]/.test(f));
      const schema = { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] };
      const ok = validateValue(schema, { a: 2, b: 3 });
      const before = ajv();
      const bad = validateValue(schema, { a: 2 });
      console.log(JSON.stringify({ ok, before, bad, after: ajv() }));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', program], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ ok: { problems: [] }, before: false, bad: { problems: [{ path: '/', message: "must have required property 'b'" }] }, after: true });
  });
});
