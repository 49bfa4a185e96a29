/**
 * Where mcpwire keeps its files and where it finds other hosts' configs, per platform — pure
 * functions of (platform, env, home, cwd), checked here for Windows, macOS and Linux against
 * the table in docs/platforms.md.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { defaultImportFiles, globalConfigPath, projectConfigPath, type PathOptions } from '../../src/host/config/index.js';
import { trustStorePath } from '../../src/host/config/trust.js';
import { authStorePath } from '../../src/host/oauth.js';

const windows: PathOptions = {
  platform: 'win32',
  homedir: 'C:\\Users\\u',
  cwd: 'C:\\work\\app',
  env: { APPDATA: 'C:\\Users\\u\\AppData\\Roaming', LocalAppData: 'C:\\Users\\u\\AppData\\Local' },
};
const macos: PathOptions = { platform: 'darwin', homedir: '/Users/u', cwd: '/Users/u/app', env: {} };
const linux: PathOptions = { platform: 'linux', homedir: '/home/u', cwd: '/home/u/app', env: { XDG_CONFIG_HOME: '/home/u/.xdg' } };

/** The user-level import files of the three hosts the table names. */
const userImports = (o: PathOptions) =>
  defaultImportFiles(o)
    .filter((f) => !f.project && /claude_desktop|[\\/]\.cursor[\\/]|Code[\\/]User/.test(f.path))
    .map((f) => [f.path, f.format]);

describe('per-platform locations (docs/platforms.md)', () => {
  it('Windows: %APPDATA%\\mcpwire for config, trust and token store; the project file under the project', () => {
    expect(globalConfigPath(windows)).toBe('C:\\Users\\u\\AppData\\Roaming\\mcpwire\\config.json');
    expect(trustStorePath(windows)).toBe('C:\\Users\\u\\AppData\\Roaming\\mcpwire\\trusted-projects.json');
    expect(authStorePath(windows)).toBe('C:\\Users\\u\\AppData\\Roaming\\mcpwire\\mcp-auth.json');
    expect(projectConfigPath(windows)).toBe('C:\\work\\app\\.mcpwire\\config.json');
    // Without APPDATA: the profile's AppData\Roaming.
    expect(globalConfigPath({ ...windows, env: {} })).toBe('C:\\Users\\u\\AppData\\Roaming\\mcpwire\\config.json');
  });

  it('macOS: ~/Library/Application Support/mcpwire; Linux: $XDG_CONFIG_HOME/mcpwire (else ~/.config)', () => {
    expect([globalConfigPath(macos), trustStorePath(macos), authStorePath(macos)]).toEqual([
      '/Users/u/Library/Application Support/mcpwire/config.json',
      '/Users/u/Library/Application Support/mcpwire/trusted-projects.json',
      '/Users/u/Library/Application Support/mcpwire/mcp-auth.json',
    ]);
    expect([globalConfigPath(linux), trustStorePath(linux), authStorePath(linux)]).toEqual([
      '/home/u/.xdg/mcpwire/config.json',
      '/home/u/.xdg/mcpwire/trusted-projects.json',
      '/home/u/.xdg/mcpwire/mcp-auth.json',
    ]);
  });

  it('Windows: Claude Desktop (its MSIX location first, then %APPDATA%\\Claude), Cursor and VS Code user configs are imported', () => {
    expect(userImports(windows)).toEqual([
      ['C:\\Users\\u\\.cursor\\mcp.json', 'mcpServers'],
      ['C:\\Users\\u\\AppData\\Local\\Packages\\Claude_pzs8sxrjxfjjc\\LocalCache\\Roaming\\Claude\\claude_desktop_config.json', 'mcpServers'],
      ['C:\\Users\\u\\AppData\\Roaming\\Claude\\claude_desktop_config.json', 'mcpServers'],
      ['C:\\Users\\u\\AppData\\Roaming\\Code\\User\\mcp.json', 'vscode'],
    ]);
  });

  it('macOS and Linux: Claude Desktop and VS Code in the platform config dir, Cursor in the home', () => {
    expect(userImports(macos)).toEqual([
      ['/Users/u/.cursor/mcp.json', 'mcpServers'],
      ['/Users/u/Library/Application Support/Claude/claude_desktop_config.json', 'mcpServers'],
      ['/Users/u/Library/Application Support/Code/User/mcp.json', 'vscode'],
    ]);
    expect(userImports(linux)).toEqual([
      ['/home/u/.cursor/mcp.json', 'mcpServers'],
      ['/home/u/.xdg/Claude/claude_desktop_config.json', 'mcpServers'],
      ['/home/u/.xdg/Code/User/mcp.json', 'vscode'],
    ]);
  });
});

describe('the platform default is the process platform', () => {
  const real = Object.getOwnPropertyDescriptor(process, 'platform')!;
  afterEach(() => Object.defineProperty(process, 'platform', real));

  it('on Windows without an explicit platform, the trust store is beside the global config (not a relative file)', () => {
    Object.defineProperty(process, 'platform', { ...real, value: 'win32' });
    const o = { homedir: 'C:\\Users\\u', cwd: 'C:\\work\\app', env: { APPDATA: 'C:\\Users\\u\\AppData\\Roaming' } };
    expect(trustStorePath(o)).toBe('C:\\Users\\u\\AppData\\Roaming\\mcpwire\\trusted-projects.json');
  });
});
