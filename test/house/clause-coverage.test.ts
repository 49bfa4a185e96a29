/**
 * The clause ids cited in test titles exist, a title cites a clause that binds only a server or an
 * authorization server only with a `// cites <id>: <why>` line above the test, and
 * spec-conformance/README.md's coverage tables (2025-11-25 and 2026-07-28) are the ones
 * scripts/clause-coverage.mjs generates from them (so the README cannot drift). For 2026-07-28,
 * every client/both MUST clause is cited by a test title, or is word for word a 2025-11-25 clause
 * a title cites, or is listed with a reason in spec-conformance/CLIENT-CLAUSES-2026-07-28.md (a
 * listed one a title now cites counts as cited).
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
// @ts-expect-error — a plain .mjs script without types
import { CLAUSES_NEXT, CLIENT_CLAUSES_NEXT, coverage, idsInTitle, README, readBindsCorrections, readClauses, readmeWithSection, readmeWithSections, readSameSentences, readUncited, renderSection, sentenceKey, titles } from '../../scripts/clause-coverage.mjs';

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

  it('every clause id cited in a test title exists in clauses-2025-11-25.md (or clauses-2026-07-28.md)', () => {
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

  it('spec-conformance/README.md holds the current coverage tables of both revisions (node scripts/clause-coverage.mjs --write)', () => {
    const readme = fs.readFileSync(README as string, 'utf8');
    const cov = coverage();
    const current = renderSection(cov, 'current') as string;
    const next = renderSection(cov, 'next') as string;
    expect(readme).toContain(current);
    expect(readme).toContain(next);
    expect(readme).toBe(readmeWithSections(readme, cov));
  });

  it('a section replaces only the one between its own markers', () => {
    const cov = coverage();
    const current = renderSection(cov, 'current') as string;
    const next = renderSection(cov, 'next') as string;
    const stale = (section: string) => section.replace(/Total: \d+/, 'Total: 0');
    const readme = `intro\n\n${stale(current)}\nmiddle\n\n${stale(next)}\nend\n`;
    expect(readmeWithSection(readme, next)).toBe(`intro\n\n${stale(current)}\nmiddle\n\n${next}\nend\n`);
    expect(readmeWithSections(readme, cov)).toBe(`intro\n\n${current}\nmiddle\n\n${next}\nend\n`);
  });
});

describe('clause coverage, 2026-07-28', () => {
  const corrections = () => readBindsCorrections(CLIENT_CLAUSES_NEXT) as Map<string, { binds: string; why: string }>;
  const clauses = () => readClauses(CLAUSES_NEXT, corrections()) as Map<string, { binds: string; guess: string; level: string }>;

  it('whom a clause binds: the clause file\'s guess, corrected by spec-conformance/CLIENT-CLAUSES-2026-07-28.md', () => {
    // "Result responses MUST include the same ID": guessed "both"; only servers respond in this revision.
    expect(clauses().get('basic#6')).toMatchObject({ guess: 'both', binds: 'server' });
    expect(clauses().get('basic.authorization.client_registration#9')).toMatchObject({ guess: 'client', binds: 'authorization server' });
    // A list in the clause cell counts for each id; so does a second page in the same cell.
    expect(corrections().get('basic.patterns.mrtr#15')?.binds).toBe('server');
    expect(corrections().get('server.tools#6')?.binds).toBe('server');
    const all = clauses();
    for (const [id, c] of corrections()) {
      expect(all.has(id), id).toBe(true);
      expect(c.why.length, id).toBeGreaterThan(10);
    }
  });

  it('every client/both MUST clause is cited by a test title, the same sentence as a cited 2025-11-25 clause, or listed with a reason', () => {
    const { unaccounted } = coverage() as { unaccounted: string[] };
    expect(unaccounted).toEqual([]);
  });

  it('a listed or paired clause is a client/both MUST clause, and a listed one has a reason (one a title now cites counts as cited; the script says so)', () => {
    const { listedUnknown } = coverage() as { listedUnknown: string[] };
    expect(listedUnknown).toEqual([]);
    for (const [id, why] of readUncited() as Map<string, string>) expect(why.length, id).toBeGreaterThan(20);
  });

  it('each pairing with a 2025-11-25 clause is the same sentence, and a test title cites that clause', () => {
    const { sameNotProved, via } = coverage() as { sameNotProved: string[]; via: Map<string, string> };
    expect(sameNotProved).toEqual([]);
    const same = readSameSentences() as Map<string, string>;
    expect(same.get('basic.authorization#26')).toBe('basic.authorization#40'); // lists paired by position
    expect(via.size).toBe(same.size);
  });

  it('the same sentence: link targets, brackets, bold, a list marker and the revision do not count; a changed word does', () => {
    const key = sentenceKey as (t: string) => string;
    expect(key('- MCP clients **MUST** use [the metadata](/specification/2026-07-28/basic/x) now')).toBe(key('MCP clients MUST use the metadata now'));
    expect(key('as authoritative for the current operation.')).not.toBe(key('as authoritative for satisfying the current request.'));
  });

  it('the 2026-07-28 table counts the cited, the paired and the listed clauses of each page', () => {
    const { pagesNext } = coverage() as { pagesNext: { page: string; must: number; mustCited: number; mustVia: number; mustListed: number; cited: string[] }[] };
    const mrtr = pagesNext.find((p) => p.page === 'basic.patterns.mrtr')!;
    expect(mrtr.cited).toContain('basic.patterns.mrtr#17');
    expect(mrtr.cited).not.toContain('basic.patterns.mrtr#7'); // binds the server
    for (const p of pagesNext) expect(p.mustCited + p.mustVia + p.mustListed, p.page).toBe(p.must);
  });
});
