/**
 * `mcpwire check --stdio "<cmd>" | --url <url> | <id>… | --all`: runs the conformance battery
 * against a server (ad hoc, configured ones by id, or every configured enabled server; a configured
 * HTTP server's stored OAuth grant from `mcpwire login` is used) and
 * prints a report (a table, or `--json`); `--junit <file>` also writes JUnit XML. Exit code 1
 * when a check failed (with `--fail-on-warning`, also when one warned), 2 for usage errors, else 0.
 *
 * Options: `--only`/`--skip <id|group|clause,…>`, `--list`, `--fail-on-warning`, `--fixtures
 * <file>` (tool name → arguments and expected result: the tools check may call besides read-only
 * ones; also `schemas`, `resources`, `prompts`: what the server should serve; or a `mcpwire snapshot`
 * of a known-good run: its tools' input schemas and its resources), `--allow-calls`
 * (call every tool), `--robustness` (also the battery of hostile inputs), `--timeout-ms <ms>`
 * (per request, default 10000),
 * `--slow-tool <name>` with `--slow-tool-args '<json>'` (the tool the cancellation/progress
 * checks call; naming it is consent to call it), `--protocol-version <v>` (check that version,
 * in its era: 2026-07-28 stateless, or the handshake era), `--all-versions` (one report per
 * version the server claims). Without either, the era is chosen as the client chooses it.
 */
// (test/house/layers.test.ts: the CLI reaches the engine only through src/index.ts / check-api.ts).
import { readFile, writeFile } from 'node:fs/promises';
import {
  ALL_CHECKS,
  CHECK_PROTOCOL_VERSIONS as SPOKEN_VERSIONS,
  checkExitCode,
  DEFAULT_CHECK_TIMEOUT_MS,
  renderCheckReport,
  renderJUnit,
  revisionsText,
  runAllVersions,
  runChecks,
  selectChecks,
  type CheckReport,
  type RunChecksOptions,
  type ToolFixtures,
} from '../../check-api.js';
import { clientAuthOptions, toConnectConfig } from '../../host-api.js';
import type { HttpAuthProvider, ServerConfig } from '../../index.js';
import { parseJsonObject, parseTimeout, UsageError, type Parsed } from '../args.js';
import { reportJudgeFailure, runCommand, type CommandRun } from '../command.js';
import { CliFailure, CONFIG_OPTIONS, findServer, cliAuth, loadView, scrubber, usableServer } from '../config-target.js';
import { printJson, safeText } from '../output.js';
import { adHocServer } from '../target.js';
import { USAGES } from '../usages.js';

const USAGE = USAGES.check;

const list = (v: string[] | undefined) => v?.flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);

type Expectations = NonNullable<RunChecksOptions['expectations']>;

/**
 * Reads `--fixtures <file>`: `{ "tools": { name: { arguments, expect } }, "schemas": { tool:
 * inputSchema }, "resources": { uri: { mimeType, textIncludes, kind } }, "prompts": { name:
 * { arguments, includes } } }`, or the bare tools map.
 */
async function readFixtures(file: string): Promise<{ tools: ToolFixtures; expectations: Expectations }> {
  let v: unknown;
  try {
    v = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`--fixtures ${file}: ${(err as Error).message}`);
  }
  if (isSnapshot(v)) return { tools: {}, expectations: snapshotExpectations(v) };
  const keyed = v !== null && typeof v === 'object' && !Array.isArray(v) && ['tools', 'schemas', 'resources', 'prompts'].some((k) => k in v);
  const map = keyed ? ((v as { tools?: unknown }).tools ?? {}) : v;
  const expectations: Expectations = {};
  for (const k of ['schemas', 'resources', 'prompts'] as const) {
    const part = keyed ? (v as Record<string, unknown>)[k] : undefined;
    if (part === undefined) continue;
    const ok = (x: unknown) => x !== null && typeof x === 'object' && !Array.isArray(x);
    if (!ok(part) || !Object.values(part as object).every(ok)) throw new UsageError(`--fixtures ${file}: "${k}" must map names to objects`);
    (expectations as Record<string, unknown>)[k] = part;
  }
  if (map === null || typeof map !== 'object' || Array.isArray(map)) throw new UsageError(`--fixtures ${file}: expected {"tools": {"<tool>": {"arguments": {…}, "expect": {…}}}}`);
  for (const [name, f] of Object.entries(map)) {
    if (f === null || typeof f !== 'object' || Array.isArray(f)) throw new UsageError(`--fixtures ${file}: tool "${safeText(name, 64)}" must map to an object ({"arguments": {…}, "expect": {…}})`);
    const args = (f as { arguments?: unknown }).arguments;
    if (args !== undefined && (args === null || typeof args !== 'object' || Array.isArray(args))) throw new UsageError(`--fixtures ${file}: tool "${safeText(name, 64)}": "arguments" must be an object`);
  }
  return { tools: map as ToolFixtures, expectations };
}

interface SnapshotFile {
  snapshotVersion: number;
  tools?: Array<{ name?: unknown; inputSchema?: unknown }>;
  resources?: Array<{ uri?: unknown; mimeType?: unknown }>;
}

