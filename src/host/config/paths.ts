/**
 * Where config files live. Everything takes explicit `env`, `homedir`, `platform` and `cwd`
 * (defaulting to the process's) so tests never touch the real home directory, and each
 * platform's locations are tested on any machine (docs/platforms.md has the table). Variable
 * names are case-insensitive on Windows, also in an `env` object given here.
 */
import os from 'node:os';
import path from 'node:path';
import { envValue } from '../../transport/spawn/env-lookup.js';
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
  /** A variable of the environment (case-insensitive on Windows). */
  env: (name: string) => string | undefined;
  home: string;
  platform: NodeJS.Platform;
  p: path.PlatformPath;
}

function resolve(o: PathOptions): Resolved {
  const platform = o.platform ?? process.platform;
  const env = o.env ?? process.env;
  return {
    cwd: o.cwd ?? process.cwd(),
    env: (name) => envValue(env, name, platform),
    home: o.homedir ?? os.homedir(),
    platform,
    p: platform === 'win32' ? path.win32 : path.posix,
  };
}

/** `%APPDATA%` (else `<home>\AppData\Roaming`), `~/Library/Application Support`, or `$XDG_CONFIG_HOME`/`~/.config`. */
export function userConfigDir(o: PathOptions = {}): string {
  const r = resolve(o);
  if (r.platform === 'win32') return absoluteOr(r, r.env('APPDATA'), r.p.join(r.home, 'AppData', 'Roaming'));
  if (r.platform === 'darwin') return r.p.join(r.home, 'Library', 'Application Support');
  return absoluteOr(r, r.env('XDG_CONFIG_HOME'), r.p.join(r.home, '.config'));
}

/** `%LOCALAPPDATA%` (else `<home>\AppData\Local`): where MSIX-packaged apps keep their files. */
function localAppData(r: Resolved): string {
  return absoluteOr(r, r.env('LOCALAPPDATA'), r.p.join(r.home, 'AppData', 'Local'));
}

function absoluteOr(r: Resolved, value: string | undefined, fallback: string): string {
  return value && r.p.isAbsolute(value) ? value : fallback;
}

/**
 * Claude Desktop's config files, the one the app reads first. Windows: the MSIX package's
 * virtualized copy of `%APPDATA%` (`%LOCALAPPDATA%\Packages\Claude_pzs8sxrjxfjjc\LocalCache\Roaming`,
 * the installer's package since 2026), then the classic `%APPDATA%\Claude`.
 */
function claudeDesktopFiles(r: Resolved, o: PathOptions): string[] {
  const classic = r.p.join(userConfigDir(o), 'Claude', 'claude_desktop_config.json');
  if (r.platform !== 'win32') return [classic];
  const msix = r.p.join(localAppData(r), 'Packages', 'Claude_pzs8sxrjxfjjc', 'LocalCache', 'Roaming', 'Claude', 'claude_desktop_config.json');
  return [msix, classic];
}

/**
 * The global config file: `MCPWIRE_CONFIG_PATH` when set, else `mcpwire/config.json` in the
 * platform config dir (`$XDG_CONFIG_HOME` or `~/.config` on Linux, `~/Library/Application
 * Support` on macOS, `%APPDATA%` on Windows).
 */
export function globalConfigPath(o: PathOptions = {}): string {
  const r = resolve(o);
  const explicit = r.env('MCPWIRE_CONFIG_PATH');
  if (explicit) return r.p.resolve(r.cwd, explicit);
  return r.p.join(userConfigDir(o), 'mcpwire', 'config.json');
}

/** The path module of the platform the options name (default: this process's). */
export function platformPath(o: PathOptions = {}): path.PlatformPath {
  return (o.platform ?? process.platform) === 'win32' ? path.win32 : path.posix;
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
 * Claude Desktop's `claude_desktop_config.json` (on Windows its MSIX location first), VS Code's
 * user `Code/User/mcp.json` in the platform config dir, Codex's `config.toml` (`$CODEX_HOME` or
 * `~/.codex`), Windsurf's `~/.codeium/windsurf/mcp_config.json`, and OpenCode's
 * `opencode.json[c]` in `$XDG_CONFIG_HOME/opencode` (default `~/.config/opencode`, every platform).
 */
export function defaultImportFiles(o: PathOptions = {}): ImportFile[] {
  const r = resolve(o);
  const codexHome = absoluteOr(r, r.env('CODEX_HOME'), r.p.join(r.home, '.codex'));
  const xdg = absoluteOr(r, r.env('XDG_CONFIG_HOME'), r.p.join(r.home, '.config'));
  return [
    { path: r.p.join(r.cwd, '.mcp.json'), format: 'mcpServers', project: true },
    { path: r.p.join(r.cwd, '.cursor', 'mcp.json'), format: 'mcpServers', project: true },
    { path: r.p.join(r.cwd, '.vscode', 'mcp.json'), format: 'vscode', project: true },
    { path: r.p.join(r.cwd, 'opencode.json'), format: 'opencode', project: true },
    { path: r.p.join(r.cwd, 'opencode.jsonc'), format: 'opencode', project: true },
    { path: r.p.join(r.cwd, '.codex', 'config.toml'), format: 'codex', project: true },
    { path: r.p.join(r.home, '.claude.json'), format: 'claude-json', project: false },
    { path: r.p.join(r.home, '.cursor', 'mcp.json'), format: 'mcpServers', project: false },
    ...claudeDesktopFiles(r, o).map((file): ImportFile => ({ path: file, format: 'mcpServers', project: false })),
    { path: r.p.join(userConfigDir(o), 'Code', 'User', 'mcp.json'), format: 'vscode', project: false },
    { path: r.p.join(codexHome, 'config.toml'), format: 'codex', project: false },
    { path: r.p.join(r.home, '.codeium', 'windsurf', 'mcp_config.json'), format: 'windsurf', project: false },
    { path: r.p.join(xdg, 'opencode', 'opencode.json'), format: 'opencode', project: false },
    { path: r.p.join(xdg, 'opencode', 'opencode.jsonc'), format: 'opencode', project: false },
  ];
}
