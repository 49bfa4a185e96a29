/**
 * Config formats people already have, each parsed from a realistic fixture file
 * (test/fixtures/config/) placed where the tool keeps it, with HOME pointed at a temp dir:
 * `~/.claude.json` (user-wide and this project's `mcpServers`, other keys ignored), Codex
 * `~/.codex/config.toml`, Windsurf `~/.codeium/windsurf/mcp_config.json`, OpenCode
 * `opencode.json[c]` (project and `~/.config/opencode`), and the native format as YAML. Imports
 * stay opt-in and project-level ones trust-gated.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addServer, defaultImportFiles, loadConfig, removeServer, setServerEnabled, stripJsonc, trustProject, type LoadConfigOptions, type ResolvedServer } from '../../../src/host/config/index.js';
import { configDirs } from '../../support/config-dirs.js';

const FIXTURES = path.join(path.dirname(path.dirname(path.dirname(fileURLToPath(import.meta.url)))), 'fixtures', 'config');
const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, name), 'utf8');

let dir: string;
let home: string;
let cwd: string;
let opts: LoadConfigOptions;

beforeEach(() => {
  ({ dir, home, cwd } = configDirs('mcpwire-formats-', { realpath: true }));
  opts = { cwd, homedir: home, env: { HOME: home }, platform: 'linux', imports: true, trust: 'all' };
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const put = (file: string, text: string): string => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
};
const byId = (servers: ResolvedServer[], id: string) => servers.find((s) => s.id === id);

describe('~/.claude.json', () => {
  it("reads the user-wide mcpServers and this project's, the project's winning; other projects and keys are ignored", async () => {
    const file = put(path.join(home, '.claude.json'), fixture('claude.json').replace('__PROJECT__', cwd));
    const { servers, diagnostics } = await loadConfig({ ...opts, env: { ...opts.env, SENTRY_TOKEN: 'st', CONTEXT7_API_KEY: 'ck' } });
    expect(diagnostics).toEqual([]);
    expect(servers.map((s) => s.id)).toEqual(['context7', 'linear', 'playwright', 'sentry']);
    const source = `import:${file}`;
    // context7 is defined in both places: the project (local scope) entry wins, as in Claude Code.
    expect(byId(servers, 'context7')).toMatchObject({ source, transport: 'stdio', enabled: true, config: { command: 'node', args: ['/opt/context7/local.js'], env: { CONTEXT7_API_KEY: 'ck' } } });
    expect(byId(servers, 'playwright')!.config.args).toEqual(['@playwright/mcp@latest', '--output-dir', '/tmp/pw']);
    expect(byId(servers, 'sentry')).toMatchObject({ transport: 'http', config: { url: 'https://mcp.sentry.dev/mcp', headers: { Authorization: 'Bearer st' } } });
    expect(byId(servers, 'linear')).toMatchObject({ transport: 'http', config: { legacySse: true } });
    // The user's own file: not a project file, so no trust needed.
    expect(byId(servers, 'playwright')!.project).toBeUndefined();
  });

  it('a file with only non-server keys contributes nothing and says nothing', async () => {
    put(path.join(home, '.claude.json'), JSON.stringify({ numStartups: 1, projects: { [cwd]: { allowedTools: [] } } }));
    expect(await loadConfig(opts)).toEqual({ servers: [], diagnostics: [] });
  });
});

describe('Codex ~/.codex/config.toml', () => {
  it('maps [mcp_servers.<id>]: command/args/env/cwd, env_vars, url with bearer_token_env_var, headers, timeouts, disabled_tools, enabled', async () => {
    const file = put(path.join(home, '.codex', 'config.toml'), fixture('codex-config.toml'));
    const env = { ...opts.env, GITHUB_PAT: 'ghp_x', DOCS_TOKEN: 'dt', ANALYTICS_KEY: 'ak' };
    const { servers, diagnostics } = await loadConfig({ ...opts, env });
    expect(servers.map((s) => s.id)).toEqual(['analytics', 'context7', 'docs', 'github', 'old']);
    expect(byId(servers, 'context7')).toMatchObject({ source: `import:${file}`, transport: 'stdio', enabled: true, config: { command: 'npx', args: ['-y', '@upstash/context7-mcp'], requestTimeoutMs: 45_000 } });
    expect(byId(servers, 'github')).toMatchObject({
      transport: 'http',
      enabled: true,
      config: { url: 'https://api.githubcopilot.com/mcp/', headers: { Authorization: 'Bearer ghp_x' }, permissions: { deny: ['delete_repository', 'delete_*'] } },
    });
    expect(byId(servers, 'docs')).toMatchObject({ config: { command: 'uvx', cwd: '/srv/docs', env: { LOG_LEVEL: 'debug', DOCS_TOKEN: 'dt' } } });
    expect(byId(servers, 'docs')!.config.env).not.toHaveProperty('NOT_SET_ANYWHERE');
    expect(byId(servers, 'analytics')).toMatchObject({ config: { headers: { 'X-Team': 'platform', 'X-Api-Key': 'ak' } } });
    expect(byId(servers, 'old')).toMatchObject({ enabled: false, transport: 'stdio' });
    expect(diagnostics).toEqual([expect.objectContaining({ severity: 'warning', serverId: 'docs', field: 'enabled_tools' })]);
  });

  it('an unset bearer_token_env_var disables that server naming the variable; $CODEX_HOME moves the file', async () => {
    const codexHome = path.join(dir, 'codex-home');
    put(path.join(codexHome, 'config.toml'), fixture('codex-config.toml'));
    const { servers, diagnostics } = await loadConfig({ ...opts, env: { ...opts.env, CODEX_HOME: codexHome } });
    expect(byId(servers, 'github')).toMatchObject({ enabled: false, error: 'field "bearer_token_env_var": environment variable "GITHUB_PAT" is not set' });
    expect(byId(servers, 'context7')!.enabled).toBe(true);
    expect(diagnostics.filter((d) => d.serverId === 'analytics').map((d) => d.message)).toEqual([expect.stringContaining('"ANALYTICS_KEY" is not set; header not sent')]);
  });

  it('a TOML syntax error is one diagnostic with line and column, never the text', async () => {
    put(path.join(home, '.codex', 'config.toml'), '[mcp_servers.a]\ncommand = "x"\nenv = { K = "TOPSECRET\n');
    const { servers, diagnostics } = await loadConfig(opts);
    expect(servers).toEqual([]);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0].message).toMatch(/not valid TOML \(syntax error at line 3, column \d+\)/);
    expect(diagnostics[0].message).not.toContain('TOPSECRET');
  });
});

describe('Windsurf ~/.codeium/windsurf/mcp_config.json', () => {
  it('serverUrl is the URL; ${env:VAR} expands; disabled: true disables; ${file:…} disables that server', async () => {
    const file = put(path.join(home, '.codeium', 'windsurf', 'mcp_config.json'), fixture('windsurf-mcp_config.json'));
    const { servers, diagnostics } = await loadConfig({ ...opts, env: { ...opts.env, GITHUB_TOKEN: 'gt', AUTH_TOKEN: 'at' } });
    expect(byId(servers, 'github')).toMatchObject({ source: `import:${file}`, transport: 'stdio', enabled: true, config: { env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'gt' } } });
    expect(byId(servers, 'figma')).toMatchObject({ transport: 'http', enabled: true, config: { url: 'https://mcp.figma.example/mcp', headers: { Authorization: 'Bearer at' } } });
    expect(byId(servers, 'git')).toMatchObject({ enabled: false });
    expect(byId(servers, 'git')!.error).toBeUndefined();
    expect(byId(servers, 'secrets-from-file')).toMatchObject({ enabled: false, error: expect.stringContaining('${file:…}') });
    expect(diagnostics.map((d) => d.serverId)).toEqual(['secrets-from-file']);
  });
});

describe('OpenCode', () => {
  it('project opencode.jsonc (comments, trailing commas): local command arrays, environment, remote headers, {env:VAR}, enabled: false', async () => {
    const file = put(path.join(cwd, 'opencode.jsonc'), fixture('opencode.jsonc'));
    const { servers, diagnostics } = await loadConfig({ ...opts, env: { ...opts.env, OPENCODE_TEST_TOKEN: 'ot' } });
    expect(diagnostics).toEqual([]);
    expect(byId(servers, 'everything')).toMatchObject({
      source: `import:${file}`,
      transport: 'stdio',
      enabled: true,
      project: cwd,
      config: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'], env: { MY_ENV_VAR: 'my_env_var_value', TOKEN: 'ot' } },
    });
    // {env:VAR} of an unset variable is empty, as OpenCode does.
    expect(byId(servers, 'jira')).toMatchObject({ transport: 'http', config: { url: 'https://jira.example.com/mcp', headers: { Authorization: 'Bearer ' } } });
    expect(byId(servers, 'paused')).toMatchObject({ enabled: false, config: { command: 'bun', args: ['x', 'my-mcp-command'] } });
  });

  it('the user file ~/.config/opencode/opencode.json is read too, and is not a project file', async () => {
    put(path.join(home, '.config', 'opencode', 'opencode.json'), JSON.stringify({ mcp: { g: { type: 'remote', url: 'https://g.example/mcp' } } }));
    const { servers } = await loadConfig({ ...opts, trust: 'ask' });
    expect(byId(servers, 'g')).toMatchObject({ enabled: true, transport: 'http' });
    expect(byId(servers, 'g')!.untrusted).toBeUndefined();
  });

  it('a command that is not an array is an error naming the field', async () => {
    put(path.join(cwd, 'opencode.json'), JSON.stringify({ mcp: { bad: { type: 'local', command: 'npx -y x' } } }));
    const { servers } = await loadConfig(opts);
    expect(byId(servers, 'bad')!.error).toContain('field "command": must be a non-empty array');
  });

  it('stripJsonc leaves strings alone', () => {
    expect(JSON.parse(stripJsonc('{"a": "x // not a comment, ]", /* c */ "b": [1, 2,], // end\n}'))).toEqual({ a: 'x // not a comment, ]', b: [1, 2] });
  });
});

