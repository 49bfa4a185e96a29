/**
 * Where config files live. Everything takes explicit `env`, `homedir`, `platform` and `cwd`
 * (defaulting to the process's) so tests never touch the real home directory.
 */
import os from 'node:os';
import path from 'node:path';
import type { ImportFile } from './imports.js';
import type { Scope } from './types.js';

/** The environment a path lookup runs in. */
export interface PathOptions {
  cwd?: string;
  env?: Record<string, string | undefined>;
  homedir?: string;
  platform?: NodeJS.Platform;
}

interface Resolved {
  cwd: string;
  env: Record<string, string | undefined>;
  home: string;
  platform: NodeJS.Platform;
  p: path.PlatformPath;
}

function resolve(o: PathOptions): Resolved {
  const platform = o.platform ?? process.platform;
  return {
    cwd: o.cwd ?? process.cwd(),
    env: o.env ?? process.env,
    home: o.homedir ?? os.homedir(),
    platform,
    p: platform === 'win32' ? path.win32 : path.posix,
  };
}

/** The platform's per-user config directory (not yet joined with `mcpwire`). */
export function userConfigDir(o: PathOptions = {}): string {
  const r = resolve(o);
  if (r.platform === 'win32') return r.env.APPDATA || r.p.join(r.home, 'AppData', 'Roaming');
  if (r.platform === 'darwin') return r.p.join(r.home, 'Library', 'Application Support');
  const xdg = r.env.XDG_CONFIG_HOME;
  return xdg && r.p.isAbsolute(xdg) ? xdg : r.p.join(r.home, '.config');
}

/**
 * The global config file: `MCPWIRE_CONFIG_PATH` when set, else `mcpwire/config.json` in the
 * platform config dir (`$XDG_CONFIG_HOME` or `~/.config` on Linux, `~/Library/Application
 * Support` on macOS, `%APPDATA%` on Windows).
 */
export function globalConfigPath(o: PathOptions = {}): string {
  const r = resolve(o);
  const explicit = r.env.MCPWIRE_CONFIG_PATH;
  if (explicit) return r.p.resolve(r.cwd, explicit);
  return r.p.join(userConfigDir(o), 'mcpwire', 'config.json');
}

/** The project config file: `<cwd>/.mcpwire/config.json`. */
export function projectConfigPath(o: PathOptions = {}): string {
  const r = resolve(o);
  return r.p.join(r.cwd, '.mcpwire', 'config.json');
}

/** The native config file of a scope. */
export function configPathForScope(scope: Scope, o: PathOptions = {}): string {
  return scope === 'project' ? projectConfigPath(o) : globalConfigPath(o);
}

/**
 * The import files read by default, highest precedence first. The project's own files (their
 * servers need trust): `.mcp.json` (Claude Code), `.cursor/mcp.json`, `.vscode/mcp.json`,
 * `opencode.json`/`opencode.jsonc`, `.codex/config.toml`. Then the user's: `~/.claude.json`
 * (Claude Code; its entries for this project, then its user-wide ones), `~/.cursor/mcp.json`,
 * Claude Desktop's `claude_desktop_config.json`, Codex's `config.toml` (`$CODEX_HOME` or
 * `~/.codex`), Windsurf's `~/.codeium/windsurf/mcp_config.json`, and OpenCode's
 * `opencode.json[c]` in `$XDG_CONFIG_HOME/opencode` (default `~/.config/opencode`, every platform).
 */
export function defaultImportFiles(o: PathOptions = {}): ImportFile[] {
  const r = resolve(o);
  const claudeDir = r.p.join(userConfigDir(o), 'Claude');
  const codexHome = r.env.CODEX_HOME && r.p.isAbsolute(r.env.CODEX_HOME) ? r.env.CODEX_HOME : r.p.join(r.home, '.codex');
  const xdg = r.env.XDG_CONFIG_HOME && r.p.isAbsolute(r.env.XDG_CONFIG_HOME) ? r.env.XDG_CONFIG_HOME : r.p.join(r.home, '.config');
  return [
    { path: r.p.join(r.cwd, '.mcp.json'), format: 'mcpServers', project: true },
    { path: r.p.join(r.cwd, '.cursor', 'mcp.json'), format: 'mcpServers', project: true },
    { path: r.p.join(r.cwd, '.vscode', 'mcp.json'), format: 'vscode', project: true },
    { path: r.p.join(r.cwd, 'opencode.json'), format: 'opencode', project: true },
    { path: r.p.join(r.cwd, 'opencode.jsonc'), format: 'opencode', project: true },
    { path: r.p.join(r.cwd, '.codex', 'config.toml'), format: 'codex', project: true },
    { path: r.p.join(r.home, '.claude.json'), format: 'claude-json', project: false },
    { path: r.p.join(r.home, '.cursor', 'mcp.json'), format: 'mcpServers', project: false },
    { path: r.p.join(claudeDir, 'claude_desktop_config.json'), format: 'mcpServers', project: false },
    { path: r.p.join(codexHome, 'config.toml'), format: 'codex', project: false },
    { path: r.p.join(r.home, '.codeium', 'windsurf', 'mcp_config.json'), format: 'windsurf', project: false },
    { path: r.p.join(xdg, 'opencode', 'opencode.json'), format: 'opencode', project: false },
    { path: r.p.join(xdg, 'opencode', 'opencode.jsonc'), format: 'opencode', project: false },
  ];
}
