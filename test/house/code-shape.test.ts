/**
 * The project keeps its source small: no file in src/ over 600 lines, no function over 80
 * (scripts/code-shape.mjs measures it with the TypeScript compiler API).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { codeShape as measure, type ShapeFinding as Found } from '../../scripts/code-shape.mjs';

const root = path.resolve(path.dirname(path.dirname(fileURLToPath(import.meta.url))), '..');

/**
 * Over the limits today in folders whose owners are reshaping them right now; each entry must
 * still be over (the test fails once it is not, so the allowance goes when the split lands).
 */
const PENDING: string[] = [];

const key = (f: Found) => (f.kind === 'file' ? `file ${f.file}` : `function ${f.file} ${f.name}`);

describe('code shape (scripts/code-shape.mjs)', () => {
  it('no file in src/ is over 600 lines and no function over 80, but those pending a split', () => {
    const found = measure(path.join(root, 'src')).map(key);
    expect(found.filter((k) => !PENDING.includes(k))).toEqual([]);
    expect(PENDING.filter((k) => !found.includes(k))).toEqual([]);
  });

  it('the script finds a long file, a long function, a long method and a long arrow function', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-shape-'));
    try {
      const body = (n: number) => Array.from({ length: n }, (_, i) => `  x += ${i};`).join('\n');
      fs.writeFileSync(path.join(dir, 'long-fn.ts'), `export function long() {\n  let x = 0;\n${body(77)}\n  return x;\n}\n`);
      fs.writeFileSync(path.join(dir, 'ok-fn.ts'), `export function short() {\n  let x = 0;\n${body(76)}\n  return x;\n}\n`);
      fs.writeFileSync(path.join(dir, 'members.ts'), `export class C {\n  m() {\n    let x = 0;\n${body(80)}\n  }\n}\nexport const f = () => {\n  let x = 0;\n${body(80)}\n};\n`);
      fs.writeFileSync(path.join(dir, 'big.ts'), Array.from({ length: 601 }, (_, i) => `export const v${i} = ${i};`).join('\n') + '\n');
      fs.writeFileSync(path.join(dir, 'fits.ts'), Array.from({ length: 600 }, (_, i) => `export const v${i} = ${i};`).join('\n') + '\n');
      const found = measure(dir).map((f) => [f.kind, path.basename(f.file), f.name, f.lines].filter((x) => x !== undefined).join(' '));
      expect(found.sort()).toEqual(['file big.ts 601', 'function long-fn.ts long 81', 'function members.ts f 83', 'function members.ts m 83']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
