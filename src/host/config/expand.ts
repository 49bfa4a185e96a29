/**
 * Variable expansion. Problems name the variable, never a value.
 *
 * - Native format (`.mcpwire/config.json`, YAML too): `${VAR}`, `${VAR:-default}` (the default
 *   applies when VAR is unset or empty, as in POSIX shells) and `${PROJECT_ROOT}` (always the
 *   project directory: the one holding `.mcpwire/`, or the current directory), in every string
 *   field of an entry. `$${` is a literal `${`. An unset VAR without a default, or a `${` that
 *   is not one of these forms, is a problem: that one entry is disabled. Expansion happens when
 *   the config is loaded for use; files are never rewritten with the values (`mcp add` keeps
 *   `${VAR}` as written). This supersedes the first design, in which the native format never expanded.
 * - `mcpServers` files (Claude Desktop, Claude Code `.mcp.json` and `~/.claude.json`, Cursor):
 *   `${VAR}` and `${VAR:-default}` as above (no `${PROJECT_ROOT}`, no `$${`).
 * - VS Code `mcp.json`: `${env:VAR}` (unset → empty, as VS Code does), `${workspaceFolder}`,
 *   `${userHome}`, `${pathSeparator}`. `${input:…}` needs an interactive prompt and is a
 *   problem; any other `${…}` is unsupported and a problem too.
 * - Windsurf `mcp_config.json`: `${env:VAR}` and `${VAR}` (unset → problem); `${file:…}` is
 *   not supported (a problem).
 * - OpenCode: `{env:VAR}` (unset → empty, as OpenCode does); `{file:…}` is not supported.
 * - Codex TOML: no expansion (Codex has none; it names variables in `env_vars` and
 *   `bearer_token_env_var` instead, handled in `imports.ts`).
 */
import { sep } from 'node:path';
import type { EntryIssue } from './schema.js';

/** Which variable syntax a file uses (see the module comment). */
export type VariableSyntax = 'native' | 'mcpServers' | 'vscode' | 'windsurf' | 'opencode' | 'none';

/** What variables resolve against. */
export interface ExpandContext {
  env: Record<string, string | undefined>;
  /** The project directory (`${workspaceFolder}`). */
  workspaceFolder: string;
  userHome: string;
  /** `${PROJECT_ROOT}` of the native format (default: `workspaceFolder`). */
  projectRoot?: string;
}

const CLAUDE_VAR = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;
/** `$${` (escape), a well-formed reference, or any other `${` (malformed). */
const NATIVE_VAR = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}|\$\{/g;
const VSCODE_VAR = /\$\{([^}]*)\}/g;
const OPENCODE_VAR = /\{(env|file):([^}]*)\}/g;

/** Expands one string; `problems` lists the variables that could not be resolved. */
export function expandString(s: string, syntax: VariableSyntax, ctx: ExpandContext): { value: string; problems: string[]; unset: string[] } {
  const problems: string[] = [];
  /** Names of the unset variables among the problems. */
  const unset: string[] = [];
  const env = (name: string, dflt: string | undefined, whole: string): string => {
    const v = ctx.env[name];
    if (v !== undefined && (v !== '' || dflt === undefined)) return v;
    if (dflt !== undefined) return dflt;
    problems.push(`environment variable "${name}" is not set and has no default`);
    unset.push(name);
    return whole;
  };
  let value = s;
  if (syntax === 'native') {
    if (!s.includes('${')) return { value, problems, unset };
    value = s.replace(NATIVE_VAR, (whole, name: string | undefined, dflt: string | undefined) => {
      if (whole === '$${') return '${';
      if (name === undefined) {
        problems.push('has a "${" that is not ${VAR} or ${VAR:-default} (write $${ for a literal "${")');
        return whole;
      }
      if (name === 'PROJECT_ROOT') return ctx.projectRoot ?? ctx.workspaceFolder;
      return env(name, dflt, whole);
    });
  } else if (syntax === 'mcpServers') {
    value = s.replace(CLAUDE_VAR, (whole, name: string, dflt: string | undefined) => env(name, dflt, whole));
  } else if (syntax === 'vscode') {
    value = s.replace(VSCODE_VAR, (whole, name: string) => {
      const v = vscodeVariable(name, ctx);
      if (typeof v === 'string') return v;
      problems.push(v.problem);
      return whole;
    });
  } else if (syntax === 'windsurf') {
    value = s.replace(VSCODE_VAR, (whole, name: string) => {
      const m = /^(?:env:)?([A-Za-z_][A-Za-z0-9_]*)$/.exec(name);
      if (m !== null) return env(m[1], undefined, whole);
      problems.push(name.startsWith('file:') ? 'uses "${file:…}": reading files into the config is not supported' : `uses unsupported variable "\${${name.slice(0, 40)}}"`);
      return whole;
    });
  } else if (syntax === 'opencode') {
    value = s.replace(OPENCODE_VAR, (whole, kind: string, name: string) => {
      if (kind === 'env') return ctx.env[name] ?? '';
      problems.push('uses "{file:…}": reading files into the config is not supported');
      return whole;
    });
  }
  return { value, problems, unset };
}

