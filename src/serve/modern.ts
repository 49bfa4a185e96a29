/**
 * The gateway's server side of revision 2026-07-28 (basic/versioning, server/discover): no
 * handshake — a request whose `_meta` names `io.modelcontextprotocol/protocolVersion` is served
 * on its own, with the client's capabilities and log level taken from that `_meta`, and the
 * handshake-era requests keep working beside it on the same transport.
 *
 * - `server/discover` names both revisions the gateway serves, its capabilities, instructions
 *   and `serverInfo` (server.discover#1, basic.versioning#3).
 * - A modern request naming a version the gateway does not serve is -32022 with the versions it
 *   does (basic.versioning#1); `ping` and `logging/setLevel` do not exist there (-32601).
 * - Every result gets `resultType: "complete"` and `_meta["io.modelcontextprotocol/serverInfo"]`;
 *   the lists, `resources/read` and discover carry cache hints: `ttlMs: 0`, `cacheScope:
 *   "private"` (the aggregate changes with the servers behind it; what a server read for this
 *   client's credentials is not for a shared cache).
 * - A log message goes up only for a request that set `io.modelcontextprotocol/logLevel`, at or
 *   above it; list changes go only to a `subscriptions/listen` that asked for them
 *   (subscriptions.ts); no server-to-client request reaches a modern client: a downstream
 *   server's elicitation, sampling or roots request during its call comes to it as an
 *   `input_required` result (multi round-trip requests, input-call.ts).
 */
import { JsonRpcError } from '../errors.js';
import { META_CLIENT_CAPABILITIES, META_LOG_LEVEL, META_PROTOCOL_VERSION, META_SERVER_INFO } from '../mcp/eras/modern.js';
import { LEGACY_RESOURCE_NOT_FOUND, UNSUPPORTED_PROTOCOL_VERSION } from '../mcp/eras/modern-errors.js';
import { LOGGING_LEVELS, type ClientCapabilities, type LoggingLevel } from '../mcp/types.js';

/** The stateless revision the gateway serves. */
export const MODERN_VERSION = '2026-07-28';

/** Methods of the handshake era that 2026-07-28 removed. */
const REMOVED: ReadonlySet<string> = new Set(['ping', 'logging/setLevel', 'initialize']);
/** Results that are `CacheableResult`s. */
const CACHEABLE: ReadonlySet<string> = new Set(['server/discover', 'tools/list', 'resources/list', 'resources/templates/list', 'prompts/list', 'resources/read']);

/** The version a request's `_meta` names (a modern request), else undefined (the handshake era). */
export function modernVersionOf(params: Record<string, unknown> | undefined): string | undefined {
  const meta = params?._meta as Record<string, unknown> | undefined;
  const v = meta?.[META_PROTOCOL_VERSION];
  return typeof v === 'string' ? v : undefined;
}

/** The log level a modern request asked for; undefined: no log message for it. */
export function modernLogLevel(params: Record<string, unknown> | undefined): LoggingLevel | undefined {
  const v = (params?._meta as Record<string, unknown> | undefined)?.[META_LOG_LEVEL];
  return typeof v === 'string' && LOGGING_LEVELS.includes(v as LoggingLevel) ? (v as LoggingLevel) : undefined;
}

/** The client capabilities a modern request's `_meta` declares (checked by `modernRefusal`). */
export function modernCapabilities(params: Record<string, unknown> | undefined): ClientCapabilities | undefined {
  const caps = (params?._meta as Record<string, unknown> | undefined)?.[META_CLIENT_CAPABILITIES];
  return caps !== null && typeof caps === 'object' && !Array.isArray(caps) ? (caps as ClientCapabilities) : undefined;
}

/** Why a modern request is refused before it runs, or undefined. */
export function modernRefusal(method: string, version: string, params: Record<string, unknown> | undefined): JsonRpcError | undefined {
  if (version !== MODERN_VERSION) {
    return new JsonRpcError(UNSUPPORTED_PROTOCOL_VERSION, `Unsupported protocol version ${version}: this gateway serves ${MODERN_VERSION} per request (and the initialize handshake)`, {
      supported: [MODERN_VERSION],
      requested: version,
    });
  }
  if (REMOVED.has(method)) return new JsonRpcError(-32601, `Method not found: ${method} is not part of ${MODERN_VERSION}`);
  const caps = (params?._meta as Record<string, unknown> | undefined)?.[META_CLIENT_CAPABILITIES];
  if (caps === null || typeof caps !== 'object' || Array.isArray(caps)) return new JsonRpcError(-32602, `Invalid params: _meta["${META_CLIENT_CAPABILITIES}"] is required (an object)`);
  return undefined;
}

/** A failure as 2026-07-28 answers it: an unknown resource is -32602 (its `data.uri` kept), not -32002. */
export function modernError(err: unknown): unknown {
  if (err instanceof JsonRpcError && err.rpcCode === LEGACY_RESOURCE_NOT_FOUND) return new JsonRpcError(-32602, err.message, err.data);
  return err;
}

/**
 * A handler's result as a 2026-07-28 result: `complete`, or the `input_required` of a multi
 * round-trip request (input-call.ts), which carries no cache hints (it is no answer to keep).
 */
export function modernResult(method: string, result: Record<string, unknown>, serverInfo: Record<string, unknown>): Record<string, unknown> {
  // (Object.assign, not spreads followed by properties: those are slow on Node 20, see host/outcome.ts)
  const meta: Record<string, unknown> = Object.assign({}, result._meta as Record<string, unknown> | undefined);
  meta[META_SERVER_INFO] = serverInfo;
  const out: Record<string, unknown> = Object.assign({}, result);
  if (result.resultType === 'input_required') {
    out._meta = meta;
    return out;
  }
  out.resultType = 'complete';
  out._meta = meta;
  if (CACHEABLE.has(method)) {
    out.ttlMs = 0;
    out.cacheScope = 'private';
  }
  return out;
}

/**
 * What a modern client may use: tools, resources, prompts (each `listChanged`, through
 * `subscriptions/listen`: subscriptions.ts; resources also `subscribe`, its
 * `resourceSubscriptions` served by the servers behind: resource-watch.ts), completions; no
 * `logging` (the level travels on each request).
 */
export const MODERN_CAPABILITIES = { tools: { listChanged: true }, resources: { listChanged: true, subscribe: true }, prompts: { listChanged: true }, completions: {} };

/** `server/discover`: both revisions, newest first. */
export function discoverResult(handshakeVersion: string, instructions: string | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = { supportedVersions: [MODERN_VERSION, handshakeVersion], capabilities: MODERN_CAPABILITIES };
  if (instructions !== undefined) out.instructions = instructions;
  return out;
}
