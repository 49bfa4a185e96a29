/**
 * The clause ids cited in test titles exist, and spec-conformance/README.md's coverage table is
 * the one scripts/clause-coverage.mjs generates from them (so the README cannot drift).
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
// @ts-expect-error — a plain .mjs script without types
import { coverage, idsInTitle, README, readClauses, readmeWithSection, renderSection } from '../scripts/clause-coverage.mjs';

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

  it('spec-conformance/README.md holds the current coverage table (node scripts/clause-coverage.mjs --write)', () => {
    const readme = fs.readFileSync(README as string, 'utf8');
    expect(readme).toBe(readmeWithSection(readme, renderSection()));
  });
});
