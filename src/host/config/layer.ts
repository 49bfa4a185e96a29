/**
 * Parsing one config file (a layer) into server entries plus diagnostics. Works on text so it
 * is pure and testable; `load.ts` does the reading. Covers the native format (never expands
 * variables) and the import formats (converted by `imports.ts`, then validated the same way).
 */
import path from 'node:path';
import { diagnostic, issuesText, parseJsonText, type DiagnosticSite } from './diagnostics.js';
import { findDuplicateKeys } from './duplicate-keys.js';
import { expandNativeEntry, expandString, type ExpandContext } from './expand.js';
import { parseStoreSetting } from '../../store/setting.js';
import { convertImportEntry, type ImportFormat } from './imports.js';
import { unknownFieldHint } from './field-hint.js';
import { inferTransport, isPlainObject, unknownEntryKeys, validateServerEntry, type EntryIssue } from './schema.js';
import { closestShape, kindOf, listToMap, NATIVE_SHAPE, noImportServers, noNativeServers } from './shapes.js';
import { emptyNormalizedConfig, isValidServerId, type ConfigDiagnostic, type ConfigSource, type HostSettings, type ResolvedServer } from './types.js';

/** One entry of one layer. `disableOnly` marks a native `{ "enabled": false }` override stub. */
export interface LayerEntry {
  server: ResolvedServer;
  disableOnly: boolean;
}

/** What one file contributes. */
export interface ParsedLayer {
  entries: LayerEntry[];
  diagnostics: ConfigDiagnostic[];
  /** Host-wide settings (`mcp.max_parallel` of a native file). */
  host?: HostSettings;
}

/**
 * Parses a native config file (`{ version: 1, mcp: { servers } }`, JSON text; YAML is converted
 * to JSON text first by `formats.ts`). `servers` is a map by id, or a list of entries naming
 * themselves with `name` (also at the top level, as `servers: [...]`; `shapes.ts`). With `ctx`,
 * every string field of each entry is expanded (`${VAR}`, `${VAR:-default}`, `${PROJECT_ROOT}`;
 * `expand.ts`); an unresolved variable disables that entry only. A file that holds no servers
 * where they belong, but something else, says so (the shape expected, the closest shape seen).
 * A pasted `mcpServers` block (Claude Desktop, Claude Code, Cursor) and no `mcp` section is read
 * as those tools read it. An entry without `transport` gets the one `command`/`url` implies.
 */
export function parseNativeLayer(text: string, source: 'project' | 'global', file: string, ctx?: ExpandContext): ParsedLayer {
  const out: ParsedLayer = { entries: [], diagnostics: [] };
  const site = { source, file };
  const doc = parseJsonText(text);
  if (!doc.ok) return fail(out, site, doc.message);
  if (!isPlainObject(doc.value)) return fail(out, site, `the top level must be an object, ${NATIVE_SHAPE}; saw ${kindOf(doc.value)}`);
  const root = doc.value;
  if (root.version !== undefined && root.version !== 1) return fail(out, site, 'unsupported "version" (expected 1); file ignored');
  if (isPlainObject(root.mcp)) readHostSettings(root.mcp, site, out, ctx);
  if (root.mcp === undefined && isPlainObject(root.mcpServers) && ctx !== undefined) return parseImportLayer(text, 'mcpServers', file, ctx, source);
  if (root.mcp !== undefined && root.mcpServers !== undefined) {
    out.diagnostics.push(diagnostic('error', { ...site, field: 'mcpServers' }, 'not read: a file with an "mcp" section keeps its servers in "mcp.servers"; move them there'));
  }
  if (root.mcp !== undefined && root.servers !== undefined) {
    out.diagnostics.push(diagnostic('error', { ...site, field: 'servers' }, 'not read: a file with an "mcp" section keeps its servers in "mcp.servers"; move them there'));
  }
  const found = locateNativeServers(root);
  if ('problem' in found) {
    if (found.problem !== undefined) out.diagnostics.push(diagnostic(found.severity, site, found.problem));
    return out;
  }
  if (found.path.length === 1 && root.options !== undefined) {
    out.diagnostics.push(diagnostic('warning', { ...site, field: 'options' }, `not read: write the host-wide limit as "mcp.max_parallel" and per server "request_timeout_ms" and "retry": {"max_retries", "base_delay_ms", "max_delay_ms", "multiplier", "retry_on"}`));
  }
  let dups = duplicateIndex(text, found.path, site, out.diagnostics);
  let servers = found.servers;
  if (found.list !== undefined) {
    const listed = listToMap(found.list);
    for (const i of listed.issues) out.diagnostics.push(diagnostic('error', { ...site, field: `${found.path.join('.')}.${i.index}.${i.field}` }, i.message));
    dups = byName(dups, found.list);
    for (const [name, n] of listed.counts) if (n > 1) dups.set(name, [{ field: '', message: `server id defined ${n} times in this file` }, ...(dups.get(name) ?? [])]);
    servers = listed.servers;
  }
  for (const [id, raw] of Object.entries(servers)) out.entries.push(nativeEntry(id, raw, dups.get(id) ?? [], site, ctx, out.diagnostics));
  return out;
}

