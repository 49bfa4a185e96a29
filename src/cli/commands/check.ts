/**
 * `mcpwire check --stdio "<cmd>" | --url <url> | <id>… | --all`: runs the conformance battery
 * against a server (ad hoc, configured ones by id, or every configured enabled server; a configured
 * HTTP server's stored OAuth grant from `mcpwire login` is used) and
 * prints a report (a table, or `--json`); `--junit <file>` also writes JUnit XML. Exit code 1
 * when a check failed (with `--fail-on-warning`, also when one warned), 2 for usage errors, else 0.
 *
 * Options: `--only`/`--skip <id|group|clause,…>`, `--list`, `--fail-on-warning`, `--fixtures
 * <file>` (tool name → arguments and expected result: the tools check may call besides read-only
 * ones), `--allow-calls` (call every tool), `--timeout-ms <ms>` (per request, default 10000),
 * `--slow-tool <name>` with `--slow-tool-args '<json>'` (the tool the cancellation/progress
 * checks call; naming it is consent to call it).
 */
// (test/layers.test.ts: the CLI reaches the engine only through src/index.ts / check-api.ts).
import { readFile, writeFile } from 'node:fs/promises';
import {
  ALL_CHECKS,
  checkExitCode,
  DEFAULT_CHECK_TIMEOUT_MS,
  renderCheckReport,
  renderJUnit,
  runChecks,
  selectChecks,
  type CheckReport,
  type RunChecksOptions,
  type ToolFixtures,
} from '../../check-api.js';
import { clientAuthOptions, toConnectConfig } from '../../host-api.js';
import type { HttpAuthProvider, ServerConfig } from '../../index.js';
import { parse, parseJsonObject, parseTimeout, UsageError } from '../args.js';
import { CliFailure, CONFIG_OPTIONS, findServer, loadView, scrubber, usableServer } from '../config-target.js';
import { printJson, reportError, safeText } from '../output.js';
import { adHocServer } from '../target.js';

const USAGE =
  'usage: mcpwire check (--stdio "<command line>" | --url <url> | <id>… | --all) [--json] [--junit <file>] ' +
  '[--only <id|group|clause,…>] [--skip <id|group|clause,…>] [--fail-on-warning] [--fixtures <file>] [--allow-calls] ' +
  "[--timeout-ms <ms>] [--slow-tool <name> [--slow-tool-args '<json>']] [--list]";

const list = (v: string[] | undefined) => v?.flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);

/** Reads `--fixtures <file>`: `{ "tools": { name: { arguments, expect } } }` or the bare map. */
async function readFixtures(file: string): Promise<ToolFixtures> {
  let v: unknown;
  try {
    v = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`--fixtures ${file}: ${(err as Error).message}`);
  }
  const map = v !== null && typeof v === 'object' && !Array.isArray(v) && 'tools' in v ? (v as { tools: unknown }).tools : v;
  if (map === null || typeof map !== 'object' || Array.isArray(map)) throw new UsageError(`--fixtures ${file}: expected {"tools": {"<tool>": {"arguments": {…}, "expect": {…}}}}`);
  for (const [name, f] of Object.entries(map)) {
    if (f === null || typeof f !== 'object' || Array.isArray(f)) throw new UsageError(`--fixtures ${file}: tool "${safeText(name, 64)}" must map to an object ({"arguments": {…}, "expect": {…}})`);
    const args = (f as { arguments?: unknown }).arguments;
    if (args !== undefined && (args === null || typeof args !== 'object' || Array.isArray(args))) throw new UsageError(`--fixtures ${file}: tool "${safeText(name, 64)}": "arguments" must be an object`);
  }
  return map as ToolFixtures;
}

function printList(json: boolean): void {
  if (json) {
    printJson(ALL_CHECKS.map((c) => ({ id: c.id, level: c.level, clause: c.clause, title: c.title, ...(c.transport ? { transport: c.transport } : {}) })));
    return;
  }
  for (const c of ALL_CHECKS) process.stdout.write(`${c.id.padEnd(38)} ${c.level.padEnd(6)} ${c.clause.padEnd(44)} ${c.title}\n`);
}

