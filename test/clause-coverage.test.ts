/**
 * The clause ids cited in test titles exist, a title cites a clause that binds only a server or an
 * authorization server only with a `// cites <id>: <why>` line above the test, and
 * spec-conformance/README.md's coverage table is the one scripts/clause-coverage.mjs generates
 * from them (so the README cannot drift).
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
// @ts-expect-error — a plain .mjs script without types
import { coverage, idsInTitle, README, readBindsCorrections, readClauses, readmeWithSection, renderSection, titles } from '../scripts/clause-coverage.mjs';

describe('clause coverage', () => {
  it('reads the numbered clause table', () => {
    const clauses = readClauses() as Map<string, { level: string; binds: string }>;
    expect(clauses.size).toBeGreaterThan(400);
    expect(clauses.get('basic.lifecycle#7')).toMatchObject({ binds: expect.any(String), level: expect.any(String) });
  });

  it('expands ranges and lists in a title', () => {
    expect(idsInTitle('x (basic.utilities.progress#1–#4) and basic.utilities.ping#2/#3/#6; basic#16')).toEqual([
      'basic.utilities.progress#1',
      'basic.utilities.progress#2',
      'basic.utilities.progress#3',
      'basic.utilities.progress#4',
      'basic.utilities.ping#2',
      'basic.utilities.ping#3',
      'basic.utilities.ping#6',
      'basic#16',
    ]);
  });

  it('every clause id cited in a test title exists in clauses-2025-11-25.md', () => {
    const { unknown } = coverage() as { unknown: { id: string; file: string; title: string }[] };
    expect(unknown.map((u) => `${u.id} in ${u.file}: ${u.title}`)).toEqual([]);
  });

  it('whom a clause binds: the clause file\'s guess, corrected by spec-conformance/CLIENT-CLAUSES.md', () => {
    const corrections = readBindsCorrections() as Map<string, { binds: string; why: string }>;
    const clauses = readClauses() as Map<string, { binds: string; guess: string }>;
    // "Servers MUST NOT send elicitation requests with modes that are not supported": guessed "client".
    expect(clauses.get('client.elicitation#6')).toMatchObject({ guess: 'client', binds: 'server' });
    expect(clauses.get('basic.authorization#4')).toMatchObject({ guess: 'client', binds: 'authorization server' });
    // A list in the clause cell counts for each id.
    expect(corrections.get('client.elicitation#21')?.binds).toBe('server');
    expect(corrections.get('client.elicitation#22')?.binds).toBe('server');
    for (const [id, c] of corrections) {
      expect(clauses.has(id), id).toBe(true);
      expect(c.why.length, id).toBeGreaterThan(10);
    }
  });

  it('reads the `// cites <id>: <why>` lines directly above a test, and only those', () => {
    // The id is put together at run time so that this file's own source cites nothing.
    const id = ['basic.transports', '44'].join('#');
    const source = [
      `it('plain (${id})', () => {});`,
      `// cites ${id}: the server's 404 the client reacts to (#45)`,
      '// another comment line',
      `  test('with a reason (${id} #45)', () => {});`,
      `// cites ${id}: a reason`,
      '',
      `it('a blank line breaks the run (${id})', () => {});`,
      `// cites ${id}:`,
      `it('a marker without a reason (${id})', () => {});`,
    ].join('\n');
    const found = (titles(source) as { title: string; line: number; reasons: Map<string, string> }[]).map((t) => ({ line: t.line, reasons: Object.fromEntries(t.reasons) }));
    expect(found).toEqual([
      { line: 1, reasons: {} },
      { line: 4, reasons: { [id]: "the server's 404 the client reacts to (#45)" } },
      { line: 7, reasons: {} },
      { line: 9, reasons: {} },
    ]);
  });

  it('no test title cites a clause that binds only a server or an authorization server without saying why (// cites <id>: <why>)', () => {
    const { misCited } = coverage() as { misCited: { id: string; binds: string; file: string; line: number; title: string }[] };
    expect(misCited.map((u) => `${u.file}:${u.line} ${u.id} (binds the ${u.binds}): ${u.title}`)).toEqual([]);
  });

  it('a file citing the 2026-07-28 numbering says so (// clauses: 2026-07-28) when it also cites ids 2025-11-25 has', () => {
    const { mixed } = coverage() as { mixed: string[] };
    expect(mixed).toEqual([]);
  });

  it('spec-conformance/README.md holds the current coverage table (node scripts/clause-coverage.mjs --write)', () => {
    const readme = fs.readFileSync(README as string, 'utf8');
    expect(readme).toBe(readmeWithSection(readme, renderSection()));
  });
});
