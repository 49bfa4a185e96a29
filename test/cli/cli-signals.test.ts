/**
 * Ctrl-C (or SIGTERM) on the CLI closes its stdio servers. The servers run in their
 * own process group, so the terminal's SIGINT never reaches them; the CLI must close them
 * itself (stdin → SIGTERM → SIGKILL, basic.lifecycle#15) and then exit with 130 / 143.
 *
 * Real processes: `node dist/cli/main.js` (`npm run build` first) spawned detached (its own
 * process group, like a shell job), a server that ignores stdin EOF, SIGTERM and SIGINT
 * (test/fixtures/stubborn-stdio-server.mjs) that writes its pid to a file once the CLI is busy,
 * then the signal sent to the CLI's process group as a terminal would.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wait } from '../../src/util/sleep.js';
import { alive, cli, killAll, node, root, until } from '../support/cli-process.js';

const stubborn = path.join(root, 'test/fixtures/stubborn-stdio-server.mjs');

const dirs: string[] = [];
const serverPids: number[] = [];
// Every run is over (a test left out by a filter still had its run started), and no stubborn server
// is left behind, whatever the test concluded (each run also kills its own server once it has
// looked: the runs go at once, so none may kill another's).
afterAll(async () => {
  await Promise.allSettled(runs.map((r) => r.started));
  killAll(serverPids);
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
}, 120_000);


interface Interrupted {
  code: number | null;
  signal: NodeJS.Signals | null;
  serverPid: number;
  serverGone: boolean;
  stderr: string;
}

/**
 * Runs the CLI with `args(pidFile)`, waits until the server wrote its pid (the CLI is then
 * mid-command), sends `sig` to the CLI's process group, waits for the CLI to exit.
 */
