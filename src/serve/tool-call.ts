/**
 * `tools/call` at the gateway: the host runs it (argument check, permissions, `max_parallel`,
 * retries, timeouts, bounded and redacted results; docs/host.md) and the gateway passes through
 * what the caller asked for:
 * - progress: the caller's `_meta.progressToken` gets the downstream server's progress as
 *   `notifications/progress` with that token; a value not above the last one sent (a retry
 *   starting over) is held back, since progress must increase (basic.utilities.progress#3),
 *   and nothing is sent once the call has settled (basic.utilities.progress#11);
 * - cancellation: the handler's signal aborts when the caller sends `notifications/cancelled`
 *   (or drops the POST that carried the request), and the host cancels the downstream request;
 *   the signal is the request's own light handle (src/util/cancel.ts), no AbortController per call;
 * - the server's log messages during the call go up as `notifications/message`, when the caller
 *   can receive them (`log` set). A call that wants neither progress nor log messages is sent
 *   without listeners, so the host sends it with no progress token of its own;
 * - the caller's `_meta` (a W3C `traceparent`, its own keys) goes down with the call, all but
 *   `progressToken` (the host's own) and the `io.modelcontextprotocol/` keys of the caller's
 *   revision (the downstream client sets those of its own); with tracing on, the gateway adds
 *   `mcpwire.dev/upstream` (`correlation`) naming the caller's request, so a trace ties both legs;
 * - `structuredContent`, `isError` and `_meta` of the result are kept. A tool that declares an
 *   `outputSchema` and answers with no `structuredContent` (the host cut it for size) is an
 *   error result (its text says so): a client validating against the schema would reject it.
 * An unknown tool is a -32602 protocol error (server.tools: "Unknown tools"); every other
 * failure is a tool error result whose text says what happened.
 */
import { isModelVisible } from '../mcp/ui-meta.js';
import { TOOL_SEARCH_NAMES, type AgentCallOptions, type HostCallResult, type McpHost } from '../host/index.js';
import { invalidParams } from './downstream.js';
import { gatewayResultViews } from './apps.js';
import { excerpt } from '../jsonrpc/types.js';
import { JsonRpcError } from '../errors.js';
import type { RequestInputOptions } from '../mcp/client-options.js';
import { MISSING_REQUIRED_CLIENT_CAPABILITY } from '../mcp/eras/modern-errors.js';
import type { CancelSignal } from '../util/cancel.js';

export interface CallDeps {
  host: McpHost;
  /** Sends a notification to the caller (progress); a held call's goes to the request being served (held-call.ts). */
  notify(method: string, params: Record<string, unknown>): void;
  signal: CancelSignal;
  /**
   * Sends a downstream log message up if the caller's level lets it through; undefined when the
   * caller takes none (a 2026-07-28 request that named no log level).
   */
  log: ((server: string | undefined, params: Record<string, unknown>) => void) | undefined;
  /** `_meta` added to the downstream request (e.g. `{ "mcpwire.dev/upstream": … }`). */
  correlation?: Record<string, unknown>;
  /** The caller renders MCP Apps views: it may call a tool only an app may call, for its view (apps.ts). */
  rendersApps?: boolean;
  /** The name the caller asked for, when the gateway offers the tool under another name than its server's (names.ts). */
  asked?: string;
  /** A 2026-07-28 caller's own client side, passed down: its capabilities, its answers to input rounds (session.ts). */
  input?: RequestInputOptions;
}

/** The caller's `_meta` as it goes down (see the module comment); undefined when nothing is left. */
export function downstreamMeta(caller: unknown, correlation: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  let out: Record<string, unknown> | undefined;
  if (caller !== null && typeof caller === 'object' && !Array.isArray(caller)) {
    for (const k in caller) {
      if (!Object.hasOwn(caller, k) || k === 'progressToken' || k.startsWith('io.modelcontextprotocol/')) continue;
      (out ??= {})[k] = (caller as Record<string, unknown>)[k];
    }
  }
  if (correlation !== undefined) for (const k in correlation) if (Object.hasOwn(correlation, k)) (out ??= {})[k] = correlation[k];
  return out;
}

/** The tool a `tools/call` runs: its `name`, or for the tool-search mode's call tool the found tool it names. */
export function calledToolName(params: Record<string, unknown> | undefined): unknown {
  if (params?.name !== TOOL_SEARCH_NAMES.call) return params?.name;
  const args = params.arguments;
  return typeof args === 'object' && args !== null ? (args as Record<string, unknown>).name : undefined;
}

