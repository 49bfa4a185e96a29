/**
 * Property-based fuzzing of the config loader (src/host/config): the pure merge
 * (`resolveConfig`) over arbitrary native and import layers, and the syntax converters
 * (`toJsonText`: YAML, TOML, JSONC) over arbitrary text.
 *
 * - `resolveConfig` never throws, whatever the layers hold (wrong types, `__proto__` /
 *   `constructor` keys, deep nesting, junk text); every server it returns has an id and either an
 *   error or a command/URL; nothing reaches Object.prototype;
 * - `toJsonText` never throws; when it says ok the text is JSON; its error messages never quote
 *   the input (a config may hold a secret), only line and column;
 * - a config written as JSON, YAML or TOML reads back as the same value.
 */
import fc from 'fast-check';
import { stringify as tomlStringify } from 'smol-toml';
import YAML from 'yaml';
import { describe, expect, it, vi } from 'vitest';

// Fuzz properties run many cases: generous per-test bounds for a loaded 2-core CI box (no timing is asserted).
vi.setConfig({ testTimeout: 180_000 });
import { toJsonText, type FileSyntax } from '../../src/host/config/formats.js';
import type { ImportFormat } from '../../src/host/config/imports.js';
import { resolveConfig, type LayerText } from '../../src/host/config/load.js';
import { fuzz, fuzzAsync } from '../support/fuzz.js';

