/**
 * The layering of docs/design.md, enforced: imports go down the list, never up, and the CLI
 * uses only the public API (src/index.ts). Also: the engine never imports the official SDK.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { staticGraph } from '../../scripts/static-graph.mjs';

const src = path.resolve(path.dirname(path.dirname(fileURLToPath(import.meta.url))), '../src');
const RANK: Record<string, number> = { index: 0, 'host-api': 0, 'check-api': 0, 'serve-api': 0, 'daemon-api': 0, 'trace-api': 0, 'apps-api': 0, 'registry-api': 0, cli: 1, serve: 1.5, daemon: 1.5, apps: 1.75, host: 2, check: 2, tap: 2, registry: 2, store: 2.5, auth: 3, mcp: 4, trace: 5, protocol: 6, transport: 7, jsonrpc: 8, schema: 8.5, errors: 9, fs: 9, util: 9 };

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
        if ((to === 'index' || to === 'host-api' || to === 'check-api' || to === 'serve-api' || to === 'daemon-api' || to === 'trace-api' || to === 'apps-api' || to === 'registry-api') && from === 'cli') continue; // the CLI's doors into the engine
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
        // (src/util is no part of the engine: the helpers every layer may use)
        if (layer !== 'cli' && layer !== 'util' && layer !== 'index' && layer !== 'host-api' && layer !== 'check-api' && layer !== 'serve-api' && layer !== 'daemon-api' && layer !== 'trace-api' && layer !== 'apps-api' && layer !== 'registry-api') violations.push(`${path.relative(src, f)} → ${spec}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('src/ never imports @modelcontextprotocol/sdk', () => {
    for (const f of all) expect(imports(f).filter((s) => s.startsWith('@modelcontextprotocol/sdk')), f).toEqual([]);
  });
});

describe("import('mcpwire') stays light", () => {
  /** The static graph of `entry` (scripts/static-graph.mjs), files relative to src/. */
  function graphOf(entry: string): { files: Set<string>; builtins: string[]; packages: string[] } {
    const g = staticGraph(entry, { sources: true });
    return { files: new Set(g.files.map(rel)), builtins: g.builtins, packages: g.packages };
  }
  const staticPackages = (entry: string): string[] => graphOf(entry).packages;

  it('src/index.ts reaches no npm package statically: ajv, zod, undici, pino, oauth4webapi, proper-lockfile load on first use', () => {
    expect(staticPackages(path.join(src, 'index.ts'))).toEqual([]);
  });

  it('src/index.ts loads neither node:crypto nor the trace writer statically: both load on first use', () => {
    const graph = graphOf(path.join(src, 'index.ts'));
    expect(graph.builtins.filter((b) => b === 'node:crypto' || b === 'crypto')).toEqual([]);
    expect([...graph.files].filter((f) => f.startsWith('trace/') && ['tracer.ts', 'file-destination.ts', 'clock.ts', 'line-bytes.ts'].includes(f.slice(6)))).toEqual([]);
  });
});

