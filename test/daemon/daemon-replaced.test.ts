/**
 * A daemon that is still stopping never removes the socket of the daemon that replaced it, and a
 * starting daemon treats a socket file as stale (removes it, listens there) only holding the
 * socket's lock. Real processes through
 * the built CLI (`npm run build` first) in a sandbox: the old daemon's server ignores stdin EOF
 * and SIGTERM (test/fixtures/stubborn-stdio-server.mjs), so closing it takes the whole ladder;
 * the old daemon is frozen (SIGSTOP) inside that window once its listener is closed, a new
 * daemon starts, then the old one is let go (SIGCONT) to finish its stop. Whether the new
 * daemon's socket gets the old one's inode number there is up to the filesystem (on ext4 the new
 * daemon's lock directory usually takes it first), so the same ordering is also run in process,
 * with that inode number at the socket's path made certain.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { withFileLock } from '../../src/auth/lock.js';
import { Daemon } from '../../src/daemon/server.js';
import { wait } from '../../src/util/sleep.js';
import { alive, killAll, node, root, runCli, until, type CliRun } from '../support/cli-process.js';

const stubborn = path.join(root, 'test/fixtures/stubborn-stdio-server.mjs');
const pids: number[] = [];
const dirs: string[] = [];
afterAll(() => {
  killAll(pids);
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

/** Whether something accepts a connection on the Unix socket `file`. */
function answers(file: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(file);
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}

interface Status {
  running: boolean;
  pid: number;
  servers: { pid?: number }[];
}

/** A test's own sandbox (its HOME, runtime directory and so its daemon's socket, its config), and the CLI run in it. */
function sandbox() {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-daemon-replaced-')));
  dirs.push(dir);
  const home = path.join(dir, 'home');
  const runtime = path.join(dir, 'run');
  fs.mkdirSync(home);
  fs.mkdirSync(runtime, { mode: 0o700 });
  const socket = path.join(runtime, 'mcpwire', 'daemon.sock');
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, XDG_RUNTIME_DIR: runtime, XDG_CONFIG_HOME: path.join(home, '.config'), MCPWIRE_CONFIG_PATH: path.join(dir, 'global.json'), NO_COLOR: '1' };
  const mcpwire = (args: string[]): Promise<CliRun> => runCli(args, { cwd: dir, env });
  const status = async (): Promise<Status> => {
    const st = JSON.parse((await mcpwire(['daemon', 'status', '--json'])).stdout) as Status;
    if (st.running) pids.push(st.pid, ...st.servers.flatMap((s) => (s.pid === undefined ? [] : [s.pid])));
    return st;
  };
  return { dir, env, socket, mcpwire, status };
}

