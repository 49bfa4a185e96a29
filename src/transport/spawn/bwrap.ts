/**
 * Linux: the bubblewrap (`bwrap`) command line of a sandboxed server — a pure function of the
 * resolved policy, so the arguments are tested without starting anything.
 *
 * New mount, PID, IPC, UTS, cgroup, user and network namespaces (`--unshare-all`); no
 * capability; an empty root where only the granted directories are mounted (read-only, or
 * read-write for `write`), a fresh /dev and /proc (the host's processes and their environments
 * are out of sight), a private tmpfs at /tmp. `--die-with-parent`: the sandbox (and, its PID
 * namespace gone, every process in it) dies with the host. The server stays in the host's
 * process group (no `--new-session`: the host spawns bwrap as its own session), so the host's
 * SIGTERM → SIGKILL of the group reaches the server itself.
 *
 * With a network allow-list the host's proxy is a Unix socket bound in at `PROXY_SOCKET`, and
 * the wrapped command is the relay (`sandbox-relay.ts`) that listens on 127.0.0.1 inside the
 * namespace and starts the server: the namespace's loopback is its only network.
 */
import path from 'node:path';
import type { SandboxPolicy } from './sandbox-policy.js';

/** Where the proxy's socket appears inside the sandbox. */
export const PROXY_SOCKET = '/run/mcpwire/proxy.sock';
/** Where the private temp dir is, inside. */
export const SANDBOX_TMP = '/tmp';

export interface BwrapInput {
  policy: SandboxPolicy;
  /** The program and arguments run inside (the server, or the relay that starts it). */
  argv: readonly string[];
  /** The working directory inside (a granted directory, else the temp dir). */
  cwd?: string;
  /** The host side of the proxy's socket, when the network has an allow-list. */
  proxySocket?: string;
}

/** bwrap's arguments (without the program name). */
export function bwrapArgs(input: BwrapInput): string[] {
  const { policy } = input;
  const args = ['--die-with-parent', '--unshare-all', '--cap-drop', 'ALL', '--dev', '/dev', '--proc', '/proc', '--tmpfs', SANDBOX_TMP];
  // Shallow first: a deeper grant inside a shallower one is mounted over it (a writable directory
  // inside a read-only package, a read-only one inside a writable tree).
  const mounts = [...policy.read.map((p) => ({ p, w: false })), ...policy.write.map((p) => ({ p, w: true }))];
  mounts.sort((a, b) => depth(a.p) - depth(b.p) || Number(a.w) - Number(b.w));
  for (const m of mounts) args.push(m.w ? '--bind-try' : '--ro-bind-try', m.p, m.p);
  if (input.proxySocket !== undefined) args.push('--dir', path.posix.dirname(PROXY_SOCKET), '--bind', input.proxySocket, PROXY_SOCKET);
  args.push('--chdir', input.cwd !== undefined && granted(input.cwd, policy) ? input.cwd : SANDBOX_TMP);
  args.push('--', ...input.argv);
  return args;
}

function depth(p: string): number {
  return p.split('/').filter(Boolean).length;
}

/** True when `dir` is inside a granted directory (the server may start there). */
export function granted(dir: string, policy: SandboxPolicy): boolean {
  return [...policy.read, ...policy.write].some((g) => dir === g || dir.startsWith(g.endsWith('/') ? g : g + '/'));
}

/** The install hint when bwrap is missing. */
export const BWRAP_INSTALL_HINT =
  'install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; Arch: pacman -S bubblewrap; Alpine: apk add bubblewrap)';
