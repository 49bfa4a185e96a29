/**
 * The server.json validator as the build generates it (scripts/server-json-validator.mjs writes
 * dist/schema/server-json-<version>.cjs with ajv's standalone code; src/registry/validate.ts loads
 * it instead of compiling the schema in every `registry show` / `mcp add --from-registry`):
 * - it is what the script makes of the schema file now (a schema file changed without a build, or
 *   a script changed without regenerating, fails here);
 * - it finds exactly the problems the schema compiled here finds (path, message, order), on the
 *   documents the registry tests serve, the registry repository's examples, and many documents
 *   made from them by a seeded mutator that breaks what it finds (a wrong type, a missing or stray
 *   field, a bad enum, pattern or length).
 * Needs dist/ (`npm run build`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SERVER_JSON_VERSIONS, serverJsonValidatorFile } from '../../scripts/server-json-validator.mjs';
import { SERVER_JSON_SCHEMA_VERSION, serverJsonProblems, serverJsonValidatorIsGenerated, useServerJsonValidator } from '../../src/registry/validate.js';
import { root } from '../support/cli-process.js';
import { mulberry32 } from '../support/fuzz.js';
import { bundleDoc, catalog, example, memoryDoc, ociDoc, remoteDoc } from '../support/registry-fixtures.js';

afterAll(() => useServerJsonValidator('build'));

const JUNK: unknown[] = [null, 0, -1, 1.5, '', 'x', 'latest', 'not a url', 'x'.repeat(300), true, [], {}, [1, 'a'], { stray: 1 }, 'https://example.test/a', '1.0.0', 'stdio', 'npm'];

/** `doc` with 1-3 places broken: a value replaced, a field removed or one added. */
function mutate(doc: unknown, r: () => number): unknown {
  const copy = JSON.parse(JSON.stringify(doc)) as Record<string, unknown>;
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const places: { parent: Record<string, unknown> | unknown[]; key: string | number }[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach((v, i) => (places.push({ parent: node, key: i }), visit(v)));
    else if (node !== null && typeof node === 'object') for (const [k, v] of Object.entries(node)) places.push({ parent: node as Record<string, unknown>, key: k }), visit(v);
  };
  visit(copy);
  for (let n = 1 + Math.floor(r() * 3); n > 0 && places.length > 0; n--) {
    const { parent, key } = pick(places);
    const what = r();
    if (what < 0.6) (parent as Record<string | number, unknown>)[key] = pick(JUNK);
    else if (what < 0.85 && !Array.isArray(parent)) delete parent[key as string];
    else if (!Array.isArray(parent)) parent[`stray${Math.floor(r() * 10)}`] = pick(JUNK);
  }
  return copy;
}

function corpus(): unknown[] {
  const base: unknown[] = [memoryDoc('2026.1.0'), memoryDoc(), remoteDoc(), ociDoc(), bundleDoc('http://127.0.0.1:1/b.mcpb', 'a'.repeat(64)), ...catalog(3)];
  for (const dir of ['valid', 'invalid']) for (const f of fs.readdirSync(path.join(root, 'test/fixtures/registry', dir))) base.push(example(`${dir}/${f}`));
  const r = mulberry32(20251211);
  const cases: unknown[] = [...base, ...JUNK];
  for (const d of base) for (let i = 0; i < 80; i++) cases.push(mutate(d, r));
  return cases;
}

describe('the generated server.json validator', () => {
  it('is what scripts/server-json-validator.mjs makes of the schema file now', () => {
    expect(SERVER_JSON_VERSIONS).toContain(SERVER_JSON_SCHEMA_VERSION);
    for (const v of SERVER_JSON_VERSIONS) {
      const file = path.join(root, 'dist', 'schema', `server-json-${v}.cjs`);
      expect(fs.existsSync(file), `${file} (npm run build writes it)`).toBe(true);
      expect(fs.readFileSync(file, 'utf8') === serverJsonValidatorFile(path.join(root, 'schema'), v), `${file} is stale against schema/server-json-${v}.schema.json: npm run build`).toBe(true);
    }
  });

  it('finds the same problems as the schema compiled here, on valid, invalid and broken documents', { timeout: 60_000 }, () => {
    const cases = corpus();
    useServerJsonValidator('build');
    expect(serverJsonValidatorIsGenerated(), 'the build\'s validator is used (npm run build writes it)').toBe(true);
    const built = cases.map((d) => serverJsonProblems(d));
    useServerJsonValidator('compile');
    expect(serverJsonValidatorIsGenerated()).toBe(false);
    const compiled = cases.map((d) => serverJsonProblems(d));
    for (let i = 0; i < cases.length; i++) expect(built[i], JSON.stringify(cases[i])).toEqual(compiled[i]);
    // the corpus is a real test: most of it is broken, in many different places and ways
    expect(cases.length).toBeGreaterThan(800);
    expect(compiled.filter((p) => p.length > 0).length).toBeGreaterThan(cases.length / 2);
    expect(compiled.filter((p) => p.length === 0).length).toBeGreaterThan(10);
    const all = compiled.flat();
    expect(new Set(all.map((p) => p.path)).size).toBeGreaterThan(40);
    const messages = all.map((p) => p.message).join('\n');
    for (const m of ['must have required property', 'must be string', 'must be equal to one of the allowed values', 'must match pattern', 'must NOT have more than']) expect(messages, m).toContain(m);
  });
});
