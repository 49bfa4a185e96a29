/**
 * The public surface of the conformance runner (`mcpwire check`): run the battery against a
 * server config, render the report, decide the exit code. Everything else in src/check is
 * internal.
 *
 * ```ts
 * const report = await runChecks({ transport: 'stdio', command: 'node', args: ['server.js'] });
 * console.log(renderCheckReport(report));
 * process.exitCode = checkExitCode(report);
 * ```
 */
export { ALL_CHECKS, DEFAULT_CHECK_TIMEOUT_MS, revisionsText, runAllVersions, runChecks, selectChecks } from './run/runner.js';
export type { RunOptions as RunChecksOptions } from './run/runner.js';
export { checkExitCode, renderCheckReport } from './run/report.js';
export type { CheckDef, CheckReport, CheckResult, CheckSummary, Level as CheckLevel, Status as CheckStatus } from './core/types.js';
export { renderJUnit } from './run/junit.js';
export { SPOKEN_VERSIONS as CHECK_PROTOCOL_VERSIONS } from './core/revisions.js';
export { asSurface, diffSurfaces, takeSnapshot, SNAPSHOT_VERSION } from './run/snapshot.js';
export type { Change as SurfaceChange, Surface, SurfaceDiff } from './run/snapshot.js';
export type { ToolFixture, ToolFixtures } from './core/context.js';
