/**
 * What identifies a server the daemon may serve a command with. The daemon serves a command only
 * when the command resolved the same entry — same config file, same project, same environment
 * expansion, same trust — and the server would run the same program in the same directory, so a
 * command never talks to a server started from another config or for another directory (project
 * B must not reach the program project A started in A's directory). A SHA-256 hash: the entry's
 * secrets never cross the socket.
 *
 * A stdio entry is placed before it is hashed or sent: its working directory is made absolute
 * (the entry's `cwd` resolved against the command's directory, or that directory), which is where
 * the daemon spawns it, so relative commands and arguments resolve as they would for the command.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { ResolvedServer } from '../host/index.js';

/** The fields of a resolved server the daemon's identity of it depends on. */
export type PrintedServer = Pick<ResolvedServer, 'id' | 'config'> & Partial<Pick<ResolvedServer, 'file' | 'project' | 'transport'>>;

/**
 * `server` as the daemon must hold it for a command running in `cwd`: a stdio entry gets an
 * absolute working directory (already absolute: unchanged, so placing twice is placing once).
 */
export function placeServer<S extends PrintedServer>(server: S, cwd: string = process.cwd()): S {
  if (!isStdio(server)) return server;
  return { ...server, config: { ...server.config, cwd: path.resolve(cwd, server.config.cwd ?? '.') } };
}

/** The hash of `server` placed for `cwd`: id, entry, config file, project, working directory and the command's path. */
export function fingerprint(server: PrintedServer, cwd: string = process.cwd()): string {
  const placed = placeServer(server, cwd);
  const command = placed.config.command;
  const where = placed.config.cwd;
  // `./server.sh` names a file in the working directory; a bare name is looked up on PATH.
  const commandPath = command !== undefined && where !== undefined && /[\\/]/.test(command) ? path.resolve(where, command) : undefined;
  return createHash('sha256')
    .update(stable({ id: placed.id, config: placed.config, file: placed.file === undefined ? undefined : path.resolve(placed.file), project: placed.project, commandPath }))
    .digest('hex');
}

/**
 * The fingerprint an era verdict is kept under (src/host/era-memory.ts), the same in the CLI and
 * the daemon: what decides the program a stdio entry runs — command, arguments, environment,
 * working directory (placed), id, config file and project — not its timeouts or other settings
 * (a command that caps the timeouts still finds the verdict).
 */
export function programPrint(server: PrintedServer & Pick<ResolvedServer, 'transport'>): string {
  const c = server.config as { command?: string; args?: readonly string[]; env?: Record<string, string>; cwd?: string };
  const config = { command: c.command, args: c.args, env: c.env, cwd: c.cwd } as ResolvedServer['config'];
  return fingerprint({ id: server.id, file: server.file, project: server.project, transport: server.transport, config });
}

function isStdio(server: PrintedServer): boolean {
  return server.transport === 'stdio' || (server.transport === undefined && server.config.command !== undefined);
}

/** JSON with object keys sorted, so equal values hash equally. */
function stable(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stable).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    return `{${Object.keys(v as object)
      .sort()
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${stable((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}