const nastyKey = fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'command', 'url', 'args', 'env', 'headers', 'enabled', 'type', 'transport', 'servers', 'mcp', 'mcpServers');
const key = fc.oneof(nastyKey, fc.string({ maxLength: 6 }));
const { anyJson } = fc.letrec<{ anyJson: string }>((tie) => ({
  anyJson: fc.oneof(
    { depthSize: 'small' },
    fc.oneof(fc.string({ maxLength: 8 }).map((s) => JSON.stringify(s)), fc.constantFrom('1', '-1', '1e400', '0.5', 'true', 'false', 'null', '"${HOME}"', '"${env:X}"', '"${PROJECT_ROOT}/x"', '"${input:tok}"')),
    fc.array(tie('anyJson'), { maxLength: 3 }).map((a) => `[${a.join(',')}]`),
    fc.array(fc.tuple(key, tie('anyJson')), { maxLength: 3 }).map((m) => `{${m.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
  ),
}));
const deep = fc.integer({ min: 1, max: 3000 }).map((n) => '['.repeat(n) + ']'.repeat(n));
/** One server entry: plausible fields with plausible and implausible values. */
const entryJson = fc
  .record(
    {
      command: fc.oneof(fc.constantFrom('"node"', '""', '1', 'null'), anyJson),
      args: fc.oneof(fc.constantFrom('["a","b"]', '[]', '"a"'), anyJson),
      url: fc.oneof(fc.constantFrom('"http://127.0.0.1:1/mcp"', '"ftp://x"', '"not a url"', '"https://u:p@h/mcp?key=s3cr3t"'), anyJson),
      env: fc.oneof(fc.constantFrom('{"A":"1"}', '{"__proto__":"x"}', '{"A":1}'), anyJson),
      headers: fc.oneof(fc.constantFrom('{"Authorization":"Bearer abcdefgh"}', '{"X":null}'), anyJson),
      enabled: fc.constantFrom('true', 'false', '"yes"'),
      extra: fc.tuple(nastyKey, fc.oneof(anyJson, deep)),
    },
    { requiredKeys: [] },
  )
  .map((r) => `{${Object.entries(r).map(([k, v]) => (k === 'extra' ? `${JSON.stringify((v as [string, string])[0])}:${(v as [string, string])[1]}` : `"${k}":${v as string}`)).join(',')}}`);
const serversJson = fc.array(fc.tuple(key, fc.oneof({ weight: 5, arbitrary: entryJson }, { weight: 1, arbitrary: anyJson })), { maxLength: 4 }).map((m) => `{${m.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`);
const nativeText = fc.oneof(
  { weight: 5, arbitrary: fc.tuple(fc.constantFrom('', '"version":1,', '"version":2,'), serversJson).map(([v, s]) => `{${v}"mcp":{"servers":${s}}}`) },
  { weight: 1, arbitrary: anyJson },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: deep.map((d) => `{"mcp":{"servers":{"a":{"command":"x","env":${d}}}}}`) },
);
const importFormat = fc.constantFrom<ImportFormat>('mcpServers', 'vscode', 'claude-json', 'windsurf', 'codex', 'opencode');
const importText = fc.oneof(
  serversJson.chain((s) => fc.constantFrom(`{"mcpServers":${s}}`, `{"servers":${s}}`, `{"mcp_servers":${s}}`, `{"mcp":${s}}`, `{"projects":{"/p":{"mcpServers":${s}}}}`)),
  anyJson,
  fc.string({ maxLength: 30 }),
);
const layer: fc.Arbitrary<LayerText> = fc.oneof(
  fc.tuple(nativeText, fc.constantFrom<'project' | 'global'>('project', 'global')).map(([text, scope]) => ({ kind: 'native' as const, scope, file: `/p/.mcpwire/${scope}.json`, text })),
  fc.tuple(importText, importFormat, fc.boolean()).map(([text, format, inProject]) => ({ kind: 'import' as const, file: inProject ? '/p/.mcp.json' : '/home/u/.claude.json', format, text })),
);

function prototypeClean(): void {
  expect(Object.keys(Object.prototype)).toEqual([]);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
}

describe('fuzz: config loader', () => {
  it('regression: a config entry nested thousands deep is refused with an error, not a stack overflow', () => {
    const d = 20_000;
    const text = `{"mcp":{"servers":{"a":{"transport":"stdio","command":"x","env":{"A":"1"},"roots":${'['.repeat(d) + ']'.repeat(d)}},"b":{"transport":"stdio","command":"y"}}}}`;
    const r = resolveConfig([{ kind: 'native', scope: 'global', file: '/g.json', text }], { cwd: '/p', env: {}, homedir: '/h' });
    expect(r.servers.find((s) => s.id === 'a')?.error).toMatch(/nested more than 64 levels deep/);
    expect(r.servers.find((s) => s.id === 'b')?.error).toBeUndefined();
  });

  it('resolveConfig never throws on arbitrary layers; every server has an id and an error or a command/URL; nothing reaches Object.prototype', () => {
    fuzz('config resolveConfig arbitrary layers', 1_500, fc.array(layer, { minLength: 1, maxLength: 3 }), (layers) => {
      const r = resolveConfig(layers, { cwd: '/p', env: { HOME: '/home/u', X: 'x' }, homedir: '/home/u', trust: 'ask' });
      for (const s of r.servers) {
        expect(typeof s.id).toBe('string');
        if (s.error === undefined && s.enabled) expect(typeof s.config.command === 'string' || typeof s.config.url === 'string').toBe(true);
      }
      for (const d of r.diagnostics) expect(typeof d.message).toBe('string');
      prototypeClean();
    });
  });

  it('toJsonText (YAML, TOML, JSONC) never throws on arbitrary text; ok means JSON; errors quote nothing of the input', async () => {
    const secret = 'sk_live_Zq8vN3xR';
    const junk = fc.array(fc.oneof(fc.constantFrom('[', ']', '{', '}', ':', '=', '"', "'", '#', '//', '/*', '*/', ',', '\n', '  ', '- ', '&a', '*a', '<<', '!!', '%', '|', '>', '[[', '__proto__', 'constructor', '.', '\t', '\r', '"""', '0x', '1979-05-27'), fc.string({ maxLength: 4 }), fc.constant(secret)), { maxLength: 30 }).map((a) => a.join(''));
    await fuzzAsync('config toJsonText arbitrary text', 4_000, fc.tuple(junk, fc.constantFrom<FileSyntax>('yaml', 'toml', 'jsonc')), async ([text, syntax]) => {
      const r = await toJsonText(text, syntax);
      if (r.ok) JSON.parse(r.text);
      else expect(r.message.includes(secret)).toBe(false);
      prototypeClean();
    });
  });

  it('a config written as JSON, YAML or TOML reads back as the same value', async () => {
    const str = fc.string({ unit: 'grapheme', maxLength: 10 });
    const entry = fc.record({ command: str, args: fc.array(str, { maxLength: 3 }), env: fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }).filter((k) => k !== '__proto__'), str, { maxKeys: 3 }), enabled: fc.boolean(), requestTimeoutMs: fc.nat(1e6) }, { requiredKeys: ['command'] });
    const config = fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }).filter((k) => k !== '__proto__'), entry, { maxKeys: 3 }).map((servers) => ({ version: 1, mcp: { servers } }));
    await fuzzAsync('config JSON/YAML/TOML round trip', 1_000, fc.tuple(config, fc.constantFrom<FileSyntax>('yaml', 'toml', 'jsonc')), async ([value, syntax]) => {
      const text = syntax === 'yaml' ? YAML.stringify(value) : syntax === 'toml' ? tomlStringify(value) : `// a comment\n${JSON.stringify(value, null, 2).replace(/\n}$/, ',\n}')}`;
      const r = await toJsonText(text, syntax);
      expect(r.ok).toBe(true);
      if (r.ok) expect(JSON.parse(r.text)).toEqual(JSON.parse(JSON.stringify(value)));
    });
  });
});