type Located = { path: string[]; servers: Record<string, unknown>; list?: readonly unknown[] } | { problem: string | undefined; severity: 'error' | 'warning' };

/** Where a native document keeps its servers (see `parseNativeLayer`), or what is wrong with it. */
function locateNativeServers(root: Record<string, unknown>): Located {
  const mcp = root.mcp;
  if (mcp === undefined) {
    if (Array.isArray(root.servers)) return { path: ['servers'], servers: {}, list: root.servers };
    const others = Object.keys(root).filter((k) => k !== 'version');
    if (others.length === 0) return { problem: undefined, severity: 'warning' };
    return { problem: noNativeServers(root), severity: closestShape(root) === undefined ? 'warning' : 'error' };
  }
  if (!isPlainObject(mcp)) return { problem: `"mcp" must be an object, ${NATIVE_SHAPE}; saw ${kindOf(mcp)}`, severity: 'error' };
  const servers = mcp.servers;
  if (servers === undefined) return { problem: undefined, severity: 'warning' };
  if (isPlainObject(servers)) return { path: ['mcp', 'servers'], servers };
  if (Array.isArray(servers)) return { path: ['mcp', 'servers'], servers: {}, list: servers };
  return { problem: `"mcp.servers" must be a map of server ids to entries (or a list of entries with "name"), ${NATIVE_SHAPE}; saw ${kindOf(servers)}`, severity: 'error' };
}

/** Duplicate-key issues of a list's entries, keyed by the entry's name instead of its position. */
function byName(dups: Map<string, EntryIssue[]>, list: readonly unknown[]): Map<string, EntryIssue[]> {
  const out = new Map<string, EntryIssue[]>();
  for (const [index, issues] of dups) {
    const item = list[Number(index)];
    const name = isPlainObject(item) && typeof item.name === 'string' ? item.name : undefined;
    if (name !== undefined) out.set(name, [...(out.get(name) ?? []), ...issues]);
  }
  return out;
}

/**
 * Host-wide settings: `mcp.max_parallel` (the limit of calls in flight across servers) and
 * `mcp.secret_names` (env and header names whose values are secrets in every server's entry),
 * `mcp.serve_names` (how `mcpwire serve` names tools and prompts).
 */
