/**
 * Running the host for one CLI command (`status`, `tools` from config): every given server is
 * connected concurrently through `createHost`, each with a short initialize timeout (default
 * 5000 ms, `--timeout-ms` overrides) so a hanging server ends in `error` instead of blocking, no
 * reconnect retries, then everything is closed.
 */
import { createHost, type HostOptions, type McpHost, type ResolvedServer } from '../host-api.js';
import { parseTimeout } from './args.js';
import { clientOptions, type TargetFlags } from './target.js';
import { daemonHost } from './daemon-client.js';
import { cliEraMemory } from './era-memory.js';
import { cliAuth } from './config-target.js';

/** The per-server connect timeout of `status` and `tools` when `--timeout-ms` is not given. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 5000;

export interface HostRunOptions {
  /** Also cap each server's request timeout (tools/list after initialize) at the connect timeout. */
  capRequests: boolean;
  onDiagnostic?: (server: string | undefined, message: string) => void;
  permission?: HostOptions['permission'];
  /** Read the tools view from `mcpwire daemon` when it holds every one of `servers` (daemon-client.ts). */
  daemon?: boolean;
}

/** Starts a host over `servers`, runs `fn`, and always closes the host. */
export async function withHost<T>(servers: readonly ResolvedServer[], flags: TargetFlags, options: HostRunOptions, fn: (host: McpHost) => Promise<T> | T): Promise<T> {
  const remote = options.daemon === true ? await daemonHost(servers, flags) : undefined;
  if (remote !== undefined) return fn(remote);
  const timeoutMs = parseTimeout(flags['timeout-ms']) ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const list = options.capRequests
    ? servers.map((s) => ({ ...s, config: { ...s.config, requestTimeoutMs: Math.min(s.config.requestTimeoutMs, timeoutMs) } }))
    : servers;
  const host = createHost(list, {
    clientOptions: { ...clientOptions(flags), initializeTimeoutMs: timeoutMs },
    backoff: { maxRetries: 0 },
    ...withEraMemory(),
    auth: cliAuth(),
    ...(options.permission !== undefined ? { permission: options.permission } : {}),
  });
  if (options.onDiagnostic) host.on('diagnostic', (d: { server?: string; message: string }) => options.onDiagnostic!(d.server, d.message));
  try {
    await host.start();
    return await fn(host);
  } finally {
    await host.close();
  }
}

function withEraMemory(): Pick<HostOptions, 'eraMemory'> {
  const eraMemory = cliEraMemory();
  return { eraMemory: eraMemory ?? false };
}
