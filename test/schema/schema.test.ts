/**
 * src/schema — the one JSON Schema module: dialect from `$schema`, formats as
 * annotations unless asked, compiled validators cached by content hash in a bounded LRU, and
 * isolation: no schema is ever registered in a shared ajv, so schemas with the same `$id` (two
 * servers, two versions of one tool) never collide. Also the three users: the client's output
 * checks (src/mcp/output-schema.ts), the host's input checks (src/host/tool-schema.ts) and
 * strict mode (src/trace/strict.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  compileSchema,
  dialectOf,
  schemaCacheInfo,
  setSchemaCacheLimit,
  validateValue,
} from '../../src/schema/index.js';
import { validateAgainst } from '../../src/mcp/output-schema.js';
import { toolParameters } from '../../src/host/tool-schema.js';
import { validateMessage } from '../../src/trace/strict.js';

const DRAFT07 = 'http://json-schema.org/draft-07/schema#';
const DRAFT06 = 'http://json-schema.org/draft-06/schema#';
const DRAFT04 = 'http://json-schema.org/draft-04/schema#';
const S2019 = 'https://json-schema.org/draft/2019-09/schema';
const S2020 = 'https://json-schema.org/draft/2020-12/schema';

const sameIdA = { $id: 'https://example.com/out.json', type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
const sameIdB = { $id: 'https://example.com/out.json', type: 'object', properties: { s: { type: 'string' } }, required: ['s'] };

describe('schemas with the same $id never collide (isolation)', () => {
  it('same $id, different content (two servers) → both validate correctly (basic#16)', () => {
    expect(validateValue(sameIdA, { n: 1 })).toEqual({ problems: [] });
    const okB = validateValue(sameIdB, { s: 'x' });
    expect(okB.schemaError).toBeUndefined();
    expect(okB.problems).toEqual([]);
    expect(validateValue(sameIdB, { s: 5 }).problems.map((p) => p.path)).toEqual(['/s']);
    expect(validateValue(sameIdA, { n: 'x' }).problems.map((p) => p.path)).toEqual(['/n']);
  });

  it('an updated tool schema with the same $id is the one used (output-schema.ts)', async () => {
    const v1 = { $id: 'urn:tool:weather:out', type: 'object', properties: { temp: { type: 'number' } }, required: ['temp'] };
    const v2 = { $id: 'urn:tool:weather:out', type: 'object', properties: { temp: { type: 'string' } }, required: ['temp', 'unit'] };
    expect(await validateAgainst(v1, { temp: 20 })).toEqual({ problems: [] });
    const updated = await validateAgainst(v2, { temp: 20 });
    expect(updated.schemaError).toBeUndefined();
    expect(updated.problems.map((p) => p.path).sort()).toEqual(['/', '/temp']);
    expect(await validateAgainst(v2, { temp: '20C', unit: 'C' })).toEqual({ problems: [] });
  });

  it('nested $id and $anchor shared by two schemas do not leak between them', () => {
    const a = { $id: 'https://example.com/a', $defs: { item: { $id: 'https://example.com/item', $anchor: 'it', type: 'string' } }, type: 'array', items: { $ref: 'https://example.com/item' } };
    const b = { $id: 'https://example.com/b', $defs: { item: { $id: 'https://example.com/item', $anchor: 'it', type: 'number' } }, type: 'array', items: { $ref: 'https://example.com/item' } };
    expect(validateValue(a, ['x']).problems).toEqual([]);
    expect(validateValue(b, [1]).problems).toEqual([]);
    expect(validateValue(b, ['x']).problems).toHaveLength(1);
    expect(validateValue(a, [1]).problems).toHaveLength(1);
  });

  it('a $ref to another schema\'s $id does not resolve (no cross-schema registry)', () => {
    validateValue(sameIdA, { n: 1 });
    const r = validateValue({ type: 'object', properties: { x: { $ref: 'https://example.com/out.json' } } }, { x: {} });
    expect(r.schemaError).toMatch(/resolve/);
  });

  it('the host input check and the client output check agree on same-$id schemas', async () => {
    expect(toolParameters(sameIdA).status).toBe('ok');
    expect(toolParameters(sameIdB).status).toBe('ok');
    expect((await validateAgainst(sameIdB, { s: 1 })).problems).toHaveLength(1);
  });
});

describe('compiled validators are cached by content hash, bounded', () => {
  let restore: number | undefined;
  afterEach(() => {
    if (restore !== undefined) setSchemaCacheLimit(restore);
    restore = undefined;
  });

  it('the cache is bounded (LRU): compiling many distinct schemas does not pile up', () => {
    restore = setSchemaCacheLimit(16);
    for (let i = 0; i < 100; i++) expect(compileSchema({ type: 'object', description: `s${i}` }).ok).toBe(true);
    expect(schemaCacheInfo().size).toBeLessThanOrEqual(16);
    expect(schemaCacheInfo().max).toBe(16);
  });

  it('equal content compiles once; the recently used entry survives eviction', () => {
    restore = setSchemaCacheLimit(8);
    const hot = { type: 'object', description: 'hot' };
    compileSchema(hot);
    const before = schemaCacheInfo().compiles;
    for (let i = 0; i < 30; i++) {
      compileSchema({ type: 'object', description: `cold${i}` });
      expect(compileSchema(structuredClone(hot)).ok).toBe(true); // same content, another object
    }
    expect(schemaCacheInfo().compiles - before).toBe(30);
  });

  it('the default bound is finite', () => {
    expect(schemaCacheInfo().max).toBeGreaterThan(0);
    expect(Number.isFinite(schemaCacheInfo().max)).toBe(true);
  });
});

describe('dialects (basic#14, basic#15, basic#17)', () => {
  it('dialect comes from $schema; 2020-12 by default (basic#15)', () => {
    expect(dialectOf({})).toEqual({ dialect: '2020-12' });
    expect(dialectOf({ $schema: S2020 })).toEqual({ dialect: '2020-12' });
    expect(dialectOf({ $schema: S2019 })).toEqual({ dialect: '2019-09' });
    expect(dialectOf({ $schema: DRAFT07 })).toEqual({ dialect: 'draft-07' });
    expect(dialectOf({ $schema: DRAFT06 })).toEqual({ dialect: 'draft-06' });
    expect(dialectOf({ $schema: DRAFT04 })).toMatchObject({ unsupported: DRAFT04 });
    expect(dialectOf({ $schema: 42 })).toHaveProperty('unsupported');
  });

  it('draft-07 is enforced as draft-07 (array items, additionalItems) (basic#16)', () => {
    const tuple = { $schema: DRAFT07, type: 'array', items: [{ type: 'string' }], additionalItems: false };
    expect(validateValue(tuple, ['a']).problems).toEqual([]);
    expect(validateValue(tuple, ['a', 'b']).problems).toHaveLength(1);
    expect(validateValue(tuple, [1]).problems).toHaveLength(1);
    const defs = { $schema: DRAFT07, definitions: { n: { type: 'integer' } }, type: 'object', properties: { a: { $ref: '#/definitions/n' } } };
    expect(validateValue(defs, { a: 1.5 }).problems.map((p) => p.path)).toEqual(['/a']);
  });

  it('2020-12 is enforced as 2020-12 (prefixItems; array-form items is an invalid schema) (basic#16, basic#19)', () => {
    const tuple = { type: 'array', prefixItems: [{ type: 'string' }], items: false };
    expect(validateValue(tuple, ['a']).problems).toEqual([]);
    expect(validateValue(tuple, ['a', 'b']).problems).toHaveLength(1);
    const draft07Shape = { type: 'array', items: [{ type: 'string' }] };
    expect(validateValue(draft07Shape, ['a']).schemaError).toBeDefined();
  });

  it('draft-06 and 2019-09 are supported too (basic#14)', () => {
    expect(validateValue({ $schema: DRAFT06, type: 'object', required: ['a'] }, {}).problems).toHaveLength(1);
    expect(validateValue({ $schema: S2019, type: 'object', dependentRequired: { a: ['b'] } }, { a: 1 }).problems).toHaveLength(1);
  });

  it('draft-04 gives a clear "unsupported dialect" result, not a crash (basic#17)', () => {
    const r = compileSchema({ $schema: DRAFT04, type: 'object' });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.unsupportedDialect).toBe(DRAFT04);
      expect(r.schemaError).toMatch(/unsupported JSON Schema dialect/);
    }
    expect(validateValue({ $schema: DRAFT04, type: 'object' }, {})).toMatchObject({ schemaError: expect.stringMatching(/unsupported/), problems: [] });
  });

  it('an invalid schema gives a schemaError (basic#19)', () => {
    expect(validateValue({ type: 'strin' }, 'x').schemaError).toMatch(/type/);
    expect(validateValue({ type: 'object', properties: 3 }, {}).schemaError).toMatch(/properties/);
    expect(validateValue({ type: 'string', pattern: '(' }, 'x').schemaError).toBeDefined();
    expect(validateValue({ type: 'object', properties: { a: { $ref: '#/$defs/missing' } } }, {}).schemaError).toBeDefined();
    expect(validateValue('not a schema' as unknown as object, {}).schemaError).toBeDefined();
  });

  it('a schema that refers to itself without end gives a problem, not a thrown stack overflow (validateValue never throws)', () => {
    // A server's inputSchema is untrusted: `{"$ref":"#"}` validates by calling itself for ever.
    for (const schema of [{ $ref: '#' }, { allOf: [{ $ref: '#' }] }, { $schema: DRAFT07, anyOf: [{ $ref: '#' }] }]) {
      const r = validateValue(schema, { a: 1 });
      expect(r.schemaError).toBeUndefined();
      expect(r.problems).toEqual([{ path: '/', message: expect.stringMatching(/refers to itself without end/) }]);
    }
    // A recursive schema that ends (a tree) still validates as before.
    const tree = { type: 'object', properties: { kids: { type: 'array', items: { $ref: '#' } } } };
    expect(validateValue(tree, { kids: [{ kids: [] }] }).problems).toEqual([]);
    expect(validateValue(tree, { kids: [{ kids: 3 }] }).problems).toHaveLength(1);
  });
});

describe('formats follow the dialect (basic#16)', () => {
  const email = { type: 'object', properties: { email: { type: 'string', format: 'email' } } };

  it('format is an annotation by default (2020-12 without $schema)', () => {
    expect(validateValue(email, { email: 'not-an-email' })).toEqual({ problems: [] });
    expect(validateValue({ ...email, $schema: DRAFT07 }, { email: 'not-an-email' })).toEqual({ problems: [] });
  });

  it('assertFormats: true asserts formats (2020-12 and draft-07)', () => {
    expect(validateValue(email, { email: 'not-an-email' }, { assertFormats: true }).problems.map((p) => p.path)).toEqual(['/email']);
    expect(validateValue({ ...email, $schema: DRAFT07 }, { email: 'not-an-email' }, { assertFormats: true }).problems).toHaveLength(1);
    expect(validateValue(email, { email: 'a@example.com' }, { assertFormats: true })).toEqual({ problems: [] });
  });

  it('the client output check annotates formats unless assertFormats is set', async () => {
    expect(await validateAgainst(email, { email: 'not-an-email' })).toEqual({ problems: [] });
    expect((await validateAgainst(email, { email: 'not-an-email' }, { assertFormats: true })).problems).toHaveLength(1);
  });
});

describe('strict mode uses the schema module', () => {
  it('strict still checks messages against schema.json, formats asserted', () => {
    expect(validateMessage('in', { jsonrpc: '2.0', id: 1, result: { tools: [{ name: 't', inputSchema: { type: 'object' } }] } }, { requestMethod: 'tools/list' })).toEqual([]);
    const v = validateMessage('in', { jsonrpc: '2.0', id: 1, result: { tools: [{ name: 't' }] } }, { requestMethod: 'tools/list' });
    expect(v.map((x) => x.schemaPath)).toContain('#/$defs/Tool/required');
    const badUri = validateMessage('in', { jsonrpc: '2.0', id: 2, result: { contents: [{ uri: 'not a uri', text: 'x' }] } }, { requestMethod: 'resources/read' });
    expect(badUri.some((x) => x.keyword === 'format' || x.keyword === 'anyOf')).toBe(true);
  });
});