function vscodeVariable(name: string, ctx: ExpandContext): string | { problem: string } {
  if (name === 'workspaceFolder') return ctx.workspaceFolder;
  if (name === 'userHome') return ctx.userHome;
  if (name === 'pathSeparator' || name === '/') return sep;
  if (name.startsWith('env:')) return ctx.env[name.slice(4)] ?? '';
  if (name.startsWith('input:')) {
    return { problem: `uses "\${${name}}": VS Code input prompts are not supported (the "inputs" section is ignored)` };
  }
  return { problem: `uses unsupported variable "\${${name}}"` };
}

/** String-valued fields of a native-shaped entry that import expansion applies to. */
const SCALAR_FIELDS = ['command', 'cwd', 'url'] as const;
const MAP_FIELDS = ['env', 'headers'] as const;

/**
 * Expands the launch fields of a converted import entry in place (command, args, cwd, env
 * values, url, header values). Fields of the wrong type are left for validation to report.
 */
export function expandEntry(entry: Record<string, unknown>, syntax: VariableSyntax, ctx: ExpandContext): EntryIssue[] {
  const issues: EntryIssue[] = [];
  if (syntax === 'none') return issues;
  const one = (v: unknown, field: string): unknown => {
    if (typeof v !== 'string') return v;
    const r = expandString(v, syntax, ctx);
    for (const p of r.problems) issues.push({ field, message: p });
    return r.value;
  };
  for (const f of SCALAR_FIELDS) if (f in entry) entry[f] = one(entry[f], f);
  if (Array.isArray(entry.args)) entry.args = entry.args.map((a, i) => one(a, `args.${i}`));
  for (const f of MAP_FIELDS) {
    const m = entry[f];
    if (typeof m !== 'object' || m === null || Array.isArray(m)) continue;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(m)) out[k] = one(v, `${f}.${k}`);
    entry[f] = out;
  }
  return issues;
}

/** Deeper values in a config entry are refused (no real setting nests this deep). */
const MAX_ENTRY_DEPTH = 64;
const TOO_DEEP = `nested more than ${MAX_ENTRY_DEPTH} levels deep`;

/**
 * Expands every string field of a native entry (at any depth: command, args, env and header
 * values, url, cwd, oauth, permissions, roots…) and returns a new value; keys are never
 * expanded. `raw` is not modified (it is what a rewrite keeps).
 */
export function expandNativeEntry(raw: unknown, ctx: ExpandContext): { value: unknown; issues: EntryIssue[]; unset: { field: string; name: string }[] } {
  const issues: EntryIssue[] = [];
  const unset: { field: string; name: string }[] = [];
  const walk = (v: unknown, field: string, depth = 0): unknown => {
    if (depth > MAX_ENTRY_DEPTH) {
      // a value nested thousands deep would overflow the stack: the entry is refused instead
      if (!issues.some((i) => i.message === TOO_DEEP)) issues.push({ field: field.split('.')[0], message: TOO_DEEP });
      return v;
    }
    if (typeof v === 'string') {
      const r = expandString(v, 'native', ctx);
      for (const p of r.problems) issues.push({ field, message: p });
      for (const name of r.unset) unset.push({ field, name });
      return r.value;
    }
    if (Array.isArray(v)) return v.map((x, i) => walk(x, field ? `${field}.${i}` : String(i), depth + 1));
    if (typeof v === 'object' && v !== null) {
      const out: Record<string, unknown> = {};
      // defineProperty: a `__proto__` key from JSON stays a plain key.
      for (const [k, x] of Object.entries(v)) Object.defineProperty(out, k, { value: walk(x, field ? `${field}.${k}` : k, depth + 1), enumerable: true, writable: true, configurable: true });
      return out;
    }
    return v;
  };
  return { value: walk(raw, ''), issues, unset };
}
