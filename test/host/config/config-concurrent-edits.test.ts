/**
 * Config and trust-store edits from many writers at once all land: each read-modify-write holds
 * the file's lock and reads the file inside it. In one process (concurrent `addServer`,
 * `setServerEnabled`, `removeServer`, `trustProject`, `untrustProject` on one file), and across
 * processes: parallel `mcpwire mcp add --scope global` runs of the built CLI (`npm run build`
 * first), each of which must keep its entry.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addServer, listTrustedProjects, removeServer, setServerEnabled, trustProject, untrustProject } from '../../../src/host/config/index.js';
import { node, root, runCli } from '../../support/cli-process.js';

const mockJs = path.join(root, 'mock-servers/stdio-server.mjs');
let dir: string;

beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-config-edits-')));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const serversIn = (file: string): Record<string, { enabled?: boolean }> => ((file.endsWith('.yaml') ? YAML.parse(fs.readFileSync(file, 'utf8')) : JSON.parse(fs.readFileSync(file, 'utf8'))) as { mcp: { servers: Record<string, { enabled?: boolean }> } }).mcp.servers;
const ids = (n: number, prefix = 's') => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

describe('config edits at once in one process', () => {
  it('8 concurrent addServer calls on one file keep 8 entries (JSON and YAML)', async () => {
    for (const name of ['config.json', 'config.yaml']) {
      const file = path.join(dir, name);
      const results = await Promise.all(ids(8).map((id) => addServer(file, id, { transport: 'stdio', command: node, args: [mockJs, id] })));
      expect(results.every((r) => !r.replaced)).toBe(true);
      expect(Object.keys(serversIn(file)).sort()).toEqual(ids(8).sort());
    }
  });

  it('concurrent enable/disable/remove/add on one file each land', async () => {
    const file = path.join(dir, 'config.json');
    for (const id of ids(6)) await addServer(file, id, { transport: 'stdio', command: node, args: [mockJs] });
    await Promise.all([
      setServerEnabled(file, 's0', false),
      setServerEnabled(file, 's1', false),
      removeServer(file, 's2'),
      removeServer(file, 's3'),
      addServer(file, 'n0', { transport: 'stdio', command: node }),
      setServerEnabled(file, 'other', false), // an override stub for a lower layer's server
    ]);
    const servers = serversIn(file);
    expect(Object.keys(servers).sort()).toEqual(['n0', 'other', 's0', 's1', 's4', 's5']);
    expect([servers.s0.enabled, servers.s1.enabled, servers.other.enabled, servers.s4.enabled]).toEqual([false, false, false, undefined]);
  });

  it('concurrent trust and untrust of several projects keep each decision in the one store', async () => {
    const store = path.join(dir, 'trusted-projects.json');
    const projects = ids(6, 'p').map((p) => {
      const d = path.join(dir, p);
      fs.mkdirSync(path.join(d, '.mcpwire'), { recursive: true });
      fs.writeFileSync(path.join(d, '.mcpwire', 'config.json'), JSON.stringify({ version: 1, mcp: { servers: { mock: { command: node, args: [mockJs, p] } } } }));
      return d;
    });
    const o = { trustStorePath: store, homedir: path.join(dir, 'home'), env: {} };
    await trustProject(projects[5], o);
    await Promise.all([...projects.slice(0, 5).map((p) => trustProject(p, o)), untrustProject(projects[5], o)]);
    expect((await listTrustedProjects(o)).map((p) => p.project)).toEqual(projects.slice(0, 5));
  });
});

describe('config edits at once from parallel CLI processes', () => {
  it('12 parallel `mcp add --scope global` runs keep 12 entries', async () => {
    const config = path.join(dir, 'xdg', 'mcpwire', 'config.json');
    const env = { PATH: process.env.PATH, HOME: path.join(dir, 'home'), XDG_CONFIG_HOME: path.join(dir, 'xdg'), XDG_RUNTIME_DIR: path.join(dir, 'run'), MCPWIRE_CONFIG_PATH: config, MCPWIRE_NO_DAEMON: '1', NO_COLOR: '1' };
    fs.mkdirSync(env.HOME, { recursive: true });
    const runs = await Promise.all(ids(12).map((id) => runCli(['mcp', 'add', id, '--scope', 'global', '--command', node, '--arg', mockJs], { cwd: dir, env, timeoutMs: 120_000 })));
    expect(runs.map((r) => [r.code, r.stderr])).toEqual(ids(12).map(() => [0, '']));
    expect(Object.keys(serversIn(config)).sort()).toEqual(ids(12).sort());
    expect(fs.existsSync(`${config}.lock`)).toBe(false); // every run let go of the lock
  }, 180_000);
});
