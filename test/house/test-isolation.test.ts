// Test files share a worker with the files run after them (vitest.config.ts: no isolation, so the
// fork and the packages load once per worker). A file may change process-wide state — fake timers,
// process.env, process-level listeners, the exit code, globals, the working directory — if it
// restores it: test/support/shared-guard.ts fails a file that leaves it changed, and this file
// proves that guard sees each kind. A module mock changes the module graph the next file imports,
// which no hook restores: such a file must be in vitest.config.ts's ISOLATED list.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { ISOLATED } from '../../vitest.config.js';
import { changed, processState } from '../support/process-state.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const SELF = 'test/house/test-isolation.test.ts';

/** What changes the module graph the next file in the same worker would import. */
const MODULE_GRAPH = /vi\.(?:mock|doMock|unmock|doUnmock)\(/;

function testFiles(dir: string): string[] {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return e.name === 'node_modules' || rel === 'spec-conformance/runner' ? [] : testFiles(rel);
    return e.name.endsWith('.test.ts') ? [rel] : [];
  });
}

describe('test isolation', () => {
  const files = [...testFiles('test'), ...testFiles('spec-conformance')].filter((f) => f !== SELF);

  it('every file that mocks modules is in vitest.config.ts ISOLATED', () => {
    const missing = files.filter((f) => MODULE_GRAPH.test(fs.readFileSync(path.join(root, f), 'utf8')) && !ISOLATED.includes(f));
    expect(missing).toEqual([]);
  });

  it('ISOLATED names existing test files only', () => {
    expect(ISOLATED.filter((f) => !files.includes(f))).toEqual([]);
  });
});

describe("the shared project's guard (test/support/shared-guard.ts)", () => {
  it('names each kind of process-wide state a file can leave changed, and nothing once it is restored', () => {
    const before = processState();
    const onWarning = () => {};
    const cwd = process.cwd();
    const env = 'MCPWIRE_TEST_ISOLATION_PROBE';
    const g = globalThis as Record<string, unknown>;
    try {
      vi.useFakeTimers();
      process.env[env] = 'x';
      process.on('warning', onWarning);
      process.exitCode = 3;
      process.chdir(root + '/test');
      process.umask(0o077);
      g.mcpwireIsolationProbe = 1;
      expect(changed(before, processState())).toEqual([
        'fake timers left on',
        `process.env.${env} added`,
        `process 'warning' listeners ${before.listeners.warning ?? 0} -> ${(before.listeners.warning ?? 0) + 1}`,
        `process.exitCode ${String(before.exitCode)} -> 3`,
        `cwd ${cwd} -> ${root}/test`,
        `umask ${before.umask.toString(8)} -> 77`,
        'globalThis.mcpwireIsolationProbe added',
      ]);
    } finally {
      vi.useRealTimers();
      delete process.env[env];
      process.off('warning', onWarning);
      process.exitCode = before.exitCode ?? undefined;
      process.chdir(cwd);
      process.umask(before.umask);
      delete g.mcpwireIsolationProbe;
    }
    expect(changed(before, processState())).toEqual([]);
  });

  it("leaves 'exit' and signal listeners alone: they run only at the process's end, and modules install them once per process", () => {
    const before = processState();
    const onEnd = () => {};
    try {
      process.on('exit', onEnd);
      process.on('SIGTERM', onEnd);
      process.on('uncaughtException', onEnd);
      expect(changed(before, processState())).toEqual([
        `process 'uncaughtException' listeners ${before.listeners.uncaughtException ?? 0} -> ${(before.listeners.uncaughtException ?? 0) + 1}`,
      ]);
    } finally {
      process.off('exit', onEnd);
      process.off('SIGTERM', onEnd);
      process.off('uncaughtException', onEnd);
    }
  });
});
