/**
 * No import circles in src/: files that import each other in a loop (type-only imports included,
 * as a reader sees them) are one room in disguise. Lazy `import()`s are not edges: they load on
 * first use and are how a light module reaches a heavy one.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = path.resolve(path.dirname(path.dirname(fileURLToPath(import.meta.url))), '../src');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : p.endsWith('.ts') && !p.endsWith('.d.ts') ? [p] : [];
  });
}

/** The static relative imports of each file, resolved to files of src/. */
function importGraph(files: string[]): Map<string, string[]> {
  const known = new Set(files);
  const edges = new Map<string, string[]>();
  for (const f of files) {
    const out: string[] = [];
    for (const m of fs.readFileSync(f, 'utf8').matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]/g)) {
      let t = path.resolve(path.dirname(f), m[1]).replace(/\.js$/, '.ts');
      if (!known.has(t) && known.has(path.join(t, 'index.ts'))) t = path.join(t, 'index.ts');
      if (known.has(t)) out.push(t);
    }
    edges.set(f, out);
  }
  return edges;
}

/** Strongly connected components of more than one file (Tarjan). */
function circles(edges: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const c: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        c.push(w);
      } while (w !== v);
      if (c.length > 1) found.push(c);
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('import circles', () => {
  it('finds a planted circle (the detector works)', () => {
    const a = path.join(src, 'a.ts');
    const b = path.join(src, 'b.ts');
    const c = path.join(src, 'c.ts');
    expect(circles(new Map([[a, [b]], [b, [a, c]], [c, []]]))).toEqual([[b, a]]);
    expect(circles(new Map([[a, [b]], [b, [c]], [c, []]]))).toEqual([]);
  });

  it('src/ has none', () => {
    const found = circles(importGraph(sourceFiles(src))).map((c) => c.map((f) => path.relative(src, f)).sort());
    expect(found).toEqual([]);
  });
});
