/**
 * Where the daemon lives: one directory per user, `$XDG_RUNTIME_DIR/mcpwire` (a per-user tmpfs
 * on Linux) or `~/.mcpwire/run`, created 0700 and refused when it is not ours, not a directory,
 * or open to others — the socket's only guard against other users (Node does not give a Unix
 * socket's peer credentials, so the directory's mode is the access check).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Default idle timeout: 30 minutes without a request. */
export const DEFAULT_IDLE_MS = 30 * 60_000;

export interface DaemonPaths {
  dir: string;
  socket: string;
  /** The daemon's own log (its stdout/stderr, the host's diagnostics). */
  log: string;
  /** One trace file per server: `<traces>/<id>.jsonl`. */
  traces: string;
  /** One file per stdio server for what it writes on stderr: `<logs>/<id>.log`. */
  logs: string;
}

/** The daemon's paths for this user (nothing created). */
export function daemonPaths(env: NodeJS.ProcessEnv = process.env): DaemonPaths {
  const runtime = env.XDG_RUNTIME_DIR;
  const home = env.HOME || os.homedir();
  const dir = runtime !== undefined && runtime !== '' && path.isAbsolute(runtime) ? path.join(runtime, 'mcpwire') : path.join(home, '.mcpwire', 'run');
  return { dir, socket: path.join(dir, 'daemon.sock'), log: path.join(dir, 'daemon.log'), traces: path.join(dir, 'traces'), logs: path.join(dir, 'logs') };
}

/** Creates the directory 0700 when missing; throws when it exists but another user could reach it. */
export function secureDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  checkDir(dir);
}

/** Why the daemon's directory may not be used (undefined: it may, or it does not exist yet). */
export function dirProblem(dir: string): string | undefined {
  try {
    checkDir(dir);
    return undefined;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : (err as Error).message;
  }
}

/** The directory must be a real directory of this user with no group/other access. */
export function checkDir(dir: string): void {
  const st = fs.lstatSync(dir);
  if (!st.isDirectory()) throw new Error(`${dir} is not a directory (a symbolic link or file is refused)`);
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) throw new Error(`${dir} belongs to another user (uid ${st.uid})`);
  if ((st.mode & 0o077) !== 0) throw new Error(`${dir} is open to other users (mode ${(st.mode & 0o777).toString(8)}; it must be 700)`);
}
