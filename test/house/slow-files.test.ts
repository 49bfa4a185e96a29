// The run starts the known-slow test files first (vitest.config.ts `sequence.sequencer`): the list
// they are named in must name files that exist, and the order must be what the sequencer promises.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import config from '../../vitest.config.js';
import { SLOW_FILES } from '../support/slow-files.js';
import { slowFirst, SlowFirstSequencer } from '../support/slow-first-sequencer.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

describe('the slow files the run starts first', () => {
  it('each listed file is a test file that exists, listed once', () => {
    const missing = SLOW_FILES.filter((f) => !/^(?:test|spec-conformance)\/(?:[\w-]+\/)*[\w.-]+\.test\.ts$/.test(f) || !existsSync(path.join(root, f)));
    expect(missing, 'renamed or removed? update test/support/slow-files.ts').toEqual([]);
    expect(SLOW_FILES.length).toBeGreaterThanOrEqual(10);
    expect(new Set(SLOW_FILES).size).toBe(SLOW_FILES.length);
  });

  it('vitest.config.ts schedules with it', () => {
    expect(config.test?.sequence?.sequencer).toBe(SlowFirstSequencer);
  });

  it('listed files go first in their project, slowest first; projects and the order of the others stay', () => {
    const [slowest, second] = SLOW_FILES;
    const files = [
      { project: 'isolated', path: 'test/a.test.ts' },
      { project: 'shared', path: 'test/b.test.ts' },
      { project: 'shared', path: second },
      { project: 'shared', path: 'test/c.test.ts' },
      { project: 'shared', path: slowest },
      { project: 'shared', path: 'test/d.test.ts' },
    ];
    const sorted = slowFirst(files, (f) => f.path, (f) => f.project);
    expect(sorted.map((f) => f.path)).toEqual(['test/a.test.ts', slowest, second, 'test/b.test.ts', 'test/c.test.ts', 'test/d.test.ts']);
  });
});
