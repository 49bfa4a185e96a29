/**
 * The MCP Registry room: search a registry, fetch and validate a server.json, turn one of its
 * choices into a native config entry (src/registry/README.md).
 */
export { RegistryError, isRegistryError, type RegistryErrorReason } from './errors.js';
export type { ServerJson, PackageSpec, TransportSpec, ServerResponse, ServerList } from './types.js';
export { checkServerJson, serverJsonProblems, SERVER_JSON_SCHEMA_VERSION } from './validate.js';
export {
  DEFAULT_REGISTRY_URL,
  getServer,
  listVersions,
  parseRef,
  registryUrl,
  searchServers,
  type ResolvedServer,
  type SearchOptions,
  type SearchPage,
  type ServerSummary,
} from './client.js';
export { buildEntry, choicesOf, pickChoice, type BuildOptions, type BuiltEntry, type BundleLaunch, type Choice, type RegistrySource } from './plan.js';
export type { GivenValues, NeededInput } from './inputs.js';
export { findCommand } from './runtime.js';
export { installBundle } from './mcpb.js';
