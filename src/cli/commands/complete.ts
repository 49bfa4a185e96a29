/**
 * `mcpwire complete <id> (--prompt <name> | --resource <template-uri>) <arg> <value-prefix>`:
 * the server's suggestions for one argument of a prompt or a resource template
 * (server/utilities/completion), one per line; `--context k=v` gives the arguments already
 * chosen; `--json` prints the CompleteResult. More values than shown: a note on stderr.
 */
import type { CompleteReference } from '../../index.js';
import { keyValues, UsageError } from '../args.js';
import { runCommand } from '../command.js';
import { CONFIG_OPTIONS } from '../config-target.js';
import { serverAndRest, withDirectServer } from '../direct-server.js';
import { printJson, safeText } from '../output.js';
import { USAGES } from '../usages.js';

const USAGE = USAGES.complete;

const OWN = {
  prompt: { type: 'string' },
  resource: { type: 'string' },
  context: { type: 'string', multiple: true },
  imports: CONFIG_OPTIONS.imports,
} as const;

export default function complete(argv: string[]): Promise<number> {
  return runCommand(argv, { usage: USAGE, options: OWN }, async ({ values, positionals }, run) => {
    const { id, rest } = serverAndRest(values, positionals, USAGE);
    if ((values.prompt === undefined) === (values.resource === undefined)) throw new UsageError(`give one of --prompt <name> or --resource <template-uri>\n${USAGE}`);
    const [name, value = ''] = rest;
    if (name === undefined || rest.length > 2) throw new UsageError(USAGE);
    const ref: CompleteReference = values.prompt !== undefined ? { type: 'ref/prompt', name: values.prompt } : { type: 'ref/resource', uri: values.resource! };
    const chosen = keyValues(values.context, '--context');
    const context = Object.keys(chosen).length > 0 ? { arguments: chosen } : undefined;
    const result = await withDirectServer(values, id, run, (client, options) => client.complete(ref, { name, value }, context, options));
    if (values.json) {
      printJson(result);
      return 0;
    }
    const { values: found, total, hasMore } = result.completion;
    for (const v of found) process.stdout.write(`${safeText(v, 1000)}\n`);
    if (hasMore === true || (total !== undefined && total > found.length)) {
      process.stderr.write(`(${found.length} shown${total !== undefined ? ` of ${total}` : ''}; more match — type a longer prefix)\n`);
    }
    return 0;
  });
}
