/**
 * `mcpwire ping <id>`: is the server alive and answering? Sends the liveness request of the
 * session's era (`ping`, basic.utilities.ping) and prints the round trip (`--json`:
 * `{"ok": true, "ms": …}`); a server that does not answer within the timeout fails (exit 1).
 */
import { UsageError } from '../args.js';
import { runCommand } from '../command.js';
import { CONFIG_OPTIONS } from '../config-target.js';
import { serverAndRest, withDirectServer } from '../direct-server.js';
import { printJson } from '../output.js';
import { USAGES } from '../usages.js';

const USAGE = USAGES.ping;

export default function ping(argv: string[]): Promise<number> {
  return runCommand(argv, { usage: USAGE, options: { imports: CONFIG_OPTIONS.imports } }, async ({ values, positionals }, run) => {
    const { id, rest } = serverAndRest(values, positionals, USAGE);
    if (rest.length > 0) throw new UsageError(USAGE);
    const ms = await withDirectServer(values, id, run, async (client, options) => {
      const start = performance.now();
      await client.ping(options);
      return Math.round(performance.now() - start);
    });
    if (values.json) printJson({ ok: true, ms });
    else process.stdout.write(`pong from ${id ?? 'the server'} in ${ms} ms\n`);
    return 0;
  });
}
