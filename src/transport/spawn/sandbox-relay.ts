/**
 * The relay inside a Linux sandbox with a network allow-list: the namespace has only its own
 * loopback, so a server cannot reach the host's proxy by TCP. The relay (run by Node with
 * `-e`, so nothing needs to be installed) listens on 127.0.0.1:`RELAY_PORT` inside the namespace,
 * pipes each connection to the proxy's Unix socket bound into the sandbox, and starts the
 * server with the same stdio. `HTTP(S)_PROXY` point at it: Node's fetch honours them with
 * `NODE_USE_ENV_PROXY=1` from Node 24 on, most HTTP clients (undici's EnvHttpProxyAgent, axios,
 * curl, Python's requests) always.
 *
 * It ignores SIGTERM/SIGINT/SIGHUP (the server, in the same process group, gets them and
 * decides), and exits with the server's status: bwrap then ends, and the PID namespace with it.
 */

/** The port the relay listens on inside the sandbox's network namespace. */
export const RELAY_PORT = 3128;

/** The relay program (argv after `-e`: port, socket path, then the server's command and arguments). */
export const RELAY_SOURCE = `
const net = require('node:net');
const { spawn } = require('node:child_process');
const [port, sock, cmd, ...args] = process.argv.slice(1);
const server = net.createServer((c) => {
  const u = net.connect(sock);
  c.pipe(u); u.pipe(c);
  c.on('error', () => u.destroy()); u.on('error', () => c.destroy());
});
server.on('error', (e) => { process.stderr.write('mcpwire sandbox relay: ' + e.message + '\\n'); process.exit(70); });
server.listen(Number(port), '127.0.0.1', () => {
  const child = spawn(cmd, args, { stdio: 'inherit' });
  child.on('error', (e) => { process.stderr.write('mcpwire sandbox relay: ' + cmd + ': ' + e.message + '\\n'); process.exit(127); });
  child.on('exit', (code, signal) => process.exit(code ?? 128 + (require('node:os').constants.signals[signal] || 0)));
});
for (const s of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(s, () => {});
`;

/** The argv that runs the relay with `node` in front of the server's `command args`. */
export function relayArgv(node: string, socket: string, command: string, args: readonly string[]): string[] {
  return [node, '-e', RELAY_SOURCE, String(RELAY_PORT), socket, command, ...args];
}

/** The proxy variables a server behind the relay gets. */
export function proxyEnv(): Record<string, string> {
  const url = `http://127.0.0.1:${RELAY_PORT}`;
  return { HTTP_PROXY: url, HTTPS_PROXY: url, http_proxy: url, https_proxy: url, ALL_PROXY: url, NO_PROXY: '', no_proxy: '', NODE_USE_ENV_PROXY: '1' };
}
