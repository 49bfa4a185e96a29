/**
 * The layering of docs/design.md, enforced: imports go down the list, never up, and the CLI
 * uses only the public API (src/index.ts). Also: the engine never imports the official SDK.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src');
const RANK: Record<string, number> = { index: 0, 'host-api': 0, 'check-api': 0, 'serve-api': 0, 'daemon-api': 0, cli: 1, serve: 1.5, daemon: 1.5, host: 2, check: 2, tap: 2, auth: 3, mcp: 4, trace: 5, protocol: 6, transport: 7, jsonrpc: 8, schema: 8.5, errors: 9, fs: 9, util: 9 };

function files(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

const layerOf = (file: string) => {
  const rel = path.relative(src, file).split(path.sep);
  return rel.length === 1 ? rel[0].replace(/\.ts$/, '') : rel[0];
};

function imports(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]/g)) out.push(m[1]);
  for (const m of text.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g)) out.push(m[1]);
  return out;
}

describe('layering (docs/design.md)', () => {
  const all = files(src);

  it('every source file is in a known layer', () => {
    for (const f of all) expect(RANK[layerOf(f)], path.relative(src, f)).toBeTypeOf('number');
  });

  it('imports go down the layers, never up', () => {
    const violations: string[] = [];
    for (const f of all) {
      const from = layerOf(f);
      for (const spec of imports(f)) {
        if (!spec.startsWith('.')) continue;
        const target = path.resolve(path.dirname(f), spec).replace(/\.js$/, '.ts');
        const to = layerOf(target);
        if ((to === 'index' || to === 'host-api' || to === 'check-api' || to === 'serve-api' || to === 'daemon-api') && from === 'cli') continue; // the CLI's doors into the engine
        if (to !== from && RANK[to] <= RANK[from] && RANK[from] !== 0) violations.push(`${path.relative(src, f)} → ${spec}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('the CLI reaches the engine only through src/index.ts', () => {
    const violations: string[] = [];
    for (const f of all.filter((x) => layerOf(x) === 'cli')) {
      for (const spec of imports(f)) {
        if (!spec.startsWith('.')) continue;
        const target = path.resolve(path.dirname(f), spec).replace(/\.js$/, '.ts');
        const layer = layerOf(target);
        if (layer !== 'cli' && layer !== 'index' && layer !== 'host-api' && layer !== 'check-api' && layer !== 'serve-api' && layer !== 'daemon-api') violations.push(`${path.relative(src, f)} → ${spec}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('src/ never imports @modelcontextprotocol/sdk', () => {
    for (const f of all) expect(imports(f).filter((s) => s.startsWith('@modelcontextprotocol/sdk')), f).toEqual([]);
  });
});

describe("import('mcpwire') stays light", () => {
  /** npm packages reached from `entry` through static value imports (a lazy `import()` is not followed; `import type` is erased). */
  function staticPackages(entry: string): string[] {
    const seen = new Set<string>();
    const pkgs = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = fs.readFileSync(file, 'utf8');
      for (const m of text.matchAll(/^\s*(?:import|export)\s+(?!type\b)(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm)) {
        const spec = m[1]!;
        if (spec.startsWith('.')) visit(path.resolve(path.dirname(file), spec.replace(/\.js$/, '.ts')));
        else if (!spec.startsWith('node:')) pkgs.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
      }
    };
    visit(entry);
    return [...pkgs].sort();
  }

  it('src/index.ts reaches no npm package statically: ajv, zod, undici, pino, oauth4webapi, proper-lockfile load on first use', () => {
    expect(staticPackages(path.join(src, 'index.ts'))).toEqual([]);
  });
});