function readHostSettings(mcp: Record<string, unknown>, site: DiagnosticSite, out: ParsedLayer, ctx: ExpandContext | undefined): void {
  if (mcp.store !== undefined) readStore(mcp.store, site, out, ctx);
  const v = mcp.max_parallel;
  if (v !== undefined) {
    if (typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= 10_000) out.host = { ...out.host, maxParallel: v };
    else out.diagnostics.push(diagnostic('error', { ...site, field: 'mcp.max_parallel' }, 'must be a whole number from 1 to 10000; ignored'));
  }
  const serve = mcp.serve_names;
  if (serve !== undefined) {
    if (serve === 'as-is' || serve === 'prefixed' || serve === 'host') out.host = { ...out.host, serveNames: serve };
    else out.diagnostics.push(diagnostic('error', { ...site, field: 'mcp.serve_names' }, 'must be "as-is", "prefixed" or "host"; ignored'));
  }
  readRegistrySetting(mcp.registry, site, out);
  const names = mcp.secret_names;
  if (names === undefined) return;
  if (Array.isArray(names) && names.every((n) => typeof n === 'string' && n !== '')) out.host = { ...out.host, secretNames: [...(names as string[])] };
  else out.diagnostics.push(diagnostic('error', { ...site, field: 'mcp.secret_names' }, 'must be a list of env or header names; ignored'));
}

/**
 * `mcp.registry`: the MCP registry `mcpwire registry` and `mcp add --from-registry` use when no
 * `--registry` or `MCPWIRE_REGISTRY` says another. Read from the global config only: a project
 * must not choose where the servers its user installs come from.
 */
function readRegistrySetting(v: unknown, site: DiagnosticSite, out: ParsedLayer): void {
  if (v === undefined) return;
  const field = { ...site, field: 'mcp.registry' };
  if (site.source === 'project') return void out.diagnostics.push(diagnostic('warning', field, 'read from the global config only (a project does not choose where servers are installed from); ignored'));
  let u: URL | undefined;
  try {
    u = typeof v === 'string' ? new URL(v) : undefined;
  } catch {
    u = undefined;
  }
  if (u === undefined || (u.protocol !== 'http:' && u.protocol !== 'https:') || u.username !== '' || u.password !== '') {
    return void out.diagnostics.push(diagnostic('error', field, 'must be an absolute http(s) URL without credentials; ignored'));
  }
  out.host = { ...out.host, registry: v as string };
}

/**
 * `mcp.store` (where shared state lives, src/store/setting.ts), `${VAR}` expanded so that a Redis
 * password can stay in the environment. Checked here; kept even when wrong, so that whatever
 * needs the store fails with the store's own error rather than quietly using the file. The
 * diagnostics never quote it (it may hold a password).
 */
function readStore(raw: unknown, site: DiagnosticSite, out: ParsedLayer, ctx: ExpandContext | undefined): void {
  const field = { ...site, field: 'mcp.store' };
  if (typeof raw !== 'string' || raw.trim() === '') {
    out.diagnostics.push(diagnostic('error', field, 'must be "file", "memory" or a redis:// or rediss:// URL; ignored'));
    return;
  }
  const expanded = ctx !== undefined ? expandString(raw, 'native', ctx) : { value: raw, problems: [] };
  if (expanded.problems.length > 0) {
    out.diagnostics.push(diagnostic('error', field, `${expanded.problems.join('; ')}; ignored`));
    return;
  }
  try {
    parseStoreSetting(expanded.value, 'mcp.store');
  } catch (err) {
    out.diagnostics.push(diagnostic('error', field, storeProblem(err)));
  }
  out.host = { ...out.host, store: expanded.value };
}

/** What is wrong with a store setting, without its value. */
function storeProblem(err: unknown): string {
  const m = err instanceof Error ? err.message : '';
  if (m.includes('is not supported')) return 'its scheme is not supported: use "file", "memory", redis:// or rediss://';
  if (m.includes('names no host')) return 'the redis:// URL names no host';
  if (m.includes('prefix')) return 'its ?prefix= must be 1-64 of A-Z a-z 0-9 _ . : -';
  return 'must be "file", "memory" or a redis:// or rediss:// URL';
}