export default async function check(argv: string[]): Promise<number> {
  let scrub = (s: string) => s;
  try {
    const { values, positionals } = parse(argv, {
      only: { type: 'string', multiple: true },
      skip: { type: 'string', multiple: true },
      'fail-on-warning': { type: 'boolean' },
      list: { type: 'boolean' },
      all: { type: 'boolean' },
      junit: { type: 'string' },
      fixtures: { type: 'string' },
      'allow-calls': { type: 'boolean' },
      'slow-tool': { type: 'string' },
      'slow-tool-args': { type: 'string' },
      imports: CONFIG_OPTIONS.imports,
    });
    if (values.help) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    if (values.list) {
      printList(values.json === true);
      return 0;
    }
    const only = list(values.only);
    const skip = list(values.skip);
    try {
      if (selectChecks(only, skip).length === 0) throw new Error('--only/--skip leave no check to run');
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    // Which servers: ad hoc, or configured (by id, or --all).
    const targets: Array<{ name: string; config: ServerConfig; authProvider?: HttpAuthProvider }> = [];
    const adHoc = adHocServer(values);
    if (adHoc !== undefined) {
      if (positionals.length > 0 || values.all) throw new UsageError(`with --stdio/--url, check takes no server id and no --all\n${USAGE}`);
      targets.push({ name: adHoc.transport === 'stdio' ? 'stdio' : adHoc.id ?? 'http', config: adHoc });
    } else {
      if (positionals.length === 0 && !values.all) throw new UsageError(`no server: give --stdio "<command line>", --url <url>, a configured server id, or --all\n${USAGE}`);
      if (positionals.length > 0 && values.all) throw new UsageError('give server ids or --all, not both');
      const config = await loadView(values);
      scrub = scrubber(config.servers);
      const picked = values.all ? config.servers.filter((s) => s.enabled && s.error === undefined && s.untrusted === undefined) : positionals.map((id) => findServer(config, id));
      if (picked.length === 0) throw new CliFailure('no server: no enabled MCP servers configured (add one with "mcpwire mcp add")');
      for (const s of picked) {
        usableServer(s);
        // An HTTP server authorized with `mcpwire login`: its stored grant (refreshed as needed).
        targets.push({ name: s.id, config: toConnectConfig(s), ...clientAuthOptions(s) });
      }
    }
    const fixtures = values.fixtures !== undefined ? await readFixtures(values.fixtures) : undefined;
    const slowName = values['slow-tool'];
    const options: RunChecksOptions = {
      timeoutMs: parseTimeout(values['timeout-ms']) ?? DEFAULT_CHECK_TIMEOUT_MS,
      // Ctrl-C closes the servers under test too (issue 9.8), then exits 130.
      closeOnExit: true,
      ...(only !== undefined ? { only } : {}),
      ...(skip !== undefined ? { skip } : {}),
      ...(fixtures !== undefined ? { fixtures } : {}),
      ...(values['allow-calls'] === true ? { allowCalls: true } : {}),
      ...(slowName !== undefined ? { slowTool: { name: slowName, args: parseJsonObject(values['slow-tool-args'], '--slow-tool-args') } } : {}),
    };
    const reports: Array<{ name: string; report: CheckReport }> = [];
    for (const t of targets) {
      if (targets.length > 1 && !values.json && process.stderr.isTTY) process.stderr.write(`checking ${t.name}…\n`);
      const report = await runChecks(t.config, {
        ...options,
        ...(t.authProvider !== undefined ? { authProvider: t.authProvider } : {}),
        onResult: (r) => {
          if (!values.json && process.stderr.isTTY) process.stderr.write(`  ${r.status.padEnd(5)} ${r.id}\n`);
        },
      });
      // Configured servers: the configured secrets never reach the output.
      reports.push({ name: t.name, report: adHoc === undefined ? (JSON.parse(scrub(JSON.stringify(report))) as CheckReport) : report });
    }
    const failOnWarning = values['fail-on-warning'] === true;
    if (values.junit !== undefined) await writeFile(values.junit, renderJUnit(reports, { failOnWarning }));
    const code = Math.max(...reports.map((r) => checkExitCode(r.report, failOnWarning)));
    if (values.json) {
      printJson(reports.length === 1 && adHoc !== undefined ? reports[0].report : { servers: reports.map((r) => ({ id: r.name, exitCode: checkExitCode(r.report, failOnWarning), report: r.report })), exitCode: code });
    } else {
      for (const r of reports) process.stdout.write(`${renderCheckReport(r.report)}\n${reports.length > 1 ? '\n' : ''}`);
      if (reports.length > 1) {
        process.stdout.write('summary:\n');
        for (const r of reports) {
          const s = r.report.summary;
          process.stdout.write(`  ${checkExitCode(r.report, failOnWarning) === 0 ? 'ok  ' : 'FAIL'} ${r.name.padEnd(24)} ${s.pass} passed, ${s.fail} failed, ${s.warn} warnings, ${s.skip} skipped${s.error ? `, ${s.error} checker errors` : ''}\n`);
        }
      }
    }
    return code;
  } catch (err) {
    if (err instanceof UsageError) {
      reportError(err);
      return 2;
    }
    process.stderr.write(`mcpwire: ${scrub(err instanceof Error ? err.message : String(err))}\n`);
    return 1;
  }
}
