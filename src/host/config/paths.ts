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
 * The import files read by default, highest precedence first: the project's `.mcp.json`
 * (Claude Code), `.cursor/mcp.json`, `.vscode/mcp.json`, then the user's `~/.cursor/mcp.json`
 * and Claude Desktop's `claude_desktop_config.json`. The first three are the project's (their
 * servers need trust); the last two are the user's own.
 */
export function defaultImportFiles(o: PathOptions = {}): ImportFile[] {
  const r = resolve(o);
  const claudeDir = r.p.join(userConfigDir(o), 'Claude');
  return [
    { path: r.p.join(r.cwd, '.mcp.json'), format: 'mcpServers', project: true },
    { path: r.p.join(r.cwd, '.cursor', 'mcp.json'), format: 'mcpServers', project: true },
    { path: r.p.join(r.cwd, '.vscode', 'mcp.json'), format: 'vscode', project: true },
    { path: r.p.join(r.home, '.cursor', 'mcp.json'), format: 'mcpServers', project: false },
    { path: r.p.join(claudeDir, 'claude_desktop_config.json'), format: 'mcpServers', project: false },
  ];
}