/** One native entry: expanded, validated, unknown fields reported. */
function nativeEntry(id: string, raw: unknown, dups: EntryIssue[], site: DiagnosticSite, ctx: ExpandContext | undefined, diagnostics: ConfigDiagnostic[]): LayerEntry {
  const disableOnly = isPlainObject(raw) && Object.keys(raw).length === 1 && raw.enabled === false;
  const inferred = disableOnly ? { value: raw } : inferTransport(raw);
  const expanded = ctx !== undefined && !disableOnly ? expandNativeEntry(inferred.value, ctx) : { value: inferred.value, issues: [] };
  const validation = disableOnly ? undefined : validateServerEntry(expanded.value);
  const unresolved = new Set(expanded.issues.map((i) => i.field));
  if (inferred.issue !== undefined) unresolved.add('transport');
  const issues = [...(inferred.issue ? [inferred.issue] : []), ...expanded.issues, ...(validation && !validation.ok ? validation.issues.filter((i) => !unresolved.has(i.field)) : [])];
  for (const k of unknownEntryKeys(raw)) {
    diagnostics.push(diagnostic('warning', { ...site, serverId: id, field: k }, `unknown field ignored${unknownFieldHint(k)}`));
  }
  const entry = finishEntry(id, inferred.value, validation, [...dups, ...issues], site, diagnostics, disableOnly);
  if (ctx !== undefined && !disableOnly && entry.server.error === undefined && JSON.stringify(raw).includes('${')) entry.server.written = structuredClone(raw);
  return entry;
}

/**
 * Parses an import file (JSON text: TOML and JSONC are converted by `formats.ts` first),
 * expanding its variables. Which map holds the servers depends on the format (`serverMaps`).
 * `source`: a native file holding a pasted `mcpServers` block is read this way as its own layer.
 */
export function parseImportLayer(text: string, format: ImportFormat, file: string, ctx: ExpandContext, source: ConfigSource = `import:${file}`): ParsedLayer {
  const out: ParsedLayer = { entries: [], diagnostics: [] };
  const site = { source, file };
  const doc = parseJsonText(text);
  if (!doc.ok) return fail(out, site, doc.message);
  if (!isPlainObject(doc.value)) return fail(out, site, 'the top level must be a JSON object');
  const maps = serverMaps(doc.value, format, ctx);
  if (typeof maps === 'string') return fail(out, site, maps);
  if (maps.length === 0) {
    const problem = noImportServers(doc.value, format);
    if (problem !== undefined) out.diagnostics.push(diagnostic(closestShape(doc.value) === undefined ? 'warning' : 'error', site, problem));
  }
  const seen = new Set<string>();
  for (const { path: serversPath, servers } of maps) {
    const dups = duplicateIndex(text, serversPath, site, out.diagnostics);
    for (const [id, raw] of Object.entries(servers)) {
      // ~/.claude.json: the project's own (local) entry wins over the user-wide one.
      if (seen.has(id)) continue;
      seen.add(id);
      const conv = convertImportEntry(raw, format, ctx);
      for (const w of conv.warnings) out.diagnostics.push(diagnostic('warning', { ...site, serverId: id, field: w.field }, w.message));
      const validation = conv.issues.length === 0 ? validateServerEntry(conv.entry, conv.legacySse) : undefined;
      const issues = [...(dups.get(id) ?? []), ...conv.issues, ...(validation && !validation.ok ? validation.issues : [])];
      const mapped = issues.map((i) => ({ field: i.field.replace(/^transport\b/, 'type'), message: i.message }));
      out.entries.push(finishEntry(id, conv.entry, validation, mapped, site, out.diagnostics, false));
    }
  }
  return out;
}

/**
 * The server maps of an import document, highest precedence first, with their key paths (for
 * duplicate detection); a string when the document's shape is wrong.
 */
