// Command-line options of the A/B scripts (`--name value` pairs read by name) and the relays' server command.
import { spawn } from 'node:child_process';

/** A reader of `--name value` options in `args`: the value (a string), or `dflt` when absent. */
export function optionReader(args) {
  return (name, dflt) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : dflt;
  };
}

/**
 * The relays' server command: what follows `--` in `argv`, spawned with piped stdin/stdout (its
 * stderr is this process's); exits with `usage` when there is none. Returns the child and the
 * options before `--`.
 */
export function spawnAfterDash(argv, usage) {
  const dash = argv.indexOf('--');
  if (dash === -1 || dash === argv.length - 1) {
    console.error(`usage: ${usage}`);
    process.exit(2);
  }
  const [cmd, ...args] = argv.slice(dash + 1);
  return { child: spawn(cmd, args, { stdio: ['pipe', 'pipe', 'inherit'] }), options: argv.slice(0, dash) };
}
