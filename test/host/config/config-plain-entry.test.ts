/**
 * The common server entry is checked by hand (src/host/config/plain-entry.ts) so that reading a
 * config loads no zod. What that must not change: every entry gets the answer the zod schema
 * gives — the same normalized entry when valid, zod's issues when not (the hand check only ever
 * says yes, and only where zod does).
 */
import fc from 'fast-check';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { plainEntry } from '../../../src/host/config/plain-entry.js';
import { knownEntryKeys, serverEntrySchema, validateServerEntry, validateWithZod } from '../../../src/host/config/schema.js';
import { fuzz } from '../../support/fuzz.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const hostApi = path.join(ROOT, 'dist', 'host-api.js');

/** Each field: values zod takes and values it refuses (wrong type, empty, NUL, line break, out of range). */
const values = {
  transport: fc.constantFrom('stdio', 'http', 'sse', 'ws', 1, null),
  enabled: fc.constantFrom(true, false, 'true', 0),
  command: fc.constantFrom('node', 'npx -y server', '', 'a\0b', 3, ['node']),
  args: fc.oneof(fc.array(fc.constantFrom('--flag', '', 'é 🎉', 'a\0b', 7, null), { maxLength: 4 }), fc.constantFrom('x', {}, [,'a'])),
  cwd: fc.constantFrom('/tmp', 'rel/dir', '', 5),
  env: pairsObject(fc.constantFrom('PATH', 'MY_TOKEN', 'A=B', '', 'X\0Y', '__proto__', 'sp ace'), fc.constantFrom('v', '', 'a\0b', 'line\nbreak', 12, null)),
  url: fc.constantFrom('http://127.0.0.1:9/mcp', 'https://example.com/mcp', 'ftp://x/y', '', 'not a url', 42),
  headers: pairsObject(fc.constantFrom('X-Api-Key', 'Authorization', 'bad header', 'Ünï', '', '__proto__'), fc.constantFrom('v', 'Bearer x', 'a\r\nb', 'a\0', 1)),
  secret_names: fc.oneof(fc.array(fc.constantFrom('TOKEN', '', 3), { maxLength: 3 }), fc.constantFrom('TOKEN')),
  request_timeout_ms: fc.constantFrom(1, 30_000, 2_147_483_647, 2_147_483_648, 0, -5, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '100'),
  permissions: fc.oneof(
    fc.record({ allow: fc.array(fc.constantFrom('echo', 'fs_*', ''), { maxLength: 3 }), deny: fc.array(fc.constantFrom('rm', '', 9), { maxLength: 2 }) }, { requiredKeys: [] }),
    fc.constantFrom({ denied: ['x'] }, { allow: 'x' }, [], null, { allow: undefined }),
  ),
  roots: fc.oneof(fc.array(fc.constantFrom('/srv/data', 'relative', '', '/a\0b', 1), { maxLength: 3 }), fc.constantFrom('/srv')),
  max_parallel: fc.constantFrom(1, 10_000, 10_001, 0, 2.5),
  reset_timeout_on_progress: fc.constantFrom(true, false, 1),
  max_total_timeout_ms: fc.constantFrom(1000, 0, 2_147_483_648),
  validate_input: fc.constantFrom(true, false, 'no'),
  trust_annotations: fc.constantFrom(true, false, null),
  keep_alive: fc.constantFrom(true, false, 'yes'),
  protocol_version: fc.constantFrom('2025-11-25', '2026-07-28', '2025-06-18', '1999-01-01', '', 20251125),
  // fields the hand check leaves to zod, and fields no entry has
  oauth: fc.constantFrom({ client_id: 'c' }, { client_id: '' }, 'x'),
  retry: fc.constantFrom({ max_retries: 2 }, { max_retries: -1 }),
  sandbox: fc.constantFrom(true, false, { network: 'none' }, { netwrk: 'none' }),
  from_registry: fc.constantFrom(
    { registry: 'r', name: 'n', version: '1', package: 'p' },
    { registry: 'r', name: 'n', version: '1', package: 'p', inputs: JSON.parse('{"API_KEY":["k"],"--flag":[],"__proto__":["x"]}') as unknown },
    { registry: 'r', name: 'n', version: '1', package: 'p', inputs: { A: 'k' } },
    { registry: 'r', name: 'n', version: '1', package: 'p', inputs: [] },
    { registry: 'r', name: 'n', version: '1', package: 'p', inputs: { A: [1] } },
    { registry: 'r', name: '', version: '1', package: 'p' },
    { registry: 'r', name: 'n', version: '1' },
    { registry: 'r', name: 'n', version: '1', package: 'p', extra: 'kept out by zod' },
    { registry: 'r', name: 'n', version: 1, package: 'p' },
    [],
    'io.example/x',
  ),
  comand: fc.constantFrom('node'),
  hasOwnProperty: fc.constantFrom([], 'x'),
  constructor: fc.constantFrom({}),
  type: fc.constantFrom('stdio'),
  extra: fc.constantFrom(undefined),
};