const isSnapshot = (v: unknown): v is SnapshotFile => v !== null && typeof v === 'object' && typeof (v as { snapshotVersion?: unknown }).snapshotVersion === 'number';

/**
 * A `mcpwire snapshot` of a known-good run as expectations: every tool's input schema as it was
 * listed, every resource readable with its MIME type (no tool is called on a snapshot's word).
 */
function snapshotExpectations(s: SnapshotFile): Expectations {
  const schemas: Record<string, Record<string, unknown>> = {};
  for (const t of s.tools ?? []) {
    if (typeof t.name === 'string' && t.inputSchema !== null && typeof t.inputSchema === 'object') schemas[t.name] = t.inputSchema as Record<string, unknown>;
  }
  const resources: NonNullable<Expectations['resources']> = {};
  for (const r of s.resources ?? []) if (typeof r.uri === 'string') resources[r.uri] = typeof r.mimeType === 'string' ? { mimeType: r.mimeType } : {};
  return { schemas, resources };
}

function printList(json: boolean): void {
  if (json) {
    printJson(ALL_CHECKS.map((c) => ({ id: c.id, level: c.level, clause: c.clause, title: c.title, revisions: c.revisions ?? [], ...(c.transport ? { transport: c.transport } : {}), ...(c.robustness ? { robustness: true } : {}) })));
    return;
  }
  for (const c of ALL_CHECKS) process.stdout.write(`${c.id.padEnd(38)} ${c.level.padEnd(6)} ${c.clause.padEnd(44)} ${revisionsText(c.revisions ?? []).padEnd(25)} ${c.title}\n`);
}

const OWN = {
  only: { type: 'string', multiple: true },
  skip: { type: 'string', multiple: true },
  'fail-on-warning': { type: 'boolean' },
  verbose: { type: 'boolean' },
  list: { type: 'boolean' },
  all: { type: 'boolean' },
  junit: { type: 'string' },
  fixtures: { type: 'string' },
  'allow-calls': { type: 'boolean' },
  robustness: { type: 'boolean' },
  'protocol-version': { type: 'string' },
  'all-versions': { type: 'boolean' },
  'slow-tool': { type: 'string' },
  'slow-tool-args': { type: 'string' },
  imports: CONFIG_OPTIONS.imports,
  /** `--server-json <file>` (server-json-target.ts) and how to pick and fill its choice. */
  'server-json': { type: 'string' },
  package: { type: 'string' },
  remote: { type: 'boolean' },
  set: { type: 'string', multiple: true },
} as const;

type Values = Parsed<typeof OWN>['values'];
/** `pinned`: the configured server's `protocol_version` (checked at it, as the client speaks it). */
type Target = { name: string; config: ServerConfig; authProvider?: HttpAuthProvider; pinned?: string };

