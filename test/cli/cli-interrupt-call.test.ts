/**
 * Ctrl-C during `mcpwire call` says the same on stderr with and without a daemon: the progress
 * shown so far ends with a newline, then `mcpwire: call interrupted (SIGINT)`, exit 130 (the
 * daemon path adds only its notice line first). The built CLI (`npm run build` first) in a
 * sandbox (temp HOME, XDG_RUNTIME_DIR, global config) against the mock stdio server's `progress`
 * tool (a progress notification every 100 ms for minutes): once over pipes (SIGINT to the CLI),
 * once on a pseudo-terminal (util-linux `script`; Ctrl-C typed, the bar redrawn in place).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, killAll, node, root, runCli } from '../support/cli-process.js';
import { hasScript, onPty, visible } from '../support/pty.js';

const NOTICE = /^mcpwire \(via daemon, pid (\d+); --no-daemon to bypass\)\n/;
const INTERRUPTED = 'mcpwire: call interrupted (SIGINT)';
const CALL = ['call', 'mock', 'progress', 'steps=3000', 'intervalMs=100'];

let dir: string;
let env: NodeJS.ProcessEnv;
const pids: number[] = [];

beforeAll(async () => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-interrupt-')));
  const home = path.join(dir, 'home');
  fs.mkdirSync(home);
  fs.mkdirSync(path.join(dir, 'run'), { mode: 0o700 });
  fs.writeFileSync(path.join(dir, 'global.json'), JSON.stringify({ version: 1, mcp: { servers: { mock: { transport: 'stdio', command: node, args: [path.join(root, 'mock-servers/stdio-server.mjs')] } } } }));
  env = { PATH: process.env.PATH, HOME: home, XDG_RUNTIME_DIR: path.join(dir, 'run'), XDG_CONFIG_HOME: path.join(home, '.config'), MCPWIRE_CONFIG_PATH: path.join(dir, 'global.json'), NO_COLOR: '1', MCPWIRE_COLUMNS: '' };
  const started = await runCli(['daemon', 'start'], { cwd: dir, env });
  expect(started.code, started.stderr).toBe(0);
  const st = JSON.parse((await runCli(['daemon', 'status', '--json'], { cwd: dir, env })).stdout) as { pid: number; servers: { pid?: number }[] };
  pids.push(st.pid, ...st.servers.flatMap((s) => (s.pid === undefined ? [] : [s.pid])));
}, 60_000);

afterAll(async () => {
  await runCli(['daemon', 'stop'], { cwd: dir, env });
  killAll(pids);
  fs.rmSync(dir, { recursive: true, force: true });
}, 60_000);

/** Runs the call over pipes, sends SIGINT once progress has been shown; exit code and stderr. */
function interruptedOverPipes(extra: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(node, [cli, ...extra, ...CALL], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  pids.push(child.pid!);
  let stderr = '';
  let sent = false;
  child.stdout.resume();
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
    if (!sent && /progress 2\/3000/.test(stderr)) {
      sent = true;
      child.kill('SIGINT');
    }
  });
  const killer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(killer);
      resolve({ code, stderr });
    }),
  );
}

/** Runs the call on a pty, types Ctrl-C once the bar is drawn; exit code and what the terminal showed. */
function interruptedOnPty(extra: string[]): Promise<{ code: number | null; out: string }> {
  const child = spawn('script', ['-qec', onPty([...extra, ...CALL], 120), '/dev/null'], { cwd: dir, env });
  let out = '';
  let typed = false;
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString();
    if (!typed && /step 2 of 3000/.test(out)) {
      typed = true;
      child.stdin.write('\u0003');
    }
  });
  const killer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(killer);
      resolve({ code, out });
    }),
  );
}

describe('Ctrl-C during a call', { timeout: 120_000 }, () => {
  it('over pipes: the same stderr with and without the daemon — the progress lines, then the interrupted line; exit 130', async () => {
    const direct = await interruptedOverPipes(['--no-daemon']);
    const viaDaemon = await interruptedOverPipes([]);
    expect(viaDaemon.stderr).toMatch(NOTICE);
    for (const r of [direct, { ...viaDaemon, stderr: viaDaemon.stderr.replace(NOTICE, '') }]) {
      expect(r.code).toBe(130);
      const lines = r.stderr.split('\n');
      expect(lines.slice(-2)).toEqual([INTERRUPTED, '']);
      expect(lines.slice(0, -2).every((l) => /^progress \d+\/3000 step \d+ of 3000$/.test(l)), r.stderr).toBe(true);
    }
  });

  it.skipIf(!hasScript)('on a terminal: the bar ends with a newline and the interrupted line follows, with and without the daemon; exit 130', async () => {
    for (const extra of [['--no-daemon'], []]) {
      const r = await interruptedOnPty(extra);
      expect(r.code, r.out).toBe(130);
      const lines = r.out.split('\n').map(visible);
      while (lines.at(-1) === '') lines.pop();
      expect(lines.at(-1), r.out).toBe(INTERRUPTED);
      expect(lines.at(-2), r.out).toMatch(/\] \d+% step \d+ of 3000(\^C)?$/); // the bar as last drawn, its line ended
      expect(lines.slice(0, -2), r.out).toEqual(extra.length > 0 ? [] : [expect.stringMatching(/^mcpwire \(via daemon, pid \d+; --no-daemon to bypass\)$/)]);
    }
  });
});