/** An object built from key/value pairs (`__proto__` an own key, as JSON.parse makes it), or a non-object. */
function pairsObject(key: fc.Arbitrary<string>, value: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.array(fc.tuple(key, value), { maxLength: 4 }).map((pairs) => Object.fromEntries(pairs)) },
    { weight: 1, arbitrary: fc.constantFrom(null, [], 'K=V', Object.create({ inherited: 'x' }) as object) },
  );
}

/** Mostly a valid value of the field, sometimes any of `values`' (valid or not). */
const mostly = <T>(valid: fc.Arbitrary<T>, any: fc.Arbitrary<unknown>) => fc.oneof({ weight: 6, arbitrary: valid }, { weight: 1, arbitrary: any });

/** Mostly entries of the common fields (so many take the hand check's path), sometimes anything. */
const entry = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record(
      {
        transport: mostly(fc.constantFrom('stdio', 'http', 'sse'), values.transport),
        command: mostly(fc.constantFrom('node', 'python3 -m srv'), values.command),
        args: mostly(fc.array(fc.constantFrom('a', '--x=1', 'é 🎉'), { maxLength: 3 }), values.args),
        url: mostly(fc.constantFrom('http://127.0.0.1:9/mcp', 'https://example.com/mcp'), values.url),
        env: mostly(fc.dictionary(fc.constantFrom('PATH', 'MY_TOKEN', 'lower'), fc.constantFrom('v', '', '${X}'), { maxKeys: 3 }), values.env),
        headers: mostly(fc.dictionary(fc.constantFrom('X-Api-Key', 'authorization'), fc.constantFrom('v', 'Bearer x'), { maxKeys: 2 }), values.headers),
        request_timeout_ms: mostly(fc.constantFrom(1, 30_000, 2_147_483_647), values.request_timeout_ms),
        permissions: mostly(fc.record({ allow: fc.array(fc.constantFrom('echo', 'fs_*'), { maxLength: 2 }), deny: fc.array(fc.constantFrom('rm'), { maxLength: 2 }) }, { requiredKeys: [] }), values.permissions),
        roots: mostly(fc.array(fc.constantFrom('/srv/data', '/tmp'), { maxLength: 2 }), values.roots),
        protocol_version: mostly(fc.constantFrom('2025-11-25', '2026-07-28'), values.protocol_version),
        keep_alive: mostly(fc.boolean(), values.keep_alive),
        enabled: mostly(fc.boolean(), values.enabled),
        max_parallel: mostly(fc.constantFrom(1, 8), values.max_parallel),
        secret_names: mostly(fc.array(fc.constantFrom('TOKEN'), { maxLength: 1 }), values.secret_names),
        from_registry: mostly(fc.record({ registry: fc.constant('https://registry.example'), name: fc.constant('io.example/x'), version: fc.constant('1.0.0'), package: fc.constantFrom('npm', 'remote'), inputs: fc.dictionary(fc.constantFrom('API_KEY', '--port'), fc.array(fc.constantFrom('v', ''), { maxLength: 2 }), { maxKeys: 2 }) }, { requiredKeys: ['registry', 'name', 'version', 'package'] }), values.from_registry),
      },
      { requiredKeys: ['transport'] },
    ),
  },
  { weight: 2, arbitrary: fc.record(values, { requiredKeys: [] }) },
  { weight: 1, arbitrary: fc.constantFrom(null, [], 'stdio', 7) },
);

