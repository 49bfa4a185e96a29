/**
 * `mcpwire daemon` driven through the built CLI (`npm run build` first) in a sandbox of its own
 * (temp HOME, XDG_RUNTIME_DIR and global config): a stateful server keeps its state across
 * commands only through the daemon; the commands print the same with and without it; Ctrl-C
 * cancels the call in the daemon and leaves the server up; the socket's directory is checked;
 * reload, restart of one server, idle timeout. Every daemon is stopped in afterAll.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliHere } from '../support/cli-in-process.js';
import { alive, cli, killAll, node, root, until, type CliRun } from '../support/cli-process.js';

const NOTICE = /^mcpwire \(via daemon, pid (\d+); --no-daemon to bypass\)\n/;
const mockJs = path.join(root, 'mock-servers/stdio-server.mjs');

/** A server whose only state is a counter in its process: `count` returns how many calls it has had. */
const COUNTER = `
import readline from 'node:readline';
let n = 0;
process.stderr.write('counter: started\\n');
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\\n');
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined) return;
  if (m.method === 'initialize') send({ id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'counter', version: '1.0.0' } } });
  else if (m.method === 'tools/list') send({ id: m.id, result: { tools: [{ name: 'count', description: 'Counts the calls this process has had', inputSchema: { type: 'object', properties: {} } }] } });
  else if (m.method === 'tools/call') send({ id: m.id, result: { content: [{ type: 'text', text: String(++n) }] } });
  else if (m.method === 'ping') send({ id: m.id, result: {} });
  else send({ id: m.id, error: { code: -32601, message: 'no such method' } });
}).on('close', () => process.exit(0));
`;

interface Box {
  dir: string;
  env: NodeJS.ProcessEnv;
  config: string;
  runtime: string;
}

const boxes: Box[] = [];
const pids: number[] = [];

function box(servers: (dir: string) => Record<string, unknown>): Box {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-daemon-'));
  const home = path.join(dir, 'home');
  const runtime = path.join(dir, 'run');
  fs.mkdirSync(home, { recursive: true });
  fs.mkdirSync(runtime, { mode: 0o700 });
  fs.writeFileSync(path.join(dir, 'counter.mjs'), COUNTER);
  const config = path.join(dir, 'config.json');
  fs.writeFileSync(config, JSON.stringify({ version: 1, mcp: { servers: servers(dir) } }));
  const env = { ...process.env, HOME: home, XDG_RUNTIME_DIR: runtime, XDG_CONFIG_HOME: path.join(home, '.config'), MCPWIRE_CONFIG_PATH: config, MCPWIRE_TRACE: '', MCPWIRE_COLUMNS: '', MCPWIRE_NO_DAEMON: '', MCPWIRE_DAEMON_IDLE_MS: '' };
  const b = { dir, env, config, runtime };
  boxes.push(b);
  return b;
}

const stdioEntry = (...args: string[]) => ({ transport: 'stdio', command: node, args });

function mcpwire(b: Box, args: string[], input?: string): Promise<CliRun> {
  return runCliHere(args, { cwd: b.dir, env: b.env, ...(input !== undefined ? { input } : {}) });
}

interface StatusJson {
  running: boolean;
  pid: number;
  servers: { id: string; state: string; pid?: number; calls: number }[];
}

async function daemonStatus(b: Box): Promise<StatusJson> {
  const r = await mcpwire(b, ['daemon', 'status', '--json']);
  const st = JSON.parse(r.stdout) as StatusJson;
  if (st.running) pids.push(st.pid, ...st.servers.flatMap((s) => (s.pid === undefined ? [] : [s.pid])));
  return st;
}

