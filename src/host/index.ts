/**
 * The host layer: configuration, the supervisor over many servers, the tool adapter and the
 * permission hook. `src/index.ts` re-exports what is public from here.
 */
export * from './config/index.js';
export { createHost, McpHost, type HostOptions, type ServerStatus } from './host.js';
export type { ConnectFn, HostClient, ServerState } from './server-slot.js';
export { backoffDelay, DEFAULT_BACKOFF, type BackoffOptions } from './backoff.js';
export { decidePermission, matchesAny, type PermissionDecision, type PermissionHook, type PermissionRequest } from './permissions.js';
export type { AgentCallOptions } from './calls.js';
export * from './tools.js';
export { sanitizeText } from './text.js';
