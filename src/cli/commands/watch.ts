/**
 * `mcpwire watch <id> [uri…]`: subscribes to each resource (`resources/subscribe`) and prints,
 * one line each on stdout, the updates (`updated <uri>`) and the list changes (`tools changed`,
 * `resources changed`, `prompts changed`) the server sends, until Ctrl-C (exit 130). `--json`:
 * one JSON object a line. A server without `resources.subscribe` cannot be watched for URIs.
 */
import type { McpClient } from '../../index.js';
import { runCommand } from '../command.js';
import { CliFailure, CONFIG_OPTIONS } from '../config-target.js';
import { serverAndRest, withDirectServer } from '../direct-server.js';
import { safeText } from '../output.js';
import { USAGES } from '../usages.js';
import { untilInterrupted } from '../watch-loop.js';

const USAGE = USAGES.watch;

const LISTS = { toolsListChanged: 'tools', resourcesListChanged: 'resources', promptsListChanged: 'prompts' } as const;

export default function watch(argv: string[]): Promise<number> {
  return runCommand(argv, { usage: USAGE, options: { imports: CONFIG_OPTIONS.imports } }, async ({ values, positionals }, run) => {
    const { id, rest: uris } = serverAndRest(values, positionals, USAGE);
    const print = (text: string, json: Record<string, unknown>) => process.stdout.write(`${values.json ? JSON.stringify(json) : text}\n`);
    return withDirectServer(values, id, run, async (client, options) => {
      if (uris.length > 0 && client.serverCapabilities?.resources?.subscribe !== true) {
        throw new CliFailure(`server ${id ?? ''} does not offer resource subscriptions (no resources.subscribe capability); watch it without URIs for list changes`.replace('  ', ' '));
      }
      listen(client, print);
      for (const uri of uris) await client.subscribeResource(uri, options);
      process.stderr.write(`watching ${uris.length > 0 ? `${uris.length} resource(s) and ` : ''}the lists of ${id ?? 'the server'}; Ctrl-C to stop\n`);
      return untilInterrupted(client);
    });
  });
}

function listen(client: McpClient, print: (text: string, json: Record<string, unknown>) => void): void {
  client.on('resourceUpdated', (p: { uri?: unknown }) => print(`updated ${safeText(p?.uri, 2000)}`, { event: 'updated', uri: p?.uri }));
  for (const [event, list] of Object.entries(LISTS)) client.on(event, () => print(`${list} changed`, { event: 'list_changed', list }));
}