async function startDaemon(b: Box, ...extra: string[]): Promise<StatusJson> {
  const r = await mcpwire(b, ['daemon', 'start', ...extra]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return daemonStatus(b);
}

const socketOf = (b: Box) => path.join(b.runtime, 'mcpwire', 'daemon.sock');

/**
 * The daemon of `b` running, for a describe that may run alone (`-t`): started when its socket is
 * not there; after the first test it is (`daemon start` on a running daemon is a no-op, asserted
 * once in "commands running at once…", so it is not run again for nothing).
 */
async function ensureDaemon(b: Box): Promise<void> {
  if (!fs.existsSync(socketOf(b))) await mcpwire(b, ['daemon', 'start']);
}

const traceOf = (b: Box, id: string) => path.join(b.runtime, 'mcpwire', 'traces', `${id}.jsonl`);
const read = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '');

let main: Box;

beforeAll(async () => {
  main = box((dir) => ({ mock: stdioEntry(mockJs), counter: stdioEntry(path.join(dir, 'counter.mjs')) }));
});

afterAll(async () => {
  // a daemon the tests left running (its socket is there: a test stopped it, or its idle timeout did, otherwise)
  for (const b of boxes) if (fs.existsSync(socketOf(b))) await mcpwire(b, ['daemon', 'stop']);
  killAll(pids);
  for (const b of boxes) fs.rmSync(b.dir, { recursive: true, force: true });
}, 60_000);

describe('mcpwire daemon', () => {
  it('a server with per-process state keeps it across two `call` commands through the daemon, and not without it', async () => {
    const cold = [await mcpwire(main, ['call', 'counter', 'count']), await mcpwire(main, ['call', 'counter', 'count'])];
    expect(cold.map((r) => [r.code, r.stdout, r.stderr])).toEqual([
      [0, '1\n', ''],
      [0, '1\n', ''],
    ]);
    const st = await startDaemon(main);
    expect(st.servers.map((s) => [s.id, s.state])).toEqual([
      ['counter', 'ready'],
      ['mock', 'ready'],
    ]);
    const warm = [await mcpwire(main, ['call', 'counter', 'count']), await mcpwire(main, ['call', 'counter', 'count'])];
    expect(warm.map((r) => [r.code, r.stdout])).toEqual([
      [0, '1\n'],
      [0, '2\n'],
    ]);
    expect(warm[0].stderr).toMatch(NOTICE);
    expect(NOTICE.exec(warm[0].stderr)?.[1]).toBe(String(st.pid));
    // --no-daemon: a process of its own again
    expect((await mcpwire(main, ['--no-daemon', 'call', 'counter', 'count'])).stdout).toBe('1\n');
    expect((await mcpwire(main, ['call', 'counter', 'count'])).stdout).toBe('3\n');
    const after = await daemonStatus(main);
    expect(after.servers.find((s) => s.id === 'counter')).toMatchObject({ state: 'ready', pid: st.servers.find((s) => s.id === 'counter')!.pid });
    // the daemon's files: a trace per server, each stdio server's stderr
    expect(read(traceOf(main, 'counter'))).toContain('"method":"tools/call"');
    expect(read(path.join(main.runtime, 'mcpwire', 'logs', 'counter.log'))).toContain('counter: started\n');
  }, 120_000);
});

const ASK = JSON.stringify({ method: 'elicitation/create', params: { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } } });

/** Commands compared with and without the daemon: listings, results, tool errors, usage errors, timeouts, progress, elicitation. */
const SAME: string[][] = [
  ['tools'],
  ['tools', 'mock'],
  ['tools', 'mock', 'add'],
  ['tools', '--json'],
  ['tools', 'mock', 'nope'],
  ['call', 'mock', 'add', 'a=1', 'b=2'],
  ['call', 'mock', 'add', 'a=1', 'b=2', '--json'],
  ['call', 'mock', 'structured', 'text=hi', '--structured'],
  ['call', 'mock', 'fail', 'message=boom'],
  ['call', 'mock', 'nope'],
  ['call', 'mock', 'add', 'a=x', 'b=2'],
  ['call', 'mock', 'progress', 'steps=2', 'intervalMs=50'],
  // the direct path spends the same bound on spawning and initializing the server: room for a loaded machine
  ['--timeout-ms', '2000', 'call', 'mock', 'slow', 'ms=8000'],
  ['call', 'mock', 'ask', '--args', ASK],
  ['resources'],
  ['resources', 'mock', '--json'],
  ['templates'],
  ['prompts'],
  ['prompts', 'counter'],
  ['read', 'mock', 'mem://readme'],
  ['read', 'mock', 'mem://pixel.png'],
  ['read', 'mock', 'mem://missing'],
  ['prompt', 'mock', 'greet', 'name=Al'],
  ['prompt', 'mock', 'greet'],
  ['prompt', 'mock', 'plain', '--json'],
];