describe('imports stay opt-in and trust-gated', () => {
  it('none of these files is read without imports; a project opencode.json or .codex/config.toml needs trust', async () => {
    put(path.join(home, '.claude.json'), fixture('claude.json').replace('__PROJECT__', cwd));
    put(path.join(home, '.codex', 'config.toml'), fixture('codex-config.toml'));
    put(path.join(cwd, 'opencode.jsonc'), fixture('opencode.jsonc'));
    put(path.join(cwd, '.codex', 'config.toml'), '[mcp_servers.repo]\ncommand = "./run-me.sh"\n');
    expect((await loadConfig({ ...opts, imports: false })).servers).toEqual([]);
    const { servers } = await loadConfig({ ...opts, trust: 'ask', trustStorePath: path.join(dir, 'trust.json') });
    expect(byId(servers, 'repo')!.untrusted).toEqual({ project: cwd, changed: false });
    expect(byId(servers, 'everything')!.untrusted).toEqual({ project: cwd, changed: false });
    expect(byId(servers, 'context7')!.untrusted).toBeUndefined();
  });

  it('mcpwire trust records the servers of a project config.yaml, opencode.jsonc and .codex/config.toml', async () => {
    put(path.join(cwd, '.mcpwire', 'config.yaml'), 'mcp:\n  servers:\n    y: { transport: stdio, command: node }\n');
    put(path.join(cwd, 'opencode.jsonc'), fixture('opencode.jsonc'));
    put(path.join(cwd, '.codex', 'config.toml'), '[mcp_servers.repo]\ncommand = "./run-me.sh"\n');
    const ask = { ...opts, trust: 'ask' as const, trustStorePath: path.join(dir, 'trust.json') };
    expect((await loadConfig(ask)).servers.filter((s) => s.untrusted !== undefined).map((s) => s.id)).toEqual(['everything', 'jira', 'paused', 'repo', 'y']);
    const r = await trustProject(cwd, ask);
    expect(r.servers.map((s) => s.id).sort()).toEqual(['everything', 'jira', 'paused', 'repo', 'y']);
    expect((await loadConfig(ask)).servers.filter((s) => s.untrusted !== undefined)).toEqual([]);
  });

  it('the default import list names every format, project files first', () => {
    expect(defaultImportFiles({ ...opts, env: {} }).map((f) => [path.relative(dir, f.path), f.format, f.project])).toEqual([
      ['project/.mcp.json', 'mcpServers', true],
      ['project/.cursor/mcp.json', 'mcpServers', true],
      ['project/.vscode/mcp.json', 'vscode', true],
      ['project/opencode.json', 'opencode', true],
      ['project/opencode.jsonc', 'opencode', true],
      ['project/.codex/config.toml', 'codex', true],
      ['home/.claude.json', 'claude-json', false],
      ['home/.cursor/mcp.json', 'mcpServers', false],
      ['home/.config/Claude/claude_desktop_config.json', 'mcpServers', false],
      ['home/.config/Code/User/mcp.json', 'vscode', false],
      ['home/.codex/config.toml', 'codex', false],
      ['home/.codeium/windsurf/mcp_config.json', 'windsurf', false],
      ['home/.config/opencode/opencode.json', 'opencode', false],
      ['home/.config/opencode/opencode.jsonc', 'opencode', false],
    ]);
  });
});

