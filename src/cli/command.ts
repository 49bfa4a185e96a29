/**
 * The prologue and epilogue of a command, written once: parse argv (the global options plus the
 * command's own), answer `--help` with the usage line before anything is read or connected, run
 * the body, and report what it throws on stderr with the exit code (2 for a usage error, else 1).
 * Text from a failure passes the command's scrubber, which the body sets once it has read the
 * config (the configured secrets never reach stderr).
 */
import type { ParseArgsConfig } from 'node:util';
import { parse, UsageError, type Parsed } from './args.js';
import { reportFailure } from './config-target.js';
import { reportError } from './output.js';

type Options = NonNullable<ParseArgsConfig['options']>;
export type Scrub = (s: string) => string;

/** What a body may change while it runs. */
export interface CommandRun {
  /** Applied to failure text: identity until the body sets `scrubber(config.servers)`. */
  scrub: Scrub;
}

export interface CommandSpec<O extends Options> {
  /** Printed on stdout for `--help` (exit 0). */
  usage: string;
  /** The command's own options (the global ones are always there). */
  options: O;
  /** Reports a failure and returns the exit code; default `reportFailure` (message and code, scrubbed). */
  onError?: (err: unknown, scrub: Scrub) => number;
}

/** Runs a command: parse → `--help` → body → failure report. Returns the exit code. */
export async function runCommand<O extends Options>(
  argv: string[],
  spec: CommandSpec<O>,
  body: (parsed: Parsed<O>, run: CommandRun) => Promise<number>,
): Promise<number> {
  const run: CommandRun = { scrub: (s) => s };
  try {
    const parsed = parse(argv, spec.options);
    if ((parsed.values as { help?: boolean }).help === true) {
      process.stdout.write(`${spec.usage}\n`);
      return 0;
    }
    return await body(parsed, run);
  } catch (err) {
    return (spec.onError ?? reportFailure)(err, run.scrub);
  }
}

/**
 * The report of the commands that judge a server (`check`, `snapshot`): a usage error as
 * `reportError` prints it (exit 2), any other failure as its scrubbed message alone (exit 1).
 */
export function reportJudgeFailure(err: unknown, scrub: Scrub): number {
  if (err instanceof UsageError) {
    reportError(err);
    return 2;
  }
  process.stderr.write(`mcpwire: ${scrub(err instanceof Error ? err.message : String(err))}\n`);
  return 1;
}
