/**
 * mcpwire — a spec-first Model Context Protocol (2025-11-25) client engine.
 *
 * ```ts
 * import { connect } from 'mcpwire';
 * const client = await connect({ transport: 'stdio', command: 'node', args: ['server.js'] });
 * const tools = await client.listTools();
 * const result = await client.callTool('echo', { text: 'hi' }, { timeoutMs: 5000 });
 * await client.close();
 * ```
 */
export { connect, McpClient, configSecrets } from './mcp/client.js';
export type { ClientOptions, CallToolOptions, McpClientDiagnostic } from './mcp/client.js';
export type { ClientFeatureOptions, HandlerContext, UnsupportedRequest } from './mcp/client-features.js';
export type { SamplingSupport } from './mcp/sampling.js';
export {
  UrlElicitationRequiredError,
  isUrlElicitationRequiredError,
  URL_ELICITATION_REQUIRED,
  requestedSchemaProblem,
  fieldProblem,
  elicitContentProblems,
  applyElicitationDefaults,
} from './mcp/elicitation.js';
export type { UrlElicitation } from './mcp/elicitation.js';
export { directoryRoot, authorizedDirectoryRoots } from './mcp/roots.js';
export type { RootsSource } from './mcp/roots.js';
export type { LifecycleState } from './mcp/lifecycle.js';
export { RELATED_TASK_META_KEY, isTerminalStatus } from './mcp/tasks.js';
export type { TaskPollOptions } from './mcp/client-options.js';
export type { TaskReceiverOptions, TaskReceiverMethod } from './mcp/task-receiver.js';
export { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from './mcp/versions.js';
export type * from './mcp/types.js';
export { LOGGING_LEVELS } from './mcp/types.js';
/** basic#28: whether an icon URI (or a redirect target while fetching one) is safe: https, or a data: image. */
export { isSafeIconUri, safeIcons } from './mcp/icons.js';
export type { RejectedTool, HeaderAnnotationProblem } from './mcp/eras/http-headers.js';

export type { ServerConfig, StdioServerConfig, HttpServerConfig, TransportFactoryOptions } from './transport/create.js';
/** Builds a transport from a server config (HTTP transports are loaded lazily, with undici). */
export { createTransport } from './transport/create.js';
export { StdioTransport } from './transport/stdio.js';
export type { StdioTransportOptions } from './transport/stdio.js';
export { MemoryTransport, createMemoryPair } from './transport/memory.js';
export type { HttpTransportOptions, HttpAuthProvider } from './transport/http-common.js';
export type { StreamableHttpTransport } from './transport/streamable-http.js';
export type { LegacySseTransport } from './transport/legacy-sse.js';
export type { Transport, TransportEvent, TransportDiagnostic, SendOptions } from './transport/types.js';
export type { RequestOptions } from './protocol/connection.js';
export type { ProgressParams, ProgressCallback } from './protocol/registry.js';
export type { ProtocolObserver, MessageInfo, ObservedEvent, Direction } from './protocol/observer.js';
export type { JSONRPCMessage, JSONRPCRequest, JSONRPCNotification, JSONRPCResponse, RequestId } from './jsonrpc/types.js';
export { ErrorCode } from './jsonrpc/types.js';
import type { Tracer, TracerOptions } from './trace/tracer.js';

/**
 * Tracing from the root: the tracer (loaded on the first `createTracer`), where a trace goes, and
 * the strict checker on demand. Reading, rendering and redacting traces (`parseTrace`,
 * `readTrace`, `renderShow`, `renderHtml`, `Redactor`…) are `mcpwire/trace` (src/trace-api.ts):
 * `import('mcpwire')` does not load them.
 */
export { traceTarget } from './trace/target.js';
export { TRACE_FORMAT_VERSION } from './trace/record.js';
export type {
  Tracer,
  TracerOptions,
  TraceWarning,
  TraceRecord,
  TraceMessageRecord,
  TraceEventRecord,
  Violation,
  TraceStats,
  ParsedTrace,
} from './trace/index.js';

/** Creates a tracer for one server connection (the writer is loaded on the first call); pass it as the client's `observer`. */
export async function createTracer(options: TracerOptions): Promise<Tracer> {
  const { createTracer: create } = await import('./trace/tracer.js');
  return create(options);
}

/** Loads the strict checker (and ajv) on demand: `(await loadStrict()).validateMessage(…)`. */
export function loadStrict(): Promise<typeof import('./trace/strict.js')> {
  return import('./trace/strict.js');
}

/**
 * For a relay that carries 2026-07-28 messages over its own Streamable HTTP transport, loaded on
 * first use: `requestHeaders` (the request metadata headers, `Mcp-Param-*` included) and
 * `screenTools` (the `tools/list` screening of `x-mcp-header` annotations).
 */
export function loadHttpHeaders(): Promise<typeof import('./mcp/eras/http-headers.js')> {
  return import('./mcp/eras/http-headers.js');
}

/** `mcpwire tap`/`replay`/`trace diff` (relay, trace-as-server, session diff), loaded on first use. */
export function loadTap(): Promise<typeof import('./tap/index.js')> {
  return import('./tap/index.js');
}

export * from './errors.js';

/** OAuth 2.1 for protected HTTP servers (basic/authorization): pass the provider as `authProvider`. */
export { createOAuthProvider, MemoryTokenStore, AuthError, isAuthError, parseBearerChallenge, canonicalResource, idJagAssertion } from './auth/index.js';
export type { IdJagOptions, AssertionSource } from './auth/index.js';
export type {
  AuthCallOptions,
  AuthorizationInteraction,
  AuthStatus,
  BearerChallenge,
  CreateOAuthProvider,
  OAuthClientProvider,
  OAuthProviderOptions,
  PrivateKeyJwtConfig,
  StoredGrant,
  TokenStore,
  UnauthorizedInfo,
} from './auth/index.js';
