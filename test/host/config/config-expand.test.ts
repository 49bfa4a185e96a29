/**
 * Variable expansion in the NATIVE config format (the first design said it never expands;
 * see docs/design.md): `${VAR}`, `${VAR:-default}`, `${PROJECT_ROOT}` in every string field, `$${` for a
 * literal `${`, an unset variable disabling only its server with a diagnostic that names the
 * variable (never a value), and files never rewritten with expanded values.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addServer, expandString, loadConfig, setServerEnabled, toConnectConfig, trustProject, type LoadConfigOptions, type ResolvedServer } from '../../../src/host/config/index.js';
import { configDirs, native, writeConfig as write } from '../../support/config-dirs.js';

let dir: string;
let home: string;
let cwd: string;
let opts: LoadConfigOptions;

beforeEach(() => {
  ({ dir, home, cwd } = configDirs('mcpwire-expand-', { realpath: true }));
  opts = { cwd, homedir: home, env: {}, platform: 'linux', trust: 'all' };
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const projectFile = () => path.join(cwd, '.mcpwire', 'config.json');
const globalFile = () => path.join(home, '.config', 'mcpwire', 'config.json');
const byId = (servers: ResolvedServer[], id: string) => servers.find((s) => s.id === id)!;

describe('native expansion', () => {
  it('expands every string field: command, args, cwd, env and header values, url, oauth, permissions, roots', async () => {
    write(projectFile(), native({
      s: {
        transport: 'stdio',
        command: '${BIN}',
        args: ['--root', '${PROJECT_ROOT}', '--level=${LEVEL:-info}'],
        cwd: '${PROJECT_ROOT}/sub',
        env: { TOKEN: '${GH_TOKEN}', PLAIN: 'x' },
        roots: ['${PROJECT_ROOT}/data'],
        permissions: { allow: ['${ALLOWED}'] },
      },
      h: {
        transport: 'http',
        url: '${API_BASE}/mcp',
        headers: { Authorization: 'Bearer ${API_TOKEN}' },
        oauth: { client_id: 'app', client_secret: '${CLIENT_SECRET}' },
      },
    }));
    const env = { BIN: 'node', GH_TOKEN: 'ghp_1', API_BASE: 'https://api.example', API_TOKEN: 'tok', CLIENT_SECRET: 'cs', ALLOWED: 'read_*' };
    const { servers, diagnostics } = await loadConfig({ ...opts, env });
    expect(diagnostics).toEqual([]);
    expect(byId(servers, 's')).toMatchObject({
      enabled: true,
      config: {
        command: 'node',
        args: ['--root', cwd, '--level=info'],
        cwd: `${cwd}/sub`,
        env: { TOKEN: 'ghp_1', PLAIN: 'x' },
        roots: [`${cwd}/data`],
        permissions: { allow: ['read_*'], deny: [] },
      },
    });
    expect(byId(servers, 'h')).toMatchObject({
      enabled: true,
      config: { url: 'https://api.example/mcp', headers: { Authorization: 'Bearer tok' }, oauth: { clientId: 'app', clientSecret: 'cs' } },
    });
    // The connect() config carries the values (resolved for spawn/connect)...
    expect(toConnectConfig(byId(servers, 's'))).toMatchObject({ command: 'node', env: { TOKEN: 'ghp_1' } });
    // ...and the file still holds the references.
    expect(fs.readFileSync(projectFile(), 'utf8')).toContain('${GH_TOKEN}');
  });

  it('${VAR:-default}: the default when VAR is unset or empty; ${VAR} set to empty expands to empty', async () => {
    write(projectFile(), native({ a: { transport: 'stdio', command: 'x', args: ['${U:-d1}', '${E:-d2}', '${E}', '${S:-d3}', '${U:-}'] } }));
    const { servers, diagnostics } = await loadConfig({ ...opts, env: { E: '', S: 'set' } });
    expect(diagnostics).toEqual([]);
    expect(byId(servers, 'a').config.args).toEqual(['d1', 'd2', '', 'set', '']);
  });

  it('${PROJECT_ROOT} is the project directory (the environment cannot override it), in the global config too', async () => {
    write(globalFile(), native({ g: { transport: 'stdio', command: 'x', args: ['${PROJECT_ROOT}'] } }));
    const { servers } = await loadConfig({ ...opts, env: { PROJECT_ROOT: '/elsewhere' } });
    expect(byId(servers, 'g').config.args).toEqual([cwd]);
  });

  it('$${ is a literal ${ (no lookup); a malformed ${ disables the server naming the field', async () => {
    write(projectFile(), native({
      lit: { transport: 'stdio', command: 'sh', args: ['-c', 'echo $${HOME} and $${UNSET_ONE}', 'cost: $5', '$$'] },
      bad: { transport: 'stdio', command: 'x', args: ['${1BAD}'] },
      open: { transport: 'stdio', command: 'x', env: { A: 'pre${NAME' } },
    }));
    const { servers, diagnostics } = await loadConfig({ ...opts, env: { HOME: '/h' } });
    expect(byId(servers, 'lit')).toMatchObject({ enabled: true, config: { args: ['-c', 'echo ${HOME} and ${UNSET_ONE}', 'cost: $5', '$$'] } });
    expect(byId(servers, 'bad')).toMatchObject({ enabled: false });
    expect(byId(servers, 'bad').error).toContain('field "args.0"');
    expect(byId(servers, 'bad').error).toContain('write $${ for a literal');
    expect(byId(servers, 'open').error).toContain('field "env.A"');
    expect(diagnostics.filter((d) => d.severity === 'error').map((d) => d.serverId).sort()).toEqual(['bad', 'open']);
  });

  it('an unset variable without default disables that one server; the diagnostic names the variable, never a value', async () => {
    write(projectFile(), native({
      needs: { transport: 'http', url: 'https://api.example/mcp', headers: { Authorization: 'Bearer ${MISSING_TOKEN}', 'X-Other': '${OTHER_SECRET}' } },
      fine: { transport: 'stdio', command: 'node', env: { K: '${OTHER_SECRET}' } },
    }));
    const { servers, diagnostics } = await loadConfig({ ...opts, env: { OTHER_SECRET: 'TOPSECRET-VALUE' } });
    expect(byId(servers, 'fine')).toMatchObject({ enabled: true, config: { env: { K: 'TOPSECRET-VALUE' } } });
    const needs = byId(servers, 'needs');
    expect(needs.enabled).toBe(false);
    expect(needs.error).toBe('field "headers.Authorization": environment variable "MISSING_TOKEN" is not set and has no default');
    expect(diagnostics).toEqual([
      expect.objectContaining({ severity: 'error', serverId: 'needs', field: 'headers.Authorization', message: expect.stringContaining('"MISSING_TOKEN" is not set') }),
    ]);
    expect(diagnostics[0].message).toContain('server disabled');
    expect(JSON.stringify({ diagnostics, error: needs.error })).not.toContain('TOPSECRET');
    expect(() => toConnectConfig(needs)).toThrow(/MISSING_TOKEN/);
  });

  it('a URL built from an unset variable is reported as the variable, not as a bad URL', async () => {
    write(projectFile(), native({ h: { transport: 'http', url: '${BASE_URL}/mcp' } }));
    const { servers, diagnostics } = await loadConfig(opts);
    expect(byId(servers, 'h').error).toBe('field "url": environment variable "BASE_URL" is not set and has no default');
    expect(diagnostics).toHaveLength(1);
  });

  it('keys are never expanded; an { enabled: false } stub is not expanded or checked', async () => {
    write(globalFile(), native({ a: { transport: 'stdio', command: 'x', env: { '${K}': 'v' } } }));
    write(projectFile(), native({ a: { enabled: false } }));
    const { servers, diagnostics } = await loadConfig({ ...opts, env: { K: 'expanded' } });
    expect(diagnostics).toEqual([]);
    expect(byId(servers, 'a')).toMatchObject({ enabled: false, config: { env: { '${K}': 'v' } } });
  });

  it('expandString is pure and reports each unset name', () => {
    const ctx = { env: { A: '1' }, workspaceFolder: '/w', userHome: '/h', projectRoot: '/p' };
    expect(expandString('${A}-${B}-${C:-c}-$${A}-${PROJECT_ROOT}', 'native', ctx)).toEqual({
      value: '1-${B}-c-${A}-/p',
      problems: ['environment variable "B" is not set and has no default'],
      unset: ['B'],
    });
    // The import syntax keeps its own rules: no $${ escape, no PROJECT_ROOT.
    expect(expandString('$${A}', 'mcpServers', ctx).value).toBe('$1');
  });
});

describe('writing keeps references verbatim', () => {
  it('addServer writes ${VAR} as given, validates the URL with the variable resolved, and reports unset names', async () => {
    const file = path.join(dir, 'w', 'config.json');
    const expand = { env: { BASE: 'https://api.example', TOKEN: 'SECRET-NOT-WRITTEN' }, workspaceFolder: cwd, userHome: home };
    const r = await addServer(file, 'h', { transport: 'http', url: '${BASE}/mcp', headers: { Authorization: 'Bearer ${TOKEN}', 'X-K': '${NOT_SET_NOW}' } }, { expand });
    expect(r).toEqual({ replaced: false, unset: ['NOT_SET_NOW'] });
    const text = fs.readFileSync(file, 'utf8');
    expect(JSON.parse(text).mcp.servers.h).toEqual({ transport: 'http', url: '${BASE}/mcp', headers: { Authorization: 'Bearer ${TOKEN}', 'X-K': '${NOT_SET_NOW}' } });
    expect(text).not.toContain('SECRET-NOT-WRITTEN');
  });

  it('enable/disable rewrite the JSON file with the references as written', async () => {
    const file = write(path.join(dir, 'w', 'config.json'), native({ s: { transport: 'stdio', command: '${BIN}', env: { T: '${TOKEN:-none}' } } }));
    expect(await setServerEnabled(file, 's', false)).toBe('updated');
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).mcp.servers.s).toEqual({ transport: 'stdio', command: '${BIN}', env: { T: '${TOKEN:-none}' }, enabled: false });
  });

  it('addServer still refuses a URL that is wrong once resolved, and a malformed reference', async () => {
    const file = path.join(dir, 'w', 'config.json');
    const expand = { env: { BASE: 'ftp://x' }, workspaceFolder: cwd, userHome: home };
    await expect(addServer(file, 'h', { transport: 'http', url: '${BASE}/mcp' }, { expand })).rejects.toThrow(/field "url": must be an absolute http\(s\) URL/);
    await expect(addServer(file, 's', { transport: 'stdio', command: 'x', args: ['${oops'] }, { expand })).rejects.toThrow(/field "args.0".*literal/);
    expect(fs.existsSync(file)).toBe(false);
  });
});

describe('trust and references', () => {
  it('a project entry with ${VAR} is trusted as written: a new value keeps it trusted, a changed reference does not', async () => {
    const store = path.join(dir, 'trust.json');
    write(projectFile(), native({ gh: { transport: 'stdio', command: 'node', env: { TOKEN: '${GH_TOKEN}' } } }));
    const ask = { ...opts, trust: 'ask' as const, trustStorePath: store };
    await trustProject(cwd, { ...ask, env: { GH_TOKEN: 'old-token' } });
    const rotated = await loadConfig({ ...ask, env: { GH_TOKEN: 'new-token' } });
    expect(byId(rotated.servers, 'gh')).toMatchObject({ config: { env: { TOKEN: 'new-token' } } });
    expect(byId(rotated.servers, 'gh').untrusted).toBeUndefined();
    // The hash never holds the value: the store file does not contain it either way.
    expect(fs.readFileSync(store, 'utf8')).not.toContain('old-token');
    write(projectFile(), native({ gh: { transport: 'stdio', command: 'node', env: { TOKEN: '${OTHER_TOKEN}' } } }));
    const changed = await loadConfig({ ...ask, env: { OTHER_TOKEN: 'x' } });
    expect(byId(changed.servers, 'gh').untrusted).toEqual({ project: cwd, changed: true });
  });
});