export default function check(argv: string[]): Promise<number> {
  return runCommand(argv, { usage: USAGE, options: OWN, onError: reportJudgeFailure }, async ({ values, positionals }, run) => {
    if (values.list) {
      printList(values.json === true);
      return 0;
    }
    const only = list(values.only);
    const skip = list(values.skip);
    try {
      if (selectChecks(only, skip, values.robustness === true).length === 0) throw new Error('--only/--skip leave no check to run');
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    const { targets, adHoc } = await checkTargets(values, positionals, run);
    const fixtures = values.fixtures !== undefined ? await readFixtures(values.fixtures) : undefined;
    const slowName = values['slow-tool'];
    const pinned = values['protocol-version'];
    if (pinned !== undefined && values['all-versions'] === true) throw new UsageError('give --protocol-version or --all-versions, not both');
    if (pinned !== undefined && !SPOKEN_VERSIONS.includes(pinned)) throw new UsageError(`--protocol-version ${safeText(pinned, 40)}: mcpwire speaks ${SPOKEN_VERSIONS.join(', ')}`);
    const options: RunChecksOptions = {
      timeoutMs: parseTimeout(values['timeout-ms']) ?? DEFAULT_CHECK_TIMEOUT_MS,
      // Ctrl-C closes the servers under test too, then exits 130.
      closeOnExit: true,
      ...(only !== undefined ? { only } : {}),
      ...(skip !== undefined ? { skip } : {}),
      ...(fixtures !== undefined ? { fixtures: fixtures.tools, expectations: fixtures.expectations } : {}),
      ...(values['allow-calls'] === true ? { allowCalls: true } : {}),
      ...(values.robustness === true ? { robustness: true } : {}),
      ...(pinned !== undefined ? { protocolVersion: pinned } : {}),
      ...(slowName !== undefined ? { slowTool: { name: slowName, args: parseJsonObject(values['slow-tool-args'], '--slow-tool-args') } } : {}),
    };
    const reports: Array<{ name: string; report: CheckReport }> = [];
    for (const t of targets) {
      if (targets.length > 1 && !values.json && process.stderr.isTTY) process.stderr.write(`checking ${t.name}…\n`);
      const o: RunChecksOptions = {
        ...options,
        ...(t.authProvider !== undefined ? { authProvider: t.authProvider } : {}),
        // a configured protocol_version is the version the client speaks to it: checked at that one
        ...(pinned === undefined && values['all-versions'] !== true && t.pinned !== undefined ? { protocolVersion: t.pinned } : {}),
        onResult: (r) => {
          if (!values.json && process.stderr.isTTY) process.stderr.write(`  ${r.status.padEnd(5)} ${r.id}\n`);
        },
      };
      const found = values['all-versions'] === true ? await runAllVersions(t.config, o) : [await runChecks(t.config, o)];
      for (const report of found) {
        const name = found.length > 1 ? `${t.name}@${report.protocolVersion ?? report.era ?? '?'}` : t.name;
        // Configured servers: the configured secrets never reach the output.
        reports.push({ name, report: adHoc === undefined ? (JSON.parse(run.scrub(JSON.stringify(report))) as CheckReport) : report });
      }
    }
    const failOnWarning = values['fail-on-warning'] === true;
    if (values.junit !== undefined) await writeFile(values.junit, renderJUnit(reports, { failOnWarning }));
    const code = Math.max(...reports.map((r) => checkExitCode(r.report, failOnWarning)));
    printReports(reports, { json: values.json === true, adHoc: adHoc !== undefined, failOnWarning, code, verbose: values.verbose === true });
    return code;
  });
}

/** Which servers: the ad-hoc one, or configured ones (by id, or --all) with their stored grants. */
async function checkTargets(values: Values, positionals: string[], run: CommandRun): Promise<{ targets: Target[]; adHoc?: ServerConfig }> {
  if (values['server-json'] !== undefined) {
    if (positionals.length > 0 || values.all || values.stdio !== undefined || values.url !== undefined) throw new UsageError('--server-json names the server: no id, --all, --stdio or --url with it');
    const { serverJsonTarget } = await import('../server-json-target.js');
    const t = await serverJsonTarget(values);
    const scrub = run.scrub;
    run.scrub = (text: string) => t.secrets.reduce((acc, v) => (v.length >= 4 ? acc.split(v).join('[redacted]') : acc), scrub(text));
    return { targets: [{ name: t.name, config: t.config }] };
  }
  for (const k of ['package', 'remote', 'set'] as const) if (values[k] !== undefined) throw new UsageError(`--${k} goes with --server-json <file>`);
  const adHoc = adHocServer(values);
  if (adHoc !== undefined) {
    if (positionals.length > 0 || values.all) throw new UsageError(`with --stdio/--url, check takes no server id and no --all\n${USAGE}`);
    return { targets: [{ name: adHoc.transport === 'stdio' ? 'stdio' : adHoc.id ?? 'http', config: adHoc }], adHoc };
  }
  if (positionals.length === 0 && !values.all) throw new UsageError(`no server: give --stdio "<command line>", --url <url>, a configured server id, or --all\n${USAGE}`);
  if (positionals.length > 0 && values.all) throw new UsageError('give server ids or --all, not both');
  const config = await loadView(values);
  run.scrub = scrubber(config.servers);
  const picked = values.all ? config.servers.filter((s) => s.enabled && s.error === undefined && s.untrusted === undefined) : positionals.map((id) => findServer(config, id));
  if (picked.length === 0) throw new CliFailure('no server: no enabled MCP servers configured (add one with "mcpwire mcp add")');
  const targets: Target[] = [];
  for (const s of picked) {
    usableServer(s);
    // An HTTP server authorized with `mcpwire login`: its stored grant (refreshed as needed).
    const pinned = s.config.protocolVersion;
    targets.push({ name: s.id, config: toConnectConfig(s), ...clientAuthOptions(s, cliAuth()), ...(pinned !== undefined ? { pinned } : {}) });
  }
  return { targets };
}

/** The reports on stdout: JSON, or each report then (for several servers) a summary. */
function printReports(reports: Array<{ name: string; report: CheckReport }>, o: { json: boolean; adHoc: boolean; failOnWarning: boolean; code: number; verbose: boolean }): void {
  if (o.json) {
    printJson(reports.length === 1 && o.adHoc ? reports[0].report : { servers: reports.map((r) => ({ id: r.name, exitCode: checkExitCode(r.report, o.failOnWarning), report: r.report })), exitCode: o.code });
    return;
  }
  for (const r of reports) process.stdout.write(`${renderCheckReport(r.report, { verbose: o.verbose })}\n${reports.length > 1 ? '\n' : ''}`);
  if (reports.length > 1) {
    process.stdout.write('summary:\n');
    for (const r of reports) {
      const s = r.report.summary;
      process.stdout.write(`  ${checkExitCode(r.report, o.failOnWarning) === 0 ? 'ok  ' : 'FAIL'} ${r.name.padEnd(24)} ${s.pass} passed, ${s.fail} failed, ${s.warn} warnings, ${s.skip} skipped${s.error ? `, ${s.error} checker errors` : ''}\n`);
    }
  }
}
