import { defineConfig } from 'vitest/config';
import { SlowFirstSequencer } from './test/support/slow-first-sequencer.js';

// The tests reach only loopback servers, none of them over a TLS chain this variable extends; with
// it set (this machine's environment points it at the whole system bundle) every Node process the
// suite starts parses that bundle first: 0.115 s of CPU for a bare `node -e 0` with it, 0.06 s
// without, and the suite starts ~3,800 Node processes. Workers and every child inherit this
// environment, so it is dropped once here.
delete process.env.NODE_EXTRA_CA_CERTS;

/**
 * Files that change what the whole process shares — fake timers, `process.env`, `process.on`
 * listeners, the exit code, globals, the working directory — run in a fresh worker each
 * (vitest's default isolation). Every other file runs without isolation: a worker runs file after
 * file, so the fork, vitest's runtime and the npm packages the tests import (typescript, ajv,
 * zod, the SDK) load once per worker instead of once per file (~0.6 s of CPU per file; on a
 * sample of 20 small files 49 s -> 37 s of CPU). A new file that does any of the above belongs
 * in this list.
 */
export const ISOLATED = [
  'spec-conformance/tasks-2026.test.ts',
  'spec-conformance/tasks-receiver.test.ts',
  'spec-conformance/tasks.test.ts',
  'test/apps/apps-bridge.test.ts',
  'test/bench/bench-deadlines.test.ts',
  'test/check/check.test.ts',
  'test/eras/era-subscriptions.test.ts',
  'test/eras/era-tasks-follow.test.ts',
  'test/host/host-supervisor.test.ts',
  'test/mcp/task-deadline.test.ts',
  'test/mcp/task-receiver.test.ts',
  'test/mcp/tasks-host-cli.test.ts',
  'test/protocol/cancel-handle.test.ts',
  'test/protocol/connection-client-settling.test.ts',
  'test/protocol/connection-defects.test.ts',
  'test/protocol/connection.test.ts',
  'test/protocol/model-registry.test.ts',
  'test/protocol/model-session.test.ts',
  'test/protocol/no-listener-growth.test.ts',
  'test/sandbox/sandbox-hostile.test.ts',
  'test/sandbox/sandbox-policy.test.ts',
  'test/sandbox/sandbox-servers.test.ts',
  'test/serve/serve-http-session.test.ts',
  'test/serve/serve-mrtr-table.test.ts',
  'test/store/store-redis.test.ts',
  'test/tap/tap-stdio.test.ts',
  'test/trace/trace-clock.test.ts',
  'test/trace/trace-held-lines.test.ts',
  'test/trace/trace-e2e.test.ts',
  'test/transport/close-on-exit.test.ts',
  'test/transport/stdio-transport.test.ts',
  'test/util/util.test.ts',
];
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
      { extends: true, test: { name: 'isolated', include: ISOLATED } },
      { extends: true, test: { name: 'shared', include: ALL, exclude: [...EXCLUDE, ...ISOLATED], isolate: false } },
    ],
  },
});
