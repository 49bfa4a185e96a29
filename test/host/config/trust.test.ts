/**
 * Project servers run only after the user trusts the project. The library decision:
 * `loadConfig({ trust })` ('ask' = the trust store in the global config dir, 'all', or a list of
 * project dirs), the trust store itself (0600, keyed by the project's real path, a hash per
 * server entry so a changed entry asks again), import files opt-in, and the host refusing to
 * start an untrusted server. Every test works in a fresh temp dir, never the real home.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createHost,
  listTrustedProjects,
  loadConfig,
  toConnectConfig,
  trustProject,
  trustStorePath,
  untrustProject,
  untrustedHint,
  type ConnectFn,
  type LoadConfigOptions,
  type ResolvedServer,
} from '../../../src/host/index.js';
import { configDirs, native, writeConfig as write } from '../../support/config-dirs.js';

let dir: string;
let home: string;
let cwd: string;
let opts: LoadConfigOptions;

beforeEach(() => {
  ({ dir, home, cwd } = configDirs('mcpwire-trust-'));
  opts = { cwd, homedir: home, env: { XDG_CONFIG_HOME: path.join(dir, 'xdg') }, platform: 'linux' };
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const projectFile = () => path.join(cwd, '.mcpwire', 'config.json');
const globalFile = () => path.join(dir, 'xdg', 'mcpwire', 'config.json');
const byId = (servers: ResolvedServer[], id: string) => servers.find((s) => s.id === id)!;
const stdio = (command = 'evil-command', extra: Record<string, unknown> = {}) => ({ transport: 'stdio', command, ...extra });

describe('the trust decision of loadConfig', () => {
  it('a project stdio server is untrusted by default; a global one is trusted; a hint names `mcpwire trust <dir>`', async () => {
    write(projectFile(), native({ p: stdio() }));
    write(globalFile(), native({ g: stdio('mine') }));
    const { servers, diagnostics } = await loadConfig(opts);
    const real = fs.realpathSync(cwd);
    expect(byId(servers, 'p').untrusted).toEqual({ project: real, changed: false });
    expect(byId(servers, 'p').project).toBe(real);
    expect(byId(servers, 'g').untrusted).toBeUndefined();
    expect(byId(servers, 'g').project).toBeUndefined();
    expect(untrustedHint(byId(servers, 'p'))).toContain(`run \`mcpwire trust ${real}\` to allow project servers to start`);
    expect(diagnostics).toEqual([expect.objectContaining({ severity: 'warning', source: 'project', message: expect.stringContaining(`mcpwire trust ${real}`) })]);
    expect(() => toConnectConfig(byId(servers, 'p'))).toThrow(/not trusted/);
  });

  it('project HTTP servers need trust too (uniform rule)', async () => {
    write(projectFile(), native({ h: { transport: 'http', url: 'https://example.com/mcp', headers: { A: 'b' } } }));
    const { servers } = await loadConfig(opts);
    expect(byId(servers, 'h').untrusted).toBeDefined();
  });

  it('trustProject writes a 0600 store in the global config dir keyed by the real path; loadConfig then trusts', async () => {
    write(projectFile(), native({ p: stdio('node', { args: ['a.js'], env: { K: 'v' }, cwd: '/w' }) }));
    const link = path.join(dir, 'link-to-project');
    fs.symlinkSync(cwd, link);
    const res = await trustProject(link, opts);
    const real = fs.realpathSync(cwd);
    expect(res.project).toBe(real);
    expect(res.servers.map((s) => s.id)).toEqual(['p']);
    const store = trustStorePath(opts);
    expect(path.dirname(store)).toBe(path.dirname(globalFile()));
    expect(fs.statSync(store).mode & 0o777).toBe(0o600);
    const data = JSON.parse(fs.readFileSync(store, 'utf8'));
    expect(Object.keys(data.projects)).toEqual([real]);
    expect(data.projects[real].servers).toEqual([{ id: 'p', file: '.mcpwire/config.json', hash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) }]);
    expect(JSON.stringify(data)).not.toContain('"v"');
    const { servers, diagnostics } = await loadConfig(opts);
    expect(byId(servers, 'p').untrusted).toBeUndefined();
    expect(diagnostics).toEqual([]);
    expect(toConnectConfig(byId(servers, 'p'))).toMatchObject({ command: 'node' });
    // the same project reached through the symlink is the same project
    expect(byId((await loadConfig({ ...opts, cwd: link })).servers, 'p').untrusted).toBeUndefined();
  });

  it('a changed entry (command, args, env value, cwd) asks again; an added server too; revoke removes the trust', async () => {
    write(projectFile(), native({ p: stdio('node', { args: ['a.js'], env: { K: 'v' } }) }));
    await trustProject(cwd, opts);
    for (const changed of [stdio('node', { args: ['b.js'], env: { K: 'v' } }), stdio('node', { args: ['a.js'], env: { K: 'w' } }), stdio('node', { args: ['a.js'], env: { K: 'v' }, cwd: '/x' }), stdio('bash', { args: ['a.js'], env: { K: 'v' } })]) {
      write(projectFile(), native({ p: changed }));
      const { servers, diagnostics } = await loadConfig(opts);
      expect(byId(servers, 'p').untrusted).toEqual({ project: fs.realpathSync(cwd), changed: true });
      expect(diagnostics[0].message).toContain('changed since');
    }
    write(projectFile(), native({ p: stdio('node', { args: ['a.js'], env: { K: 'v' } }), q: stdio('new') }));
    let servers = (await loadConfig(opts)).servers;
    expect(byId(servers, 'p').untrusted).toBeUndefined();
    expect(byId(servers, 'q').untrusted).toBeDefined();
    expect((await listTrustedProjects(opts)).map((p) => p.project)).toEqual([fs.realpathSync(cwd)]);
    expect((await untrustProject(cwd, opts)).removed).toBe(true);
    expect((await untrustProject(cwd, opts)).removed).toBe(false);
    servers = (await loadConfig(opts)).servers;
    expect(byId(servers, 'p').untrusted).toEqual({ project: fs.realpathSync(cwd), changed: false });
    expect(await listTrustedProjects(opts)).toEqual([]);
  });

  it("trust: 'all' trusts everything; a list of dirs trusts those projects only; the store is not consulted", async () => {
    write(projectFile(), native({ p: stdio() }));
    expect(byId((await loadConfig({ ...opts, trust: 'all' })).servers, 'p').untrusted).toBeUndefined();
    expect(byId((await loadConfig({ ...opts, trust: [cwd] })).servers, 'p').untrusted).toBeUndefined();
    expect(byId((await loadConfig({ ...opts, trust: [home] })).servers, 'p').untrusted).toBeDefined();
    await trustProject(cwd, opts);
    expect(byId((await loadConfig({ ...opts, trust: [] })).servers, 'p').untrusted).toBeDefined();
  });

  it('import files are opt-in (imports: true); project imports need trust, user-level ones (~/.cursor) do not', async () => {
    write(path.join(cwd, '.mcp.json'), { mcpServers: { imp: { command: 'evil' } } });
    write(path.join(cwd, '.vscode', 'mcp.json'), { servers: { vs: { command: 'evil' } } });
    write(path.join(home, '.cursor', 'mcp.json'), { mcpServers: { user: { command: 'mine' } } });
    expect((await loadConfig(opts)).servers).toEqual([]);
    const { servers } = await loadConfig({ ...opts, imports: true });
    expect(servers.map((s) => [s.id, s.untrusted !== undefined])).toEqual([['imp', true], ['user', false], ['vs', true]]);
    await trustProject(cwd, opts);
    expect((await loadConfig({ ...opts, imports: true })).servers.map((s) => [s.id, s.untrusted !== undefined])).toEqual([['imp', false], ['user', false], ['vs', false]]);
  });

  it('a project stub disabling a global server keeps it trusted (its command is the user\'s)', async () => {
    write(globalFile(), native({ g: stdio('mine') }));
    write(projectFile(), native({ g: { enabled: false } }));
    const g = byId((await loadConfig(opts)).servers, 'g');
    expect(g).toMatchObject({ enabled: false, source: 'project' });
    expect(g.untrusted).toBeUndefined();
  });

  it('a corrupt trust store trusts nothing and says so; trustProject refuses to overwrite it', async () => {
    write(projectFile(), native({ p: stdio() }));
    fs.mkdirSync(path.dirname(trustStorePath(opts)), { recursive: true });
    fs.writeFileSync(trustStorePath(opts), '{ not json');
    const { servers, diagnostics } = await loadConfig(opts);
    expect(byId(servers, 'p').untrusted).toBeDefined();
    expect(diagnostics.map((d) => d.message).join('\n')).toContain(trustStorePath(opts));
    await expect(trustProject(cwd, opts)).rejects.toThrow(/not rewritten/);
  });
});

describe('the host never starts an untrusted server', () => {
  const fakeConnect = (started: string[]): ConnectFn => async (config) => {
    started.push(config.id ?? '');
    throw new Error('not a real server');
  };

  it("state 'untrusted' with the hint in status(); not spawned; trust: 'all' or the project dir on createHost starts it", async () => {
    write(projectFile(), native({ p: stdio() }));
    write(globalFile(), native({ g: stdio('mine') }));
    const config = await loadConfig(opts);
    const started: string[] = [];
    const host = createHost(config, { connect: fakeConnect(started), backoff: { maxRetries: 0 } });
    await host.start();
    const p = host.serverStatus('p')!;
    expect(p.state).toBe('untrusted');
    expect(p.lastError).toContain('mcpwire trust');
    await host.restart('p');
    expect(host.serverStatus('p')!.state).toBe('untrusted');
    expect(started).toEqual(['g']);
    await host.close();

    for (const trust of ['all', [cwd]] as const) {
      const seen: string[] = [];
      const h2 = createHost(config, { connect: fakeConnect(seen), backoff: { maxRetries: 0 }, trust });
      await h2.start();
      expect(seen.sort()).toEqual(['g', 'p']);
      expect(h2.serverStatus('p')!.state).toBe('error');
      await h2.close();
    }
  });
});
