/**
 * The slowest test files of a full `npm test` (three workers), slowest first: the sequencer in
 * slow-first-sequencer.ts starts them before the others.
 *
 * On a fresh clone (CI) vitest knows no durations and starts the largest files first. A slow file
 * that is small then starts late (check-violations.test.ts: 5 KB, 100 s, started 193rd of 299, at 675 s of 906),
 * and whatever starts last runs alone at the end: in the runs of 2026-12-05 one worker ended
 * alone for 9 to 14 s (cli-tty.test.ts, 4 KB, 23 s). With these first, short files end the run.
 *
 * Each file here took a worker 10 s or more (from the previous file's end to its own, so its
 * import counts) in the run of 2026-12-06 that took 512 s (vitest's JSON report). The figures go
 * stale as tests change; the order matters only roughly, a file that became slow belongs here.
 * `node scripts/slow-files.mjs <vitest.json>` prints this list from a full run's JSON report, and
 * how long the run ended with a worker idle. test/house/slow-files.test.ts fails when a listed
 * file no longer exists.
 */
export const SLOW_FILES: readonly string[] = [
  'spec-conformance/check-violations.test.ts', // 90 s
  'test/house/docs-blocks.test.ts', // 88 s
  'spec-conformance/check-everything.test.ts', // 44 s
  'test/cli/cli-host.test.ts', // 40 s
  'test/tap/replay-everything.test.ts', // 35 s
  'test/daemon/daemon.test.ts', // 33 s
  'test/apps/apps-mock-servers.test.ts', // 31 s
  'test/house/package.test.ts', // 31 s
  'test/fuzz/fuzz-jsonrpc.test.ts', // 30 s
  'test/check/check-robustness.test.ts', // 26 s
  'spec-conformance/tasks-2026-official.test.ts', // 25 s
  'spec-conformance/check-http.test.ts', // 24 s
  'spec-conformance/crosscheck-2025.test.ts', // 24 s
  'test/store/store-redis.test.ts', // 23 s
  'test/serve/serve-suite.test.ts', // 23 s
  'test/serve/serve-check.test.ts', // 21 s
  'spec-conformance/fault-matrix.test.ts', // 21 s
  'test/serve/serve-replicas.test.ts', // 19 s
  'test/host/soak.test.ts', // 18 s
  'test/apps/apps-example-servers.test.ts', // 18 s
  'spec-conformance/crosscheck-2026.test.ts', // 17 s
  'test/check/check-modern.test.ts', // 16 s
  'test/mock-servers/mock-stdio-server.test.ts', // 16 s
  'test/serve/serve-kinds.test.ts', // 14 s
  'test/cli/cli-elicit-timeout.test.ts', // 14 s
  'test/cli/cli-browse.test.ts', // 14 s
  'test/store/store-results.test.ts', // 13 s
  'test/cli/cli-tty.test.ts', // 13 s
  'test/fuzz/fuzz-redaction.test.ts', // 13 s
  'test/serve/serve.test.ts', // 12 s
  'test/registry/registry-cli.test.ts', // 12 s
  'test/cli/cli-call.test.ts', // 12 s
  'test/eras/era-memory.test.ts', // 12 s
  'test/check/check.test.ts', // 11 s
  'test/util/framer-linear.test.ts', // 11 s
  'test/check/check-modern-peers.test.ts', // 11 s
  'spec-conformance/server-features.test.ts', // 10 s
];
