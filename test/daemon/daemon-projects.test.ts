/**
 * The daemon never serves a command with a server started for another directory: two projects
 * whose config files hold the same text, and one global entry used from two directories, each
 * get a server that runs in their own directory. Real processes through the built CLI (`npm run
 * build` first) in a sandbox (temp HOME, XDG_RUNTIME_DIR, global config); the server answers
 * `where` with its working directory and writes a file there on each call, so a call served in
 * the wrong directory shows in both places.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliHere } from '../support/cli-in-process.js';
import { killAll, node, type CliRun } from '../support/cli-process.js';

const NOTICE = /^mcpwire \(via daemon, pid (\d+); --no-daemon to bypass\)\n/;

/** A stdio server whose tool `where` answers its working directory and appends to `calls.txt` there. */
const WHERE = `
import fs from 'node:fs';
import readline from 'node:readline';
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\\n');
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined) return;
  if (m.method === 'initialize') send({ id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'where', version: '1.0.0' } } });
  else if (m.method === 'tools/list') send({ id: m.id, result: { tools: [{ name: 'where', inputSchema: { type: 'object', properties: {} } }] } });
  else if (m.method === 'tools/call') {
    fs.appendFileSync('calls.txt', 'called\\n');
    send({ id: m.id, result: { content: [{ type: 'text', text: process.cwd() }] } });
  } else send({ id: m.id, error: { code: -32601, message: 'no such method' } });
}).on('close', () => process.exit(0));
`;

let dir: string;
let env: NodeJS.ProcessEnv;
let a: string;
let b: string;
const pids: number[] = [];

const mcpwire = (cwd: string, args: string[]): Promise<CliRun> => runCliHere(args, { cwd, env });
const calls = (project: string) => (fs.existsSync(path.join(project, 'calls.txt')) ? fs.readFileSync(path.join(project, 'calls.txt'), 'utf8').split('\n').length - 1 : 0);

async function start(cwd: string): Promise<void> {
  const r = await mcpwire(cwd, ['daemon', 'start']);
  expect([r.code, r.stderr]).toEqual([0, '']);
  const st = JSON.parse((await mcpwire(cwd, ['daemon', 'status', '--json'])).stdout) as { pid: number; servers: { pid?: number; state: string }[] };
  expect(st.servers.map((s) => s.state)).toEqual(['ready']);
  pids.push(st.pid, ...st.servers.flatMap((s) => (s.pid === undefined ? [] : [s.pid])));
}

beforeAll(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-daemon-projects-')));
  const home = path.join(dir, 'home');
  const runtime = path.join(dir, 'run');
  fs.mkdirSync(home);
  fs.mkdirSync(runtime, { mode: 0o700 });
  env = { PATH: process.env.PATH, HOME: home, XDG_RUNTIME_DIR: runtime, XDG_CONFIG_HOME: path.join(home, '.config'), MCPWIRE_CONFIG_PATH: path.join(dir, 'global.json'), NO_COLOR: '1' };
  a = path.join(dir, 'a');
  b = path.join(dir, 'b');
  for (const p of [a, b]) {
    fs.mkdirSync(path.join(p, '.mcpwire'), { recursive: true });
    fs.writeFileSync(path.join(p, 'where.mjs'), WHERE);
    // the same text in both projects: a relative script, no cwd
    fs.writeFileSync(path.join(p, '.mcpwire', 'config.json'), JSON.stringify({ version: 1, mcp: { servers: { here: { transport: 'stdio', command: node, args: ['where.mjs'] } } } }));
  }
});

afterAll(async () => {
  for (const p of [a, b]) await mcpwire(p, ['daemon', 'stop']);
  killAll(pids);
  fs.rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe('the daemon and directories', () => {
  it('two projects with the same config text: a command in B never runs A\'s server (A\'s program in A\'s directory)', async () => {
    for (const p of [a, b]) expect((await mcpwire(p, ['trust'])).code).toBe(0);
    await start(a);
    const inA = await mcpwire(a, ['call', 'here', 'where']);
    expect(inA.stderr).toMatch(NOTICE);
    expect(inA.stdout).toBe(`${a}\n`);
    const inB = await mcpwire(b, ['call', 'here', 'where']);
    expect([inB.code, inB.stdout, inB.stderr]).toEqual([0, `${b}\n`, '']); // its own server, in B
    expect([calls(a), calls(b)]).toEqual([1, 1]);
    const toolsB = await mcpwire(b, ['tools', 'here']);
    expect(toolsB.stderr).toBe(''); // the tools view is not the daemon's either
    expect((await mcpwire(a, ['daemon', 'stop'])).code).toBe(0);
  }, 120_000);

  it('one global entry used from two directories: each gets a server in its own directory; reload from B moves the daemon\'s there', async () => {
    fs.writeFileSync(path.join(dir, 'global.json'), JSON.stringify({ version: 1, mcp: { servers: { here: { transport: 'stdio', command: node, args: ['where.mjs'] } } } }));
    for (const p of [a, b]) {
      fs.rmSync(path.join(p, '.mcpwire'), { recursive: true, force: true });
      fs.rmSync(path.join(p, 'calls.txt'), { force: true });
    }
    await start(a);
    expect((await mcpwire(a, ['call', 'here', 'where'])).stdout).toBe(`${a}\n`);
    const inB = await mcpwire(b, ['call', 'here', 'where']);
    expect([inB.code, inB.stdout, inB.stderr]).toEqual([0, `${b}\n`, '']);
    // `daemon reload` from B: the server is placed in B (restarted), and A's commands run their own
    const reload = await mcpwire(b, ['daemon', 'reload']);
    expect(reload.stdout).toBe('daemon reloaded (restarted: here)\n');
    const viaB = await mcpwire(b, ['call', 'here', 'where']);
    expect(viaB.stderr).toMatch(NOTICE);
    expect(viaB.stdout).toBe(`${b}\n`);
    const ownA = await mcpwire(a, ['call', 'here', 'where']);
    expect([ownA.stdout, ownA.stderr]).toEqual([`${a}\n`, '']);
    expect([calls(a), calls(b)]).toEqual([2, 2]);
    const st = JSON.parse((await mcpwire(b, ['daemon', 'status', '--json'])).stdout) as { servers: { pid?: number }[] };
    pids.push(...st.servers.flatMap((s) => (s.pid === undefined ? [] : [s.pid])));
  }, 120_000);
});
