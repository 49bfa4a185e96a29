/**
 * The host layer: configuration, the supervisor over many servers, the tool adapter and the
 * permission hook. `src/index.ts` re-exports what is public from here.
 */
export * from './config/index.js';
export { createHost, McpHost, type HostDiagnostic, type HostNotification, type HostOptions, type HostStateChange, type ServerStatus, type StatusOptions } from './host.js';
export { RUNTIME_SERVER_FILE, capabilitySummary, diffServers, instructionsSummary, sameServer, type ReloadResult, type RuntimeServerEntry, type UnavailableTool } from './runtime.js';
export type { UnsupportedRequest } from '../mcp/client-features.js';
export type { ConnectFn, HostClient, ServerState } from './server-slot.js';
export { backoffDelay, DEFAULT_BACKOFF, type BackoffOptions } from './backoff.js';
export { decidePermission, matchesAny, type PermissionDecision, type PermissionHook, type PermissionRequest } from './permissions.js';
export type { AgentCallOptions } from './calls.js';
export { OUTCOME_CODES, MAX_META_BYTES, type CallOutcome, type HostCallResult, type RpcErrorInfo } from './outcome.js';
export { ResultStore, type ResultPage, type ResultStoreOptions } from './result-pages.js';
export { isIdempotentTool, mayRetry, retryDelay, NO_RETRY } from './retry.js';
export type { CallLogListener, CallNotificationListener } from './call-notifications.js';
export * from './tools.js';
export { sanitizeText } from './text.js';
export { traceWithConfiguredSecrets } from './redaction.js';
export { sandboxNoteFor, type SandboxStatus } from './sandbox-note.js';
export {
  authStorePath,
  authStore,
  storePlace,
  closeSharedStores,
  storeHealth,
  authStatusRows,
  grantFacts,
  clientAuthOptions,
  connectionAuthProvider,
  loginServer,
  logoutServer,
  usesOAuth,
  type AuthStatusRow,
  type HostAuthOptions,
  type LoginOptions,
  type LogoutResult,
} from './oauth.js';
export { oauthOffer, type OAuthOffer, type OAuthOfferOptions } from './oauth-offer.js';
export { EraFile, EraVerdicts, eraMemoryPath, type EraMemory } from './era-memory.js';
export { entryPrint, withSharedEras } from './era-shared.js';
export { StoreError, isStoreError, parseStoreSetting, shownUrl, storeSettingFrom, RedisTokenStore, openTokenStore, sharedResultsOf, sharedErasOf, RedisResults, sharedResultScope, type RedisResultsOptions, type StoreSetting, type StoreHealth, type RedisTokenStoreOptions, type TokenStoreWithHealth } from '../store/index.js';
export { FileTokenStore, TokenStoreCorruptError, isTokenStoreCorruptError, type FileTokenStoreOptions } from '../auth/file-store.js';
export { TokenStoreLockError } from '../auth/lock.js';
export { startLoopbackReceiver, parsePastedRedirect, type LoopbackOptions, type LoopbackReceiver } from '../auth/loopback.js';
export { openBrowser, openerCommand, type BrowserOpener } from '../auth/opener.js';
export { revokeGrant } from '../auth/deferred.js';
export type { RevocationOutcome } from '../auth/revoke.js';
export { TOOL_SEARCH_NAMES, AGENT_SEARCH_LIMIT, deferredTools, type DeferredTool, type SearchToolDefinition, type ToolSearchMode } from './search/agent-tools.js';
export { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT } from './search/limits.js';
export type { ToolSearchHit, ToolSearchOptions } from './search/tool-index.js';
export { searchCatalog } from './search/catalog-search.js';
