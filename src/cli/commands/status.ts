/**
 * `mcpwire status [<id>]`: the runtime view of the configured servers — connects every enabled configured
 * server concurrently (a short per-server initialize timeout, default 5000 ms, `--timeout-ms`
 * overrides), reports id, transport, source, enabled, state (`disabled | untrusted | connecting |
 * auth_required | ready | error`), tool count and protocol version, then closes everything. With
 * an id: that server only, plus `era`, `last_error` and `last_connected_at`. `--json`: see docs/cli.md. A project
 * server of a project the user has not trusted (`mcpwire trust`) is never spawned: it shows
 * `untrusted`, with the hint as its error. A sandboxed server shows its grants (`sandbox`) and
 * what its sandbox refused (docs/sandbox.md).
 */
import { canLogIn } from '../login-hint.js';
import { authStore, storePlace, type McpHost, type ServerStatus } from '../../host-api.js';
import { UsageError } from '../args.js';
import { runCommand } from '../command.js';
import { CONFIG_OPTIONS, cliAuth, findServer, loadView, scrubber } from '../config-target.js';
import { withHost } from '../host-run.js';
import { cellText, printJson, safeText } from '../output.js';
import { table } from '../layout.js';
import { timeoutHint } from '../server-pick.js';
import { USAGES } from '../usages.js';

/** One server in `status --json` (every field always present). */
export interface StatusRow {
  id: string;
  transport: string;
  source: string;
  enabled: boolean;
  state: string;
  tools: number;
  last_error: string | null;
  last_connected_at: string | null;
  /** `modern` (2026-07-28) or `handshake` (initialize) while connected, else null. */
  era: string | null;
  /** The negotiated protocol version while connected, else null. */
  protocol_version: string | null;
  /** The command that fixes the state, when there is one (`mcpwire login <id>` for `auth_required`). */
  next: string | null;
  /** A sandboxed server's grants (paths, host names, env names) and what the sandbox refused; null when unsandboxed. */
  sandbox: { summary: string; grants: unknown; denied: string[] } | null;
  /** Where an HTTP server's tokens live and whether that store is reachable now; null for stdio. */
  store: StoreRow | null;
}

/** The token store in `status` (never its password). */
export interface StoreRow {
  kind: 'file' | 'memory' | 'redis';
  /** The file's path, or the Redis URL with its password replaced by `***`. */
  place: string;
  /** `ok`, `connecting` (not connected yet) or `degraded` (unreachable: calls on live connections go on). */
  state: 'ok' | 'connecting' | 'degraded';
  /** ISO time the state began. */
  since: string;
  last_error: string | null;
  reconnects: number;
}

function storeRow(host: McpHost, place: string, scrub: (s: string) => string): StoreRow | null {
  const h = host.storeStatus();
  if (h === undefined) return null;
  return { kind: h.kind, place, state: h.state, since: new Date(h.since).toISOString(), last_error: h.lastError === undefined ? null : scrub(h.lastError), reconnects: h.reconnects };
}

function row(s: ServerStatus, scrub: (s: string) => string, loginable: ReadonlySet<string>, store: StoreRow | null): StatusRow {
  return {
    id: s.id,
    transport: s.transport,
    source: s.source,
    enabled: s.enabled,
    state: s.state,
    tools: s.tools,
    last_error: s.lastError === undefined ? null : scrub(s.lastError),
    last_connected_at: s.lastConnectedAt === undefined ? null : new Date(s.lastConnectedAt).toISOString(),
    era: s.era ?? null,
    protocol_version: s.protocolVersion ?? null,
    // A server with its own Authorization header is fixed in its config, not by logging in.
    next: s.state === 'auth_required' && loginable.has(s.id) ? `mcpwire login ${s.id}` : null,
    sandbox: s.sandbox === undefined ? null : { summary: s.sandbox.summary, grants: s.sandbox.grants, denied: s.sandbox.denied.map(scrub) },
    store: s.transport === 'http' ? store : null,
  };
}

const USAGE = USAGES.status;

