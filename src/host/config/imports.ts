/**
 * Import formats, read-only, each converted to the native shape (then validated like a native
 * entry) after its own variable expansion (`expand.ts`):
 *
 * - `mcpServers`: Claude Desktop (`claude_desktop_config.json`), Claude Code (`.mcp.json`),
 *   Cursor (`.cursor/mcp.json`). `type: "stdio"` → stdio; `"http"` (alias `"streamable-http"`)
 *   → http; `"sse"` → http with `legacySse`. Without `type`, `url` means http and `command`
 *   means stdio. `disabled: true` (Claude Desktop/Cline) or `enabled: false` disables.
 * - `claude-json`: Claude Code's `~/.claude.json` — the same entries, under the top-level
 *   `mcpServers` (user scope) and `projects["<project dir>"].mcpServers` (local scope, for the
 *   current project only; it wins over the top level, as in Claude Code). Its many other keys
 *   are ignored without warnings.
 * - `vscode`: the `servers` map of VS Code (`.vscode/mcp.json`).
 * - `windsurf`: `~/.codeium/windsurf/mcp_config.json`, `mcpServers` with `serverUrl` (or `url`)
 *   for remote servers.
 * - `codex`: `[mcp_servers.<id>]` tables of Codex's `config.toml` — `command`/`args`/`env`/
 *   `cwd`, `env_vars` (names passed through from this environment), or `url` with
 *   `http_headers`, `env_http_headers` (header → variable name) and `bearer_token_env_var`;
 *   `tool_timeout_sec` → `request_timeout_ms`; `disabled_tools` → `permissions.deny`;
 *   `enabled = false` disables.
 * - `opencode`: the `mcp` map of `opencode.json[c]` — `type: "local"` with `command` as an array
 *   (program and arguments) and `environment`, or `type: "remote"` with `url` and `headers`;
 *   `enabled: false` disables.
 *
 * VS Code's `sandboxEnabled`/`sandbox` become the native `sandbox` (sandbox.ts).
 * Other keys (`autoApprove`, `envFile`, `startup_timeout_sec`, …) belong to other tools and are
 * ignored (some with a warning when ignoring them changes what runs: `envFile`, `enabled_tools`).
 */
import { expandEntry, expandString, type ExpandContext, type VariableSyntax } from './expand.js';
import type { FileSyntax } from './formats.js';
import { isPlainObject, type EntryIssue } from './schema.js';
import { sandboxFromVsCode } from './sandbox.js';

/** Which tool's file (see the module comment). */
export type ImportFormat = 'mcpServers' | 'vscode' | 'claude-json' | 'windsurf' | 'codex' | 'opencode';

/** How a format's file is written. */
export function importSyntax(format: ImportFormat): FileSyntax {
  return format === 'codex' ? 'toml' : format === 'opencode' ? 'jsonc' : 'json';
}

function variableSyntax(format: ImportFormat): VariableSyntax {
  if (format === 'claude-json') return 'mcpServers';
  if (format === 'codex') return 'none';
  return format;
}

/** An import file to read, with its format. */
export interface ImportFile {
  path: string;
  format: ImportFormat;
  /**
   * Whether the file belongs to the project (its servers need trust). Default: true when the
   * file is inside the project directory (`cwd`).
   */
  project?: boolean;
}

/** One converted entry: native-shaped, plus what went wrong. */
export interface ConvertedEntry {
  entry: Record<string, unknown>;
  legacySse: boolean;
  /** Problems that disable the entry. */
  issues: EntryIssue[];
  /** Problems that do not. */
  warnings: EntryIssue[];
}

const COPIED = ['command', 'args', 'cwd', 'env', 'url', 'headers'] as const;

/** Converts one import entry to the native shape and expands its variables. */
export function convertImportEntry(raw: unknown, format: ImportFormat, ctx: ExpandContext): ConvertedEntry {
  const out: ConvertedEntry = { entry: {}, legacySse: false, issues: [], warnings: [] };
  if (!isPlainObject(raw)) {
    out.issues.push({ field: '', message: 'entry must be an object' });
    return out;
  }
  if (format === 'codex') convertCodex(raw, ctx, out);
  else if (format === 'opencode') convertOpenCode(raw, out);
  else convertMcpServers(format === 'windsurf' && raw.url === undefined && raw.serverUrl !== undefined ? { ...raw, url: raw.serverUrl } : raw, out);
  out.issues.push(...expandEntry(out.entry, variableSyntax(format), ctx));
  if (format === 'vscode') {
    const expand = (v: string, field: string): string => {
      const r = expandString(v, 'vscode', ctx);
      for (const message of r.problems) out.issues.push({ field, message });
      return r.value;
    };
    const sandbox = sandboxFromVsCode(raw, expand, out.warnings);
    if (sandbox !== undefined) out.entry.sandbox = sandbox;
  }
  return out;
}

function convertMcpServers(raw: Record<string, unknown>, out: ConvertedEntry): void {
  const kind = transportOf(raw);
  if (kind === undefined) {
    out.issues.push({ field: 'type', message: 'unknown or missing "type" (expected "stdio", "http" or "sse", or a "command" or "url")' });
  } else {
    out.entry.transport = kind === 'sse' ? 'http' : kind;
    out.legacySse = kind === 'sse';
  }
  for (const k of COPIED) if (raw[k] !== undefined) out.entry[k] = structuredClone(raw[k]);
  if (raw.disabled === true || raw.enabled === false) out.entry.enabled = false;
  if (raw.envFile !== undefined) out.warnings.push({ field: 'envFile', message: 'not supported; its variables are not loaded' });
}