describe('native format as YAML', () => {
  it('.mcpwire/config.yaml is read when there is no config.json, with expansion', async () => {
    const file = put(path.join(cwd, '.mcpwire', 'config.yaml'), fixture('config.yaml'));
    const { servers, diagnostics } = await loadConfig({ ...opts, imports: false, env: { API_KEY: 'k1' } });
    expect(diagnostics).toEqual([]);
    expect(byId(servers, 'serena')).toMatchObject({ source: 'project', file, transport: 'stdio', config: { args: ['--project', cwd], env: { SERENA_PROJECT_ROOT: cwd } } });
    expect(byId(servers, 'custom-api')).toMatchObject({ transport: 'http', config: { headers: { Authorization: 'Bearer k1' }, permissions: { deny: ['drop_table'] }, requestTimeoutMs: 30_000 } });
    expect(byId(servers, 'literal')!.config.args).toEqual(['-c', 'echo ${HOME}']);
  });

  it('MCPWIRE_CONFIG_PATH may name a .yml file; a YAML error is a diagnostic with the line, never the text', async () => {
    const g = put(path.join(dir, 'g.yml'), 'mcp:\n  servers:\n    a: { transport: stdio, command: x }\n');
    expect((await loadConfig({ ...opts, imports: false, env: { MCPWIRE_CONFIG_PATH: g } })).servers.map((s) => [s.id, s.source])).toEqual([['a', 'global']]);
    put(g, 'mcp:\n  servers:\n    a: { transport: stdio, command: x, env: { K: "TOPSECRET" }\n');
    const { servers, diagnostics } = await loadConfig({ ...opts, imports: false, env: { MCPWIRE_CONFIG_PATH: g } });
    expect(servers).toEqual([]);
    expect(diagnostics).toEqual([expect.objectContaining({ severity: 'error', source: 'global', message: expect.stringMatching(/not valid YAML \(syntax error at line \d+, column \d+\)/) })]);
    expect(JSON.stringify(diagnostics)).not.toContain('TOPSECRET');
    put(g, 'mcp:\n  servers:\n    a: { transport: stdio, command: x }\n    a: { transport: stdio, command: y }\n');
    expect((await loadConfig({ ...opts, imports: false, env: { MCPWIRE_CONFIG_PATH: g } })).diagnostics[0].message).toContain('a key is defined twice');
  });

  it('mcp add/enable/disable/remove edit a YAML file in place, keeping its comments and ${VAR} references', async () => {
    const file = put(path.join(dir, 'edit.yaml'), fixture('config.yaml'));
    await addServer(file, 'new-one', { transport: 'stdio', command: 'npx', env: { TOKEN: '${NEW_TOKEN}' } });
    expect(await setServerEnabled(file, 'serena', false)).toBe('updated');
    expect(await removeServer(file, 'literal')).toBe(true);
    const text = fs.readFileSync(file, 'utf8');
    expect(text).toContain('# mcpwire native config, YAML form');
    expect(text).toContain('TOKEN: ${NEW_TOKEN}');
    expect(text).toContain('Bearer ${API_KEY}');
    expect(text).not.toContain('literal:');
    const { servers } = await loadConfig({ ...opts, imports: false, globalPath: file, env: { API_KEY: 'k', NEW_TOKEN: 'n' } });
    expect(servers.map((s) => [s.id, s.enabled])).toEqual([['custom-api', true], ['new-one', true], ['serena', false]]);
    expect(byId(servers, 'new-one')!.config.env).toEqual({ TOKEN: 'n' });
  });
});
