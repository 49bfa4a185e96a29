/**
 * `mcpwire serve [--http [--listen host:port] [--token-env NAME]]` — the configured servers as one
 * MCP server (a gateway; docs/serve.md). Over stdio (the default) a parent spawns it and talks
 * newline-delimited JSON-RPC on its stdin/stdout; logs go to stderr only, and it exits when
 * stdin closes. With `--http` it listens for Streamable HTTP on loopback (127.0.0.1, a free port
 * unless `--listen` says), prints `LISTEN <url>` on stderr, and runs until SIGINT/SIGTERM.
 * `--max-held` and `--held-ttl-ms` bound the calls held for a 2026-07-28 client's input
 * (input_required rounds): how many wait at once, how long each waits for the client's retry.
 * `--tool-search` lists only `mcp_tools_search` and `mcp_tool_call` (plus each `--pin`ned tool,
 * a public name or a `server/tool` pattern) instead of every server's tools.
 * `--names` (or the config's `mcp.serve_names`) names the servers' tools and prompts: their own
 * names, `<server>__<name>`, or the host's stable names (src/serve/names.ts).
 */
import { traceTarget } from '../../index.js';
import { parseTimeout, UsageError } from '../args.js';
import { runCommand } from '../command.js';
import { CONFIG_OPTIONS, loadView, scrubber } from '../config-target.js';
import { packageVersion } from '../../util/package-files.js';
import { USAGES } from '../usages.js';

const USAGE = USAGES.serve;

/** setTimeout's largest delay: a longer one would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** A positive whole number flag value, at most `max`, or a usage error naming the flag. */
function positiveInt(flag: string, v: string | undefined, max: number): number | undefined {
  if (v === undefined) return undefined;
  const n = /^\d+$/.test(v.trim()) ? Number(v) : NaN;
  if (!(Number.isSafeInteger(n) && n >= 1 && n <= max)) throw new UsageError(`${flag}: a whole number from 1 to ${max} (got "${v}")`);
  return n;
}

/** The held-call bounds of --max-held and --held-ttl-ms (input-rounds.ts), only the ones given. */
function inputRounds(values: { 'max-held'?: string; 'held-ttl-ms'?: string }): { inputRounds?: { maxHeld?: number; ttlMs?: number } } {
  const maxHeld = positiveInt('--max-held', values['max-held'], 1_000_000);
  const ttlMs = positiveInt('--held-ttl-ms', values['held-ttl-ms'], MAX_TIMER_MS);
  if (maxHeld === undefined && ttlMs === undefined) return {};
  return { inputRounds: { ...(maxHeld !== undefined ? { maxHeld } : {}), ...(ttlMs !== undefined ? { ttlMs } : {}) } };
}

/**
 * The replicas' shared state: `--store` (else `MCPWIRE_STORE`) naming Redis, the secret all
 * replicas share (`--secret-env`, else `MCPWIRE_SERVE_SECRET`: the request-state key and the
 * replicas' forwarding hop), and `--advertise`, the address other replicas reach this one at.
 */
function sharedState(values: { store?: string; 'secret-env'?: string; advertise?: string }): { store?: string; secret?: string; advertise?: string } {
  const store = values.store ?? process.env.MCPWIRE_STORE;
  const redis = store !== undefined && /^rediss?:\/\//.test(store);
  const envName = values['secret-env'] ?? 'MCPWIRE_SERVE_SECRET';
  const secret = process.env[envName] || undefined;
  if (values['secret-env'] !== undefined && secret === undefined) throw new UsageError(`--secret-env ${envName}: that variable is not set or empty`);
  if (redis && secret === undefined) throw new UsageError(`--store ${store!.replace(/:[^:@/]*@/, ':***@')}: replicas need a shared secret: set MCPWIRE_SERVE_SECRET (or name a variable with --secret-env)`);
  if (!redis && (values.advertise !== undefined || values['secret-env'] !== undefined)) throw new UsageError('--secret-env and --advertise go with --store redis://…');
  return redis ? { store, secret, ...(values.advertise !== undefined ? { advertise: values.advertise } : {}) } : {};
}

