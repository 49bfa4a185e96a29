import { defineConfig } from 'vitest/config';
import { SlowFirstSequencer } from './test/support/slow-first-sequencer.js';

// The tests reach only loopback servers, none of them over a TLS chain this variable extends; with
// it set (this machine's environment points it at the whole system bundle) every Node process the
// suite starts parses that bundle first: 0.115 s of CPU for a bare `node -e 0` with it, 0.06 s
// without, and the suite starts ~3,800 Node processes. Workers and every child inherit this
// environment, so it is dropped once here. npm is the one program the suite runs that may reach the
// registry (test/house/package.test.ts installs the packed tarball): it gets the bundle back from
// MCPWIRE_SUITE_EXTRA_CA_CERTS (without it, where the registry is reached through a proxy that
// needs the bundle, npm's requests fail and retry: that file took 90-104 s instead of 28).
if (process.env.NODE_EXTRA_CA_CERTS !== undefined) process.env.MCPWIRE_SUITE_EXTRA_CA_CERTS ??= process.env.NODE_EXTRA_CA_CERTS;
delete process.env.NODE_EXTRA_CA_CERTS;

/**
 * Test files run without isolation: a worker runs file after file, so the fork, vitest's runtime
 * and the npm packages the tests import (typescript, ajv, zod, the SDK) load once per worker
 * instead of once per file (~0.6-0.9 s of CPU per file; on a sample of 20 small files 49 s -> 37 s
 * of CPU). A file may change what the whole process shares — fake timers, `process.env`,
 * `process.on` listeners, the exit code, globals, the working directory, the umask — while it
 * runs if it restores it in afterEach/afterAll: the shared project's setup file
 * (test/support/shared-guard.ts) fails a file that leaves any of it changed for the next one.
 * A file that cannot restore what it changes (a module mock, `vi.mock`, changes the module graph
 * the next file imports) runs in a fresh worker of its own: it belongs in this list.
 */
export const ISOLATED: string[] = [];
const ALL = ['test/**/*.test.ts', 'spec-conformance/**/*.test.ts'];
const EXCLUDE = ['**/node_modules/**', 'spec-conformance/runner/**'];

export default defineConfig({
  test: {
    exclude: EXCLUDE,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // CI is a loaded 2-core machine, but the suite waits on child processes: with two files at a
    // time the CPUs were idle 28 % of a quiet full run (920 s); three took 820 s. The one failure
    // seen with three was a real daemon defect (a stopping daemon removed its replacement's
    // socket when the filesystem gave the new socket the old one's inode number), now fixed.
    maxWorkers: 3,
    // Each worker takes the next file when it is free: the known-slow files (test/support/slow-files.ts)
    // go first, so short files, not a long one, end the run. On a fresh clone vitest would order by
    // file size, and a small slow file could start last (one worker ended alone 9 to 14 s in the
    // runs of 2026-12-05; a simulation of them with this order: under 1 s).
    sequence: { sequencer: SlowFirstSequencer },
    projects: [
      ...(ISOLATED.length ? [{ extends: true as const, test: { name: 'isolated', include: ISOLATED } }] : []),
      {
        extends: true,
        test: { name: 'shared', include: ALL, exclude: [...EXCLUDE, ...ISOLATED], isolate: false, setupFiles: ['test/support/shared-guard.ts'] },
      },
    ],
  },
});
