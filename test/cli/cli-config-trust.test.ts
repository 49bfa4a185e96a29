/**
 * Trust as a user meets it through the built CLI (`npm run build` first; a sandbox HOME, XDG and
 * global config, and a project directory): a server the user adds to the project with `mcp add`
 * is trusted (they wrote it) and `mcp add` says where it wrote it and that it is trusted;
 * `--replace` keeps the trust for the same command and drops it when the command changed;
 * `mcpwire trust` says so when an entry uses a `${VAR}` not set now, trusts it as written, and it
 * starts once the variable is set (never reported as "changed").
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCliHere } from '../support/cli-in-process.js';
import { node, root } from '../support/cli-process.js';

const mockJs = path.join(root, 'mock-servers/stdio-server.mjs');

let dir: string;
let proj: string;
let projectFile: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-cli-trust-')));
  proj = path.join(dir, 'proj');
  projectFile = path.join(proj, '.mcpwire', 'config.json');
  fs.mkdirSync(proj);
  fs.mkdirSync(path.join(dir, 'home'));
  env = { PATH: process.env.PATH, HOME: path.join(dir, 'home'), XDG_CONFIG_HOME: path.join(dir, 'xdg'), XDG_RUNTIME_DIR: path.join(dir, 'run'), MCPWIRE_CONFIG_PATH: path.join(dir, 'xdg', 'mcpwire', 'config.json'), MCPWIRE_NO_DAEMON: '1', NO_COLOR: '1' };
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const run = (args: string[], extra: NodeJS.ProcessEnv = {}) => runCliHere(args, { cwd: proj, env: { ...env, ...extra } });
const untrusted = () => `project server not trusted: run \`mcpwire trust ${proj}\` to allow project servers to start`;

describe('mcp add and trust', () => {
  it('a server added to the project with mcp add is trusted (the user wrote it); mcp add says the file, the layer and the trust', async () => {
    const add = await run(['mcp', 'add', 'mock', '--command', node, '--arg', mockJs]);
    expect(add.code, add.stderr).toBe(0);
    expect(add.stdout).toBe(`added server "mock" (stdio) in project config ${projectFile}; trusted (you added it; a later change by anyone else asks again)\n`);
    const call = await run(['call', 'mock', 'add', 'a=1', 'b=2']);
    expect([call.code, call.stdout, call.stderr]).toEqual([0, '3\n', '']);
    // another server the repository brought in is not trusted by that, and is not "changed" either
    const doc = JSON.parse(fs.readFileSync(projectFile, 'utf8')) as { mcp: { servers: Record<string, unknown> } };
    doc.mcp.servers.repo = { transport: 'stdio', command: node, args: [mockJs, 'repo'] };
    fs.writeFileSync(projectFile, JSON.stringify(doc));
    const repo = await run(['call', 'repo', 'add', 'a=1', 'b=2']);
    expect(repo.code).not.toBe(0);
    expect(repo.stderr).toContain(untrusted());
    expect(repo.stderr).not.toContain('changed');
    expect((await run(['call', 'mock', 'add', 'a=2', 'b=2'])).stdout).toBe('4\n');
    const json = await run(['mcp', 'add', 'other', '--command', node, '--arg', mockJs, '--json']);
    expect(JSON.parse(json.stdout)).toEqual({ id: 'other', scope: 'project', file: projectFile, transport: 'stdio', replaced: false, trusted: true });
  }, 90_000);

  it('the global config is the user\'s own: mcp add says it is trusted', async () => {
    const add = await run(['mcp', 'add', 'mock', '--scope', 'global', '--command', node, '--arg', mockJs]);
    expect(add.stdout).toBe(`added server "mock" (stdio) in global config ${env.MCPWIRE_CONFIG_PATH}; trusted (your own config file)\n`);
  }, 60_000);

  it('--replace keeps the trust when the command is the same (env changed) and drops it when the command changed', async () => {
    await run(['mcp', 'add', 'mock', '--command', node, '--arg', mockJs]);
    const same = await run(['mcp', 'add', 'mock', '--command', node, '--arg', mockJs, '--env', 'K=v', '--replace']);
    expect(same.stdout).toBe(`replaced server "mock" (stdio) in project config ${projectFile}; still trusted (the same command)\n`);
    expect((await run(['call', 'mock', 'add', 'a=1', 'b=2'])).stdout).toBe('3\n');
    const changed = await run(['mcp', 'add', 'mock', '--command', node, '--arg', mockJs, '--arg', 'other-scenario', '--replace']);
    expect(changed.code).toBe(0);
    expect(changed.stdout).toBe(`replaced server "mock" (stdio) in project config ${projectFile}; not trusted: the command changed; run \`mcpwire trust\` to allow it to start\n`);
    const call = await run(['call', 'mock', 'add', 'a=1', 'b=2']);
    expect(call.code).not.toBe(0);
    expect(call.stderr).toContain(untrusted());
    // back to the trusted command: the old trust is gone with the change, not silently back
    const back = await run(['mcp', 'add', 'mock', '--command', node, '--arg', mockJs, '--replace', '--json']);
    expect(JSON.parse(back.stdout)).toMatchObject({ replaced: true, trusted: false });
    expect((await run(['call', 'mock', 'add', 'a=1', 'b=2'])).code).not.toBe(0);
  }, 90_000);

  it('trust with an entry using an unset ${VAR}: says so, trusts it as written, and it starts once the variable is set (not "changed")', async () => {
    fs.mkdirSync(path.dirname(projectFile), { recursive: true });
    fs.writeFileSync(projectFile, JSON.stringify({ version: 1, mcp: { servers: { api: { transport: 'stdio', command: node, args: [mockJs], env: { TOKEN: '${MCPWIRE_TEST_TOKEN}' } } } } }));
    const trust = await run(['trust']);
    expect(trust.code).toBe(0);
    expect(trust.stderr).toContain('mcpwire: note: server "api" uses ${MCPWIRE_TEST_TOKEN}, not set now: trusted as written; it starts once it is set\n');
    expect(trust.stdout).toMatch(/^api\s+stdio\s+\.mcpwire\/config\.json/m);
    const set = { MCPWIRE_TEST_TOKEN: 'tok-123' };
    const call = await run(['call', 'api', 'add', 'a=1', 'b=2'], set);
    expect([call.code, call.stdout, call.stderr]).toEqual([0, '3\n', '']);
    const status = await run(['status', '--json'], set);
    expect(status.stdout).not.toContain('changed');
    expect(status.stdout).not.toContain('tok-123');
  }, 90_000);
});