export default function status(argv: string[]): Promise<number> {
  return runCommand(argv, { usage: USAGE, options: { imports: CONFIG_OPTIONS.imports } }, async ({ values, positionals }, run) => {
    const [id] = positionals;
    if (positionals.length > 1) throw new UsageError(USAGE);
    if (values.stdio !== undefined || values.url !== undefined) throw new UsageError('status reports the configured servers; for an ad-hoc server use "mcpwire check" or "mcpwire tools"');
    const config = await loadView(values);
    const scrub = (run.scrub = scrubber(config.servers));
    const servers = id === undefined ? config.servers : [findServer(config, id)];
    if (servers.length === 0) {
      if (values.json) printJson([]);
      else process.stdout.write('no MCP servers configured\n');
      return 0;
    }
    const loginable = new Set(servers.filter(canLogIn).map((s) => s.id));
    // Printed before the host closes: a server slow to shut down does not delay the report.
    const place = storePlace(authStore(cliAuth()));
    await withHost(servers, values, { capRequests: true }, (host) => {
      const store = storeRow(host, place, scrub);
      render(host.status().map((s) => row(s, scrub, loginable, store)), id, values.json === true, store);
    });
    return 0;
  });
}

function render(rows: StatusRow[], id: string | undefined, json: boolean, store: StoreRow | null): void {
  if (json) {
    printJson(id === undefined ? rows : rows[0]);
    return;
  }
  if (id !== undefined) {
    const r = rows[0];
    const lines: [string, string][] = [
      ['id', r.id],
      ['transport', r.transport],
      ['source', r.source],
      ['enabled', String(r.enabled)],
      ['state', r.state],
      ['tools', String(r.tools)],
      ['era', r.era ?? '-'],
      ['protocol_version', r.protocol_version ?? '-'],
      ['last_error', r.last_error === null ? '-' : timeoutHint(r.last_error)],
      ['last_connected_at', r.last_connected_at ?? '-'],
      ['sandbox', r.sandbox === null ? 'no (runs as the user)' : r.sandbox.summary],
      ...(r.sandbox !== null && r.sandbox.denied.length > 0 ? ([['sandbox_denied', r.sandbox.denied.join('; ')]] as [string, string][]) : []),
      ...(r.next !== null ? ([['next', r.next]] as [string, string][]) : []),
      ...(r.store !== null ? ([['token_store', storeLine(r.store)]] as [string, string][]) : []),
    ];
    process.stdout.write(`${lines.map(([k, v]) => `${k.padEnd(18)} ${safeText(v, 1000)}`).join('\n')}\n`);
    return;
  }
  const hasError = rows.some((r) => r.last_error !== null);
  const hasSandbox = rows.some((r) => r.sandbox !== null);
  // the protocol version says the era too (2026-07-28: modern; an older one: the initialize
  // handshake); shown when some server speaks one, as the error column when some server has one
  const hasVersion = rows.some((r) => r.protocol_version !== null);
  const headers = ['id', 'transport', 'source', 'enabled', 'state', 'tools', ...(hasVersion ? ['protocol'] : []), ...(hasSandbox ? ['sandboxed'] : []), ...(hasError ? ['error'] : [])];
  const body = rows.map((r) => [
    safeText(r.id, 64),
    r.transport,
    safeText(r.source, 80),
    String(r.enabled),
    r.state,
    String(r.tools),
    ...(hasVersion ? [r.protocol_version ?? '-'] : []),
    ...(hasSandbox ? [r.sandbox === null ? 'no' : r.sandbox.denied.length > 0 ? `yes (${r.sandbox.denied.length} denied)` : 'yes'] : []),
    ...(hasError ? [cellText(timeoutHint(r.last_error ?? ''), 300)] : []),
  ]);
  // The error column wraps on a narrow terminal: its end (the command, the code) is the point.
  process.stdout.write(`${table(headers, body, undefined, { wrapLast: hasError })}\n`);
  for (const r of rows) if (r.next !== null) process.stdout.write(`${safeText(r.id, 64)}: authorization required: run "${safeText(r.next, 100)}"\n`);
  // A shared store is worth a line (the file store is the default nobody asked about).
  if (store !== null && (store.kind !== 'file' || store.state !== 'ok')) process.stdout.write(`token store: ${safeText(storeLine(store), 600)}\n`);
}

/** `redis://…:***@host:6379/ (degraded since …: the last error)`. */
function storeLine(s: StoreRow): string {
  const how = s.state === 'ok' ? 'ok' : `${s.state} since ${s.since}${s.last_error !== null ? `: ${s.last_error}` : ''}`;
  return `${s.place} (${s.kind}, ${how})`;
}