describe('an entry checked by hand gets the answer zod gives', () => {
  it('generated entries: the same validation (normalized entry, or issues) with and without the hand check, which answers for many', () => {
    let byHand = 0;
    let total = 0;
    fuzz('config plain entry', 1000, entry, (raw) => {
      total++;
      if (plainEntry(raw) !== undefined) byHand++;
      for (const legacySse of [false, true]) {
        const [got, want] = [validateServerEntry(raw, legacySse), validateWithZod(raw, legacySse)];
        if (!isDeepStrictEqual(got, want)) expect(got).toEqual(want); // the strict comparison is the fast one; toEqual says what differs
      }
    });
    expect(byHand / total).toBeGreaterThan(0.1);
  });

  it('a typical stdio and http entry take the hand path, with lists and maps copied', () => {
    const stdio = { transport: 'stdio', command: 'node', args: ['server.js'], env: { TOKEN: '${TOKEN}' }, cwd: '/srv', permissions: { deny: ['rm'] }, keep_alive: true };
    const http = { transport: 'http', url: 'https://example.com/mcp', headers: { Authorization: 'Bearer x' }, request_timeout_ms: 5000, protocol_version: '2026-07-28' };
    // what `mcp add --from-registry` writes: every command that reads the config meets it
    const registry = { transport: 'stdio', command: 'npx', args: ['-y', 'srv@1.0.0'], from_registry: { registry: 'https://registry.example', name: 'io.example/srv', version: '1.0.0', package: 'npm', inputs: { API_KEY: ['k'] } } };
    for (const raw of [stdio, http, registry]) {
      const plain = plainEntry(raw);
      expect(plain).toEqual(raw);
      expect(validateServerEntry(raw)).toEqual(validateWithZod(raw));
    }
    // a field named like a method of every object is a field like any other (ignored, as zod ignores it)
    for (const odd of [{ ...stdio, hasOwnProperty: [] }, { ...http, toString: 'x' }, { ...http, constructor: {} }]) expect(validateServerEntry(odd)).toEqual(validateWithZod(odd));
    const r = validateServerEntry(registry);
    expect(r.ok && r.entry.config.fromRegistry !== registry.from_registry && r.entry.config.fromRegistry?.inputs?.API_KEY !== registry.from_registry.inputs.API_KEY).toBe(true);
    const v = validateServerEntry(stdio);
    expect(v.ok && v.entry.config.args !== stdio.args && v.entry.config.env !== stdio.env && v.entry.config.permissions.deny !== stdio.permissions.deny).toBe(true);
  });

  it('the listed entry keys are the zod schema\'s', () => {
    expect([...knownEntryKeys()].sort()).toEqual(Object.keys(serverEntrySchema.shape).sort());
  });
});

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-plain-entry-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!fs.existsSync(hostApi))('reading a config of common entries loads no zod (the built mcpwire/host)', () => {
  it('loadConfig of a stdio and an http entry: both servers, no zod module loaded; an oauth entry loads it', () => {
    const plain = path.join(dir, 'plain.json');
    const oauth = path.join(dir, 'oauth.json');
    fs.writeFileSync(plain, JSON.stringify({ version: 1, mcp: { servers: { a: { command: 'node', args: ['s.js'], env: { K: 'v' } }, b: { transport: 'http', url: 'http://127.0.0.1:9/mcp' } } } }));
    fs.writeFileSync(oauth, JSON.stringify({ version: 1, mcp: { servers: { c: { transport: 'http', url: 'https://example.com/mcp', oauth: { client_id: 'x' } } } } }));
    const program = (file: string) => `
      import { createRequire } from 'node:module';
      const { loadConfig } = await import(${JSON.stringify(pathToFileURL(hostApi).href)});
      const config = await loadConfig({ globalPath: ${JSON.stringify(file)}, projectPath: ${JSON.stringify(path.join(dir, "none.json"))}, cwd: ${JSON.stringify(dir)}, env: { HOME: ${JSON.stringify(dir)} }, homedir: ${JSON.stringify(dir)} });
      const require = createRequire(${JSON.stringify(hostApi)});
      const zod = Object.keys(require.cache).some((f) => /[\\\\/]node_modules[\\\\/]zod[\\\\/]/.test(f));
      console.log(JSON.stringify({ servers: config.servers.map((s) => s.id + ':' + (s.error === undefined)), zod }));`;
    const run = (file: string) => {
      const r = spawnSync(process.execPath, ['--input-type=module', '-e', program(file)], { encoding: 'utf8' });
      expect(r.stderr).toBe('');
      return JSON.parse(r.stdout) as { servers: string[]; zod: boolean };
    };
    expect(run(plain)).toEqual({ servers: ['a:true', 'b:true'], zod: false });
    expect(run(oauth)).toEqual({ servers: ['c:true'], zod: true });
  });
});
