/**
 * Runtime management helpers of the host: a server entry given at run
 * time (`host.addServer(id, entry)`) validated like a config file entry, the difference between
 * the running servers and a new config (`host.reload(config)`), the `trust` option applied to a
 * server list, and the short forms `status()` shows (capabilities, instructions) so
 * `console.table(host.status())` stays readable. Also which listed tools the host cannot offer as
 * plain calls. No I/O but resolving the trusted project directories.
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../errors.js';
import { missingTaskCapability, TASKS_EXTENSION } from '../mcp/capabilities.js';
import type { ServerCapabilities, Tool } from '../mcp/types.js';
import { isPlainObject, unknownEntryKeys, validateServerEntry, type ServerEntry } from './config/schema.js';
import type { TrustOption } from './config/trust.js';
import { isValidServerId, type ResolvedServer } from './config/types.js';
import { sanitizeText } from './text.js';

/** The `file` of a server added with `host.addServer(id, entry)`. */
export const RUNTIME_SERVER_FILE = '<addServer>';

/**
 * A native server entry (the config file's snake_case shape, `transport` optional: inferred from
 * `command` / `url`) as given to `host.addServer(id, entry)`.
 */
export type RuntimeServerEntry = Omit<ServerEntry, 'transport'> & { transport?: ServerEntry['transport'] };

/**
 * Validates a run-time entry exactly as a config file entry is validated and resolves it. Throws
 * `ConfigError` (phase `config`) naming the server and every faulty field, never a value.
 */
export function serverFromEntry(id: string, entry: RuntimeServerEntry | ResolvedServer): ResolvedServer {
  if (typeof id !== 'string' || !isValidServerId(id)) {
    throw new ConfigError(`invalid server id ${JSON.stringify(String(id)).slice(0, 80)} (1-64 characters of a-z, A-Z, 0-9, "_", "-")`, { phase: 'config' });
  }
  if (isResolvedServer(entry)) return { ...entry, id };
  if (!isPlainObject(entry)) throw new ConfigError(`server "${id}": the entry must be an object`, { serverId: id, phase: 'config' });
  const raw: Record<string, unknown> = { ...entry };
  if (raw.transport === undefined) raw.transport = typeof raw.url === 'string' && raw.command === undefined ? 'http' : 'stdio';
  const unknown = unknownEntryKeys(raw);
  if (unknown.length > 0) throw new ConfigError(`server "${id}": unknown field(s) ${unknown.map((k) => JSON.stringify(k).slice(0, 66)).join(', ')}`, { serverId: id, phase: 'config' });
  const v = validateServerEntry(raw);
  if (!v.ok) {
    const issues = v.issues.map((i) => (i.field ? `${i.field}: ${i.message}` : i.message)).join('; ');
    throw new ConfigError(`server "${id}": invalid configuration: ${issues}`, { serverId: id, phase: 'config' });
  }
  return { id, source: 'global', file: RUNTIME_SERVER_FILE, enabled: v.entry.enabled, transport: v.entry.transport, config: v.entry.config };
}

function isResolvedServer(v: unknown): v is ResolvedServer {
  return isPlainObject(v) && isPlainObject(v.config) && typeof v.source === 'string' && typeof v.transport === 'string' && typeof v.enabled === 'boolean';
}

/** What `host.reload(config)` did, by server id (each list sorted). */
export interface ReloadResult {
  /** New ids: connected (when enabled). */
  added: string[];
  /** Ids no longer configured: closed and gone. */
  removed: string[];
  /** Ids whose entry changed: closed and connected again with the new entry. */
  restarted: string[];
  /** Ids whose entry is the same: untouched (same connection, same process, same session). */
  unchanged: string[];
}

/** The difference between the running servers and the next config (see `ReloadResult`). */
export function diffServers(current: ReadonlyMap<string, ResolvedServer>, next: readonly ResolvedServer[]): ReloadResult {
  const out: ReloadResult = { added: [], removed: [], restarted: [], unchanged: [] };
  const ids = new Set<string>();
  for (const s of next) {
    if (ids.has(s.id)) throw new ConfigError(`server id "${s.id}" given twice`, { serverId: s.id, phase: 'config' });
    ids.add(s.id);
    const old = current.get(s.id);
    if (old === undefined) out.added.push(s.id);
    else if (sameServer(old, s)) out.unchanged.push(s.id);
    else out.restarted.push(s.id);
  }
  for (const id of current.keys()) if (!ids.has(id)) out.removed.push(id);
  for (const list of Object.values(out)) list.sort();
  return out;
}

/**
 * True when two resolved entries are the same in every field (command, args, env, url, headers,
 * timeouts, permissions, roots, enabled, trust mark, source file…): such a server keeps running.
 */
export function sameServer(a: ResolvedServer, b: ResolvedServer): boolean {
  return stableJson(a) === stableJson(b);
}

function stableJson(v: unknown): string {
  return JSON.stringify(v, (_k, value: unknown) =>
    isPlainObject(value) ? Object.fromEntries(Object.keys(value).sort().map((k) => [k, value[k]])) : value,
  );
}

