/**
 * Argv of a command with its own options only (`tap`, `replay`): strict parsing, positionals
 * allowed, `--help`/`-h` prints the usage. Errors go to the command's `fail`, which prints the
 * message with the usage and gives the exit code.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;
const HELP = { help: { type: 'boolean', short: 'h' } } as const satisfies Options;

export type ParsedCommand<O extends Options> = ReturnType<typeof parseArgs<{ args: string[]; options: O & typeof HELP; allowPositionals: true; strict: true }>>;

/** The parsed argv, or the exit code when there is nothing more to do (usage printed, or an error). */
export function parseCommand<O extends Options>(argv: string[], own: O, usage: string, fail: (message: string) => number): ParsedCommand<O> | number {
  let parsed: ParsedCommand<O>;
  try {
    parsed = parseArgs({ args: argv, options: { ...own, ...HELP }, allowPositionals: true, strict: true }) as ParsedCommand<O>;
  } catch (err) {
    return fail((err as Error).message);
  }
  if ((parsed.values as { help?: boolean }).help) {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  return parsed;
}
