/**
 * The daemon process (`node dist/daemon/main.js [--idle-ms <ms>]`), started detached by
 * `mcpwire daemon start` with stdout/stderr on its log file. It refuses to start when another
 * daemon answers on the socket, removes a stale socket file (both under the socket's lock), and takes no config of its own:
 * the CLI sends the servers it resolved (`load`), so the daemon holds what the commands see.
 */
import net from 'node:net';
import fs from 'node:fs';
import { withFileLock } from '../auth/lock.js';
import { checkDir, daemonPaths, DEFAULT_IDLE_MS, secureDir } from './paths.js';
import { Daemon } from './server.js';

function log(line: string): void {
  process.stderr.write(`${new Date().toISOString()} ${line}\n`);
}

/** Whether a daemon answers on `socket`. */
function answering(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(socket);
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}

async function main(argv: string[]): Promise<number> {
  const i = argv.indexOf('--idle-ms');
  const idleMs = i >= 0 ? Number(argv[i + 1]) : DEFAULT_IDLE_MS;
  if (!Number.isFinite(idleMs) || idleMs < 0) {
    log(`bad --idle-ms ${argv[i + 1]}`);
    return 2;
  }
  process.umask(0o077); // the socket, traces and anything else the daemon writes: this user only
  const paths = daemonPaths();
  secureDir(paths.dir);
  for (const dir of [paths.traces, paths.logs]) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    checkDir(dir);
  }
  const daemon = new Daemon({ paths, idleMs, log });
  // Judging the socket stale and listening in its place is one step under the socket's lock:
  // two daemons starting at once never remove each other's socket.
  const started = await withFileLock(paths.socket, async () => {
    if (fs.existsSync(paths.socket)) {
      if (await answering(paths.socket)) return false;
      fs.rmSync(paths.socket, { force: true }); // left by a daemon that died
    }
    await daemon.listen();
    return true;
  }, { onWait: () => log("the socket's lock is held (another daemon is starting): waiting") });
  if (!started) {
    log('another daemon answers on the socket: not starting');
    return 1;
  }
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(sig, () => void daemon.stop());
  log(`started (pid ${process.pid}) on ${paths.socket}, idle timeout ${idleMs === 0 ? 'none' : `${idleMs} ms`}`);
  await daemon.done;
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    log(`failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
