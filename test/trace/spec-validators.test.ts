/**
 * Strict mode's validators as the build generates them (scripts/spec-validators.mjs writes
 * dist/schema/spec-<revision>.cjs with ajv's standalone code; src/trace/strict.ts loads them
 * instead of compiling the schema in every process) find exactly what ajv compiling the schema
 * here finds: on a corpus of bad messages of both revisions (hand-picked ones, and many made from
 * the schema itself by a seeded generator that breaks what it builds), every violation is the same
 * (message, schemaType, schemaPath, instancePath, keyword, params), in the same order.
 * Needs dist/ (`npm run build`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  SCHEMA_VERSIONS,
  specValidatorSource,
  useSpecValidators,
  validateMessage,
  type Direction,
  type SchemaVersion,
  type ValidateInfo,
  type Violation,
} from '../../src/trace/strict.js';
import { mulberry32 } from '../support/fuzz.js';

const root = path.resolve(path.dirname(path.dirname(fileURLToPath(import.meta.url))), '..');
afterAll(() => useSpecValidators('build'));

interface Schema {
  $ref?: string;
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  additionalProperties?: Schema | boolean;
  format?: string;
}

interface Case {
  dir: Direction;
  message: unknown;
  info: ValidateInfo;
}

const STRINGS = ['', 'x', 'not a uri', 'https://example.test/a', 'file:///tmp/a.txt', 'aGVsbG8=', 'not base64!', '{x}/y', '%%'];
const JUNK: unknown[] = [null, 0, -1, 1.5, 'junk', true, [], {}, [1, 'a'], { stray: 1 }];

/** Values shaped by the schema, broken here and there (a wrong type, a missing or stray field, a bad enum or format). */
function generator(defs: Record<string, Schema>, seed: number) {
  const r = mulberry32(seed);
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const value = (s: Schema | boolean | undefined, depth: number): unknown => {
    if (s === undefined || typeof s === 'boolean' || depth > 7 || r() < 0.06) return pick(JUNK);
    if (s.$ref) return value(defs[s.$ref.replace('#/$defs/', '')], depth + 1);
    if (s.const !== undefined) return r() < 0.95 ? s.const : pick(JUNK);
    if (s.enum) return r() < 0.9 ? pick(s.enum) : pick(STRINGS);
    const union = s.anyOf ?? s.oneOf;
    if (union) return value(pick(union), depth + 1);
    if (s.allOf) return Object.assign({}, ...s.allOf.map((x) => value(x, depth + 1)).filter((x) => x !== null && typeof x === 'object'));
    const type = Array.isArray(s.type) ? pick(s.type) : s.type ?? (s.properties ? 'object' : pick(['string', 'object', 'number']));
    switch (type) {
      case 'object': {
        const o: Record<string, unknown> = {};
        for (const [k, p] of Object.entries(s.properties ?? {})) {
          if ((s.required ?? []).includes(k) ? r() < 0.93 : r() < 0.4) o[k] = value(p, depth + 1);
        }
        if (r() < 0.1) o[`extra${Math.floor(r() * 3)}`] = typeof s.additionalProperties === 'object' ? value(s.additionalProperties, depth + 1) : pick(JUNK);
        return o;
      }
      case 'array':
        return Array.from({ length: Math.floor(r() * 3) }, () => value(s.items, depth + 1));
      case 'string':
        return s.format === 'uri' && r() < 0.7 ? pick(['https://example.test/a', 'file:///a', 'not a uri']) : pick(STRINGS);
      case 'integer':
        return pick([0, 1, 7, -3, 2.5, 1e12]);
      case 'number':
        return pick([0, 0.5, 1, -2, 1.5e3]);
      case 'boolean':
        return r() < 0.9 ? r() < 0.5 : 'yes';
      case 'null':
        return null;
      default:
        return pick(JUNK);
    }
  };
  return { value, pick, r };
}

/** Names of the union's members (`ClientRequest` → `InitializeRequest`, …); a union of one is the `$def` itself. */
function members(defs: Record<string, Schema>, union: string): string[] {
  const u = defs[union];
  if (!u) return [];
  return u.anyOf ? u.anyOf.map((m) => m.$ref!.replace('#/$defs/', '')) : [union];
}

