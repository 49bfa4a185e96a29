/**
 * Host configuration: native layers (global, project; JSON or YAML), import formats (Claude
 * Desktop, Claude Code `.mcp.json` and `~/.claude.json`, Cursor, VS Code, Codex, Windsurf,
 * OpenCode), merging, editing, trusting projects, and the mapping to
 * `connect()` configs.
 */
export type {
  ConfigDiagnostic,
  ConfigLoadResult,
  ConfigSource,
  HostSettings,
  NormalizedServerConfig,
  RegistryProvenance,
  OAuthSettings,
  PermissionSettings,
  ResolvedServer,
  RetrySettings,
  Scope,
  TransportKind,
} from './types.js';
export {
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_RETRY_BASE_DELAY_MS,
  DEFAULT_RETRY_MAX_DELAY_MS,
  DEFAULT_RETRY_MULTIPLIER,
  DEFAULT_RETRY_ON,
  RETRYABLE_OUTCOMES,
  SERVER_ID_PATTERN,
  isValidServerId,
} from './types.js';
export { serverEntrySchema, validateServerEntry, type ServerEntry, type EntryIssue } from './schema.js';
export { findDuplicateKeys, type DuplicateKey } from './duplicate-keys.js';
export { expandString, type ExpandContext, type VariableSyntax } from './expand.js';
export type { ImportFile, ImportFormat } from './imports.js';
export { nativeFile, nativeSyntax, stripJsonc, toJsonText, type FileSyntax } from './formats.js';
export { parseNativeLayer, parseImportLayer } from './layer.js';
export { configPathForScope, defaultImportFiles, globalConfigPath, projectConfigPath, userConfigDir, type PathOptions } from './paths.js';
export { loadConfig, nativeLayer, resolveConfig, type LoadConfigOptions, type LayerText, type ResolveConfigOptions } from './load.js';
export {
  projectRealPath,
  readTrustStore,
  serverFingerprint,
  trustStorePath,
  untrustedHint,
  type TrustedProject,
  type TrustedServer,
  type TrustOption,
  type TrustStoreData,
} from './trust.js';
export { listTrustedProjects, projectEntryTrust, trustProject, trustWrittenEntry, untrustProject, type PendingServer, type TrustEditOptions, type TrustResult, type WrittenTrust } from './trust-edit.js';
export { addServer, removeServer, setServerEnabled, type AddServerOptions, type SetEnabledOutcome } from './write.js';
export { toConnectConfig } from './connect.js';
export { sandboxLoosened, sandboxSettings, type SandboxSettings } from './sandbox.js';