function serverMaps(root: Record<string, unknown>, format: ImportFormat, ctx: ExpandContext): { path: string[]; servers: Record<string, unknown> }[] | string {
  const maps: { path: string[]; servers: Record<string, unknown> }[] = [];
  const take = (p: string[], v: unknown): string | undefined => {
    if (v === undefined) return undefined;
    if (!isPlainObject(v)) return `"${p.join('.')}" must be an object`;
    maps.push({ path: p, servers: v });
    return undefined;
  };
  let problem: string | undefined;
  if (format === 'claude-json') {
    const projects = root.projects;
    if (isPlainObject(projects)) {
      const here = new Set([path.resolve(ctx.workspaceFolder), ...(ctx.projectRoot !== undefined ? [path.resolve(ctx.projectRoot)] : [])]);
      const key = Object.keys(projects).find((k) => here.has(path.resolve(k)));
      const entry = key === undefined ? undefined : projects[key];
      if (key !== undefined && isPlainObject(entry)) problem = take(['projects', key, 'mcpServers'], entry.mcpServers);
    }
    problem ??= take(['mcpServers'], root.mcpServers);
  } else if (format === 'vscode') {
    problem = take(['servers'], root.servers);
  } else if (format === 'codex') {
    problem = take(['mcp_servers'], root.mcp_servers);
  } else if (format === 'opencode') {
    const mcp = root.mcp;
    // OpenCode 2 nests them one level deeper (`mcp.servers`); a server named "servers" has a `type`.
    if (isPlainObject(mcp) && isPlainObject(mcp.servers) && mcp.servers.type === undefined && Object.values(mcp.servers).every(isPlainObject)) {
      problem = take(['mcp', 'servers'], mcp.servers);
    } else {
      problem = take(['mcp'], mcp);
    }
  } else {
    problem = take(['mcpServers'], root.mcpServers);
  }
  return problem ?? maps;
}

function finishEntry(
  id: string,
  raw: unknown,
  validation: ReturnType<typeof validateServerEntry> | undefined,
  issues: EntryIssue[],
  site: DiagnosticSite,
  diagnostics: ConfigDiagnostic[],
  disableOnly: boolean,
): LayerEntry {
  const all = isValidServerId(id) ? issues : [{ field: '', message: 'invalid server id (1-64 characters of a-z, A-Z, 0-9, "_", "-")' }, ...issues];
  const server: ResolvedServer = {
    id,
    source: site.source,
    file: site.file,
    enabled: false,
    transport: 'unknown',
    config: emptyNormalizedConfig(),
  };
  if (validation?.ok && all.length === 0) {
    server.enabled = validation.entry.enabled;
    server.transport = validation.entry.transport;
    server.config = validation.entry.config;
    return { server, disableOnly: false };
  }
  if (disableOnly && all.length === 0) return { server, disableOnly: true };
  for (const i of all) diagnostics.push(diagnostic('error', { ...site, serverId: id, field: i.field }, `${i.message}; server disabled`));
  server.error = issuesText(all);
  server.transport = validation && !validation.ok ? validation.transport : guessFromRaw(raw);
  return { server, disableOnly: false };
}

function guessFromRaw(raw: unknown): ResolvedServer['transport'] {
  if (!isPlainObject(raw)) return 'unknown';
  return raw.transport === 'stdio' || raw.transport === 'http' ? raw.transport : raw.transport === 'sse' ? 'http' : 'unknown';
}

/** Duplicate ids (per id, an issue) under `serversPath`; duplicates inside an entry are issues too. */
function duplicateIndex(text: string, serversPath: string[], site: DiagnosticSite, diagnostics: ConfigDiagnostic[]): Map<string, EntryIssue[]> {
  const byId = new Map<string, EntryIssue[]>();
  const add = (id: string, issue: EntryIssue): void => {
    byId.set(id, [...(byId.get(id) ?? []), issue]);
  };
  for (const d of findDuplicateKeys(text)) {
    const under = serversPath.every((p, i) => d.path[i] === p);
    if (under && d.path.length === serversPath.length) {
      add(d.key, { field: '', message: `server id defined ${d.count} times in this file` });
    } else if (under) {
      const [id, ...rest] = d.path.slice(serversPath.length);
      add(id, { field: [...rest, d.key].join('.'), message: `key defined ${d.count} times` });
    } else {
      diagnostics.push(diagnostic('warning', { ...site, field: [...d.path, d.key].join('.') }, `key defined ${d.count} times; the last one is used`));
    }
  }
  return byId;
}

function fail(out: ParsedLayer, site: DiagnosticSite, message: string): ParsedLayer {
  out.diagnostics.push(diagnostic('error', site, message));
  return out;
}
