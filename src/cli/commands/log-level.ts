/**
 * `mcpwire log-level <id> <level>`: asks the server to send log messages of `level` and above
 * (server/utilities/logging, `logging/setLevel`) and prints the messages that arrive within
 * the session on stderr (`--follow`: keeps listening until Ctrl-C). Without `--follow` it
 * checks that the server accepts the level; the level lasts as long as the session.
 */
import type { LoggingLevel } from '../../index.js';
import { UsageError } from '../args.js';
import { runCommand } from '../command.js';
import { CONFIG_OPTIONS } from '../config-target.js';
import { serverAndRest, withDirectServer } from '../direct-server.js';
import { untilInterrupted } from '../watch-loop.js';
import { cellText } from '../output.js';
import { LOG_LEVELS, USAGES } from '../usages.js';

const LEVELS = LOG_LEVELS;
const USAGE = USAGES['log-level'];

export default function logLevel(argv: string[]): Promise<number> {
  return runCommand(argv, { usage: USAGE, options: { follow: { type: 'boolean' }, imports: CONFIG_OPTIONS.imports } }, async ({ values, positionals }, run) => {
    const { id, rest } = serverAndRest(values, positionals, USAGE);
    const [level] = rest;
    if (level === undefined || rest.length > 1) throw new UsageError(USAGE);
    if (!LEVELS.includes(level as LoggingLevel)) throw new UsageError(`unknown level "${level.slice(0, 40)}"; one of ${LEVELS.join(', ')}`);
    return withDirectServer(values, id, run, async (client, options) => {
      client.on('log', (p: { level?: unknown; logger?: unknown; data?: unknown }) => {
        const data = typeof p.data === 'string' ? p.data : JSON.stringify(p.data ?? null);
        const line = `log ${String(p.level)}${typeof p.logger === 'string' ? ` ${p.logger}` : ''}: ${data}`;
        process.stderr.write(`${cellText(run.scrub(line), 2000, process.stderr)}\n`);
      });
      await client.setLoggingLevel(level as LoggingLevel, options);
      process.stdout.write(`log level of ${id ?? 'the server'} set to ${level}\n`);
      return values.follow === true ? untilInterrupted(client) : 0;
    });
  });
}
