/**
 * `mcpwire check --stdio "<cmd>" | --url <url>`: runs the conformance battery against a server
 * and prints a report (a table, or `--json`). Exit code 1 when a check failed (with
 * `--fail-on-warning`, also when one warned), 2 for usage errors, else 0.
 *
 * Options: `--only <id,…>` (ids or group prefixes), `--list`, `--fail-on-warning`,
 * `--timeout-ms <ms>` (per request, default 10000), `--slow-tool <name>` with
 * `--slow-tool-args '<json>'` (the tool the cancellation/progress checks call).
 */
// (test/layers.test.ts: the CLI reaches the engine only through src/index.ts).
import { ALL_CHECKS, checkExitCode, DEFAULT_CHECK_TIMEOUT_MS, renderCheckReport, runChecks, selectChecks } from '../../check-api.js';
import { parse, parseJsonObject, parseTimeout, UsageError } from '../args.js';
import { printJson, reportError } from '../output.js';
import { adHocServer } from '../target.js';

const USAGE =
  'usage: mcpwire check --stdio "<command line>" | --url <url> [--json] [--only <id,…>] [--fail-on-warning] ' +
  "[--timeout-ms <ms>] [--slow-tool <name> [--slow-tool-args '<json>']] [--list]";

export default async function check(argv: string[]): Promise<number> {
  try {
    const { values } = parse(argv, {
      only: { type: 'string', multiple: true },
      'fail-on-warning': { type: 'boolean' },
      list: { type: 'boolean' },
      'slow-tool': { type: 'string' },
      'slow-tool-args': { type: 'string' },
    });
    if (values.help) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    if (values.list) {
      for (const c of ALL_CHECKS) process.stdout.write(`${c.id.padEnd(34)} ${c.level.padEnd(6)} ${c.clause.padEnd(38)} ${c.title}\n`);
      return 0;
    }
    const only = values.only?.flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);
    try {
      selectChecks(only);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    const target = adHocServer(values);
    if (target === undefined) throw new UsageError(`no server: give --stdio "<command line>" or --url <url>\n${USAGE}`);
    const slowName = values['slow-tool'];
    const report = await runChecks(target, {
      timeoutMs: parseTimeout(values['timeout-ms']) ?? DEFAULT_CHECK_TIMEOUT_MS,
      // Ctrl-C closes the servers under test too (issue 9.8), then exits 130.
      closeOnExit: true,
      ...(only !== undefined ? { only } : {}),
      ...(slowName !== undefined ? { slowTool: { name: slowName, args: parseJsonObject(values['slow-tool-args'], '--slow-tool-args') } } : {}),
      onResult: (r) => {
        if (!values.json && process.stderr.isTTY) process.stderr.write(`  ${r.status.padEnd(5)} ${r.id}\n`);
      },
    });
    if (values.json) printJson(report);
    else process.stdout.write(`${renderCheckReport(report)}\n`);
    return checkExitCode(report, values['fail-on-warning'] === true);
  } catch (err) {
    reportError(err);
    return err instanceof UsageError ? 2 : 1;
  }
}
