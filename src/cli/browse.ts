/**
 * Listing what servers offer (`resources`, `templates`, `prompts`): from the config — every
 * enabled, trusted, valid server (or the one named), connected concurrently with the connect
 * budget of `status` (5000 ms for `initialize`, `--timeout-ms` overrides), each closed after —
 * or from one ad-hoc server (`--stdio` / `--url`). A server that does not declare the capability
 * contributes nothing (named on stderr when it was asked for by id); one that fails is a warning
 * on stderr and exit code 1, the others are still listed.
 */
import { isMcpWireError, type McpClient } from '../index.js';
import { connectServer } from './daemon-client.js';
import { clientAuthOptions, untrustedHint, type ConfigLoadResult, type ResolvedServer } from '../host-api.js';
import { parseTimeout, UsageError } from './args.js';
import { runCommand, type Scrub } from './command.js';
import { CONFIG_OPTIONS, cliAuth, loadView, reportFailure, scrubber, type ConfigFlags } from './config-target.js';
import { DEFAULT_CONNECT_TIMEOUT_MS } from './host-run.js';
import { table } from './layout.js';
import { printJson, safeText } from './output.js';
import { pickServer, timeoutHint } from './server-pick.js';
import { loginHint } from './login-hint.js';
import { browseUsage } from './usages.js';
import { adHocServer, clientOptions, withClient, type TargetFlags } from './target.js';

export interface BrowseSpec<T> {
  /** The command word (`resources`). */
  command: string;
  /** What the list holds, for messages (`resources`). */
  noun: string;
  /** The server capability that offers it. */
  capability: 'resources' | 'prompts';
  fetch: (client: McpClient) => Promise<T[]>;
  /** The columns of the human view; a `server` column comes first for configured servers. */
  columns: string[];
  /** One row of the human view (cells already made safe for a terminal). */
  row: (item: T) => string[];
}

type Row<T> = { server?: string; item: T };

/** Runs a listing command; returns the exit code. */
export function browse<T>(argv: string[], spec: BrowseSpec<T>): Promise<number> {
  const usage = browseUsage(spec.command);
  // A failure's text gets the timeout hint, then loses the configured secrets.
  const onError = (err: unknown, scrub: Scrub) => reportFailure(err, (s) => scrub(timeoutHint(s)));
  return runCommand(argv, { usage, options: { imports: CONFIG_OPTIONS.imports }, onError }, async ({ values, positionals }, run) => {
    const json = values.json === true;
    if (adHocServer(values) !== undefined) {
      if (positionals.length > 0) throw new UsageError(`with --stdio/--url, ${spec.command} takes no server id`);
      const items = await withClient(values, async (client) => (client.serverCapabilities?.[spec.capability] === undefined ? [] : spec.fetch(client)));
      if (json) printJson(items);
      else if (items.length === 0) process.stdout.write(`no ${spec.noun}\n`);
      else render(spec, items.map((item) => ({ item })));
      return 0;
    }
    if (positionals.length > 1) throw new UsageError(usage);
    const [id] = positionals;
    const config = await loadView(values);
    run.scrub = scrubber(config.servers);
    const { rows, failed, servers } = await fromConfig(spec, config, id, values, run.scrub);
    if (json) printJson(rows.map((r) => ({ server: r.server, ...(r.item as object) })));
    else if (rows.length === 0) process.stdout.write(servers === 0 ? 'no MCP servers configured\n' : `no ${spec.noun}\n`);
    else render(spec, rows);
    return failed ? 1 : 0;
  });
}

/** The table of the human view. */
function render<T>(spec: BrowseSpec<T>, items: Row<T>[]): void {
  const withServer = items[0]?.server !== undefined;
  const rows = items.map(({ server, item }) => [...(withServer ? [safeText(server, 64)] : []), ...spec.row(item)]);
  process.stdout.write(`${table([...(withServer ? ['server'] : []), ...spec.columns], rows)}\n`);
}

/**
 * The items of every enabled valid server (or of server `id`), connected concurrently; a server
 * that cannot be asked is a warning on stderr and makes `failed` true.
 */
async function fromConfig<T>(
  spec: BrowseSpec<T>,
  config: ConfigLoadResult,
  id: string | undefined,
  values: TargetFlags & ConfigFlags,
  scrub: Scrub,
): Promise<{ rows: Row<T>[]; failed: boolean; servers: number }> {
  const servers = id === undefined ? config.servers.filter((s) => s.enabled && s.error === undefined) : [await pickServer(config, id, values)];
  const budget = parseTimeout(values['timeout-ms']) ?? DEFAULT_CONNECT_TIMEOUT_MS;
  let failed = false;
  const warn = (s: ResolvedServer, message: string) => {
    failed = true;
    process.stderr.write(`mcpwire: warning: server "${s.id}": ${scrub(safeText(message, 500))}\n`);
  };
  const results = await Promise.all(
    servers.map(async (s): Promise<{ server: string; item: T }[]> => {
      if (s.error !== undefined) return warn(s, `invalid configuration: ${s.error}`), [];
      if (!s.enabled) return warn(s, `disabled (enable it with "mcpwire mcp enable ${s.id}")`), [];
      if (s.untrusted !== undefined) return warn(s, untrustedHint(s)), [];
      let client: McpClient | undefined;
      try {
        const timeoutMs = parseTimeout(values['timeout-ms']) ?? s.config.requestTimeoutMs;
        client = await connectServer(s, values, { ...clientOptions(values), ...clientAuthOptions(s, cliAuth()), timeoutMs, initializeTimeoutMs: budget });
        if (client.serverCapabilities?.[spec.capability] === undefined) {
          if (id !== undefined) process.stderr.write(`mcpwire: server "${s.id}" does not offer ${spec.capability} (no "${spec.capability}" capability)\n`);
          return [];
        }
        return (await spec.fetch(client)).map((item) => ({ server: s.id, item }));
      } catch (err) {
        const code = isMcpWireError(err) ? ` (${err.code})` : '';
        warn(s, `${timeoutHint(err instanceof Error ? err.message : String(err))}${code}${loginHint(err)}`);
        return [];
      } finally {
        await client?.close().catch(() => {});
      }
    }),
  );
  return { rows: results.flat(), failed, servers: servers.length };
}