// Each test has a sandbox of its own (its daemons on a socket of their own): they run at once.
describe.concurrent('daemon socket ownership', () => {
  it('a daemon stopping slowly does not remove the socket of the daemon started meanwhile', async ({ expect }) => {
    const { dir, socket, mcpwire, status } = sandbox();
    const pidFile = path.join(dir, 'server.pid');
    fs.writeFileSync(path.join(dir, 'global.json'), JSON.stringify({ version: 1, mcp: { servers: { stubborn: { transport: 'stdio', command: node, args: [stubborn, pidFile] } } } }));
    expect((await mcpwire(['daemon', 'start'])).code).toBe(0);
    const old = await status();
    const oldServer = old.servers[0].pid!;
    process.kill(old.pid, 'SIGTERM'); // the old daemon stops: its listener closes, then its server takes the ladder
    expect(await until(() => !fs.existsSync(socket), 10_000)).toBe(true);
    process.kill(old.pid, 'SIGSTOP');
    try {
      expect(alive(oldServer)).toBe(true); // still closing its server: the window the new daemon starts in
      // The new daemon is sent no server (a daemon never reads a config: `daemon start` sends it
      // what the command resolved), so its stop, the test's last step, waits on no server's ladder.
      fs.writeFileSync(path.join(dir, 'global.json'), JSON.stringify({ version: 1, mcp: { servers: {} } }));
      const started = await mcpwire(['daemon', 'start']);
      expect([started.code, started.stderr]).toEqual([0, '']);
      const fresh = await status();
      expect(fresh.pid).not.toBe(old.pid);
    } finally {
      process.kill(old.pid, 'SIGCONT');
    }
    expect(await until(() => !alive(old.pid), 30_000)).toBe(true); // the old daemon finished its stop
    const after = await status();
    expect(after.running).toBe(true);
    expect(fs.existsSync(socket)).toBe(true);
    const stop = await mcpwire(['daemon', 'stop']);
    expect(stop.stdout).toBe(`daemon stopped (pid ${after.pid})\n`);
  }, 120_000);

  it('a stopping daemon removes no socket file once its listener closed, not even one with the device and inode its own had', async ({ expect }) => {
    const { dir } = sandbox();
    // A filesystem hands a freed inode number to the next file it creates (ext4 does: a socket
    // bound where a closed one was gets its number most of the time), so the socket of the daemon
    // started meanwhile can carry the very dev:ino of the stopping daemon's. Here that file is
    // made on every filesystem: a second link keeps the inode past the listener's close, and
    // is moved back to the socket's path while the daemon closes its servers.
    const run = path.join(dir, 'own');
    const paths = { dir: run, socket: path.join(run, 'daemon.sock'), log: path.join(run, 'daemon.log'), traces: path.join(run, 'traces'), logs: path.join(run, 'logs') };
    for (const d of [run, paths.traces, paths.logs]) fs.mkdirSync(d, { recursive: true, mode: 0o700 });
    const daemon = new Daemon({ paths, idleMs: 0, log: () => {} });
    await daemon.listen();
    const bound = fs.statSync(paths.socket);
    const kept = path.join(run, 'kept.sock');
    fs.linkSync(paths.socket, kept);
    const stopping = daemon.stop(); // the listener closes at once, its file with it
    expect(fs.existsSync(paths.socket)).toBe(false);
    fs.renameSync(kept, paths.socket);
    expect([fs.statSync(paths.socket).dev, fs.statSync(paths.socket).ino]).toEqual([bound.dev, bound.ino]);
    await stopping;
    expect(fs.existsSync(paths.socket)).toBe(true);
  });

  it('a starting daemon judges a socket file stale only holding the socket\'s lock', async ({ expect }) => {
    const { dir, env, socket, mcpwire, status } = sandbox();
    fs.writeFileSync(path.join(dir, 'global.json'), JSON.stringify({ version: 1, mcp: { servers: {} } }));
    fs.mkdirSync(path.dirname(socket), { recursive: true, mode: 0o700 });
    // a socket file whose daemon died (SIGKILL leaves the file)
    const dead = spawn(node, ['-e', `require('net').createServer().listen(${JSON.stringify(socket)}, () => console.log('up'))`], { stdio: ['ignore', 'pipe', 'ignore'] });
    await new Promise((resolve) => dead.stdout.once('data', resolve));
    dead.kill('SIGKILL');
    await new Promise((resolve) => dead.once('exit', resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const holding = new Promise<void>((resolve) => (locked = resolve));
    // another process (this one) holds the socket's lock, as a daemon starting does
    const held = withFileLock(socket, async () => {
      locked();
      await released;
    });
    await holding;
    const daemon = spawn(node, [path.join(root, 'dist/daemon/main.js'), '--idle-ms', '60000'], { cwd: dir, env, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
    pids.push(daemon.pid!);
    let stderr = '';
    daemon.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    try {
      // it reached the lock and waits there (however long a loaded machine took to get there)…
      expect(await until(() => stderr.includes("the socket's lock is held"), 30_000), stderr).toBe(true);
      expect(await answers(socket)).toBe(false); // …and nothing listens in place of the stale file
      expect(fs.existsSync(socket)).toBe(true);
    } finally {
      release();
      await held;
    }
    let up = false;
    for (const end = Date.now() + 30_000; Date.now() < end && !up; await wait(100)) up = await answers(socket);
    expect(up, stderr).toBe(true);
    const st = await status();
    expect([st.running, st.pid]).toEqual([true, daemon.pid]);
    expect((await mcpwire(['daemon', 'stop'])).code).toBe(0);
  }, 120_000);
});
