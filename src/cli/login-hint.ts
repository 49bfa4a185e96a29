/**
 * "run `mcpwire login <id>`" where it helps, and only there: a configured HTTP server that
 * refused us with 401 (MCPWIRE_AUTH_REQUIRED) and whose config does not bring its own
 * `Authorization` header — a static credential is fixed in the config, not by logging in, and
 * an ad-hoc `--url` server has no id to log in to.
 */
import { isMcpWireError } from '../index.js';
import type { ResolvedServer } from '../host-api.js';
import { perRun } from './run-state.js';

/** Whether the server's config sets an `Authorization` header itself (then OAuth is not how it authenticates). */
export function staticAuthorization(server: ResolvedServer): boolean {
  return Object.keys(server.config.headers ?? {}).some((h) => h.toLowerCase() === 'authorization');
}

/** Whether `mcpwire login <id>` can authorize this configured server. */
export function canLogIn(server: ResolvedServer): boolean {
  return server.transport === 'http' && !staticAuthorization(server);
}

/** Configured servers this command connected that `mcpwire login` can authorize. */
const loginable = new Set<string>();
perRun(() => loginable.clear());

/** Notes a configured server the command connects (daemon-client.ts). */
export function noteConfigured(server: ResolvedServer): void {
  if (canLogIn(server)) loginable.add(server.id);
}

/** `; run \`mcpwire login <id>\`` for an authorization failure of such a server, else ''. */
export function loginHint(err: unknown): string {
  if (!isMcpWireError(err) || err.code !== 'MCPWIRE_AUTH_REQUIRED' || err.serverId === undefined || !loginable.has(err.serverId)) return '';
  return `; run \`mcpwire login ${err.serverId}\``;
}