function version(): string {
  return packageVersion();
}

export default function serve(argv: string[]): Promise<number> {
  const options = { imports: CONFIG_OPTIONS.imports, http: { type: 'boolean' }, listen: { type: 'string' }, 'token-env': { type: 'string' }, 'page-size': { type: 'string' }, 'max-held': { type: 'string' }, 'held-ttl-ms': { type: 'string' }, store: { type: 'string' }, 'secret-env': { type: 'string' }, advertise: { type: 'string' }, 'public-host': { type: 'string', multiple: true }, 'tool-search': { type: 'boolean' }, pin: { type: 'string', multiple: true }, names: { type: 'string' } } as const;
  return runCommand(argv, { usage: USAGE, options }, async ({ values, positionals }, run) => {
    if (positionals.length > 0) throw new UsageError(USAGE);
    if (values.stdio !== undefined || values.url !== undefined) throw new UsageError('serve serves the configured servers (--config <file> names one config file)');
    if (!values.http && (values.listen !== undefined || values['token-env'] !== undefined || values.store !== undefined || values['secret-env'] !== undefined || values.advertise !== undefined || values['public-host'] !== undefined)) {
      throw new UsageError('--listen, --token-env, --store, --secret-env, --advertise and --public-host go with --http');
    }
    const pageSize = values['page-size'] === undefined ? undefined : Number(values['page-size']);
    if (pageSize !== undefined && !(Number.isInteger(pageSize) && pageSize >= 1 && pageSize <= 10_000)) throw new UsageError('--page-size: a whole number from 1 to 10000');
    const held = inputRounds(values);
    if (values.pin !== undefined && !values['tool-search']) throw new UsageError('--pin goes with --tool-search');
    const search = values['tool-search'] ? { toolSearch: { pinned: values.pin ?? [] } } : {};
    const api = await import('../../serve-api.js');
    const flagNames = values.names;
    if (flagNames !== undefined && !api.isNamingMode(flagNames)) throw new UsageError(`--names: one of ${api.NAMING_MODES.join(', ')} (got "${flagNames}")`);
    const config = await loadView(values);
    const names = flagNames !== undefined ? { names: flagNames } : {};
    run.scrub = scrubber(config.servers);
    const log = (line: string) => process.stderr.write(`mcpwire serve: ${run.scrub(line)}\n`);
    // SIGINT/SIGTERM/SIGHUP or exit close the servers it started (their process groups too);
    // --trace (or MCPWIRE_TRACE) traces every downstream connection, --timeout-ms is their default.
    const timeoutMs = parseTimeout(values['timeout-ms']);
    const trace = traceTarget(process.env, values.trace);
    const clientOptions = { clientInfo: { name: 'mcpwire-gateway', version: version() }, trace: trace === undefined ? (false as const) : { file: trace }, ...(timeoutMs !== undefined ? { timeoutMs } : {}) };
    const host = { closeOnExit: true, clientOptions };
    if (!values.http) {
      await api.serveStdio(config, { version: version(), log, host, ...held, ...search, ...names, ...(pageSize !== undefined ? { pageSize } : {}) });
      return 0;
    }
    let token: string | undefined;
    if (values['token-env'] !== undefined) {
      token = process.env[values['token-env']];
      if (!token) throw new UsageError(`--token-env ${values['token-env']}: that variable is not set or empty`);
    }
    const shared = sharedState(values);
    const scrub = run.scrub;
    if (shared.secret !== undefined) run.scrub = (s) => scrub(s).split(shared.secret!).join('***');
    const server = await api.serveHttp(config, { version: version(), log, host, ...held, ...search, ...names, ...(pageSize !== undefined ? { pageSize } : {}), listen: values.listen ?? '127.0.0.1:0', ...(token !== undefined ? { token } : {}), ...shared, ...(values['public-host'] !== undefined ? { publicHosts: values['public-host'] } : {}) });
    process.stderr.write(`LISTEN ${server.url}\n`);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    });
    await server.close();
    return 0;
  });
}
