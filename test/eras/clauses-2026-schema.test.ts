// clauses: 2026-07-28 (the ids in this file's titles are that revision's numbering; scripts/clause-coverage.mjs)
/**
 * JSON Schema usage in MCP 2026-07-28 (basic/index "JSON Schema Usage"), through the one schema
 * module (src/schema/) the client's output check (src/mcp/output-schema.ts) uses: 2020-12 for a
 * schema without `$schema`, validation by the declared dialect, an unsupported dialect an error
 * saying so, and no network `$ref` ever fetched (a loopback server counts the requests).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateValue } from '../../src/schema/index.js';
import { validateAgainst } from '../../src/mcp/output-schema.js';

const DRAFT07 = 'http://json-schema.org/draft-07/schema#';
const DRAFT04 = 'http://json-schema.org/draft-04/schema#';

let server: http.Server;
let base = '';
let hits = 0;
beforeAll(async () => {
  server = http.createServer((_req, res) => {
    hits++;
    res.setHeader('content-type', 'application/schema+json');
    res.end(JSON.stringify({ type: 'string' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('JSON Schema in 2026-07-28', () => {
  it('basic#29/#30/#31: a schema without $schema is 2020-12 (prefixItems, dependentRequired enforced); one declaring draft-07 is validated as draft-07', async () => {
    const tuple = { type: 'array', prefixItems: [{ type: 'string' }], items: false };
    expect(validateValue(tuple, ['a']).problems).toEqual([]);
    expect(validateValue(tuple, ['a', 'b']).problems).toHaveLength(1);
    expect(validateValue({ type: 'object', dependentRequired: { a: ['b'] } }, { a: 1 }).problems).toHaveLength(1);
    const draft07 = { $schema: DRAFT07, type: 'array', items: [{ type: 'string' }], additionalItems: false };
    expect(validateValue(draft07, ['a']).problems).toEqual([]);
    expect(validateValue(draft07, ['a', 'b']).problems).toHaveLength(1);
    // the client's own output check goes the same way
    expect((await validateAgainst(tuple, ['a', 'b'])).problems).toHaveLength(1);
  });

  it('basic#32: an unsupported dialect is an error that says the dialect is not supported, not a crash and not a pass', async () => {
    const r = await validateAgainst({ $schema: DRAFT04, type: 'object' }, {});
    expect(r.schemaError).toMatch(/unsupported JSON Schema dialect/);
    expect(r.schemaError).toContain(DRAFT04);
  });

  it('basic#35/#36: a $ref to a network URI is never fetched (nothing reaches the server it names); the schema is unusable instead', async () => {
    hits = 0;
    for (const schema of [{ $ref: `${base}/s.json` }, { type: 'object', properties: { a: { $ref: `${base}/a.json#/x` } } }, { $schema: DRAFT07, $ref: `${base}/d7.json` }]) {
      const r = await validateAgainst(schema, { a: 1 });
      expect(r.schemaError, JSON.stringify(schema)).toBeDefined();
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(hits).toBe(0);
  });
});
