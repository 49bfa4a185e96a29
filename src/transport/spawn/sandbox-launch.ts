/**
 * Turning a stdio server's command into its sandboxed launch on this machine: the policy
 * (`sandbox-policy.ts`), the wrapper (bubblewrap on Linux, `sandbox-exec` on macOS), the host's
 * proxy for a network allow-list, the reduced environment — and what to undo when the server is
 * gone. Windows and other platforms are refused: a sandboxed server never starts unsandboxed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TransportError } from '../../errors.js';
import { BWRAP_INSTALL_HINT, bwrapArgs, PROXY_SOCKET, SANDBOX_TMP } from './bwrap.js';
import { envValue } from './env-lookup.js';
import { packageRoot, resolvePolicy, sandboxEnv, underAny, systemRead, type PolicyFs, type SandboxOptions, type SandboxPolicy } from './sandbox-policy.js';
import type { SandboxProxy } from './sandbox-proxy.js';
import { proxyEnv, relayArgv } from './sandbox-relay.js';
import { seatbeltProfile } from './seatbelt.js';

/** What spawning a sandboxed server takes. */
export interface SandboxLaunch {
  file: string;
  args: string[];
  env: Record<string, string>;
  policy: SandboxPolicy;
  /** Stops the proxy and removes the temp dir (idempotent). */
  cleanup(): void;
}

export interface SandboxTarget {
  command: string;
  args: readonly string[];
  cwd?: string;
  env?: Record<string, string>;
  sandbox: SandboxOptions;
  serverId?: string;
}

export const nodePolicyFs: PolicyFs = {
  realpath(p) {
    try {
      return fs.realpathSync(p);
    } catch {
      return undefined;
    }
  },
  isFile(p) {
    try {
      return fs.statSync(p).isFile();
    } catch {
      return false;
    }
  },
};

/** The error of a platform without a sandbox. */
export function unsupportedPlatform(platform: NodeJS.Platform, serverId?: string): TransportError {
  const name = platform === 'win32' ? 'Windows (win32)' : platform;
  return new TransportError(
    `sandboxed servers are not supported on ${name}: the server is not started (remove "sandbox" from its entry to run it unsandboxed)`,
    { serverId, phase: 'spawn', code: 'MCPWIRE_SANDBOX_UNSUPPORTED' },
  );
}

/** bwrap's path: `MCPWIRE_BWRAP`, else the first `bwrap` on PATH (or /usr/bin); undefined when missing. */
export function findBwrap(env: NodeJS.ProcessEnv = process.env, fsv: PolicyFs = nodePolicyFs): string | undefined {
  const given = env.MCPWIRE_BWRAP;
  if (given !== undefined && given !== '') return fsv.isFile(given) ? given : undefined;
  const dirs = [...(envValue(env, 'PATH', 'linux') ?? '').split(':'), '/usr/bin', '/bin'];
  for (const d of dirs) if (d !== '' && fsv.isFile(path.join(d, 'bwrap'))) return path.join(d, 'bwrap');
  return undefined;
}

/** Prepares the launch (see the module comment); throws a TransportError when the sandbox cannot be had. */
export async function prepareSandbox(t: SandboxTarget, platform: NodeJS.Platform = process.platform, parent: NodeJS.ProcessEnv = process.env): Promise<SandboxLaunch> {
  if (platform !== 'linux' && platform !== 'darwin') throw unsupportedPlatform(platform, t.serverId);
  const cwd = t.cwd ?? process.cwd();
  const allowList = t.sandbox.network !== undefined && t.sandbox.network !== 'none';
  const node = nodePolicyFs.realpath(process.execPath) ?? process.execPath;
  const extra = allowList && platform === 'linux' && !underAny(node, systemRead(platform)) ? [packageRoot(node, nodePolicyFs)] : [];
  const policy = resolvePolicy(t.sandbox, { command: t.command, args: t.args, cwd, env: { ...parent, ...t.env }, platform }, nodePolicyFs, extra);
  if (platform === 'linux') {
    const bwrap = findBwrap(parent);
    if (bwrap === undefined) {
      throw new TransportError(`the server runs sandboxed and bubblewrap (bwrap) was not found: ${BWRAP_INSTALL_HINT}; the server is not started`, {
        serverId: t.serverId,
        phase: 'spawn',
        code: 'MCPWIRE_SANDBOX_UNAVAILABLE',
      });
    }
    return linuxLaunch(bwrap, t, policy, cwd, parent, allowList);
  }
  return darwinLaunch(t, policy, parent, allowList);
}

async function startProxy(t: SandboxTarget, policy: SandboxPolicy, tcp: boolean): Promise<SandboxProxy> {
  const allow = policy.network === 'none' ? [] : policy.network.allow;
  // loaded here, with node:http, node:net and node:dns: only a sandbox with an allow list runs it
  const { startSandboxProxy } = await import('./sandbox-proxy.js');
  return startSandboxProxy(allow, (d) => t.sandbox.onDenied?.(d), tcp);
}

async function linuxLaunch(bwrap: string, t: SandboxTarget, policy: SandboxPolicy, cwd: string, parent: NodeJS.ProcessEnv, allowList: boolean): Promise<SandboxLaunch> {
  const proxy = allowList ? await startProxy(t, policy, false) : undefined;
  const argv = proxy !== undefined ? relayArgv(process.execPath, PROXY_SOCKET, t.command, t.args) : [t.command, ...t.args];
  const env = sandboxEnv(policy, t.env, parent, SANDBOX_TMP);
  if (proxy !== undefined) Object.assign(env, proxyEnv());
  const args = bwrapArgs({ policy, argv, cwd, proxySocket: proxy?.socket });
  return { file: bwrap, args, env, policy, cleanup: once(() => proxy?.close()) };
}

async function darwinLaunch(t: SandboxTarget, policy: SandboxPolicy, parent: NodeJS.ProcessEnv, allowList: boolean): Promise<SandboxLaunch> {
  const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-sandbox-')));
  let proxy: SandboxProxy | undefined;
  try {
    proxy = allowList ? await startProxy(t, policy, true) : undefined;
  } catch (err) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
  const profile = seatbeltProfile({ policy, tmp, proxyPort: proxy?.port });
  const env = sandboxEnv(policy, t.env, parent, tmp);
  if (proxy?.port !== undefined) Object.assign(env, portProxyEnv(proxy.port));
  return {
    file: '/usr/bin/sandbox-exec',
    args: ['-p', profile, t.command, ...t.args],
    env,
    policy,
    cleanup: once(() => {
      proxy?.close();
      fs.rmSync(tmp, { recursive: true, force: true });
    }),
  };
}

function portProxyEnv(port: number): Record<string, string> {
  const out = proxyEnv();
  for (const k of Object.keys(out)) if (out[k].startsWith('http://')) out[k] = `http://127.0.0.1:${port}`;
  return out;
}

function once(f: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    try {
      f();
    } catch {
      // best effort: a temp dir already gone
    }
  };
}