function transportOf(raw: Record<string, unknown>): 'stdio' | 'http' | 'sse' | undefined {
  const t = raw.type ?? raw.transport;
  if (t === undefined) {
    if (typeof raw.url === 'string' && raw.command === undefined) return 'http';
    if (typeof raw.command === 'string' && raw.url === undefined) return 'stdio';
    return undefined;
  }
  if (t === 'stdio' || t === 'http' || t === 'sse') return t;
  if (t === 'streamable-http' || t === 'streamableHttp') return 'http';
  return undefined;
}

/** Codex `[mcp_servers.<id>]` (see the module comment). Codex does not expand `${…}`. */
function convertCodex(raw: Record<string, unknown>, ctx: ExpandContext, out: ConvertedEntry): void {
  const e = out.entry;
  if (typeof raw.url === 'string' && raw.command === undefined) e.transport = 'http';
  else if (typeof raw.command === 'string' && raw.url === undefined) e.transport = 'stdio';
  else out.issues.push({ field: '', message: 'needs either "command" (stdio) or "url" (streamable HTTP)' });
  for (const k of ['command', 'args', 'cwd', 'env', 'url'] as const) if (raw[k] !== undefined) e[k] = structuredClone(raw[k]);
  if (raw.enabled === false) e.enabled = false;
  if (raw.env_vars !== undefined) {
    if (!Array.isArray(raw.env_vars)) out.issues.push({ field: 'env_vars', message: 'must be an array of variable names' });
    else {
      const env: Record<string, unknown> = isPlainObject(e.env) ? e.env : {};
      for (const name of raw.env_vars) {
        if (typeof name !== 'string') out.warnings.push({ field: 'env_vars', message: 'an item that is not a variable name is ignored' });
        else if (ctx.env[name] !== undefined && !Object.hasOwn(env, name)) env[name] = ctx.env[name];
      }
      e.env = env;
    }
  }
  const headers: Record<string, unknown> = {};
  if (isPlainObject(raw.http_headers)) Object.assign(headers, raw.http_headers);
  else if (raw.http_headers !== undefined) out.issues.push({ field: 'http_headers', message: 'must be a table of header names to values' });
  if (isPlainObject(raw.env_http_headers)) {
    for (const [header, name] of Object.entries(raw.env_http_headers)) {
      const v = typeof name === 'string' ? ctx.env[name] : undefined;
      if (v !== undefined && v !== '') headers[header] = v;
      else out.warnings.push({ field: `env_http_headers.${header}`, message: typeof name === 'string' ? `environment variable "${name}" is not set; header not sent` : 'must name an environment variable' });
    }
  }
  if (raw.bearer_token_env_var !== undefined) {
    const name = raw.bearer_token_env_var;
    const v = typeof name === 'string' ? ctx.env[name] : undefined;
    if (typeof name !== 'string') out.issues.push({ field: 'bearer_token_env_var', message: 'must name an environment variable' });
    else if (v === undefined || v === '') out.issues.push({ field: 'bearer_token_env_var', message: `environment variable "${name}" is not set` });
    else headers.Authorization = `Bearer ${v}`;
  }
  if (raw.bearer_token !== undefined) out.warnings.push({ field: 'bearer_token', message: 'ignored (Codex refuses an inline token too); use bearer_token_env_var' });
  if (Object.keys(headers).length > 0) e.headers = headers;
  if (typeof raw.tool_timeout_sec === 'number' && raw.tool_timeout_sec > 0) e.request_timeout_ms = Math.min(2_147_483_647, Math.round(raw.tool_timeout_sec * 1000));
  if (raw.disabled_tools !== undefined) {
    if (Array.isArray(raw.disabled_tools) && raw.disabled_tools.every((t) => typeof t === 'string')) e.permissions = { deny: [...raw.disabled_tools] };
    else out.issues.push({ field: 'disabled_tools', message: 'must be an array of tool names' });
  }
  if (raw.enabled_tools !== undefined) {
    out.warnings.push({ field: 'enabled_tools', message: 'not supported: every tool of the server is offered (deny the others in permissions.deny)' });
  }
}

/** OpenCode `mcp.<id>` (see the module comment). */
function convertOpenCode(raw: Record<string, unknown>, out: ConvertedEntry): void {
  const e = out.entry;
  const type = raw.type ?? (Array.isArray(raw.command) ? 'local' : typeof raw.url === 'string' ? 'remote' : undefined);
  if (raw.enabled === false) e.enabled = false;
  if (type === 'local') {
    e.transport = 'stdio';
    if (!Array.isArray(raw.command) || raw.command.length === 0) {
      out.issues.push({ field: 'command', message: 'must be a non-empty array (the program, then its arguments)' });
    } else {
      [e.command] = raw.command;
      const args = raw.command.slice(1);
      if (args.length > 0) e.args = structuredClone(args);
    }
    if (raw.environment !== undefined) e.env = structuredClone(raw.environment);
  } else if (type === 'remote') {
    e.transport = 'http';
    if (raw.url !== undefined) e.url = raw.url;
    if (raw.headers !== undefined) e.headers = structuredClone(raw.headers);
  } else {
    out.issues.push({ field: 'type', message: 'unknown or missing "type" (expected "local" or "remote")' });
  }
}
