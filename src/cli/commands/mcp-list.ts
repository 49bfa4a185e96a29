/**
 * `mcpwire mcp list [--scope effective|project|global] [--imports]`: the configured servers (the
 * static config, not their runtime state: that is `mcpwire status`). `effective` (the default)
 * merges the layers and shows where each entry came from. Header and env values and OAuth
 * client secrets are never shown: only their names, with `[redacted]` for the value. A project
 * server the user has not trusted (`mcpwire trust`) is listed with state `untrusted`.
 */
import { REDACTED } from '../../trace-api.js';
import type { ResolvedServer } from '../../host-api.js';
import { parse } from '../args.js';
import { CONFIG_OPTIONS, displayUrl, loadView, parseScope, redactedValues, reportFailure, scrubber, skippedImports, type ConfigView } from '../config-target.js';
import { cellText, printJson, safeText } from '../output.js';
import { table } from '../layout.js';

/** One entry of `mcp list --json`. */
export interface ListedServer {
  id: string;
  source: string;
  file: string;
  enabled: boolean;
  /** What a host does with it: starts it, skips it (disabled, invalid), or waits for `mcpwire trust`. */
  state: 'enabled' | 'disabled' | 'invalid' | 'untrusted';
  transport: string;
  request_timeout_ms: number;
  permissions: { allow: string[]; deny: string[] };
  error: string | null;
  command?: string;
  args?: string[];
  cwd?: string | null;
  env?: Record<string, string>;
  url?: string;
  headers?: Record<string, string>;
  legacy_sse?: boolean;
  oauth?: Record<string, string> | null;
  /** Where `mcp add --from-registry` got it: registry URL, server name, version, kind. */
  from_registry?: { registry: string; name: string; version: string; package: string };
}

export function listedServer(s: ResolvedServer, scrub: (s: string) => string): ListedServer {
  const c = s.config;
  const out: ListedServer = {
    id: s.id,
    source: s.source,
    file: s.file,
    enabled: s.enabled,
    state: s.error !== undefined ? 'invalid' : !s.enabled ? 'disabled' : s.untrusted !== undefined ? 'untrusted' : 'enabled',
    transport: s.transport,
    request_timeout_ms: c.requestTimeoutMs,
    permissions: { allow: [...c.permissions.allow], deny: [...c.permissions.deny] },
    error: s.error === undefined ? null : scrub(s.error),
  };
  const r = c.fromRegistry;
  if (r !== undefined) out.from_registry = { registry: scrub(r.registry), name: scrub(r.name), version: scrub(r.version), package: r.package };
  if (s.transport === 'stdio') {
    out.command = scrub(c.command ?? '');
    out.args = c.args.map(scrub);
    out.cwd = c.cwd === undefined ? null : scrub(c.cwd);
    out.env = redactedValues(c.env);
  } else if (s.transport === 'http') {
    out.url = c.url === undefined ? '' : displayUrl(c.url, scrub);
    out.headers = redactedValues(c.headers);
    out.legacy_sse = c.legacySse;
    if (c.oauth === undefined) out.oauth = null;
    else {
      const o = c.oauth;
      const oauth: Record<string, string> = {};
      if (o.authorizationUrl !== undefined) oauth.authorization_url = displayUrl(o.authorizationUrl, scrub);
      if (o.tokenUrl !== undefined) oauth.token_url = displayUrl(o.tokenUrl, scrub);
      if (o.registrationUrl !== undefined) oauth.registration_url = displayUrl(o.registrationUrl, scrub);
      if (o.clientId !== undefined) oauth.client_id = scrub(o.clientId);
      if (o.clientSecret !== undefined) oauth.client_secret = REDACTED;
      if (o.scope !== undefined) oauth.scope = scrub(o.scope);
      out.oauth = oauth;
    }
  }
  return out;
}

/** The command line or URL of a listed server, shortened for a table. */
export function target(l: ListedServer): string {
  if (l.transport === 'stdio') return cellText([l.command, ...(l.args ?? [])].map((a) => (/[\s"'\\]/.test(a ?? '') ? JSON.stringify(a) : a)).join(' '), 70);
  if (l.transport === 'http') return cellText(l.url, 70);
  return l.error === null ? '(override: disables a lower layer)' : '';
}

function details(l: ListedServer): string {
  const parts: string[] = l.state === 'untrusted' ? ['untrusted'] : [];
  const r = l.from_registry;
  if (r) parts.push(`from registry: ${safeText(r.name, 80)}@${safeText(r.version, 40)} (${r.package}) of ${safeText(r.registry, 80)}`);
  const names = (r: Record<string, string> | undefined) => Object.keys(r ?? {}).map((k) => `${safeText(k, 40)}=${REDACTED}`).join(', ');
  if (l.env && Object.keys(l.env).length) parts.push(`env: ${names(l.env)}`);
  if (l.headers && Object.keys(l.headers).length) parts.push(`headers: ${names(l.headers)}`);
  if (l.cwd) parts.push(`cwd: ${cellText(l.cwd, 40)}`);
  if (l.oauth) parts.push(`oauth: ${Object.keys(l.oauth).join(', ')}`);
  if (l.legacy_sse) parts.push('legacy SSE');
  if (l.permissions.allow.length) parts.push(`allow: ${l.permissions.allow.map((p) => safeText(p, 40)).join(', ')}`);
  if (l.permissions.deny.length) parts.push(`deny: ${l.permissions.deny.map((p) => safeText(p, 40)).join(', ')}`);
  if (l.error !== null) parts.push(`invalid: ${cellText(l.error, 160)}`);
  return parts.join('; ');
}

export default async function mcpList(argv: string[]): Promise<number> {
  try {
    const { values } = parse(argv, CONFIG_OPTIONS);
    const view = parseScope<ConfigView>(values, ['effective', 'project', 'global'], 'effective');
    const result = await loadView(values, view);
    if (view === 'effective') {
      for (const f of await skippedImports(values)) process.stderr.write(`mcpwire: note: ${f} not read (import files are used only with --imports)\n`);
    }
    const scrub = scrubber(result.servers);
    const listed = result.servers.map((s) => listedServer(s, scrub));
    if (values.json) {
      printJson(listed);
      return 0;
    }
    if (listed.length === 0) {
      process.stdout.write('no MCP servers configured\n');
      return 0;
    }
    const showSource = view === 'effective' && values.config === undefined;
    const headers = ['id', ...(showSource ? ['source'] : []), 'enabled', 'transport', 'target', 'details'];
    const rows = listed.map((l) => [safeText(l.id, 64), ...(showSource ? [safeText(l.source, 80)] : []), String(l.enabled), l.transport, target(l), details(l)]);
    process.stdout.write(`${table(headers, rows)}\n`);
    return 0;
  } catch (err) {
    return reportFailure(err);
  }
}
