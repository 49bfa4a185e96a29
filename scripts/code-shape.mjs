#!/usr/bin/env node
/**
 * The shape the project keeps its source in: no file in src/ over 600 lines, no function over
 * 80 lines. Prints one line for each file or function over its limit and exits 1 when there is
 * any; `--json` prints them as JSON instead. Functions are found with the TypeScript compiler
 * API (declarations, methods, accessors, constructors, arrow functions and function
 * expressions); a function's length runs from its first line to its last, nested functions
 * included, and a nested function over the limit is listed on its own too.
 *
 *   node scripts/code-shape.mjs [--json] [--max-file-lines N] [--max-function-lines N] [dir]
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function listTs(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return listTs(p);
    return p.endsWith('.ts') && !p.endsWith('.d.ts') ? [p] : [];
  });
}

function functionName(node, sf) {
  if (node.name) return node.name.getText(sf);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent)) return parent.name.getText(sf);
  if (parent && ts.isPropertyAssignment(parent)) return parent.name.getText(sf);
  if (parent && ts.isPropertyDeclaration(parent)) return parent.name.getText(sf);
  if (parent && ts.isCallExpression(parent)) return `(callback of ${parent.expression.getText(sf).slice(0, 40)})`;
  return '(anonymous)';
}

/** Files and functions of `dir` over the limits, as `{ kind, file, name?, line, lines }`. */
export function codeShape(dir, { maxFileLines = 600, maxFunctionLines = 80 } = {}) {
  const found = [];
  for (const file of listTs(dir).sort()) {
    const text = fs.readFileSync(file, 'utf8');
    const rel = path.relative(root, file).split(path.sep).join('/');
    const fileLines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    if (fileLines > maxFileLines) found.push({ kind: 'file', file: rel, line: 1, lines: fileLines });
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    const visit = (node) => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
        const end = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
        const lines = end - start + 1;
        if (lines > maxFunctionLines) found.push({ kind: 'function', file: rel, name: functionName(node, sf), line: start + 1, lines });
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return found;
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const args = process.argv.slice(2);
  const opt = (name, dflt) => {
    const i = args.indexOf(name);
    if (i < 0) return dflt;
    const [v] = args.splice(i, 2).slice(1);
    return Number(v);
  };
  const json = args.includes('--json');
  const maxFileLines = opt('--max-file-lines', 600);
  const maxFunctionLines = opt('--max-function-lines', 80);
  const dir = path.resolve(args.find((a) => !a.startsWith('--')) ?? path.join(root, 'src'));
  const found = codeShape(dir, { maxFileLines, maxFunctionLines });
  if (json) process.stdout.write(JSON.stringify(found, null, 2) + '\n');
  else for (const f of found) console.log(f.kind === 'file' ? `${f.file}: ${f.lines} lines (over ${maxFileLines})` : `${f.file}:${f.line} ${f.name}: ${f.lines} lines (over ${maxFunctionLines})`);
  process.exitCode = found.length ? 1 : 0;
}