describe('mcpwire daemon: the commands print the same through it', () => {
  beforeAll(() => ensureDaemon(main), 60_000); // already running after the first test
  it.each(SAME.map((args) => [args.join(' '), args]))('%s: same stdout, stderr and exit code (plus the one notice line)', async (_, args) => {
    const direct = await mcpwire(main, ['--no-daemon', ...(args as string[])]);
    const viaDaemon = await mcpwire(main, args as string[]);
    expect(viaDaemon.stderr).toMatch(NOTICE);
    expect({ code: viaDaemon.code, stdout: viaDaemon.stdout, stderr: viaDaemon.stderr.replace(NOTICE, '') }).toEqual({ code: direct.code, stdout: direct.stdout, stderr: direct.stderr });
  }, 60_000);
});

describe('mcpwire daemon: control', () => {
  beforeAll(() => ensureDaemon(main), 60_000);
  it('Ctrl-C on a command cancels its call in the daemon (notifications/cancelled) and the server stays up', async () => {
    const before = await daemonStatus(main);
    const mockPid = before.servers.find((s) => s.id === 'mock')!.pid;
    const child = spawn(node, [cli, 'call', 'mock', 'slow', 'ms=60000'], { cwd: main.dir, env: main.env, stdio: ['ignore', 'pipe', 'pipe'] });
    pids.push(child.pid!);
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const trace = traceOf(main, 'mock');
    const sent = (t: string) => t.split('\n').filter((l) => l.includes('"name":"slow"') && l.includes('"ms":60000')).length;
    const already = sent(read(trace));
    expect(await until(() => sent(read(trace)) > already, 30_000)).toBe(true);
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stderr).toMatch(NOTICE);
    expect(stderr).toContain('mcpwire: call interrupted (SIGINT)');
    expect(await until(() => /"method":"notifications\/cancelled".*"reason":"cancelled by the command"/.test(read(trace)), 10_000)).toBe(true);
    const after = await daemonStatus(main);
    expect(after.pid).toBe(before.pid);
    expect(after.servers.find((s) => s.id === 'mock')).toMatchObject({ state: 'ready', pid: mockPid });
    expect((await mcpwire(main, ['call', 'mock', 'add', 'a=2', 'b=3'])).stdout).toBe('5\n');
  }, 90_000);

  it('a command killed mid-call (its socket closes) has its call cancelled; the server stays up', async () => {
    const before = await daemonStatus(main);
    const child = spawn(node, [cli, 'call', 'mock', 'slow', 'ms=61000'], { cwd: main.dir, env: main.env, stdio: 'ignore' });
    pids.push(child.pid!);
    const exited = new Promise((resolve) => child.on('close', resolve));
    const trace = traceOf(main, 'mock');
    expect(await until(() => read(trace).includes('"ms":61000'), 30_000)).toBe(true);
    child.kill('SIGKILL');
    await exited;
    expect(await until(() => /"method":"notifications\/cancelled".*"reason":"the command went away"/.test(read(trace)), 10_000)).toBe(true);
    const after = await daemonStatus(main);
    expect(after.servers.find((s) => s.id === 'mock')).toMatchObject({ state: 'ready', pid: before.servers.find((s) => s.id === 'mock')!.pid });
  }, 60_000);

  it('commands running at once share the server through the daemon, each with its own answer', async () => {
    const one = await mcpwire(main, ['call', 'counter', 'count']);
    const first = Number(one.stdout);
    const runs = await Promise.all([1, 2, 3, 4].map(() => mcpwire(main, ['call', 'counter', 'count'])));
    expect(runs.map((r) => r.code)).toEqual([0, 0, 0, 0]);
    expect(runs.map((r) => Number(r.stdout)).sort((a, b) => a - b)).toEqual([first + 1, first + 2, first + 3, first + 4]);
    // The daemon's pid from the notice of a command it served: the same pid `daemon status` gives
    // (asserted in the first test), without a process for it.
    const pid = NOTICE.exec(one.stderr)?.[1];
    expect(pid).toMatch(/^\d+$/);
    const again = await mcpwire(main, ['daemon', 'start']);
    expect([again.code, again.stdout]).toEqual([0, `daemon already running (pid ${pid}); "mcpwire daemon reload" sends it the current config\n`]);
  }, 90_000);

  it('lives in a 0700 directory with a 0600 socket; a directory open to others is never used', async () => {
    const dir = path.join(main.runtime, 'mcpwire');
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.join(dir, 'daemon.sock')).mode & 0o777).toBe(0o600);
    fs.chmodSync(dir, 0o755);
    try {
      const r = await mcpwire(main, ['call', 'counter', 'count']);
      expect([r.code, r.stdout, r.stderr]).toEqual([0, '1\n', '']); // its own process: the count starts again
      const st = await mcpwire(main, ['daemon', 'status']);
      expect(st.code).toBe(1);
      expect(st.stderr).toContain("the daemon's directory is not safe to use");
      expect(st.stderr).toContain('mode 755');
    } finally {
      fs.chmodSync(dir, 0o700);
    }
  }, 60_000);

  it('--trace, --strict and MCPWIRE_NO_DAEMON=1 keep a command off the daemon (its own session)', async () => {
    const trace = path.join(main.dir, 'own.jsonl');
    const traced = await mcpwire(main, ['--trace', trace, 'call', 'counter', 'count']);
    expect([traced.code, traced.stdout, traced.stderr]).toEqual([0, '1\n', '']);
    expect(read(trace)).toContain('"method":"tools/call"');
    const strict = await runCliHere(['--trace', trace, '--strict', 'call', 'counter', 'count'], { cwd: main.dir, env: main.env });
    expect([strict.code, strict.stdout]).toEqual([0, '1\n']);
    const env = await runCliHere(['call', 'counter', 'count'], { cwd: main.dir, env: { ...main.env, MCPWIRE_NO_DAEMON: '1' } });
    expect([env.code, env.stdout, env.stderr]).toEqual([0, '1\n', '']);
    expect((await mcpwire(main, ['call', 'counter', 'count'])).stderr).toMatch(NOTICE); // and without them, it is used
  }, 60_000);

  it('a command whose config entry differs from the one the daemon holds connects on its own', async () => {
    const other = path.join(main.dir, 'other.json');
    fs.writeFileSync(other, JSON.stringify({ version: 1, mcp: { servers: { counter: { ...stdioEntry(path.join(main.dir, 'counter.mjs')), env: { MODE: 'other' } } } } }));
    expect((await mcpwire(main, ['call', 'counter', 'count'])).stderr).toMatch(NOTICE); // the daemon holds "counter"…
    const r = await mcpwire(main, ['--config', other, 'call', 'counter', 'count']);
    expect([r.code, r.stdout, r.stderr]).toEqual([0, '1\n', '']); // …but not this entry of it
  }, 60_000);

  it('restart <id> restarts that server alone; reload applies config changes by difference', async () => {
    const before = await daemonStatus(main);
    const pidOf = (st: StatusJson, id: string) => st.servers.find((s) => s.id === id)?.pid;
    const r = await mcpwire(main, ['daemon', 'restart', 'counter']);
    expect([r.code, r.stdout]).toEqual([0, 'server "counter": ready\n']);
    const restarted = await daemonStatus(main);
    expect(restarted.pid).toBe(before.pid);
    expect(pidOf(restarted, 'counter')).not.toBe(pidOf(before, 'counter'));
    expect(pidOf(restarted, 'mock')).toBe(pidOf(before, 'mock'));
    expect((await mcpwire(main, ['call', 'counter', 'count'])).stdout).toBe('1\n');

    const config = JSON.parse(fs.readFileSync(main.config, 'utf8'));
    fs.writeFileSync(main.config, JSON.stringify({ version: 1, mcp: { servers: { ...config.mcp.servers, extra: stdioEntry(mockJs) } } }));
    try {
      expect((await mcpwire(main, ['daemon', 'reload'])).stdout).toBe('daemon reloaded (added: extra)\n');
      const reloaded = await daemonStatus(main);
      expect(reloaded.servers.map((s) => [s.id, s.state])).toEqual([
        ['counter', 'ready'],
        ['extra', 'ready'],
        ['mock', 'ready'],
      ]);
      expect(pidOf(reloaded, 'counter')).toBe(pidOf(restarted, 'counter'));
      expect((await mcpwire(main, ['call', 'extra', 'echo', 'text=hi'])).stderr).toMatch(NOTICE);
    } finally {
      fs.writeFileSync(main.config, JSON.stringify(config));
    }
    expect((await mcpwire(main, ['daemon', 'reload'])).stdout).toBe('daemon reloaded (removed: extra)\n');
  }, 90_000);

  it('stop ends the daemon and its servers', async () => {
    const st = await daemonStatus(main);
    const r = await mcpwire(main, ['daemon', 'stop']);
    expect([r.code, r.stdout]).toEqual([0, `daemon stopped (pid ${st.pid})\n`]);
    for (const s of st.servers) expect(await until(() => !alive(s.pid!), 10_000)).toBe(true);
    expect(fs.existsSync(socketOf(main))).toBe(false);
    const after = await mcpwire(main, ['daemon', 'status']);
    expect([after.code, after.stdout]).toEqual([1, 'no daemon running\n']);
    const direct = await mcpwire(main, ['call', 'counter', 'count']);
    expect([direct.stdout, direct.stderr]).toEqual(['1\n', '']);
  }, 60_000);

  it('with keep_alive: true on some entries it holds those alone; the others are connected by each command', async () => {
    const kept = box((dir) => ({ counter: { ...stdioEntry(path.join(dir, 'counter.mjs')), keep_alive: true }, other: stdioEntry(path.join(dir, 'counter.mjs')) }));
    const st = await startDaemon(kept, '--idle-ms', '60000');
    expect(st.servers.map((s) => [s.id, s.state])).toEqual([['counter', 'ready']]);
    const held = [await mcpwire(kept, ['call', 'counter', 'count']), await mcpwire(kept, ['call', 'counter', 'count'])];
    expect(held.map((r) => r.stdout)).toEqual(['1\n', '2\n']);
    const own = [await mcpwire(kept, ['call', 'other', 'count']), await mcpwire(kept, ['call', 'other', 'count'])];
    expect(own.map((r) => [r.stdout, r.stderr])).toEqual([
      ['1\n', ''],
      ['1\n', ''],
    ]);
  }, 90_000);

  it('stops by itself after the idle timeout without a request', async () => {
    const idle = box((dir) => ({ counter: stdioEntry(path.join(dir, 'counter.mjs')) }));
    const st = await startDaemon(idle, '--idle-ms', '4000');
    expect((await mcpwire(idle, ['call', 'counter', 'count'])).stdout).toBe('1\n');
    expect(await until(() => !alive(st.pid), 30_000)).toBe(true);
    expect(await until(() => !alive(st.servers[0].pid!), 10_000)).toBe(true);
    expect(read(path.join(idle.runtime, 'mcpwire', 'daemon.log'))).toMatch(/idle for 4000 ms: stopping/);
  }, 60_000);
});