/** The corpus of one revision: hand-picked bad messages, then many made from its schema. */
function corpus(version: SchemaVersion): Case[] {
  const { $defs: defs } = JSON.parse(fs.readFileSync(path.join(root, 'schema', `${version}.schema.json`), 'utf8')) as { $defs: Record<string, Schema> };
  const info = (i: ValidateInfo = {}): ValidateInfo => ({ ...i, schema: version });
  const cases: Case[] = [
    { dir: 'in', message: 42, info: info() },
    { dir: 'in', message: { jsonrpc: '1.0', id: 1, result: {} }, info: info({ requestMethod: 'ping' }) },
    { dir: 'in', message: { jsonrpc: '2.0', id: 1, result: { tools: [{ name: 7 }, { inputSchema: { type: 'array' } }] } }, info: info({ requestMethod: 'tools/list' }) },
    { dir: 'in', message: { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'image', data: 'not base64!' }, { type: 'resource_link', uri: 'nope' }] } }, info: info({ requestMethod: 'tools/call' }) },
    { dir: 'in', message: { jsonrpc: '2.0', id: 3, result: { resources: [{ uri: 'not a uri', name: 'r' }], nextCursor: 5 } }, info: info({ requestMethod: 'resources/list' }) },
    { dir: 'in', message: { jsonrpc: '2.0', id: 4, error: { code: 'x', message: 3 } }, info: info() },
    { dir: 'in', message: { jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 'half' } }, info: info() },
    { dir: 'out', message: { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { arguments: [] } }, info: info() },
    { dir: 'out', message: { jsonrpc: '2.0', id: 6, method: 'no/such/method' }, info: info() },
    { dir: 'in', message: { jsonrpc: '2.0', id: 7, result: { resultType: 'input_required', inputRequests: 3 } }, info: info({ requestMethod: 'tools/call' }) },
    { dir: 'in', message: { jsonrpc: '2.0', id: 8, result: { task: { taskId: 1 } } }, info: info({ requestMethod: 'tools/call' }) },
    { dir: 'in', message: { jsonrpc: '2.0', id: 9, result: {} }, info: info({ requestMethod: 'initialize' }) },
  ];
  const gen = generator(defs, version === '2025-11-25' ? 20251125 : 20260728);
  const sent: Array<[Direction, string]> = [
    ['out', 'ClientRequest'],
    ['out', 'ClientNotification'],
    ['in', 'ServerRequest'],
    ['in', 'ServerNotification'],
  ];
  for (const [dir, union] of sent) {
    for (const name of members(defs, union)) {
      // each message also the other way round now and then (a method the sender may not send)
      for (let i = 0; i < 16; i++) cases.push({ dir: gen.r() < 0.1 ? (dir === 'in' ? 'out' : 'in') : dir, message: gen.value(defs[name], 0), info: info() });
    }
  }
  for (const [name, def] of Object.entries(defs)) {
    const method = def.properties?.method?.const;
    if (!name.endsWith('Request') || typeof method !== 'string' || !def.properties?.id) continue;
    const result = defs[`${name.slice(0, -'Request'.length)}Result`] ?? defs.EmptyResult;
    const dir: Direction = members(defs, 'ServerRequest').includes(name) ? 'out' : 'in';
    for (let i = 0; i < 16; i++) {
      const extra = version === '2026-07-28' && gen.r() < 0.2 ? { resultType: gen.pick(['complete', 'input_required', 'task', 7]) } : {};
      const body = gen.r() < 0.15 && defs.CreateTaskResult ? gen.value(defs.CreateTaskResult, 1) : gen.value(result, 1);
      cases.push({ dir, message: { jsonrpc: '2.0', id: i, result: body !== null && typeof body === 'object' && !Array.isArray(body) ? { ...body, ...extra } : body }, info: info({ requestMethod: method }) });
    }
  }
  for (const envelope of ['JSONRPCErrorResponse', 'JSONRPCMessage', 'JSONRPCRequest', 'JSONRPCNotification']) {
    for (let i = 0; i < 20; i++) cases.push({ dir: gen.r() < 0.5 ? 'in' : 'out', message: gen.value(defs[envelope], 0), info: info() });
  }
  return cases;
}

function violations(source: 'build' | 'runtime', cases: Case[]): Violation[][] {
  useSpecValidators(source);
  for (const v of SCHEMA_VERSIONS) expect(specValidatorSource(v), `${v}: the ${source} validators (npm run build writes dist/schema/spec-${v}.cjs)`).toBe(source);
  return cases.map((c) => validateMessage(c.dir, c.message, c.info));
}

describe("strict mode's generated validators", () => {
  it('find the same violations as the schema compiled here, for a corpus of bad messages of both revisions', { timeout: 120_000 }, () => {
    const cases = SCHEMA_VERSIONS.flatMap((v) => corpus(v));
    const built = violations('build', cases);
    const compiled = violations('runtime', cases);
    for (let i = 0; i < cases.length; i++) expect(built[i], JSON.stringify(cases[i])).toEqual(compiled[i]);
    // the corpus is a real test: most of it is broken, in many different rules of both schemas
    const all = compiled.flat();
    expect(cases.length).toBeGreaterThan(1500);
    expect(compiled.filter((v) => v.length > 0).length).toBeGreaterThan(cases.length / 2);
    for (const version of SCHEMA_VERSIONS) {
      const rules = new Set(all.filter((v) => v.schema === version).map((v) => v.schemaPath));
      expect(rules.size, version).toBeGreaterThan(100);
    }
    const keywords = new Set(all.map((v) => v.keyword));
    for (const k of ['required', 'type', 'const', 'enum', 'anyOf', 'format']) expect(keywords.has(k), k).toBe(true);
    // errors raised in a `$def` reached through `$ref`s are placed in that `$def`
    expect(all.some((v) => v.schemaType !== 'Tool' && v.schemaPath.startsWith('#/$defs/Tool/'))).toBe(true);
  });
});
