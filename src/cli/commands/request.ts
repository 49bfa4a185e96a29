/**
 * `mcpwire request <id> <method> [params-json|@file|-]`: any request by its method name, the raw
 * result printed as JSON on stdout — for methods the other commands do not cover, or to see
 * exactly what a server answers. The request goes through the client like any other (its
 * era's envelope; with `--strict --trace` the same checks of what comes back).
 */
import { argsText, parseJsonObject, UsageError } from '../args.js';
import { runCommand } from '../command.js';
import { CONFIG_OPTIONS } from '../config-target.js';
import { serverAndRest, withDirectServer } from '../direct-server.js';
import { printJson } from '../output.js';
import { USAGES } from '../usages.js';

const USAGE = USAGES.request;

export default function request(argv: string[]): Promise<number> {
  return runCommand(argv, { usage: USAGE, options: { imports: CONFIG_OPTIONS.imports } }, async ({ values, positionals }, run) => {
    const { id, rest } = serverAndRest(values, positionals, USAGE);
    const [method, paramsArg] = rest;
    if (method === undefined || rest.length > 2) throw new UsageError(USAGE);
    const text = paramsArg === undefined ? undefined : paramsArg === '-' || paramsArg.startsWith('@') ? await argsText(paramsArg) : paramsArg;
    const params = text === undefined ? undefined : parseJsonObject(text, 'the params');
    const result = await withDirectServer(values, id, run, (client, options) => client.request(method, params, options));
    printJson(result);
    return 0;
  });
}
