/**
 * The library side of closing servers on exit: `closeOnExit` on connect() and createHost(). A program that gets
 * SIGINT/SIGTERM closes its stdio servers (stdin → SIGTERM → SIGKILL, basic.lifecycle#15) and
 * exits with 130/143 unless it listens for the signal itself; on 'exit' the process groups are
 * SIGKILLed synchronously. One listener per event however many servers, removed when the last
 * one closes.
 *
 * The programs are real child processes importing dist/ (`npm run build` first); the server is
 * test/fixtures/stubborn-stdio-server.mjs (ignores stdin EOF, SIGTERM and SIGINT).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it, type TestContext } from 'vitest';
import { liveExitClosers } from '../../src/transport/exit-hooks.js';
import { StdioTransport } from '../../src/transport/stdio.js';
import { alive, killAll } from '../support/cli-process.js';
import { tempDirs } from '../support/temp-dirs.js';

const root = path.resolve(path.dirname(path.dirname(fileURLToPath(import.meta.url))), '..');
const dist = pathToFileURL(path.join(root, 'dist/index.js')).href;
const hostApi = pathToFileURL(path.join(root, 'dist/host-api.js')).href;
const stubborn = path.join(root, 'test/fixtures/stubborn-stdio-server.mjs');
const node = process.execPath;

const tmp = tempDirs('mcpwire-close-on-exit-');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(cond: () => boolean, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(50)) if (cond()) return true;
  return cond();
}

interface Program {
  code: number | null;
  signal: NodeJS.Signals | null;
  serverPid: number;
  serverGone: boolean;
  stdout: string;
  stderr: string;
}

/**
 * Runs `body` (an ES module; `SERVER` is the stdio config of a stubborn server) until it prints
 * "ready", then sends `sig` (if any) and waits for the program to exit. The server is SIGKILLed
 * when the test ends (whatever the program did to it): each test kills its own server only, so
 * tests that run at once leave each other's servers alone.
 */
