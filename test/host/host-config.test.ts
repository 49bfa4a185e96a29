/**
 * Host configuration: native layers and their merge, server id rules,
 * invalid-entry isolation, duplicate ids in the raw text, import formats (Claude/Cursor
 * `mcpServers`, VS Code `servers`) with variable expansion, editing files, and the
 * mapping to connect() configs. Every test works in a fresh temp dir, never the real home.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isConfigError } from '../../src/errors.js';
import {
  addServer,
  configPathForScope,
  defaultImportFiles,
  findDuplicateKeys,
  globalConfigPath,
  loadConfig,
  parseNativeLayer,
  projectConfigPath,
  removeServer,
  setServerEnabled,
  toConnectConfig,
  type LoadConfigOptions,
  type ResolvedServer,
} from '../../src/host/config/index.js';
import { configDirs, native, writeConfig as write } from '../support/config-dirs.js';

let dir: string;
let home: string;
let cwd: string;
let opts: LoadConfigOptions;

beforeEach(() => {
  ({ dir, home, cwd } = configDirs('mcpwire-config-'));
  // Import files are opt-in and project servers need trust (test/host/config/trust.test.ts); these
  // tests are about parsing and merging, so they read the imports and trust every project.
  opts = { cwd, homedir: home, env: {}, platform: 'linux', imports: true, trust: 'all' };
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const globalFile = () => path.join(home, '.config', 'mcpwire', 'config.json');
const projectFile = () => path.join(cwd, '.mcpwire', 'config.json');
const byId = (servers: ResolvedServer[], id: string) => servers.find((s) => s.id === id);
const http = (url = 'https://example.com/mcp') => ({ transport: 'http', url });
const stdio = (command = 'node') => ({ transport: 'stdio', command });

describe('paths', () => {
  it('global: MCPWIRE_CONFIG_PATH, else the platform config dir', () => {
    expect(globalConfigPath({ ...opts, env: { MCPWIRE_CONFIG_PATH: '/x/c.json' } })).toBe('/x/c.json');
    expect(globalConfigPath(opts)).toBe(path.join(home, '.config/mcpwire/config.json'));
    expect(globalConfigPath({ ...opts, env: { XDG_CONFIG_HOME: '/xdg' } })).toBe('/xdg/mcpwire/config.json');
    expect(globalConfigPath({ ...opts, env: { XDG_CONFIG_HOME: 'relative' } })).toBe(path.join(home, '.config/mcpwire/config.json'));
    expect(globalConfigPath({ ...opts, platform: 'darwin' })).toBe(path.join(home, 'Library/Application Support/mcpwire/config.json'));
    expect(globalConfigPath({ cwd: 'C:\\p', homedir: 'C:\\Users\\u', env: { APPDATA: 'C:\\Users\\u\\AppData\\Roaming' }, platform: 'win32' })).toBe(
      'C:\\Users\\u\\AppData\\Roaming\\mcpwire\\config.json',
    );
  });

  it('project and scope paths; default import list, highest precedence first', () => {
    expect(projectConfigPath(opts)).toBe(projectFile());
    expect(configPathForScope('project', opts)).toBe(projectFile());
    expect(configPathForScope('global', opts)).toBe(globalFile());
    // The formats added later (Claude Code ~/.claude.json, Codex, Windsurf, OpenCode) are
    // listed in test/host/config/config-formats.test.ts; these keep their relative order.
    expect(defaultImportFiles(opts).map((f) => [path.relative(dir, f.path), f.format]).filter(([, f]) => f === 'mcpServers' || f === 'vscode')).toEqual([
      ['project/.mcp.json', 'mcpServers'],
      ['project/.cursor/mcp.json', 'mcpServers'],
      ['project/.vscode/mcp.json', 'vscode'],
      ['home/.cursor/mcp.json', 'mcpServers'],
      ['home/.config/Claude/claude_desktop_config.json', 'mcpServers'],
      ['home/.config/Code/User/mcp.json', 'vscode'],
    ]);
  });
});

describe('native layers and merge', () => {
  it('no files at all: no servers, no diagnostics', async () => {
    expect(await loadConfig(opts)).toEqual({ servers: [], diagnostics: [] });
  });

  it('merges per server id; project wins; each server records its source and file', async () => {
    write(globalFile(), native({ a: http('https://g.example/a'), b: stdio('gcmd') }));
    write(projectFile(), native({ b: stdio('pcmd'), c: http('https://p.example/c') }));
    const { servers, diagnostics } = await loadConfig(opts);
    expect(diagnostics).toEqual([]);
    expect(servers.map((s) => [s.id, s.source, s.config.command ?? s.config.url])).toEqual([
      ['a', 'global', 'https://g.example/a'],
      ['b', 'project', 'pcmd'],
      ['c', 'project', 'https://p.example/c'],
    ]);
    expect(byId(servers, 'b')!.file).toBe(projectFile());
  });

  it('normalizes fields and fills defaults', async () => {
    write(projectFile(), native({
      s: { transport: 'stdio', command: 'npx', args: ['-y', 'x'], cwd: '/w', env: { NODE_ENV: 'production' }, request_timeout_ms: 5000, permissions: { deny: ['rm'] } },
      h: { transport: 'http', url: 'https://h.example/mcp', headers: { 'X-Workspace': 'w' }, oauth: { token_url: 'https://h.example/token', client_id: 'cid', scope: 'mcp' } },
    }));
    const { servers } = await loadConfig(opts);
    expect(byId(servers, 's')).toMatchObject({
      enabled: true,
      transport: 'stdio',
      config: { command: 'npx', args: ['-y', 'x'], cwd: '/w', env: { NODE_ENV: 'production' }, requestTimeoutMs: 5000, legacySse: false, permissions: { allow: [], deny: ['rm'] } },
    });
    expect(byId(servers, 'h')!.config).toMatchObject({ url: 'https://h.example/mcp', headers: { 'X-Workspace': 'w' }, requestTimeoutMs: 30000, oauth: { tokenUrl: 'https://h.example/token', clientId: 'cid', scope: 'mcp' } });
  });

  it('enabled:false disables; a project stub {enabled:false} disables a global server and shows its config', async () => {
    write(globalFile(), native({ a: http(), b: stdio() }));
    write(projectFile(), native({ a: { enabled: false }, c: { ...stdio(), enabled: false } }));
    const { servers, diagnostics } = await loadConfig(opts);
    expect(diagnostics).toEqual([]);
    expect(byId(servers, 'a')).toMatchObject({ enabled: false, source: 'project', file: projectFile(), transport: 'http', config: { url: 'https://example.com/mcp' } });
    expect(byId(servers, 'b')!.enabled).toBe(true);
    expect(byId(servers, 'c')).toMatchObject({ enabled: false, transport: 'stdio', source: 'project' });
  });

  it('a stub with nothing below it is a warning', async () => {
    write(projectFile(), native({ ghost: { enabled: false } }));
    const { servers, diagnostics } = await loadConfig(opts);
    expect(byId(servers, 'ghost')).toMatchObject({ enabled: false, transport: 'unknown' });
    expect(diagnostics).toEqual([expect.objectContaining({ severity: 'warning', serverId: 'ghost' })]);
  });

  it('an invalid entry disables only that server, with a diagnostic naming layer, file, id and field', async () => {
    write(projectFile(), native({ good: stdio(), noUrl: { transport: 'http' }, noCmd: { transport: 'stdio', args: [] }, badT: { transport: 'ws', url: 'https://x' } }));
    const { servers, diagnostics } = await loadConfig(opts);
    expect(byId(servers, 'good')).toMatchObject({ enabled: true });
    expect(byId(servers, 'good')!.error).toBeUndefined();
    const noUrl = byId(servers, 'noUrl')!;
    expect(noUrl).toMatchObject({ enabled: false, transport: 'http' });
    expect(noUrl.error).toContain('field "url"');
    const d = diagnostics.find((x) => x.serverId === 'noUrl')!;
    expect(d).toMatchObject({ severity: 'error', source: 'project', file: projectFile(), field: 'url' });
    expect(d.message).toContain('project config');
    expect(d.message).toContain(projectFile());
    expect(d.message).toContain('server "noUrl"');
    expect(d.message).toContain('field "url"');
    expect(diagnostics.find((x) => x.serverId === 'noCmd')!.field).toBe('command');
    expect(diagnostics.find((x) => x.serverId === 'badT')!.field).toBe('transport');
    expect(byId(servers, 'badT')!.transport).toBe('unknown');
  });

  it('an invalid project entry shadows the global one (no silent fallback to another command)', async () => {
    write(globalFile(), native({ a: stdio('safe') }));
    write(projectFile(), native({ a: { transport: 'stdio', command: 42 } }));
    const { servers } = await loadConfig(opts);
    expect(byId(servers, 'a')).toMatchObject({ source: 'project', enabled: false });
    expect(byId(servers, 'a')!.error).toContain('field "command"');
  });

  it('reports every problem of an entry at once, and checks URLs, headers, timeouts, oauth URLs', async () => {
    write(projectFile(), native({ x: { transport: 'http', url: 'ftp://x', headers: { 'bad name': 'v', ok: 'a\nb' }, request_timeout_ms: -1, oauth: { token_url: 'nope' } } }));
    const { diagnostics } = await loadConfig(opts);
    expect(diagnostics.map((d) => d.field).sort()).toEqual(['headers.bad name', 'headers.ok', 'oauth.token_url', 'request_timeout_ms', 'url']);
  });

  it('validates server ids: 1-64 of [a-zA-Z0-9_-]', async () => {
    const long = 'a'.repeat(65);
    write(projectFile(), native({ 'ok_id-1': stdio(), 'has space': stdio(), 'dot.ted': stdio(), [long]: stdio(), ['b'.repeat(64)]: stdio() }));
    const { servers, diagnostics } = await loadConfig(opts);
    expect(servers.filter((s) => s.enabled).map((s) => s.id).sort()).toEqual(['b'.repeat(64), 'ok_id-1']);
    expect(diagnostics.filter((d) => d.message.includes('invalid server id')).map((d) => d.serverId).sort()).toEqual([long, 'dot.ted', 'has space'].sort());
  });

  it('duplicate ids in one file are an error (found in the raw text; JSON.parse keeps the last)', async () => {
    write(projectFile(), `{"version":1,"mcp":{"servers":{
      "dup": {"transport":"stdio","command":"first"},
      "other": {"transport":"stdio","command":"x"},
      "d\\u0075p": {"transport":"stdio","command":"second"}
    }}}`);
    const { servers, diagnostics } = await loadConfig(opts);
    expect(byId(servers, 'dup')).toMatchObject({ enabled: false });
    expect(byId(servers, 'dup')!.error).toContain('defined 2 times');
    expect(byId(servers, 'other')!.enabled).toBe(true);
    expect(diagnostics).toEqual([expect.objectContaining({ severity: 'error', serverId: 'dup' })]);
  });

  it('a duplicate key inside an entry disables it; one elsewhere is a warning', async () => {
    write(projectFile(), `{"version":1,"theme":"a","theme":"b","mcp":{"servers":{"s":{"transport":"stdio","command":"a","command":"b"}}}}`);
    const { servers, diagnostics } = await loadConfig(opts);
    expect(byId(servers, 's')!.enabled).toBe(false);
    expect(diagnostics.find((d) => d.serverId === 's')).toMatchObject({ field: 'command' });
    expect(diagnostics.find((d) => d.field === 'theme')).toMatchObject({ severity: 'warning' });
  });

  it('a file that is not JSON is a diagnostic for that layer only, and never echoes the text', async () => {
    write(globalFile(), native({ a: stdio() }));
    write(projectFile(), '{"mcp": {"servers": {"x": {"headers": {"Authorization": "Bearer SECRET123" oops');
    const { servers, diagnostics } = await loadConfig(opts);
    expect(servers.map((s) => s.id)).toEqual(['a']);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ severity: 'error', source: 'project', file: projectFile() });
    expect(diagnostics[0].message).toContain('not valid JSON');
    expect(JSON.stringify(diagnostics)).not.toContain('SECRET123');
  });

  it('rejects wrong top-level shapes and unsupported versions, per layer', async () => {
    write(projectFile(), native({ a: stdio() }));
    write(globalFile(), { version: 2, mcp: { servers: { b: stdio() } } });
    const r = await loadConfig(opts);
    expect(r.servers.map((s) => s.id)).toEqual(['a']);
    expect(r.diagnostics[0]).toMatchObject({ source: 'global' });
    expect(parseNativeLayer('[]', 'project', 'f').diagnostics[0].message).toContain('top level');
    expect(parseNativeLayer('{"mcp":{"servers":"x"}}', 'project', 'f').diagnostics[0].message).toContain('"mcp.servers"');
    // an empty list of servers is the list form with nothing in it
    expect(parseNativeLayer('{"mcp":{"servers":[]}}', 'project', 'f')).toEqual({ entries: [], diagnostics: [] });
    // a file of other keys is not silently empty
    const other = parseNativeLayer('{"other":1}', 'project', 'f');
    expect(other.entries).toEqual([]);
    expect(other.diagnostics).toEqual([expect.objectContaining({ severity: 'warning', file: 'f', message: expect.stringContaining('no servers read: expected {"version": 1, "mcp": {"servers"') })]);
    expect(other.diagnostics[0].message).toContain('saw only the top-level key(s) "other"');
  });

  it('unknown fields are warnings, the entry still works', async () => {
    write(projectFile(), native({ a: { ...stdio(), reqest_timeout_ms: 5 } }));
    const { servers, diagnostics } = await loadConfig(opts);
    expect(byId(servers, 'a')!.enabled).toBe(true);
    expect(diagnostics).toEqual([expect.objectContaining({ severity: 'warning', serverId: 'a', field: 'reqest_timeout_ms' })]);
  });

  it('MCPWIRE_CONFIG_PATH selects the global file', async () => {
    const custom = write(path.join(dir, 'elsewhere', 'c.json'), native({ z: stdio() }));
    const { servers } = await loadConfig({ ...opts, env: { MCPWIRE_CONFIG_PATH: custom } });
    expect(servers).toEqual([expect.objectContaining({ id: 'z', source: 'global', file: custom })]);
  });

  // The first design said the native format never expands; that was superseded
  // (docs/design.md notes). Expansion cases in detail: test/host/config/config-expand.test.ts.
  it('the native format expands ${VAR}; $${ stays a literal ${', async () => {
    write(projectFile(), native({ a: { transport: 'http', url: 'https://x.example/mcp', headers: { Authorization: 'Bearer ${TOKEN}' } }, b: { ...stdio('${CMD}'), args: ['$${CMD}'] } }));
    const { servers, diagnostics } = await loadConfig({ ...opts, env: { TOKEN: 'expanded', CMD: 'expanded' } });
    expect(diagnostics).toEqual([]);
    expect(byId(servers, 'a')!.config.headers.Authorization).toBe('Bearer expanded');
    expect(byId(servers, 'b')!.config.command).toBe('expanded');
    expect(byId(servers, 'b')!.config.args).toEqual(['${CMD}']);
  });

  it('never puts secret values in diagnostics or errors', async () => {
    write(projectFile(), native({
      a: { transport: 'http', url: 'https://x', headers: { 'Bad Header': 'TOPSECRET1' }, oauth: { client_secret: 42 } },
      b: { transport: 'stdio', command: 'x', env: { 'A=B': 'TOPSECRET2', C: 7 } },
    }));
    const { servers, diagnostics } = await loadConfig(opts);
    expect(diagnostics.length).toBeGreaterThan(2);
    const text = JSON.stringify({ servers: servers.map((s) => s.error), diagnostics });
    expect(text).not.toContain('TOPSECRET');
  });
});

describe('import formats', () => {
  it('Claude Code .mcp.json: stdio/http/sse types, ${VAR} and ${VAR:-default}', async () => {
    write(path.join(cwd, '.mcp.json'), {
      mcpServers: {
        gh: { command: 'npx', args: ['-y', 'server-github', '${DIR:-/tmp}'], env: { GITHUB_TOKEN: '${GITHUB_TOKEN}' } },
        api: { type: 'http', url: '${API_BASE}/mcp', headers: { Authorization: 'Bearer ${API_TOKEN}' } },
        old: { type: 'sse', url: 'https://old.example/sse' },
      },
    });
    const file = path.join(cwd, '.mcp.json');
    const { servers, diagnostics } = await loadConfig({ ...opts, env: { GITHUB_TOKEN: 'tok', API_BASE: 'https://api.example', API_TOKEN: 't2' } });
    expect(diagnostics).toEqual([]);
    expect(byId(servers, 'gh')).toMatchObject({ source: `import:${file}`, file, transport: 'stdio', enabled: true, config: { args: ['-y', 'server-github', '/tmp'], env: { GITHUB_TOKEN: 'tok' } } });
    expect(byId(servers, 'api')).toMatchObject({ transport: 'http', config: { url: 'https://api.example/mcp', headers: { Authorization: 'Bearer t2' }, legacySse: false } });
    expect(byId(servers, 'old')).toMatchObject({ transport: 'http', config: { legacySse: true } });
  });

  it('an undefined ${VAR} without default disables the entry with a diagnostic naming the variable', async () => {
    write(path.join(cwd, '.mcp.json'), { mcpServers: { gh: { command: 'npx', env: { GITHUB_TOKEN: '${GITHUB_TOKEN}' } }, ok: { command: 'x' } } });
    const { servers, diagnostics } = await loadConfig(opts);
    expect(byId(servers, 'gh')).toMatchObject({ enabled: false });
    expect(byId(servers, 'ok')!.enabled).toBe(true);
    expect(diagnostics).toEqual([expect.objectContaining({ severity: 'error', serverId: 'gh', field: 'env.GITHUB_TOKEN' })]);
    expect(diagnostics[0].message).toContain('"GITHUB_TOKEN" is not set');
    expect(diagnostics[0].message).toContain('imported config');
  });

  it('${VAR:-default} uses the default when VAR is empty; an empty VAR without default expands to empty', async () => {
    write(path.join(cwd, '.mcp.json'), { mcpServers: { a: { command: 'x', args: ['${E:-d}', '${E}'] } } });
    const { servers } = await loadConfig({ ...opts, env: { E: '' } });
    expect(byId(servers, 'a')!.config.args).toEqual(['d', '']);
  });

  it('Claude Desktop disabled:true disables; type is inferred; unknown keys of other tools ignored', async () => {
    const cd = write(path.join(home, '.config', 'Claude', 'claude_desktop_config.json'), {
      globalShortcut: 'x',
      mcpServers: { off: { command: 'x', disabled: true, autoApprove: ['a'] }, both: { command: 'x', url: 'https://x' }, weird: { type: 'ws', url: 'https://x' } },
    });
    const { servers, diagnostics } = await loadConfig(opts);
    expect(byId(servers, 'off')).toMatchObject({ enabled: false, transport: 'stdio', source: `import:${cd}` });
    expect(byId(servers, 'off')!.error).toBeUndefined();
    expect(byId(servers, 'both')!.error).toContain('field "type"');
    expect(byId(servers, 'weird')!.error).toContain('field "type"');
    expect(diagnostics.map((d) => d.serverId).sort()).toEqual(['both', 'weird']);
  });

  it('VS Code .vscode/mcp.json: servers, ${env:X}, ${workspaceFolder}; ${input:...} disables with a diagnostic', async () => {
    write(path.join(cwd, '.vscode', 'mcp.json'), {
      inputs: [{ type: 'promptString', id: 'key', password: true }],
      servers: {
        fs: { type: 'stdio', command: 'npx', args: ['server-fs', '${workspaceFolder}'], env: { HOME_DIR: '${userHome}', T: '${env:TOKEN}', U: '${env:UNSET}' } },
        remote: { type: 'http', url: 'https://r.example/mcp', headers: { 'X-Key': '${input:key}' } },
        legacy: { type: 'sse', url: 'https://l.example/sse' },
        odd: { type: 'stdio', command: '${command:pick}' },
      },
    });
    const { servers, diagnostics } = await loadConfig({ ...opts, env: { TOKEN: 'tv' } });
    expect(byId(servers, 'fs')).toMatchObject({ enabled: true, config: { args: ['server-fs', cwd], env: { HOME_DIR: home, T: 'tv', U: '' } } });
    expect(byId(servers, 'remote')).toMatchObject({ enabled: false, transport: 'http' });
    expect(diagnostics.find((d) => d.serverId === 'remote')).toMatchObject({ field: 'headers.X-Key' });
    expect(diagnostics.find((d) => d.serverId === 'remote')!.message).toContain('${input:key}');
    expect(byId(servers, 'legacy')!.config.legacySse).toBe(true);
    expect(byId(servers, 'odd')!.error).toContain('unsupported variable');
  });

  it('precedence: native project > native global > imports in list order', async () => {
    write(globalFile(), native({ g: stdio('native-global') }));
    write(projectFile(), native({ p: stdio('native-project') }));
    write(path.join(cwd, '.mcp.json'), { mcpServers: { p: { command: 'claude-code' }, g: { command: 'claude-code' }, i: { command: 'claude-code' } } });
    write(path.join(cwd, '.cursor', 'mcp.json'), { mcpServers: { i: { command: 'cursor' }, j: { command: 'cursor' } } });
    const { servers } = await loadConfig(opts);
    expect(servers.map((s) => [s.id, s.config.command])).toEqual([
      ['g', 'native-global'],
      ['i', 'claude-code'],
      ['j', 'cursor'],
      ['p', 'native-project'],
    ]);
    expect(byId(servers, 'j')!.source).toBe(`import:${path.join(cwd, '.cursor', 'mcp.json')}`);
  });

  it('a native stub can disable an imported server; imports: false reads no imports', async () => {
    write(projectFile(), native({ i: { enabled: false } }));
    write(path.join(cwd, '.mcp.json'), { mcpServers: { i: { command: 'x' } } });
    expect(byId((await loadConfig(opts)).servers, 'i')).toMatchObject({ enabled: false, source: 'project', transport: 'stdio' });
    const none = await loadConfig({ ...opts, imports: false });
    expect(byId(none.servers, 'i')).toMatchObject({ enabled: false, transport: 'unknown' });
  });

  it('duplicate ids in an import file are an error too', async () => {
    write(path.join(cwd, '.mcp.json'), '{"mcpServers":{"a":{"command":"x"},"a":{"command":"y"}}}');
    const { servers } = await loadConfig(opts);
    expect(byId(servers, 'a')!.enabled).toBe(false);
  });

  it('envFile is a warning', async () => {
    write(path.join(cwd, '.vscode', 'mcp.json'), { servers: { a: { command: 'x', envFile: '${workspaceFolder}/.env' } } });
    const { servers, diagnostics } = await loadConfig(opts);
    expect(byId(servers, 'a')!.enabled).toBe(true);
    expect(diagnostics).toEqual([expect.objectContaining({ severity: 'warning', field: 'envFile' })]);
  });
});

describe('findDuplicateKeys', () => {
  it('finds duplicates at any depth, decodes escapes, ignores strings that look like keys', () => {
    const text = '{"a":1,"b":{"x":[{"k":1,"k":2}],"y":"\\"a\\":1"},"\\u0061":3,"s":"{\\"a\\":1,\\"a\\":2}"}';
    expect(findDuplicateKeys(text)).toEqual([
      { path: ['b', 'x', '0'], key: 'k', count: 2 },
      { path: [], key: 'a', count: 2 },
    ]);
  });

  it('handles deep nesting without recursion', () => {
    const deep = '['.repeat(50_000) + '{"a":1,"a":2}' + ']'.repeat(50_000);
    expect(findDuplicateKeys(deep)).toHaveLength(1);
  });
});

describe('editing config files', () => {
  const file = () => path.join(dir, 'new', 'nested', 'config.json');
  const read = (f: string) => JSON.parse(fs.readFileSync(f, 'utf8'));
  const mode = (f: string) => fs.statSync(f).mode & 0o777;

  it('add creates directories and the file (mode 0600), then fails on an existing id unless replace', async () => {
    await addServer(file(), 'a', { transport: 'http', url: 'https://a.example/mcp' });
    expect(read(file())).toEqual(native({ a: { transport: 'http', url: 'https://a.example/mcp' } }));
    if (process.platform !== 'win32') expect(mode(file())).toBe(0o600);
    await expect(addServer(file(), 'a', stdio())).rejects.toSatisfy(isConfigError);
    expect(await addServer(file(), 'a', stdio('b'), { replace: true })).toEqual({ replaced: true, unset: [] });
    expect(read(file()).mcp.servers.a).toEqual(stdio('b'));
  });

  it('preserves other content and key order; leaves no temp files', async () => {
    const f = write(file(), { theme: 'dark', version: 1, mcp: { other: true, servers: { z: stdio(), a: http() } }, tail: [1, 2] });
    await addServer(f, 'm', stdio('m'));
    expect(Object.keys(read(f))).toEqual(['theme', 'version', 'mcp', 'tail']);
    expect(read(f)).toEqual({ theme: 'dark', version: 1, mcp: { other: true, servers: { z: stdio(), a: http(), m: stdio('m') } }, tail: [1, 2] });
    expect(fs.readdirSync(path.dirname(f))).toEqual(['config.json']);
    if (process.platform !== 'win32') expect(mode(f)).toBe(0o600);
  });

  it('tightens the mode of an existing world-readable file', async () => {
    const f = write(file(), native({}));
    fs.chmodSync(f, 0o644);
    await addServer(f, 'a', stdio());
    if (process.platform !== 'win32') expect(mode(f)).toBe(0o600);
  });

  it('rejects invalid ids and entries without writing (fields named, values not echoed)', async () => {
    await expect(addServer(file(), 'bad id', stdio())).rejects.toThrow(/invalid server id/);
    const err = await addServer(file(), 'a', { transport: 'http', headers: { 'X-K': 'SECRETVALUE' } }).catch((e) => e);
    expect(isConfigError(err)).toBe(true);
    expect(err.message).toContain('field "url"');
    expect(err.message).not.toContain('SECRETVALUE');
    await expect(addServer(file(), 'a', { ...stdio(), bogus: 1 })).rejects.toThrow(/unknown field/);
    expect(fs.existsSync(file())).toBe(false);
  });

  it('refuses to rewrite a non-JSON file or one with duplicate ids', async () => {
    const f = write(file(), '{ not json');
    await expect(addServer(f, 'a', stdio())).rejects.toThrow(/not valid JSON/);
    expect(fs.readFileSync(f, 'utf8')).toBe('{ not json');
    write(f, '{"mcp":{"servers":{"a":{"transport":"stdio","command":"x"},"a":{"transport":"stdio","command":"y"}}}}');
    await expect(removeServer(f, 'a')).rejects.toThrow(/defined 2 times/);
  });

  it('remove deletes only that id; false when absent', async () => {
    const f = write(file(), native({ a: stdio(), b: stdio() }));
    expect(await removeServer(f, 'a')).toBe(true);
    expect(read(f).mcp.servers).toEqual({ b: stdio() });
    const before = fs.statSync(f).mtimeMs;
    expect(await removeServer(f, 'a')).toBe(false);
    expect(fs.statSync(f).mtimeMs).toBe(before);
  });

  it('enable/disable set the field; disabling an id the file lacks writes a stub that enabling removes', async () => {
    const f = write(file(), native({ a: stdio() }));
    expect(await setServerEnabled(f, 'a', false)).toBe('updated');
    expect(read(f).mcp.servers.a).toEqual({ ...stdio(), enabled: false });
    expect(await setServerEnabled(f, 'a', false)).toBe('unchanged');
    expect(await setServerEnabled(f, 'a', true)).toBe('updated');
    expect(read(f).mcp.servers.a.enabled).toBe(true);
    expect(await setServerEnabled(f, 'g', false)).toBe('override-added');
    expect(read(f).mcp.servers.g).toEqual({ enabled: false });
    expect(await setServerEnabled(f, 'g', true)).toBe('override-removed');
    expect(read(f).mcp.servers.g).toBeUndefined();
    await expect(setServerEnabled(f, 'nope', true)).rejects.toThrow(/not defined/);
  });

  it('a project disable stub written by the CLI disables the global server on the next load', async () => {
    write(globalFile(), native({ g: http() }));
    await setServerEnabled(projectFile(), 'g', false);
    const { servers, diagnostics } = await loadConfig(opts);
    expect(diagnostics).toEqual([]);
    expect(byId(servers, 'g')).toMatchObject({ enabled: false, source: 'project', transport: 'http' });
  });

  it('follows a symlinked config file (the link stays)', async () => {
    if (process.platform === 'win32') return;
    const real = write(path.join(dir, 'real.json'), native({}));
    const link = path.join(dir, 'link.json');
    fs.symlinkSync(real, link);
    await addServer(link, 'a', stdio());
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
    expect(read(real).mcp.servers.a).toEqual(stdio());
  });
});

describe('toConnectConfig', () => {
  it('maps stdio and http (with legacySse) entries', async () => {
    write(projectFile(), native({ s: { transport: 'stdio', command: 'node', args: ['s.js'], cwd: '/w', env: { A: '1' } }, h: { transport: 'http', url: 'https://h/mcp', headers: { X: 'y' } } }));
    write(path.join(cwd, '.mcp.json'), { mcpServers: { old: { type: 'sse', url: 'https://o/sse' } } });
    const { servers } = await loadConfig(opts);
    expect(toConnectConfig(byId(servers, 's')!)).toEqual({ transport: 'stdio', id: 's', command: 'node', args: ['s.js'], cwd: '/w', env: { A: '1' } });
    expect(toConnectConfig(byId(servers, 'h')!)).toEqual({ transport: 'http', id: 'h', url: 'https://h/mcp', headers: { X: 'y' } });
    expect(toConnectConfig(byId(servers, 'old')!)).toEqual({ transport: 'http', id: 'old', url: 'https://o/sse', headers: {}, legacySse: true });
  });

  it('throws ConfigError for an invalid entry; a disabled valid one still maps', async () => {
    write(projectFile(), native({ bad: { transport: 'http' }, off: { ...stdio(), enabled: false } }));
    const { servers } = await loadConfig(opts);
    expect(() => toConnectConfig(byId(servers, 'bad')!)).toThrow(/field "url"/);
    expect(toConnectConfig(byId(servers, 'off')!)).toMatchObject({ transport: 'stdio', command: 'node' });
  });
});
