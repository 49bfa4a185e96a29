/**
 * The one door from the commands to `mcpwire daemon`: when a daemon runs and holds the
 * configured server ready from the same entry this command resolved, `connectServer` returns
 * that server as a client run by the daemon (same process and session as the previous command),
 * and `daemonHost` the tools view of its host; otherwise the command connects on its own, as
 * without a daemon. The output is the same either way; one line on stderr says a daemon served
 * the command. Not used with `--no-daemon` (or `MCPWIRE_NO_DAEMON=1`), nor with `--trace` /
 * `--strict` / `MCPWIRE_TRACE` (those record this command's own session).
 */
import { connect, type ClientOptions, type McpClient } from '../index.js';
import { toConnectConfig, traceWithConfiguredSecrets, type McpHost, type ResolvedServer } from '../host-api.js';
import { connectDaemon, fingerprint, openRemote, remoteHost } from '../daemon-api.js';
import type { TargetFlags } from './target.js';
import { noteConfigured } from './login-hint.js';
import { openRemembering } from './era-memory.js';
import { perRun } from './run-state.js';

type Flags = TargetFlags & { 'no-daemon'?: boolean };

/** Whether this command may use a running daemon. */
export function daemonAllowed(flags: Flags, env: NodeJS.ProcessEnv = process.env): boolean {
  if (flags['no-daemon'] === true || ((env.MCPWIRE_NO_DAEMON ?? '') !== '' && env.MCPWIRE_NO_DAEMON !== '0')) return false;
  return flags.trace === undefined && flags.strict !== true && (env.MCPWIRE_TRACE ?? '') === '';
}

let told = false;
perRun(() => {
  told = false;
});
/** Says once per command, on stderr, that the daemon served it. */
function notice(pid: number): void {
  if (told) return;
  told = true;
  process.stderr.write(`mcpwire (via daemon, pid ${pid}; --no-daemon to bypass)\n`);
}

/** Configured server `server` as a client: the daemon's when it holds it, else a new connection. */
export async function connectServer(server: ResolvedServer, flags: Flags, options: ClientOptions): Promise<McpClient> {
  noteConfigured(server);
  if (daemonAllowed(flags)) {
    const conn = await connectDaemon();
    if (conn !== undefined) {
      const onElicitation = options.onElicitation;
      const remote = await openRemote(conn, server.id, fingerprint(server), {
        ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
        onAsk: async (method, params, serverId, signal) => {
          if (method !== 'elicitation/create' || onElicitation === undefined) throw new Error(`${method} is not handled by this command`);
          return onElicitation(params as Parameters<typeof onElicitation>[0], { signal, ...(serverId !== undefined ? { serverId } : {}) });
        },
      });
      if (remote !== undefined) {
        notice(remote.opened.pid);
        return remote as unknown as McpClient;
      }
      conn.close();
    }
  }
  // The entry's `protocol_version` pins the version for every command (a `--protocol-version`
  // flag, already in `options`, still wins).
  const pinned = options.protocolVersion === undefined && server.config.protocolVersion !== undefined ? { ...options, protocolVersion: server.config.protocolVersion } : options;
  // Its trace knows every configured secret of the entry (one inside an HTTP entry's URL path too).
  const traced = pinned.trace ? { ...pinned, trace: traceWithConfiguredSecrets(pinned.trace, server) } : pinned;
  return openRemembering(server, traced, (o) => connect(toConnectConfig(server), o));
}

/** The daemon's tools view of `servers`, or undefined (the command runs its own host). */
export async function daemonHost(servers: readonly ResolvedServer[], flags: Flags): Promise<McpHost | undefined> {
  if (!daemonAllowed(flags)) return undefined;
  const conn = await connectDaemon();
  if (conn === undefined) return undefined;
  try {
    const remote = await remoteHost(conn, servers.map((s) => ({ id: s.id, fingerprint: fingerprint(s) })));
    if (remote === undefined) return undefined;
    notice(remote.pid);
    return remote.host;
  } finally {
    conn.close();
  }
}