export async function gatewayToolCall(deps: CallDeps, params: Record<string, unknown> | undefined): Promise<Record<string, unknown>> {
  const name = params?.name;
  if (typeof name !== 'string') throw invalidParams('tools/call: "name" must be a string');
  const args = params?.arguments ?? {};
  const callerMeta = params?._meta as Record<string, unknown> | undefined;
  const token = callerMeta?.progressToken;
  const called = calledToolName(params);
  const entry = typeof called === 'string' ? deps.host.catalog.byName.get(called) : undefined;
  const server = entry?.server;
  // One literal, then what applies (a `{...spread}` literal per option costs more than the call's own work here).
  const options: AgentCallOptions = { signal: deps.signal };
  const log = deps.log;
  if (log !== undefined) options.onLog = (p) => log(server, p);
  if (deps.rendersApps === true && entry !== undefined && !isModelVisible(entry.tool)) options.caller = 'app';
  const meta = callerMeta === undefined && deps.correlation === undefined ? undefined : downstreamMeta(callerMeta, deps.correlation);
  if (meta !== undefined) options._meta = meta;
  if (deps.input !== undefined) Object.assign(options, deps.input);
  const progress = typeof token === 'string' || typeof token === 'number' ? new ProgressRelay(token, deps.notify) : undefined;
  if (progress !== undefined) {
    options.onProgress = progress.relay;
    options.progressIntervalMs = 0;
  }
  const result = await deps.host.callTool(name, args, options);
  if (progress !== undefined) progress.done = true;
  if (result.outcome === 'unknown_tool') throw invalidParams(text(result) || `unknown tool "${excerpt(name, 200)}"`);
  // the server needs a capability the caller did not declare (basic#49): the caller learns it as the server said it
  if (result.rpcError?.code === MISSING_REQUIRED_CLIENT_CAPABILITY) throw new JsonRpcError(MISSING_REQUIRED_CLIENT_CAPABILITY, result.rpcError.message, result.rpcError.data);
  const plain = toCallToolResult(result);
  // ui:// views mapped (apps.ts: only resource and resource_link blocks have a URI to map)
  const out = server !== undefined && hasResourceBlock(result.content) ? gatewayResultViews(server, plain) : plain;
  if (deps.asked !== undefined && entry !== undefined && !RAN.has(result.outcome)) out.content = askedAs(out.content as unknown[], deps.asked, entry.tool.name);
  if (entry?.tool.outputSchema !== undefined && out.structuredContent === undefined && out.isError !== true) out.isError = true;
  return out;
}

/**
 * The downstream server's progress as the caller's: with the caller's token, only increasing
 * values (a retry starts over), nothing once the call has settled (`done`).
 */
class ProgressRelay {
  done = false;
  private last = -Infinity;

  constructor(
    private readonly token: string | number,
    private readonly notify: CallDeps['notify'],
  ) {}

  readonly relay = (p: { progress: number; total?: number; message?: string }): void => {
    if (this.done || !(p.progress > this.last)) return;
    this.last = p.progress;
    const out: Record<string, unknown> = { progressToken: this.token, progress: p.progress };
    if (p.total !== undefined) out.total = p.total;
    if (p.message !== undefined) out.message = p.message;
    this.notify('notifications/progress', out);
  };
}

function hasResourceBlock(content: readonly unknown[]): boolean {
  for (const block of content) {
    const type = (block as { type?: unknown } | null)?.type;
    if (type === 'resource_link' || type === 'resource') return true;
  }
  return false;
}

/** Outcomes whose content is the tool's own answer; every other is the host's text about the call. */
const RAN: ReadonlySet<string> = new Set(['ok', 'tool_error']);

/**
 * The host's text about a call of a renamed tool (it names `<server>/<its own name>`) with the
 * name the client called it by, so the error names both sides.
 */
function askedAs(content: unknown[], asked: string, own: string): unknown[] {
  if (asked === own) return content;
  const i = content.findIndex((c) => (c as { type?: unknown }).type === 'text');
  if (i < 0) return [{ type: 'text', text: `(called as "${excerpt(asked, 200)}")` }, ...content];
  const first = content[i] as { text: string };
  return content.map((c, j) => (j === i ? { ...first, text: `${first.text} (called as "${excerpt(asked, 200)}")` } : c));
}

function text(r: HostCallResult): string {
  const first = r.content.find((c) => c.type === 'text') as { text?: string } | undefined;
  return first?.text ?? '';
}

/** The host's typed result as an MCP CallToolResult: its bookkeeping fields stay in the gateway. */
export function toCallToolResult(r: HostCallResult): Record<string, unknown> {
  const out: Record<string, unknown> = { content: r.content };
  if (r.structuredContent !== undefined) out.structuredContent = r.structuredContent;
  if (r.isError === true) out.isError = true;
  if (r._meta !== undefined) out._meta = r._meta;
  return out;
}
