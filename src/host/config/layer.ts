/**
 * Parsing one config file (a layer) into server entries plus diagnostics. Works on text so it
 * is pure and testable; `load.ts` does the reading. Covers the native format (never expands
 * variables) and the import formats (converted by `imports.ts`, then validated the same way).
 */
import path from 'node:path';
import { diagnostic, issuesText, parseJsonText, type DiagnosticSite } from './diagnostics.js';
import { findDuplicateKeys } from './duplicate-keys.js';
import { expandNativeEntry, type ExpandContext } from './expand.js';
import { convertImportEntry, type ImportFormat } from './imports.js';
import { isPlainObject, unknownEntryKeys, validateServerEntry, type EntryIssue } from './schema.js';
import { emptyNormalizedConfig, isValidServerId, type ConfigDiagnostic, type ConfigSource, type ResolvedServer } from './types.js';

/** One entry of one layer. `disableOnly` marks a native `{ "enabled": false }` override stub. */
export interface LayerEntry {
  server: ResolvedServer;
  disableOnly: boolean;
}

/** What one file contributes. */
export interface ParsedLayer {
  entries: LayerEntry[];
  diagnostics: ConfigDiagnostic[];
}

/**
 * Parses a native config file (`{ version: 1, mcp: { servers } }`, JSON text; YAML is converted
 * to JSON text first by `formats.ts`). With `ctx`, every string field of each entry is expanded
 * (`${VAR}`, `${VAR:-default}`, `${PROJECT_ROOT}`; `expand.ts`); an unresolved variable disables
 * that entry only.
 */
export function parseNativeLayer(text: string, source: 'project' | 'global', file: string, ctx?: ExpandContext): ParsedLayer {
  const out: ParsedLayer = { entries: [], diagnostics: [] };
  const site = { source, file };
  const doc = parseJsonText(text);
  if (!doc.ok) return fail(out, site, doc.message);
  if (!isPlainObject(doc.value)) return fail(out, site, 'the top level must be a JSON object');
  const version = doc.value.version;
  if (version !== undefined && version !== 1) return fail(out, site, 'unsupported "version" (expected 1); file ignored');
  const mcp = doc.value.mcp;
  if (mcp === undefined) return out;
  if (!isPlainObject(mcp)) return fail(out, site, '"mcp" must be an object');
  const servers = mcp.servers;
  if (servers === undefined) return out;
  if (!isPlainObject(servers)) return fail(out, site, '"mcp.servers" must be an object');
  const dups = duplicateIndex(text, ['mcp', 'servers'], site, out.diagnostics);
  for (const [id, raw] of Object.entries(servers)) {
    const disableOnly = isPlainObject(raw) && Object.keys(raw).length === 1 && raw.enabled === false;
    const expanded = ctx !== undefined && !disableOnly ? expandNativeEntry(raw, ctx) : { value: raw, issues: [] };
    const validation = disableOnly ? undefined : validateServerEntry(expanded.value);
    const unresolved = new Set(expanded.issues.map((i) => i.field));
    const issues = [...expanded.issues, ...(validation && !validation.ok ? validation.issues.filter((i) => !unresolved.has(i.field)) : [])];
    for (const k of unknownEntryKeys(raw)) {
      out.diagnostics.push(diagnostic('warning', { ...site, serverId: id, field: k }, 'unknown field ignored'));
    }
    const entry = finishEntry(id, raw, validation, [...(dups.get(id) ?? []), ...issues], site, out.diagnostics, disableOnly);
    if (ctx !== undefined && !disableOnly && entry.server.error === undefined && JSON.stringify(raw).includes('${')) entry.server.written = structuredClone(raw);
    out.entries.push(entry);
  }
  return out;
}

/**
 * Parses an import file (JSON text: TOML and JSONC are converted by `formats.ts` first),
 * expanding its variables. Which map holds the servers depends on the format (`serverMaps`).
 */
export function parseImportLayer(text: string, format: ImportFormat, file: string, ctx: ExpandContext): ParsedLayer {
  const out: ParsedLayer = { entries: [], diagnostics: [] };
  const source: ConfigSource = `import:${file}`;
  const site = { source, file };
  const doc = parseJsonText(text);
  if (!doc.ok) return fail(out, site, doc.message);
  if (!isPlainObject(doc.value)) return fail(out, site, 'the top level must be a JSON object');
  const maps = serverMaps(doc.value, format, ctx);
  if (typeof maps === 'string') return fail(out, site, maps);
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