async function program({ expect, onTestFinished }: TestContext, body: string, sig?: NodeJS.Signals): Promise<Program> {
  const dir = tmp();
  const pidFile = path.join(dir, 'server.pid');
  const file = path.join(dir, 'program.mjs');
  const server = { transport: 'stdio', id: 'stubborn', command: node, args: [stubborn, pidFile] };
  fs.writeFileSync(file, `const SERVER = ${JSON.stringify(server)};\nconst PID_FILE = ${JSON.stringify(pidFile)};\n${body}`);
  const child = spawn(node, [file], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, MCPWIRE_TRACE: '' } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  try {
    const ready = await until(() => stdout.includes('ready') && fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8') !== '', 30_000);
    expect(ready, `program not ready; stderr: ${stderr}`).toBe(true);
    const serverPid = Number(fs.readFileSync(pidFile, 'utf8'));
    onTestFinished(() => killAll([serverPid]));
    if (sig) child.kill(sig);
    const exit = await Promise.race([exited, sleep(30_000).then(() => undefined)]);
    expect(exit, `program did not exit; stderr: ${stderr}`).toBeDefined();
    const serverGone = await until(() => !alive(serverPid), 15_000);
    return { ...exit!, serverPid, serverGone, stdout, stderr };
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

// Each program waits out its own shutdown (stdin EOF, then SIGTERM, then SIGKILL of its own
// stubborn server) in processes of its own: the programs run at once.
describe.concurrent('closeOnExit (library)', { timeout: 120_000 }, () => {
  it('connect({closeOnExit: true}) then SIGTERM: the server is closed and the program exits 143', async (ctx) => {
    const { expect } = ctx;
    const r = await program(
      ctx,
      `import { connect } from ${JSON.stringify(dist)};
       const client = await connect(SERVER, { closeOnExit: true, shutdown: { stdinCloseWaitMs: 300, sigtermWaitMs: 300 } });
       console.log('ready');
       setInterval(() => {}, 60_000);`,
      'SIGTERM',
    );
    expect(r.serverGone, r.stderr).toBe(true);
    expect({ code: r.code, signal: r.signal }).toEqual({ code: 143, signal: null });
  });

  it('createHost(servers, {closeOnExit: true}) then SIGINT: the server is closed and the program exits 130', async (ctx) => {
    const { expect } = ctx;
    const r = await program(
      ctx,
      `import { createHost } from ${JSON.stringify(hostApi)};
       const resolved = { id: 'stubborn', transport: 'stdio', source: 'global', file: 'x.json', enabled: true,
         config: { transport: 'stdio', command: SERVER.command, args: SERVER.args, env: {}, enabled: true, requestTimeoutMs: 60000 } };
       const host = createHost([resolved], { closeOnExit: true, backoff: { maxRetries: 0 }, clientOptions: { shutdown: { stdinCloseWaitMs: 300, sigtermWaitMs: 300 } } });
       await host.start();
       console.log('ready', JSON.stringify(host.status().map((s) => s.state)));
       setInterval(() => {}, 60_000);`,
      'SIGINT',
    );
    expect(r.stdout).toContain('["ready"]');
    expect(r.serverGone, r.stderr).toBe(true);
    expect({ code: r.code, signal: r.signal }).toEqual({ code: 130, signal: null });
  });

  it('signal-exit listening too (loaded by proper-lockfile, the token store lock) does not stop the exit: SIGINT closes the server, exit 130', async (ctx) => {
    const { expect } = ctx;
    const lockfile = pathToFileURL(path.join(root, 'node_modules/proper-lockfile/index.js')).href;
    const r = await program(
      ctx,
      `import ${JSON.stringify(lockfile)};
       import { connect } from ${JSON.stringify(dist)};
       const client = await connect(SERVER, { closeOnExit: true, shutdown: { stdinCloseWaitMs: 300, sigtermWaitMs: 300 } });
       console.log('ready', process.listenerCount('SIGINT'));
       setInterval(() => {}, 60_000);`,
      'SIGINT',
    );
    expect(r.stdout).toContain('ready 2'); // ours and signal-exit's
    expect(r.serverGone, r.stderr).toBe(true);
    expect({ code: r.code, signal: r.signal }).toEqual({ code: 130, signal: null });
  });

  it("process.exit() while connected: the synchronous 'exit' hook SIGKILLs the server's process group", async (ctx) => {
    const { expect } = ctx;
    const r = await program(
      ctx,
      `import { connect } from ${JSON.stringify(dist)};
       await connect(SERVER, { closeOnExit: true });
       console.log('ready');
       setTimeout(() => process.exit(3), 200);`,
    );
    expect(r.serverGone, r.stderr).toBe(true);
    expect(r.code).toBe(3);
  });

  it("a crash (uncaught exception) while connected: 'exit' still SIGKILLs the server's process group", async (ctx) => {
    const { expect } = ctx;
    const r = await program(
      ctx,
      `import { connect } from ${JSON.stringify(dist)};
       await connect(SERVER, { closeOnExit: true });
       console.log('ready');
       setTimeout(() => { throw new Error('boom'); }, 200);`,
    );
    expect(r.serverGone, r.stderr).toBe(true);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('boom');
  });

  it('a program with its own SIGTERM listener decides: servers are closed, the program is not exited for it', async (ctx) => {
    const { expect } = ctx;
    const r = await program(
      ctx,
      `import fs from 'node:fs';
       import { connect } from ${JSON.stringify(dist)};
       await connect(SERVER, { closeOnExit: true, shutdown: { stdinCloseWaitMs: 300, sigtermWaitMs: 300 } });
       process.on('SIGTERM', () => {
         const pid = Number(fs.readFileSync(PID_FILE, 'utf8'));
         const alive = () => { try { process.kill(pid, 0); return true; } catch { return false; } };
         const t = setInterval(() => { if (!alive()) { console.log('server closed'); clearInterval(t); setTimeout(() => process.exit(7), 300); } }, 50);
       });
       console.log('ready');
       setInterval(() => {}, 60_000);`,
      'SIGTERM',
    );
    expect(r.serverGone, r.stderr).toBe(true);
    expect(r.stdout).toContain('server closed');
    expect(r.code).toBe(7);
  });

  it('without closeOnExit nothing is installed, and after close() the program ends by itself (no hook keeps it alive)', async (ctx) => {
    const { expect } = ctx;
    const r = await program(
      ctx,
      `import { connect } from ${JSON.stringify(dist)};
       const counts = () => ['SIGHUP', 'SIGINT', 'SIGTERM', 'exit'].map((e) => process.listenerCount(e));
       const base = counts();
       const plain = await connect(SERVER, { shutdown: { stdinCloseWaitMs: 100, sigtermWaitMs: 100 } });
       const before = counts().map((n, i) => n - base[i]);
       await plain.close();
       const c = await connect({ ...SERVER, args: [SERVER.args[0], PID_FILE + '.2'] }, { closeOnExit: true, shutdown: { stdinCloseWaitMs: 100, sigtermWaitMs: 100 } });
       const during = counts().map((n, i) => n - base[i]);
       await c.close();
       const after = counts().map((n, i) => n - base[i]);
       console.log('ready', JSON.stringify({ before, during, after }));`,
    );
    expect(r.serverGone, r.stderr).toBe(true);
    expect(r.code).toBe(0);
    const m = JSON.parse(r.stdout.slice(r.stdout.indexOf('{')));
    expect(m).toEqual({ before: [0, 0, 0, 0], during: [1, 1, 1, 1], after: [0, 0, 0, 0] });
  });
});

describe('exit hooks are registered once per process', () => {
  it('15 stdio transports with closeOnExit add one listener per event, no MaxListeners warning, and none after they close', async () => {
    const counts = () => ['SIGHUP', 'SIGINT', 'SIGTERM', 'exit'].map((e) => process.listenerCount(e));
    const base = counts();
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    const ts = Array.from(
      { length: 15 },
      () => new StdioTransport({ command: node, args: ['-e', 'process.stdin.resume(); process.stdin.on("end", () => process.exit(0))'], closeOnExit: true }),
    );
    try {
      await Promise.all(ts.map((t) => t.start()));
      expect(liveExitClosers()).toBe(15);
      expect(counts()).toEqual(base.map((n) => n + 1));
    } finally {
      await Promise.all(ts.map((t) => t.close()));
      process.off('warning', onWarning);
    }
    expect(liveExitClosers()).toBe(0);
    expect(counts()).toEqual(base);
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
  });

  it('a transport closed during start or failing to spawn leaves no closer registered', async () => {
    const base = liveExitClosers();
    const ok = new StdioTransport({ command: node, args: ['-e', 'process.stdin.resume()'], closeOnExit: true });
    const started = ok.start().catch(() => {});
    await ok.close();
    await started;
    const ghost = new StdioTransport({ command: 'definitely-not-a-command-xyz', closeOnExit: true });
    await ghost.start().catch(() => {});
    expect(liveExitClosers()).toBe(base);
  });
});