async function interrupt(args: (pidFile: string, dir: string) => string[], sig: NodeJS.Signals, again = false): Promise<Interrupted & { serverSignals: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-signals-'));
  dirs.push(dir);
  const pidFile = path.join(dir, 'server.pid');
  const home = path.join(dir, 'home');
  const proj = path.join(dir, 'proj');
  fs.mkdirSync(home);
  fs.mkdirSync(proj);
  const child = spawn(node, [cli, ...args(pidFile, dir)], {
    cwd: proj,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), MCPWIRE_CONFIG_PATH: path.join(dir, 'global.json'), MCPWIRE_TRACE: '' },
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  child.stdout.resume();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const started: number[] = [];
  try {
    const up = await until(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8') !== '', 30_000);
    expect(up, `the server never got busy; CLI stderr: ${stderr}`).toBe(true);
    const serverPid = Number(fs.readFileSync(pidFile, 'utf8'));
    serverPids.push(serverPid);
    started.push(serverPid);
    expect(alive(serverPid)).toBe(true);
    process.kill(-child.pid!, sig);
    if (again) {
      await wait(200);
      process.kill(-child.pid!, sig);
    }
    const exit = await Promise.race([exited, wait(30_000).then(() => undefined)]);
    expect(exit, `the CLI did not exit after ${sig}; stderr: ${stderr}`).toBeDefined();
    const serverGone = await until(() => !alive(serverPid), 15_000);
    const signalsFile = `${pidFile}.signals`;
    return { ...exit!, serverPid, serverGone, stderr, serverSignals: fs.existsSync(signalsFile) ? fs.readFileSync(signalsFile, 'utf8') : '' };
  } finally {
    killAll(started);
    if (child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
  }
}

/** Configures server "stubborn" in the (trusted) global config of the run; returns no argv. */
function configure(dir: string, pidFile: string, readyMethod: string, hangMethod: string): string[] {
  const entry = { transport: 'stdio', command: node, args: [stubborn, pidFile, readyMethod, hangMethod] };
  fs.writeFileSync(path.join(dir, 'global.json'), JSON.stringify({ version: 1, mcp: { servers: { stubborn: entry } } }));
  return [];
}

const adHoc = (pidFile: string, readyMethod: string, hangMethod: string) => ['--stdio', `${node} ${stubborn} ${pidFile} ${readyMethod} ${hangMethod}`];

// Each run waits out the CLI's shutdown ladder (stdin EOF, then SIGTERM, then SIGKILL, a couple of
// seconds a rung) in processes of its own: the runs go at once. Vitest runs at most five tests of
// a file at a time (maxConcurrency), so every test's run is declared with `early` and all of them
// start together before the tests; each test awaits its own run and asserts on it.
type Run = Awaited<ReturnType<typeof interrupt>>;
const runs: { start: () => Promise<Run>; started?: Promise<Run> }[] = [];
/** Declares a test's run (started with all the others before the tests); the test calls the result to await it. */
function early(start: () => Promise<Run>): () => Promise<Run> {
  const run: (typeof runs)[number] = { start };
  runs.push(run);
  return () => (run.started ??= start());
}
beforeAll(() => {
  for (const run of runs) (run.started ??= run.start()).catch(() => {}); // a failed run fails its own test, which awaits it
});

describe.concurrent('the CLI closes its stdio servers on SIGINT/SIGTERM/SIGHUP (basic.lifecycle#15)', { timeout: 120_000 }, () => {
  const run1 = early(() => interrupt((pid) => [...adHoc(pid, 'tools/list', 'tools/list'), 'tools'], 'SIGINT'));
  it('Ctrl-C on `mcpwire --stdio … tools` (busy in tools/list) leaves no server; exit 130', async ({ expect }) => {
    const r = await run1();
    expect(r.serverGone, `server ${r.serverPid} still running; CLI stderr: ${r.stderr}`).toBe(true);
    expect({ code: r.code, signal: r.signal }).toEqual({ code: 130, signal: null });
    expect(r.serverSignals).toContain('SIGTERM'); // the ladder: stdin EOF ignored, then SIGTERM, then SIGKILL
  });

  const run2 = early(() => interrupt((pid) => [...adHoc(pid, 'tools/list', 'tools/list'), 'tools'], 'SIGINT', true));
  it('a second Ctrl-C while closing kills the server at once (no SIGTERM stage); exit 130', async ({ expect }) => {
    const r = await run2();
    expect(r.serverGone, `server ${r.serverPid} still running; CLI stderr: ${r.stderr}`).toBe(true);
    expect({ code: r.code, signal: r.signal }).toEqual({ code: 130, signal: null });
    expect(r.serverSignals).toBe('');
  });

  const run3 = early(() => interrupt((pid, dir) => ['tools', ...configure(dir, pid, 'tools/list', 'tools/list')], 'SIGTERM'));
  it('SIGTERM on `mcpwire tools` from the config (the host) leaves no server; exit 143', async ({ expect }) => {
    const r = await run3();
    expect(r.serverGone, `server ${r.serverPid} still running; CLI stderr: ${r.stderr}`).toBe(true);
    expect({ code: r.code, signal: r.signal }).toEqual({ code: 143, signal: null });
  });

  const run4 = early(() => interrupt((pid) => [...adHoc(pid, 'tools/call', 'tools/call'), 'call', 'wait'], 'SIGINT'));
  it('Ctrl-C during a long `mcpwire --stdio … call` leaves no server; exit 130', async ({ expect }) => {
    const r = await run4();
    expect(r.serverGone, `server ${r.serverPid} still running; CLI stderr: ${r.stderr}`).toBe(true);
    expect({ code: r.code, signal: r.signal }).toEqual({ code: 130, signal: null });
  });

  const run5 = early(() => interrupt((pid, dir) => ['call', 'stubborn', 'wait', ...configure(dir, pid, 'tools/call', 'tools/call')], 'SIGINT'));
  it('Ctrl-C during a long `mcpwire call <id> <tool>` on a configured server leaves no server; exit 130', async ({ expect }) => {
    const r = await run5();
    expect(r.serverGone, `server ${r.serverPid} still running; CLI stderr: ${r.stderr}`).toBe(true);
    expect({ code: r.code, signal: r.signal }).toEqual({ code: 130, signal: null });
  });

  const run6 = early(() => interrupt((pid) => [...adHoc(pid, 'prompts/get', 'prompts/get'), 'prompt', 'p'], 'SIGHUP'));
  it('SIGHUP (the terminal closed) on `mcpwire --stdio … prompt` leaves no server; exit 129', async ({ expect }) => {
    const r = await run6();
    expect(r.serverGone, `server ${r.serverPid} still running; CLI stderr: ${r.stderr}`).toBe(true);
    expect({ code: r.code, signal: r.signal }).toEqual({ code: 129, signal: null });
  });

  const run7 = early(() => interrupt((pid, dir) => ['read', 'stubborn', 'file:///x', ...configure(dir, pid, 'resources/read', 'resources/read')], 'SIGINT'));
  it('Ctrl-C on `mcpwire read <id> <uri>` (a configured server busy in resources/read) leaves no server; exit 130', async ({ expect }) => {
    const r = await run7();
    expect(r.serverGone, `server ${r.serverPid} still running; CLI stderr: ${r.stderr}`).toBe(true);
    expect({ code: r.code, signal: r.signal }).toEqual({ code: 130, signal: null });
  });

  const run8 = early(() => interrupt((pid, dir) => ['mcp', 'test', 'stubborn', ...configure(dir, pid, 'tools/list', 'tools/list')], 'SIGINT'));
  it('Ctrl-C on `mcpwire mcp test <id>` (busy in tools/list) leaves no server; exit 130', async ({ expect }) => {
    const r = await run8();
    expect(r.serverGone, `server ${r.serverPid} still running; CLI stderr: ${r.stderr}`).toBe(true);
    expect({ code: r.code, signal: r.signal }).toEqual({ code: 130, signal: null });
  });

  const run9 = early(() => interrupt((pid) => ['check', ...adHoc(pid, 'initialize', 'initialize'), '--timeout-ms', '60000'], 'SIGINT'));
  it('Ctrl-C on `mcpwire check --stdio …` (the server under test hangs in initialize) leaves no server; exit 130', async ({ expect }) => {
    const r = await run9();
    expect(r.serverGone, `server ${r.serverPid} still running; CLI stderr: ${r.stderr}`).toBe(true);
    expect({ code: r.code, signal: r.signal }).toEqual({ code: 130, signal: null });
  });

  const run10 = early(() => interrupt((pid, dir) => ['status', '--timeout-ms', '60000', ...configure(dir, pid, 'initialize', 'initialize')], 'SIGTERM'));
  it('SIGTERM on `mcpwire status` while a server hangs in initialize leaves no server; exit 143', async ({ expect }) => {
    const r = await run10();
    expect(r.serverGone, `server ${r.serverPid} still running; CLI stderr: ${r.stderr}`).toBe(true);
    expect({ code: r.code, signal: r.signal }).toEqual({ code: 143, signal: null });
  });
});
