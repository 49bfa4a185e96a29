/**
 * The names the gateway gives downstream tools, prompts and resource templates (`serve --names`,
 * `mcp.serve_names`; a template's `uriTemplate` stays the server's, downstream.ts):
 * - `as-is`: each server's own name. A name two servers share (or one the gateway uses itself,
 *   `mcpwire_status`, `mcp_result_read`) is offered prefixed, `<server>__<name>`, for each of
 *   those servers — never one server's tool shadowing another's — and the gateway logs which
 *   servers share it.
 * - `prefixed`: `<server>__<name>`. Two underscores: a server id or a tool name may hold one
 *   (`fs_read`), rarely two, and `__` stays within the spec's tool-name characters
 *   (server.tools#7/#9: 1–128 of `[A-Za-z0-9_.-]`), unlike `/` or `:`.
 * - `host`: the host's stable names, `mcp_<server>_<tool>_<hash>` for tools and
 *   `mcp_<server>_<prompt>` for prompts.
 * A prefixed name outside the spec's rule (a server id or name with other characters, or over
 * 128 characters), or one that still collides, falls back to the host's name, which is unique.
 * Default: `as-is` with one server configured (a gateway in front of one server is transparent),
 * `prefixed` with more.
 */

export type NamingMode = 'as-is' | 'prefixed' | 'host';
export const NAMING_MODES: readonly NamingMode[] = ['as-is', 'prefixed', 'host'];
export const NAME_SEPARATOR = '__';
/** server.tools#7/#9 (2025-11-25): 1–128 characters of A-Z, a-z, 0-9, `_`, `-`, `.`. */
const NAME_RULE = /^[A-Za-z0-9_.-]{1,128}$/;

export function isNamingMode(v: unknown): v is NamingMode {
  return typeof v === 'string' && (NAMING_MODES as readonly string[]).includes(v);
}

/** The mode when none is set: a server's own names when it is the only one, else prefixed. */
export function defaultNaming(serverCount: number): NamingMode {
  return serverCount <= 1 ? 'as-is' : 'prefixed';
}

/** One downstream tool or prompt to name: its server, its own name, the host's name for it. */
export interface NameRequest {
  server: string;
  name: string;
  hostName: string;
}

export interface Named extends NameRequest {
  /** The name the gateway's client sees. */
  gateway: string;
}

/** A name more than one server offers (as-is mode), with those servers, in id order. */
export interface SharedName {
  name: string;
  servers: string[];
}

export interface NameTable {
  items: Named[];
  /** Gateway name → item. */
  byName: Map<string, Named>;
  shared: SharedName[];
}

/** Names each request in `mode` (see the module comment); `reserved` are the gateway's own names. */
export function assignNames(mode: NamingMode, requests: readonly NameRequest[], reserved: ReadonlySet<string> = new Set()): NameTable {
  const owners = new Map<string, Set<string>>();
  for (const r of requests) owners.set(r.name, (owners.get(r.name) ?? new Set()).add(r.server));
  const shared: SharedName[] = [];
  for (const [name, servers] of owners) {
    if (servers.size > 1 || (reserved.has(name) && mode === 'as-is')) shared.push({ name, servers: [...[...servers].sort(), ...(reserved.has(name) ? ['the gateway itself'] : [])] });
  }
  const prefixed = (r: NameRequest) => {
    const n = `${r.server}${NAME_SEPARATOR}${r.name}`;
    return NAME_RULE.test(n) ? n : r.hostName;
  };
  const candidate = (r: NameRequest): string => {
    if (mode === 'host') return r.hostName;
    if (mode === 'prefixed') return prefixed(r);
    return (owners.get(r.name)?.size ?? 0) > 1 || reserved.has(r.name) ? prefixed(r) : r.name;
  };
  const first = requests.map((r) => ({ ...r, gateway: candidate(r) }));
  const count = new Map<string, number>();
  for (const n of first) count.set(n.gateway, (count.get(n.gateway) ?? 0) + 1);
  const items = first.map((n) => ((count.get(n.gateway) ?? 0) > 1 || (reserved.has(n.gateway) && n.gateway !== n.hostName) ? { ...n, gateway: n.hostName } : n));
  const byName = new Map<string, Named>();
  for (const n of items) if (!byName.has(n.gateway)) byName.set(n.gateway, n);
  return { items, byName, shared: mode === 'as-is' ? shared : [] };
}

/** The log line for names two servers share, naming them and what each is offered as. */
export function sharedNameLine(kind: 'tool' | 'prompt' | 'template', s: SharedName, table: NameTable): string {
  const as = table.items.filter((n) => n.name === s.name).map((n) => `${n.server} as "${n.gateway}"`);
  return `${kind} "${s.name}" is offered by ${s.servers.join(' and ')}: ${as.length > 0 ? as.join(', ') : 'prefixed'} (--names as-is never lets one shadow another)`;
}