/** Every string literal of `file` (plain, no-substitution and the pieces of template literals), with its line. */
function stringLiterals(file: string): { text: string; line: number }[] {
  const sf = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const out: { text: string; line: number }[] = [];
  const visit = (n: ts.Node) => {
    if (ts.isStringLiteralLike(n) || ts.isTemplateHead(n) || ts.isTemplateMiddle(n) || ts.isTemplateTail(n)) {
      out.push({ text: n.text, line: sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1 });
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

const rel = (f: string) => path.relative(src, f).split(path.sep).join('/');

describe('the seams of the layers', () => {
  const all = files(src);

  /**
   * The transport moves messages and knows nothing of what they mean: no MCP method name in its
   * code. Allowed, with why: `'initialize'` as a `Phase` value (which stage of the connection an
   * error belongs to, for retry and legacy-fallback decisions), not as a method.
   */
  const TRANSPORT_ALLOWED: Record<string, string[]> = {
    'transport/http-post.ts': ['initialize'],
    'transport/streamable-http.ts': ['initialize'],
    'transport/legacy-sse.ts': ['initialize'],
    'transport/http-session.ts': ['initialize'],
  };
  const MCP_METHOD = /^(initialize|ping)$|^(notifications|tools|resources|prompts|completion|logging|sampling|elicitation|roots|tasks)\//;

  it('src/transport names no MCP method (string literals; comments may)', () => {
    const hits: string[] = [];
    for (const f of all.filter((x) => layerOf(x) === 'transport')) {
      for (const { text, line } of stringLiterals(f)) {
        if (MCP_METHOD.test(text) && !(TRANSPORT_ALLOWED[rel(f)] ?? []).includes(text)) hits.push(`${rel(f)}:${line} '${text}'`);
      }
    }
    expect(hits).toEqual([]);
  });

  /**
   * Only src/mcp/eras/ (and the table itself, src/mcp/versions.ts) decides by protocol version.
   * A literal that IS a version ('2025-06-18') is a value the code acts on; a version named in a
   * sentence (a title, a message) is prose and not counted. Allowed, with why:
   */
  const VERSION_LITERAL_ALLOWED: Record<string, string> = {
    'check/http/http.ts 2025-06-18': "the checker judges a server against the spec's history (batches existed before 2025-06-18), which the client's table of the revisions it speaks does not hold",
    'check/basics/stdio-raw.ts 2025-06-18': "the checker judges a server against the spec's history (batches existed before 2025-06-18)",
    'serve/session.ts 2025-11-25': 'the gateway serves one revision of its own, as a server; not the client choosing an era',
    'serve/modern.ts 2026-07-28': 'the gateway serves the stateless revision as a server (server/discover, the _meta envelope); not the client choosing an era',
    'trace/strict.ts 2025-11-25': 'strict mode names the schema files it ships (schema/<version>.schema.json): this one checks handshake-era sessions',
    'apps/constants.ts 2026-01-26': "the MCP Apps view protocol's own version (host <-> view over postMessage), not an MCP revision",
    'apps/constants.ts 2025-11-21': "an earlier MCP Apps view protocol version a view may ask for, not an MCP revision",
    'trace/strict.ts 2026-07-28': 'strict mode names the schema files it ships (schema/<version>.schema.json): this one checks stateless-era sessions',
    'registry/validate.ts 2025-12-11': "the MCP Registry's server.json schema version (schema/server-json-2025-12-11.schema.json), not a protocol revision",
  };
  /** Importers of the version table outside src/mcp/eras/, with why. */
  const VERSIONS_IMPORT_ALLOWED: Record<string, string> = {
    'index.ts': 'the public API exports LATEST_PROTOCOL_VERSION and SUPPORTED_PROTOCOL_VERSIONS',
    'host/config/schema.ts': 'a configured protocol_version the client cannot speak is refused when the config loads, in the words connect() uses',
    'host/config/plain-entry.ts': 'the hand check of an entry (schema.ts without zod) takes a protocol_version only where schema.ts would',
    'check/http/http.ts': 'raw probes (no client) offer the newest version in their own initialize',
    'check/basics/lifecycle.ts': 'raw probes (no client) offer the newest version in their own initialize',
    'check/core/probe.ts': 'raw probes (no client) offer the newest version in their own initialize',
    'check/basics/stdio-raw.ts': 'raw probes (no client) offer the newest version in their own initialize',
    'check/run/era.ts': 'the checker picks the era it checks a server in as the client picks it',
    'check/core/revisions.ts': 'the checker names the versions it can check (--protocol-version, --all-versions), by era',
  };
  const inEras = (f: string) => rel(f).startsWith('mcp/eras/') || rel(f) === 'mcp/versions.ts';

  it('only src/mcp/eras/ acts on protocol version strings', () => {
    const hits: string[] = [];
    for (const f of all.filter((x) => !inEras(x))) {
      for (const { text, line } of stringLiterals(f)) {
        if (/^20\d\d-\d\d-\d\d$/.test(text) && VERSION_LITERAL_ALLOWED[`${rel(f)} ${text}`] === undefined) hits.push(`${rel(f)}:${line} '${text}'`);
      }
    }
    expect(hits).toEqual([]);
  });

  it('only src/mcp/eras/ reads the protocol version table (src/mcp/versions.ts)', () => {
    const table = path.join(src, 'mcp/versions.ts');
    const hits: string[] = [];
    for (const f of all.filter((x) => !inEras(x))) {
      const reads = imports(f).some((s) => s.startsWith('.') && path.resolve(path.dirname(f), s).replace(/\.js$/, '.ts') === table);
      if (reads && VERSIONS_IMPORT_ALLOWED[rel(f)] === undefined) hits.push(rel(f));
    }
    expect(hits).toEqual([]);
  });

  it('src/serve and src/daemon never import src/cli', () => {
    const hits: string[] = [];
    for (const f of all.filter((x) => layerOf(x) === 'serve' || layerOf(x) === 'daemon')) {
      for (const spec of imports(f)) {
        if (spec.startsWith('.') && layerOf(path.resolve(path.dirname(f), spec).replace(/\.js$/, '.ts')) === 'cli') hits.push(`${rel(f)} → ${spec}`);
      }
    }
    expect(hits).toEqual([]);
  });

  it('every layer folder opens with a README, and docs/design.md links each one', () => {
    const folders = [...fs.readdirSync(src, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name), 'host/config'];
    const design = fs.readFileSync(path.join(src, '../docs/design.md'), 'utf8');
    expect(folders.filter((d) => !fs.existsSync(path.join(src, d, 'README.md')))).toEqual([]);
    expect(folders.filter((d) => !design.includes(`(../src/${d}/README.md)`))).toEqual([]);
  });
});
