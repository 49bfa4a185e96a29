/**
 * `mcpwire tools [<id>] [--json]`: the tools of the configured servers (all ready ones, or one),
 * connected through the host; `--json` is an array of `{ name, server, tool, description,
 * inputSchema }` where `name` is the host's stable public name (`mcp_<server>_<tool>_<hash8>`)
 * and `tool` the server's own name (what `mcpwire call <id> <tool>` takes).
 *
 * `mcpwire --stdio "<cmd>" | --url <url> tools [--json]`: every tool (all pages) of an ad-hoc
 * server; its `--json` is the raw `tools` array as the server sent it.
 */
import type { AdaptedTool, McpHost } from '../../host-api.js';
import { parse, UsageError } from '../args.js';
import { CliFailure, CONFIG_OPTIONS, findServer, loadView, reportFailure, scrubber } from '../config-target.js';
import { withHost } from '../host-run.js';
import { printJson, reportError, safeText, table } from '../output.js';
import { adHocServer, withClient, type TargetFlags } from '../target.js';

export default async function tools(argv: string[]): Promise<number> {
  try {
    const { values, positionals } = parse(argv, { imports: CONFIG_OPTIONS.imports });
    if (adHocServer(values) === undefined) return await configTools(values, positionals);
    if (positionals.length > 0) throw new UsageError('with --stdio/--url, tools takes no server id');
    const list = await withClient(values, (client) => client.listTools());
    if (values.json) {
      printJson(list);
      return 0;
    }
    if (list.length === 0) {
      process.stdout.write('no tools\n');
      return 0;
    }
    process.stdout.write(`${table(['name', 'description'], list.map((t) => [safeText(t.name, 64), safeText(t.description ?? '', 80)]))}\n`);
    return 0;
  } catch (err) {
    reportError(err);
    return err instanceof UsageError ? 2 : 1;
  }
}

/** One entry of `tools --json` from config. */
export interface ListedTool {
  name: string;
  server: string;
  tool: string;
  description: string;
  inputSchema: unknown;
}

async function configTools(values: TargetFlags & { json?: boolean; config?: string; imports?: boolean }, positionals: string[]): Promise<number> {
  let scrub = (s: string) => s;
  try {
    const [id] = positionals;
    if (positionals.length > 1) throw new UsageError('usage: mcpwire tools [<id>] [--json]  (or mcpwire --stdio "<cmd>" tools)');
    const config = await loadView(values);
    scrub = scrubber(config.servers);
    if (config.servers.length === 0) {
      throw new CliFailure('no server: no MCP servers configured (add one with "mcpwire mcp add") and no --stdio "<cmd>" or --url <url> given');
    }
    const servers = id === undefined ? config.servers : [findServer(config, id)];
    if (id !== undefined && servers[0].error === undefined && !servers[0].enabled) throw new CliFailure(`server "${id}" is disabled (enable it with "mcpwire mcp enable ${id}")`);
    let failed = false;
    await withHost(
      servers,
      values,
      { capRequests: false, onDiagnostic: (server, message) => process.stderr.write(`mcpwire: warning: ${server ? `server "${server}": ` : ''}${scrub(safeText(message, 500))}\n`) },
      (host: McpHost) => {
        for (const s of host.status()) {
          if (s.state === 'ready' || (s.state === 'disabled' && id === undefined)) continue;
          if (s.state === 'error' && s.lastError?.startsWith('invalid configuration') && id === undefined) continue; // reported as a config diagnostic
          failed = true;
          process.stderr.write(`mcpwire: warning: server "${s.id}" is ${s.state}${s.lastError ? `: ${scrub(safeText(s.lastError, 500))}` : ''}\n`);
        }
        const listed = host.tools().map((t: AdaptedTool): ListedTool => {
          const original = host.catalog.byName.get(t.name)?.tool;
          return { name: t.name, server: t.server, tool: t.tool, description: original?.description ?? '', inputSchema: original?.inputSchema ?? t.parameters };
        });
        // Printed before the host closes: a server slow to shut down does not delay the list.
        if (values.json) printJson(listed);
        else if (listed.length === 0) process.stdout.write('no tools\n');
        else {
          const rows = listed.map((t) => [safeText(t.server, 64), safeText(t.tool, 64), t.name, safeText(t.description, 60)]);
          process.stdout.write(`${table(['server', 'tool', 'name', 'description'], rows)}\n`);
        }
      },
    );
    return failed ? 1 : 0;
  } catch (err) {
    return reportFailure(err, scrub);
  }
}