/**
 * The negotiated server capabilities in one short line for a status table:
 * `logging tools resources(subscribe) prompts completions tasks(list,cancel,tools.call)`, in
 * 2026-07-28 `extensions(io.modelcontextprotocol/tasks)` —
 * the capability names in the server's order with their notable flags (`listChanged` left out:
 * the host follows list changes either way). Server-sent names: sanitized and capped.
 */
export function capabilitySummary(caps: ServerCapabilities | undefined): string | undefined {
  if (!isPlainObject(caps)) return undefined;
  const parts: string[] = [];
  for (const [name, value] of Object.entries(caps)) {
    if (value === undefined || value === null) continue;
    const flags = name === 'tasks' ? taskFlags(value) : name === 'extensions' ? extensionIds(value) : isPlainObject(value) ? Object.keys(value).filter((k) => value[k] === true && k !== 'listChanged') : [];
    const label = sanitizeText(name, 40, true);
    if (label) parts.push(flags.length > 0 ? `${label}(${flags.map((f) => sanitizeText(f, 40, true)).join(',')})` : label);
    if (parts.length >= 16) break;
  }
  return parts.join(' ');
}

/** 2026-07-28 `extensions`: the identifiers declared (an object each, basic/versioning). */
function extensionIds(v: unknown): string[] {
  return isPlainObject(v) ? Object.keys(v).filter((k) => isPlainObject(v[k])).slice(0, 8) : [];
}

function taskFlags(v: unknown): string[] {
  if (!isPlainObject(v)) return [];
  const out: string[] = [];
  if (v.list !== undefined) out.push('list');
  if (v.cancel !== undefined) out.push('cancel');
  const requests = v.requests;
  if (isPlainObject(requests)) {
    for (const [k, r] of Object.entries(requests)) if (isPlainObject(r)) for (const m of Object.keys(r)) out.push(`${k}.${m}`);
  }
  return out.slice(0, 8);
}

/** The first line of the server's instructions, sanitized, at most `max` characters (`…` when cut). */
export function instructionsSummary(instructions: string | undefined, max = 60): string | undefined {
  if (typeof instructions !== 'string') return undefined;
  const text = sanitizeText(instructions, 4000);
  const first = text.split('\n').find((l) => l.trim() !== '')?.trim() ?? '';
  if (first === '') return undefined;
  const cut = first.length > max || text.trim() !== first;
  return cut ? `${first.slice(0, max - 1).trimEnd()}…` : first;
}

/** A listed tool the host does not offer to the model, and why. */
export interface UnavailableTool {
  server: string;
  tool: string;
  reason: string;
}

/** What unavailableReason reads of a server's client (McpClient has all of it). */
export interface NegotiatedClient {
  readonly serverCapabilities?: ServerCapabilities;
  readonly protocolVersion?: string;
  has?(feature: 'tasks' | 'taskHandles'): boolean;
}

/**
 * Why the host cannot call `tool` at all, or undefined when it can: a tool whose
 * `execution.taskSupport` is `"required"` must run as a task (basic.utilities.tasks#7), so on a
 * server without `tasks.requests.tools.call` (or a revision without tasks, or a 2026-07-28
 * server without the tasks extension) it is never offered as a plain call.
 */
export function unavailableReason(tool: Tool, client: NegotiatedClient | undefined): string | undefined {
  if (tool?.execution?.taskSupport !== 'required') return undefined;
  // the client's era codec says whether the negotiated revision has tasks (McpClient.has); nothing
  // negotiated, or a client that cannot say: only the capability counts
  const noTasks = client?.protocolVersion !== undefined && client.has?.('tasks') === false;
  // 2026-07-28: tasks are the extension both sides declare (capabilities.extensions); a client
  // following task handles runs any call as a task the server makes one, so the extension is
  // all a task-required tool needs (no `tasks.requests`, a 2025-11-25 capability)
  const handles = client?.has?.('taskHandles') === true;
  const problem = noTasks
    ? handles
      ? `the server did not declare the tasks extension (${TASKS_EXTENSION})`
      : 'the negotiated protocol version has no tasks'
    : handles
      ? undefined
      : missingTaskCapability('tools/call', client?.serverCapabilities);
  return problem === undefined ? undefined : `requires task execution (execution.taskSupport "required"), but ${problem}; not offered`;
}

/** The servers with the `untrusted` mark removed where `trust` (a `createHost` option) allows them. */
export function trusted(servers: readonly ResolvedServer[], trust: TrustOption = 'ask'): readonly ResolvedServer[] {
  if (trust === 'ask') return servers;
  const real = (d: string): string => {
    try {
      return realpathSync(path.resolve(d));
    } catch {
      return path.resolve(d);
    }
  };
  const dirs = trust === 'all' ? undefined : new Set(trust.map(real));
  return servers.map((s) => {
    if (s.untrusted === undefined || (dirs !== undefined && !dirs.has(s.untrusted.project))) return s;
    const { untrusted: _, ...rest } = s;
    return rest;
  });
}
