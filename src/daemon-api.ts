/**
 * `mcpwire daemon` for the CLI: the daemon's paths, starting and stopping it, and the client
 * side of its socket (a held server as a client, the tools view). The daemon process itself is
 * `daemon/main.js`, spawned, never imported.
 */
export { connectDaemon, DaemonConnection, DaemonReplyError, type RequestHooks } from './daemon/client.js';
export { startDaemon, stopDaemon } from './daemon/control.js';
export type { HeldStatus } from './daemon/held.js';
export { daemonPaths, DEFAULT_IDLE_MS, dirProblem, type DaemonPaths } from './daemon/paths.js';
export { openRemote, RemoteClient, type Opened } from './daemon/remote-client.js';
export { remoteHost } from './daemon/remote-host.js';
export { fingerprint, placeServer, programPrint } from './daemon/fingerprint.js';
