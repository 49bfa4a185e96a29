/**
 * Variable expansion for the IMPORT formats only. The native format never expands `${...}`
 * (seed §5.1.1: values are used exactly as written).
 *
 * - `mcpServers` files (Claude Desktop, Claude Code `.mcp.json`, Cursor): `${VAR}` and
 *   `${VAR:-default}` (the default applies when VAR is unset or empty, as in POSIX shells).
 *   An unset VAR without a default is a problem: the entry is disabled.
 * - VS Code `mcp.json`: `${env:VAR}` (unset → empty, as VS Code does), `${workspaceFolder}`,
 *   `${userHome}`, `${pathSeparator}`. `${input:…}` needs an interactive prompt and is a
 *   problem; any other `${…}` is unsupported and a problem too.
 *
 * Problems name the variable, never a value.
 */
import { sep } from 'node:path';
import type { EntryIssue } from './schema.js';

/** Which variable syntax an import file uses. */
export type VariableSyntax = 'mcpServers' | 'vscode';

/** What variables resolve against. */
export interface ExpandContext {
  env: Record<string, string | undefined>;
  /** The project directory (`${workspaceFolder}`). */
  workspaceFolder: string;
  userHome: string;
}

const CLAUDE_VAR = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;
const VSCODE_VAR = /\$\{([^}]*)\}/g;

/** Expands one string; `problems` lists the variables that could not be resolved. */
export function expandString(s: string, syntax: VariableSyntax, ctx: ExpandContext): { value: string; problems: string[] } {
  const problems: string[] = [];
  const value =
    syntax === 'mcpServers'
      ? s.replace(CLAUDE_VAR, (whole, name: string, dflt: string | undefined) => {
          const v = ctx.env[name];
          if (v !== undefined && (v !== '' || dflt === undefined)) return v;
          if (dflt !== undefined) return dflt;
          problems.push(`environment variable "${name}" is not set and has no default`);
          return whole;
        })
      : s.replace(VSCODE_VAR, (whole, name: string) => {
          const v = vscodeVariable(name, ctx);
          if (typeof v === 'string') return v;
          problems.push(v.problem);
          return whole;
        });
  return { value, problems };
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

/** String-valued fields of a native-shaped entry that expansion applies to. */
const SCALAR_FIELDS = ['command', 'cwd', 'url'] as const;
const MAP_FIELDS = ['env', 'headers'] as const;

/**
 * Expands every string field of a native-shaped entry in place (command, args, cwd, env
 * values, url, header values). Fields of the wrong type are left for validation to report.
 */
export function expandEntry(entry: Record<string, unknown>, syntax: VariableSyntax, ctx: ExpandContext): EntryIssue[] {
  const issues: EntryIssue[] = [];
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
