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
export { ALL_CHECKS, DEFAULT_CHECK_TIMEOUT_MS, revisionsText, runAllVersions, runChecks, selectChecks } from './runner.js';
export type { RunOptions as RunChecksOptions } from './runner.js';
export { checkExitCode, renderCheckReport } from './report.js';
export type { CheckDef, CheckReport, CheckResult, CheckSummary, Level as CheckLevel, Status as CheckStatus } from './types.js';
export { renderJUnit } from './junit.js';
export { SPOKEN_VERSIONS as CHECK_PROTOCOL_VERSIONS } from './revisions.js';
export { asSurface, diffSurfaces, takeSnapshot, SNAPSHOT_VERSION } from './snapshot.js';
export type { Change as SurfaceChange, Surface, SurfaceDiff } from './snapshot.js';
export type { ToolFixture, ToolFixtures } from './context.js';
