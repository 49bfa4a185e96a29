/**
 * `mcpwire mcp test <id> [--scope effective|project|global]`: connects to one configured server
 * (even a disabled one), runs `initialize` and `tools/list`, prints the server's name, version,
 * protocol and tool count, and closes. Exit code 0 when all of that worked, 1 otherwise.
 */
import { connect } from '../../index.js';
import { toConnectConfig } from '../../host-api.js';
import { parse, parseTimeout, UsageError } from '../args.js';
import { CliFailure, CONFIG_OPTIONS, findServer, loadView, parseScope, reportFailure, scrubber, type ConfigView } from '../config-target.js';
import { printJson, safeText } from '../output.js';
import { clientOptions } from '../target.js';

export default async function mcpTest(argv: string[]): Promise<number> {
  let scrub = (s: string) => s;
  try {
    const { values, positionals } = parse(argv, CONFIG_OPTIONS);
    const [id] = positionals;
    if (!id || positionals.length > 1) throw new UsageError('usage: mcpwire mcp test <id> [--scope effective|project|global]');
    const view = parseScope<ConfigView>(values, ['effective', 'project', 'global'], 'effective');
    const config = await loadView(values, view);
    const server = findServer(config, id);
    scrub = scrubber(config.servers);
    if (server.error !== undefined) throw new CliFailure(`server "${id}" has an invalid configuration: ${server.error}`);
    const timeoutMs = parseTimeout(values['timeout-ms']) ?? server.config.requestTimeoutMs;
    const t0 = performance.now();
    const report = {
      id,
      ok: false,
      transport: server.transport,
      source: server.source,
      enabled: server.enabled,
      server_info: null as { name: string; version: string } | null,
      protocol_version: null as string | null,
      tools: null as number | null,
      elapsed_ms: 0,
      error: null as string | null,
    };
    try {
      const client = await connect(toConnectConfig(server), { ...clientOptions(values), timeoutMs });
      try {
        report.server_info = { name: safeText(client.serverInfo?.name, 100), version: safeText(client.serverInfo?.version, 50) };
        report.protocol_version = client.protocolVersion ?? null;
        report.tools = client.serverCapabilities?.tools ? (await client.listTools({ timeoutMs })).length : 0;
        report.ok = true;
      } finally {
        await client.close();
      }
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      report.error = scrub(`${safeText(err instanceof Error ? err.message : String(err), 1000)}${typeof code === 'string' ? ` (${code})` : ''}`);
    }
    report.elapsed_ms = Math.round(performance.now() - t0);
    if (values.json) printJson(report);
    else if (report.ok) {
      const info = report.server_info!;
      process.stdout.write(
        `ok: "${id}" (${server.transport}) is ${info.name} ${info.version}, protocol ${report.protocol_version}, ${report.tools} tool${report.tools === 1 ? '' : 's'} (${report.elapsed_ms} ms)\n`,
      );
      if (!server.enabled) process.stdout.write(`note: "${id}" is disabled in the config; hosts will not connect to it\n`);
    } else {
      process.stderr.write(`mcpwire: test of "${id}" (${server.transport}) failed after ${report.elapsed_ms} ms: ${report.error}\n`);
    }
    return report.ok ? 0 : 1;
  } catch (err) {
    return reportFailure(err, scrub);
  }
}
