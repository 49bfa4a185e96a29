/**
 * Config files in a shape other than the one expected. A file mcpwire reads but cannot map to
 * servers must not load as silently empty: the loader reports the file, the shape it expected
 * and the closest shape it saw, with how to write it. One more shape is read, not only
 * recognized: a list of server entries, each naming itself with `name` (the shape of design
 * notes such as `servers: [{ name, command, args, env }]` in YAML).
 *
 * Messages quote key names (escaped, capped), never values: values may be secrets.
 */
import { printable } from './diagnostics.js';
import type { ImportFormat } from './imports.js';
import { isPlainObject, type EntryIssue } from './schema.js';

/** The native shape, as diagnostics show it. */
export const NATIVE_SHAPE = '{"version": 1, "mcp": {"servers": {"<id>": {"transport": "stdio", "command": …}}}}';

/** Where each import format keeps its servers, as diagnostics show it. */
const IMPORT_SHAPES: Record<ImportFormat, string> = {
  mcpServers: '{"mcpServers": {"<id>": {"command": …}}}',
  'claude-json': '{"mcpServers": {"<id>": …}} or {"projects": {"<dir>": {"mcpServers": …}}}',
  vscode: '{"servers": {"<id>": {"type": "stdio", "command": …}}}',
  windsurf: '{"mcpServers": {"<id>": {"command": …}}}',
  codex: '[mcp_servers.<id>] tables',
  opencode: '{"mcp": {"<id>": {"type": "local", "command": […]}}}',
};

/** The shape an import format's file is expected in. */
export function importShape(format: ImportFormat): string {
  return IMPORT_SHAPES[format];
}

/** What a JSON value is, in a word or two. */
export function kindOf(v: unknown): string {
  if (Array.isArray(v)) return 'a list';
  if (v === null) return 'null';
  if (isPlainObject(v)) return 'an object';
  return `a ${typeof v}`;
}

const keyList = (o: Record<string, unknown>): string =>
  Object.keys(o)
    .slice(0, 8)
    .map((k) => `"${printable(k, 40)}"`)
    .join(', ') + (Object.keys(o).length > 8 ? ', …' : '');

/**
 * The closest known shape of a document that holds no servers where they were expected, and
 * how to write it; undefined when it shows nothing that looks like servers.
 */
export function closestShape(root: Record<string, unknown>): string | undefined {
  if (isPlainObject(root.mcpServers)) {
    return 'saw "mcpServers", the format of Claude Desktop, Claude Code (.mcp.json) and Cursor: mcpwire imports such a file where those tools keep it (--imports); in a native file write its servers under "mcp.servers", with "transport" for "type"';
  }
  if (isPlainObject(root.servers)) {
    return 'saw "servers" at the top level (the shape of VS Code\'s .vscode/mcp.json): move it under "mcp" ({"mcp": {"servers": …}}), with "transport" for "type"';
  }
  if (Array.isArray(root.servers)) {
    return 'saw "servers" as a list: each entry needs a string "name" (the server id), e.g. [{"name": "files", "command": "npx", "args": […]}]';
  }
  if (isPlainObject(root.mcp_servers)) return 'saw "mcp_servers" (Codex\'s config.toml): write its servers under "mcp.servers", with "command"/"url" as they are';
  if (Array.isArray(root.commands)) {
    return 'saw a manifest listing "commands" (and not servers): write each command as a server, {"mcp": {"servers": {"<name>": {"transport": "stdio", "command": "…", "env": {…}}}}}';
  }
  if (isPlainObject(root.context_servers)) return 'saw "context_servers" (Zed\'s settings): write its servers under "mcp.servers"';
  // a misspelt key (`mcp-servers`, `MCPServers`…)
  const similar = Object.keys(root).find((k) => /servers/i.test(k));
  if (similar !== undefined) return `saw "${printable(similar, 40)}", which is not where this file's servers go (check the spelling)`;
  return undefined;
}

/** The diagnostic text of a native file that holds no `mcp` section but other keys. */
export function noNativeServers(root: Record<string, unknown>): string {
  const seen = closestShape(root) ?? `saw only the top-level key(s) ${keyList(root)}`;
  return `no servers read: expected ${NATIVE_SHAPE}; ${seen}`;
}

/**
 * The diagnostic text of an import file whose servers map is missing, or undefined when that is
 * normal for its format: Claude Code's ~/.claude.json, Codex's config.toml and opencode.json
 * hold much else and need no servers; the files of the other formats exist for their servers.
 */
export function noImportServers(root: Record<string, unknown>, format: ImportFormat): string | undefined {
  const shared = format === 'claude-json' || format === 'codex' || format === 'opencode';
  const seen = closestShape(root);
  if (shared && seen === undefined) return undefined;
  if (!shared && seen === undefined && Object.keys(root).length === 0) return undefined;
  return `no servers read: expected ${importShape(format)}; ${seen ?? `saw only the top-level key(s) ${keyList(root)}`}`;
}

/** Problems of one entry of the list form, keyed by its position when it has no usable name. */
export interface ListIssue extends EntryIssue {
  index: number;
}

/**
 * The list form as a map by `name` (the entry without `name`; `transport` inferred from
 * `command` / `url` when left out, as `host.addServer` does). Entries without a string `name`
 * are issues; a name given twice keeps the first entry and counts.
 */
export function listToMap(list: readonly unknown[]): { servers: Record<string, unknown>; issues: ListIssue[]; counts: Map<string, number> } {
  const servers: Record<string, unknown> = {};
  const issues: ListIssue[] = [];
  const counts = new Map<string, number>();
  list.forEach((item, index) => {
    if (!isPlainObject(item) || typeof item.name !== 'string' || item.name === '') {
      issues.push({ index, field: 'name', message: `entry ${index + 1} of the list needs a "name" (the server id); entry ignored` });
      return;
    }
    const { name, ...entry } = item;
    counts.set(name, (counts.get(name) ?? 0) + 1);
    if (Object.hasOwn(servers, name)) return;
    if (entry.transport === undefined) entry.transport = typeof entry.url === 'string' && entry.command === undefined ? 'http' : 'stdio';
    servers[name] = entry;
  });
  return { servers, issues, counts };
}
