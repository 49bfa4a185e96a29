/**
 * The slowest test files of a full `npm test` (two workers), slowest first: the sequencer in
 * slow-first-sequencer.ts starts them before the others.
 *
 * On a fresh clone (CI) vitest knows no durations and starts the largest files first. A slow file
 * that is small then starts late (check-violations.test.ts: 5 KB, 100 s, started 193rd of 299, at 675 s of 906),
 * and whatever starts last runs alone at the end: in the runs of 2026-12-05 one worker ended
 * alone for 9 to 14 s (cli-tty.test.ts, 4 KB, 23 s). With these first, short files end the run.
 *
 * Each file here took a worker 10 s or more (from the previous file's end to its own, so its
 * import counts) in the run of 2026-12-05 that took 906 s (vitest's JSON report). The figures go
 * stale as tests change; the order matters only roughly, a file that became slow belongs here.
 * `node scripts/slow-files.mjs <vitest.json>` prints this list from a full run's JSON report, and
 * how long the run ended with a worker idle. test/house/slow-files.test.ts fails when a listed
 * file no longer exists.
 */
export const SLOW_FILES: readonly string[] = [
  'test/house/docs-blocks.test.ts', // 121 s
  'spec-conformance/check-violations.test.ts', // 99 s
  'test/cli/cli-host.test.ts', // 60 s
  'spec-conformance/check-everything.test.ts', // 59 s
  'test/daemon/daemon.test.ts', // 54 s
  'spec-conformance/crosscheck-2025.test.ts', // 54 s
  'test/registry/registry-cli.test.ts', // 47 s
  'spec-conformance/check-http.test.ts', // 44 s
  'test/check/check-modern-peers.test.ts', // 41 s
  'test/serve/serve-check.test.ts', // 38 s
  'test/tap/replay-everything.test.ts', // 36 s
  'test/cli/cli-errors.test.ts', // 35 s
  'test/check/check-suite-mrtr-answers.test.ts', // 34 s
  'test/check/check-robustness.test.ts', // 33 s
  'test/store/store-eras.test.ts', // 28 s
  'test/check/check-modern.test.ts', // 26 s
  'test/serve/serve-replicas.test.ts', // 25 s
  'test/cli/cli-tty.test.ts', // 23 s
  'test/cli/cli-call.test.ts', // 23 s
  'test/cli/cli-adhoc-silent.test.ts', // 23 s
  'test/cli/cli-browse.test.ts', // 21 s
  'test/store/store-cli.test.ts', // 20 s
  'test/daemon/daemon-replaced.test.ts', // 19 s
  'spec-conformance/tasks-2026-official.test.ts', // 19 s
  'test/serve/serve-suite.test.ts', // 18 s
  'test/check/check.test.ts', // 17 s
  'test/house/package.test.ts', // 17 s
  'test/host/host-calls-long.test.ts', // 17 s
  'test/store/store-redis.test.ts', // 16 s
  'test/apps/apps-mock-servers.test.ts', // 16 s
  'spec-conformance/crosscheck-2026.test.ts', // 15 s
  'test/cli/cli-elicit-timeout.test.ts', // 15 s
  'test/apps/apps-example-servers.test.ts', // 14 s
  'test/check/check-cli.test.ts', // 14 s
  'test/serve/serve-rust.test.ts', // 14 s
  'test/apps/apps-check.test.ts', // 14 s
  'test/eras/era-memory.test.ts', // 13 s
  'spec-conformance/fault-matrix.test.ts', // 13 s
  'test/auth/auth-login-e2e.test.ts', // 13 s
  'test/house/examples.test.ts', // 13 s
  'test/mock-servers/mock-stdio-server.test.ts', // 13 s
  'test/cli/cli-signals.test.ts', // 12 s
  'test/mcp/tasks-interop.test.ts', // 12 s
  'test/cli/cli-config-mistakes.test.ts', // 12 s
  'test/transport/close-on-exit.test.ts', // 11 s
  'spec-conformance/transports-http-defects.test.ts', // 11 s
  'test/serve/serve.test.ts', // 10 s
];
