/**
 * Starting and stopping the daemon from the CLI: `startDaemon` spawns `main.js` detached (its
 * own session, stdout/stderr appended to the log file), waits for the socket to answer and sends
 * the servers to hold; `stopDaemon` asks it to stop and waits until its process is gone.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import type { ResolvedServer } from '../host/index.js';
import { packageFile } from '../util/package-files.js';
import { wait } from '../util/sleep.js';
import { rotateIfOver } from './bounded-files.js';
import { connectDaemon, type DaemonConnection } from './client.js';
import { placeServer } from './fingerprint.js';
import { daemonPaths, secureDir, type DaemonPaths } from './paths.js';

/** How long a starting daemon may take to answer on its socket. */
const START_TIMEOUT_MS = 15_000;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Spawns the daemon and resolves with a connection once it answers (the spawn's exit: an error naming the log). */
async function spawnDaemon(paths: DaemonPaths, idleMs: number, store: string | undefined): Promise<DaemonConnection> {
  rotateIfOver(paths.log);
  const fd = fs.openSync(paths.log, 'a', 0o600);
  const main = packageFile('dist', 'daemon', 'main.js');
  const child = spawn(process.execPath, [main, '--idle-ms', String(idleMs)], { detached: true, stdio: ['ignore', fd, fd], cwd: process.cwd(), env: daemonEnv(store) });
  fs.closeSync(fd);
  let exited: number | null | undefined;
  child.once('exit', (code) => (exited = code));
  child.unref();
  for (const end = Date.now() + START_TIMEOUT_MS; Date.now() < end; await wait(50)) {
    if (exited !== undefined) throw new Error(`the daemon exited at start (code ${exited}); see ${paths.log}`);
    const conn = await connectDaemon(paths);
    if (conn !== undefined) return conn;
  }
  throw new Error(`the daemon did not answer on ${paths.socket} within ${START_TIMEOUT_MS} ms; see ${paths.log}`);
}

/**
 * The daemon's environment: the command's, with the config's store (`mcp.store`) as
 * `MCPWIRE_STORE` unless that is set already — the daemon reads no config, and opens the store
 * the command would (tokens, result cache, era verdicts). Its servers do not inherit it (a stdio
 * server gets the safe inherited set and its entry's env).
 */
function daemonEnv(store: string | undefined): NodeJS.ProcessEnv {
  if (store === undefined || store === '' || (process.env.MCPWIRE_STORE ?? '') !== '') return process.env;
  return { ...process.env, MCPWIRE_STORE: store };
}

/**
 * Starts the daemon holding `servers` unless one runs; resolves with its pid and whether it was
 * already running. `store`: the config's `mcp.store` (MCPWIRE_STORE wins over it).
 */
export async function startDaemon(servers: readonly ResolvedServer[], idleMs: number, paths: DaemonPaths = daemonPaths(), store?: string): Promise<{ pid: number; already: boolean }> {
  secureDir(paths.dir);
  const running = await connectDaemon(paths);
  if (running !== undefined) {
    const { pid } = await running.request<{ pid: number }>('hello');
    running.close();
    return { pid, already: true };
  }
  const conn = await spawnDaemon(paths, idleMs, store);
  try {
    const { pid } = await conn.request<{ pid: number }>('hello');
    await conn.request('load', { servers: servers.map((s) => placeServer(s)) });
    return { pid, already: false };
  } finally {
    conn.close();
  }
}

/** Stops the running daemon; resolves with its pid, or undefined when none ran. */
export async function stopDaemon(paths: DaemonPaths = daemonPaths()): Promise<number | undefined> {
  const conn = await connectDaemon(paths);
  if (conn === undefined) return undefined;
  const { pid } = await conn.request<{ pid: number }>('stop');
  conn.close();
  for (const end = Date.now() + START_TIMEOUT_MS; Date.now() < end && alive(pid); ) await wait(50);
  return pid;
}
