/**
 * Config files in a shape other than the one expected are never silently empty: each gets a
 * diagnostic naming the file, the shape expected and the closest shape seen, with how to write
 * it; the list-of-servers form (`name` per entry) is read. Checked against the config examples
 * of the five host design notes (/work/shared/seeds, copied verbatim into
 * test/fixtures/config/seeds/): each either loads or says how to write it. The CLI case runs the
 * built dist/ (npm run build).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig, parseImportLayer, parseNativeLayer, type LoadConfigOptions, type ResolvedServer } from '../../../src/host/config/index.js';

const ROOT = path.resolve(path.dirname(path.dirname(path.dirname(fileURLToPath(import.meta.url)))), '..');
const SEEDS = path.join(ROOT, 'test', 'fixtures', 'config', 'seeds');
const seed = (name: string) => fs.readFileSync(path.join(SEEDS, name), 'utf8');

let dir: string;
let opts: LoadConfigOptions;
beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-shapes-')));
  opts = { cwd: dir, homedir: dir, env: { HOME: dir }, platform: 'linux', projectPath: path.join(dir, 'none.json'), trustStorePath: path.join(dir, 'trust.json') };
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const put = (name: string, text: string): string => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
};
const byId = (servers: ResolvedServer[], id: string) => servers.find((s) => s.id === id);

describe('seed 003: servers as a YAML list of { name, transport, command, args, env }', () => {
  it('as written, the file is not valid YAML: the diagnostic names the file, the line and how to fix it (quote the @ value)', async () => {
    const file = put('mcp.config.yaml', seed('seed-003-mcp.config.yaml'));
    const r = await loadConfig({ ...opts, globalPath: file });
    expect(r.servers).toEqual([]);
    expect(r.diagnostics).toHaveLength(1);
    expect(r.diagnostics[0]).toMatchObject({ severity: 'error', file });
    expect(r.diagnostics[0].message).toContain(file);
    expect(r.diagnostics[0].message).toMatch(/not valid YAML \(syntax error at line 12, column 14: a value starting with "@" or "`" must be quoted/);
  });

  it('with the @ value quoted, the list loads: three servers by name, ${PROJECT_ROOT} and ${API_KEY} expanded; "options" is a warning saying where its settings go', async () => {
    const text = seed('seed-003-mcp.config.yaml').replace('command: @akiojin/mcp-filesystem', 'command: "@akiojin/mcp-filesystem"');
    const file = put('mcp.config.yaml', text);
    const r = await loadConfig({ ...opts, globalPath: file, env: { HOME: dir, API_KEY: 'k-123' } });
    expect(r.servers.map((s) => [s.id, s.transport, s.enabled, s.error])).toEqual([
      ['custom-api', 'http', true, undefined],
      ['filesystem', 'stdio', true, undefined],
      ['serena', 'stdio', true, undefined],
    ]);
    expect(byId(r.servers, 'serena')!.config).toMatchObject({ command: 'serena-mcp', args: [], env: { SERENA_PROJECT_ROOT: dir } });
    expect(byId(r.servers, 'filesystem')!.config).toMatchObject({ command: '@akiojin/mcp-filesystem', args: ['--root', dir] });
    expect(byId(r.servers, 'custom-api')!.config).toMatchObject({ url: 'http://localhost:8080/mcp', headers: { Authorization: 'Bearer k-123' } });
    expect(r.diagnostics).toEqual([expect.objectContaining({ severity: 'warning', field: 'options', file })]);
    expect(r.diagnostics[0].message).toMatch(/"mcp\.max_parallel".*"request_timeout_ms".*"retry"/);
  });

  it('a list of { name, command, args, env } without transport loads as stdio servers (url: http), under "servers" or "mcp.servers"', async () => {
    const yaml = ['servers:', '  - name: files', '    command: npx', '    args: ["-y", "@modelcontextprotocol/server-filesystem", "."]', '    env:', '      LOG_LEVEL: debug', '  - name: remote', '    url: https://example.com/mcp', ''].join('\n');
    const top = await loadConfig({ ...opts, globalPath: put('top.yaml', yaml) });
    expect(top.diagnostics).toEqual([]);
    expect(top.servers.map((s) => [s.id, s.transport])).toEqual([
      ['files', 'stdio'],
      ['remote', 'http'],
    ]);
    expect(byId(top.servers, 'files')!.config).toMatchObject({ command: 'npx', env: { LOG_LEVEL: 'debug' } });
    const nested = await loadConfig({ ...opts, globalPath: put('nested.json', JSON.stringify({ version: 1, mcp: { servers: [{ name: 'files', command: 'npx' }] } })) });
    expect(nested.diagnostics).toEqual([]);
    expect(nested.servers.map((s) => [s.id, s.transport, s.enabled])).toEqual([['files', 'stdio', true]]);
  });

  it('list entries without a name, and a name given twice, are errors naming the entry; the others load', () => {
    const text = JSON.stringify({ servers: [{ command: 'a' }, { name: 'x', command: 'b' }, { name: 'x', command: 'c' }, { name: 'y', command: 'd' }] });
    const r = parseNativeLayer(text, 'global', 'f.json');
    expect(r.entries.map((e) => [e.server.id, e.server.enabled])).toEqual([
      ['x', false],
      ['y', true],
    ]);
    expect(r.diagnostics.map((d) => d.message)).toEqual([
      expect.stringMatching(/field "servers\.0\.name": entry 1 of the list needs a "name"/),
      expect.stringMatching(/server "x": server id defined 2 times in this file; server disabled/),
    ]);
  });
});

describe('the list form and edits', () => {
  it('mcp add refuses to edit a file that lists its servers (it writes the map form, which would hide the list); nothing is rewritten', async () => {
    const { addServer, setServerEnabled } = await import('../../../src/host/config/index.js');
    const yaml = 'servers:\n  - name: files\n    command: npx\n';
    const file = put('list.yaml', yaml);
    await expect(addServer(file, 'other', { transport: 'stdio', command: 'node' })).rejects.toThrow(/"servers" is a list of entries with "name"; edits write only the map form/);
    await expect(setServerEnabled(file, 'files', false)).rejects.toThrow(/edit this file by hand; not rewritten/);
    expect(fs.readFileSync(file, 'utf8')).toBe(yaml);
    const json = put('list.json', JSON.stringify({ version: 1, mcp: { servers: [{ name: 'files', command: 'npx' }] } }));
    await expect(addServer(json, 'other', { transport: 'stdio', command: 'node' })).rejects.toThrow(/"mcp\.servers" is a list/);
  });

  it('"servers" beside an "mcp" section is an error naming it; the mcp.servers entries still load', () => {
    const r = parseNativeLayer(JSON.stringify({ mcp: { servers: { a: { transport: 'stdio', command: 'x' } } }, servers: [{ name: 'b', command: 'y' }] }), 'global', 'f.json');
    expect(r.entries.map((e) => e.server.id)).toEqual(['a']);
    expect(r.diagnostics).toEqual([expect.objectContaining({ severity: 'error', field: 'servers', message: expect.stringContaining('keeps its servers in "mcp.servers"') })]);
  });
});

describe('seed 004: the pipeforge.mcp.json manifest (name, commands, tools)', () => {
  it('loads no servers and says so: the file, the native shape expected, the manifest seen and how to write it', async () => {
    const file = put('pipeforge.mcp.json', seed('seed-004-pipeforge.mcp.json'));
    const r = await loadConfig({ ...opts, globalPath: file });
    expect(r.servers).toEqual([]);
    expect(r.diagnostics).toHaveLength(1);
    const d = r.diagnostics[0];
    expect(d).toMatchObject({ severity: 'error', file });
    expect(d.message).toContain(`global config ${file}: no servers read: expected {"version": 1, "mcp": {"servers": {"<id>"`);
    expect(d.message).toContain('saw a manifest listing "commands"');
    expect(d.message).toContain('"transport": "stdio", "command"');
    // never a value of the file (its env holds tokens)
    expect(d.message).not.toContain('PIPELINE_ENGINE');
  });
});

describe('the CLI', () => {
  it('mcpwire mcp list --config <manifest> prints the diagnostic before "no MCP servers configured"', () => {
    const file = put('pipeforge.mcp.json', seed('seed-004-pipeforge.mcp.json'));
    const r = spawnSync(process.execPath, [path.join(ROOT, 'dist', 'cli', 'main.js'), 'mcp', 'list', '--config', file], { cwd: dir, env: { PATH: process.env.PATH, HOME: dir }, encoding: 'utf8' });
    expect(r.stderr).toContain(`mcpwire: config error: project config ${file}: no servers read: expected {"version": 1, "mcp"`);
    expect(r.stderr).toContain('saw a manifest listing "commands"');
    expect(r.stdout).toContain('no MCP servers configured');
  });
});

describe('seed 001: the mcpServers format of Claude Code / Cursor', () => {
  it('as an import file (.mcp.json) it loads, ${VAR} expanded; "type": "sse" is the legacy HTTP+SSE transport', async () => {
    const file = put('.mcp.json', seed('seed-001-mcp.json'));
    const r = await loadConfig({ ...opts, imports: [{ path: file, format: 'mcpServers' }], trust: 'all', env: { HOME: dir, GITHUB_TOKEN: 'gh', API_TOKEN: 'at' } });
    expect(r.diagnostics).toEqual([]);
    expect(r.servers.map((s) => [s.id, s.transport])).toEqual([
      ['filesystem', 'stdio'],
      ['github', 'stdio'],
      ['remote-api', 'http'],
    ]);
    expect(byId(r.servers, 'github')!.config.env).toEqual({ GITHUB_TOKEN: 'gh' });
    expect(byId(r.servers, 'remote-api')!.config).toMatchObject({ legacySse: true, headers: { Authorization: 'Bearer at' } });
  });

  it('as a native file (--config, a pasted block) it is read as those tools read it: "type" for "transport", ${VAR} expanded; with an "mcp" section beside it, it is named as not read', async () => {
    const file = put('mcp.json', seed('seed-001-mcp.json'));
    const r = await loadConfig({ ...opts, globalPath: file, env: { HOME: dir, GITHUB_TOKEN: 'gh', API_TOKEN: 'at' } });
    expect(r.diagnostics).toEqual([]);
    expect(r.servers.map((s) => [s.id, s.transport, s.source, s.enabled])).toEqual([
      ['filesystem', 'stdio', 'global', true],
      ['github', 'stdio', 'global', true],
      ['remote-api', 'http', 'global', true],
    ]);
    expect(byId(r.servers, 'remote-api')!.config).toMatchObject({ legacySse: true, headers: { Authorization: 'Bearer at' } });
    const both = put('both.json', JSON.stringify({ mcp: { servers: {} }, ...JSON.parse(seed('seed-001-mcp.json')) }));
    const b = await loadConfig({ ...opts, globalPath: both });
    expect(b.servers).toEqual([]);
    expect(b.diagnostics.map((d) => d.message)).toEqual([expect.stringMatching(/field "mcpServers": not read: a file with an "mcp" section keeps its servers in "mcp\.servers"/)]);
  });
});

describe('seed 000: the native format', () => {
  it.each(['full', 'remote', 'stdio', 'registry', 'petstore', 'notion', 'oauth', 'filesystem'])('example "%s" loads without a diagnostic', async (name) => {
    const file = put(`${name}.json`, seed(`seed-000-${name}.json`));
    const r = await loadConfig({ ...opts, globalPath: file });
    expect(r.diagnostics).toEqual([]);
    expect(r.servers.length).toBeGreaterThan(0);
    expect(r.servers.every((s) => s.error === undefined && s.enabled)).toBe(true);
  });

  it('the project example disabling a global server loads (disabled, the global entry shown)', async () => {
    const global = put('global.json', seed('seed-000-registry.json'));
    const project = put('project.json', seed('seed-000-disable.json'));
    const r = await loadConfig({ ...opts, globalPath: global, projectPath: project, trust: 'all' });
    expect(r.diagnostics).toEqual([]);
    expect(r.servers.map((s) => [s.id, s.enabled, s.source])).toEqual([['mcp-registry-public', false, 'project']]);
  });
});

describe('import files in the wrong shape', () => {
  const ctx = { env: {}, workspaceFolder: '/w', userHome: '/h' };

  it('a .mcp.json holding "servers" (VS Code\'s shape) says what it expected and what it saw', () => {
    const r = parseImportLayer(JSON.stringify({ servers: { a: { type: 'stdio', command: 'x' } } }), 'mcpServers', '/p/.mcp.json', ctx);
    expect(r.entries).toEqual([]);
    expect(r.diagnostics).toEqual([expect.objectContaining({ severity: 'error', file: '/p/.mcp.json' })]);
    expect(r.diagnostics[0].message).toMatch(/no servers read: expected \{"mcpServers": .*; saw "servers" at the top level/);
  });

  it('a .vscode/mcp.json holding "mcpServers" says so; an empty one and a ~/.claude.json without servers say nothing', () => {
    const vs = parseImportLayer(JSON.stringify({ mcpServers: { a: { command: 'x' } } }), 'vscode', '/p/.vscode/mcp.json', ctx);
    expect(vs.diagnostics[0].message).toMatch(/expected \{"servers": .*; saw "mcpServers"/);
    expect(parseImportLayer('{}', 'vscode', '/p/.vscode/mcp.json', ctx).diagnostics).toEqual([]);
    expect(parseImportLayer(JSON.stringify({ numStartups: 3, theme: 'dark' }), 'claude-json', '/h/.claude.json', ctx).diagnostics).toEqual([]);
  });

  it('a Codex config.toml with a misspelt [mcp-servers.x] table says so; one without servers says nothing', () => {
    const r = parseImportLayer(JSON.stringify({ model: 'o3', 'mcp-servers': { x: { command: 'npx' } } }), 'codex', '/h/.codex/config.toml', ctx);
    expect(r.diagnostics).toEqual([expect.objectContaining({ severity: 'error' })]);
    expect(r.diagnostics[0].message).toMatch(/expected \[mcp_servers\.<id>\] tables; saw "mcp-servers", which is not where this file's servers go/);
    expect(parseImportLayer(JSON.stringify({ model: 'o3' }), 'codex', '/h/.codex/config.toml', ctx).diagnostics).toEqual([]);
  });
});
