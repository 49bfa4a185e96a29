/**
 * Mapping a resolved server to the engine's `connect()` config (`ServerConfig` of
 * `src/transport/create.ts`). Per-request timeouts, OAuth and permissions are not part of the
 * transport config; the supervisor reads them from `ResolvedServer.config`.
 */
import { ConfigError } from '../../errors.js';
import type { HttpServerConfig, ServerConfig, StdioServerConfig } from '../../transport/create.js';
import { untrustedHint } from './trust.js';
import type { ResolvedServer } from './types.js';

/**
 * Builds the `connect()` config for `server`. Throws `ConfigError` for an invalid entry (its
 * `error` says why) and for an `untrusted` project server (nothing of a project runs before the
 * user trusts it) — a disabled but valid entry still maps, so `mcp test` can try it.
 */
export function toConnectConfig(server: ResolvedServer): ServerConfig {
  const c = server.config;
  if (server.error !== undefined) {
    throw new ConfigError(`invalid configuration: ${server.error}`, { serverId: server.id, phase: 'config' });
  }
  if (server.untrusted !== undefined) throw new ConfigError(untrustedHint(server), { serverId: server.id, phase: 'config' });
  if (server.transport === 'stdio' && c.command !== undefined) {
    const out: StdioServerConfig = { transport: 'stdio', id: server.id, command: c.command, args: [...c.args], env: { ...c.env } };
    if (c.cwd !== undefined) out.cwd = c.cwd;
    if (c.secretNames !== undefined) out.secretNames = [...c.secretNames];
    if (c.sandbox !== undefined) out.sandbox = structuredClone(c.sandbox);
    return out;
  }
  if (server.transport === 'http' && c.url !== undefined) {
    const out: HttpServerConfig = { transport: 'http', id: server.id, url: c.url, headers: { ...c.headers } };
    if (c.legacySse) out.legacySse = true;
    if (c.secretNames !== undefined) out.secretNames = [...c.secretNames];
    return out;
  }
  throw new ConfigError('no usable transport configuration', { serverId: server.id, phase: 'config' });
}
