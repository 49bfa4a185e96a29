/**
 * vitest's file order with the known-slow files first (vitest.config.ts `sequence.sequencer`).
 *
 * vitest hands files to the workers in the order its sequencer returns: project by project
 * (`isolated` before `shared`), then the files it has run before longest first, the others
 * largest first. Both workers take the next file as they come free, so a long file that comes
 * late leaves the other worker without work at the end. This keeps vitest's order and moves the
 * files of SLOW_FILES (slow-files.ts), slowest first, to the front of their project.
 *
 * vitest/node is loaded when the run sorts its files, not when this module is imported: tests
 * read vitest.config.ts (test/house/test-isolation.test.ts) and must not load vitest's server side.
 */
import { relative, sep } from 'node:path';
import type { TestSequencer, TestSpecification, Vitest } from 'vitest/node';
import { SLOW_FILES } from './slow-files.js';

const RANK = new Map(SLOW_FILES.map((file, i) => [file, i]));

/** Listed files first (slowest first), then the rest in the order given; each project stays whole and in place. */
export function slowFirst<T>(files: readonly T[], path: (file: T) => string, project: (file: T) => string): T[] {
  const projects = new Map<string, number>();
  for (const f of files) if (!projects.has(project(f))) projects.set(project(f), projects.size);
  const rank = (f: T) => RANK.get(path(f)) ?? SLOW_FILES.length;
  return files
    .map((file, i) => ({ file, i }))
    .sort((a, b) => projects.get(project(a.file))! - projects.get(project(b.file))! || rank(a.file) - rank(b.file) || a.i - b.i)
    .map((x) => x.file);
}

export class SlowFirstSequencer implements TestSequencer {
  constructor(private readonly ctx: Vitest) {}

  private async base(): Promise<TestSequencer> {
    const { BaseSequencer } = await import('vitest/node');
    return new BaseSequencer(this.ctx);
  }

  async shard(files: TestSpecification[]): Promise<TestSpecification[]> {
    return (await this.base()).shard(files);
  }

  async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await (await this.base()).sort(files);
    const root = this.ctx.config.root;
    return slowFirst(sorted, (s) => relative(root, s.moduleId).split(sep).join('/'), (s) => s.project.name);
  }
}
