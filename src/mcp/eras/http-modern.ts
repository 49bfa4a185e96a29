/**
 * The 2026-07-28 era on Streamable HTTP, the client's side of what the transport cannot know
 * (it knows no method name): each request's metadata headers (`Mcp-Method`, `Mcp-Name`,
 * `Mcp-Param-*` from the called tool's `x-mcp-header` annotations, `MCP-Protocol-Version` from
 * the request's `_meta`; http-headers.ts computes them) handed over as `SendOptions.headers`, and
 * no `notifications/cancelled` while the transport cancels by closing a request's stream.
 * Installed on the transport's `send` by the client; does nothing until the era is modern.
 */
import type { JSONRPCMessage } from '../../jsonrpc/types.js';
import type { SendOptions, Transport } from '../../transport/types.js';
import type { RejectedTool } from './http-headers.js';

/** http-headers.ts, loaded when the first transport that can go stateless (HTTP) is installed: stdio never loads it. */
let headersModule: typeof import('./http-headers.js') | undefined;
const loadHeaders = async (): Promise<typeof import('./http-headers.js')> => (headersModule ??= await import('./http-headers.js'));

export interface ModernHttpHooks {
  /** Whether the conversation is in the modern era now. */
  modern(): boolean;
  /** The input schema of a listed tool (its `x-mcp-header` annotations). */
  inputSchemaOf(tool: string): unknown;
}

/** Wraps `transport.send` (an HTTP transport that can go stateless); other transports are left alone. */
export async function installModernHttp(transport: Transport, hooks: ModernHttpHooks): Promise<void> {
  if (transport.setSessions === undefined) return;
  const { requestHeaders } = await loadHeaders();
  const send = transport.send.bind(transport);
  transport.send = (message: JSONRPCMessage, options?: SendOptions): Promise<void> => {
    if (!hooks.modern()) return send(message, options);
    const m = message as { id?: unknown; method?: unknown; params?: Record<string, unknown> };
    if (typeof m.method !== 'string') return send(message, options);
    // closing the request's stream was the cancellation (basic/transports/streamable-http)
    if (m.id === undefined && m.method === 'notifications/cancelled' && transport.cancelsByClosing === true) return Promise.resolve();
    if (m.id === undefined) return send(message, options);
    const name = m.method === 'tools/call' ? m.params?.name : undefined;
    const headers = requestHeaders(m.method, m.params, typeof name === 'string' ? hooks.inputSchemaOf(name) : undefined);
    // (Object.assign, not spreads followed by properties: slow on Node 20, see host/outcome.ts)
    return send(message, Object.assign({}, options, { headers: options?.headers === undefined ? headers : Object.assign({}, options.headers, headers) }));
  };
}

/**
 * basic.transports.streamable_http#40–#42: on Streamable HTTP in the modern era a tool whose
 * `x-mcp-header` annotations are invalid is left out of the listing, with a warning naming it
 * and why; one malformed tool does not cost the others. Elsewhere the page is returned as is, at
 * once (a promise only where the headers module may still have to load).
 */
export function screenListedTools<P extends { tools: Array<{ name: string; inputSchema?: unknown }> }>(
  page: P,
  applies: boolean,
  warn: (code: string, message: string) => void,
): P | Promise<P> {
  if (!applies || !Array.isArray(page.tools)) return page;
  return loadHeaders().then(({ screenTools }) => screened(page, screenTools(page.tools), warn));
}

function screened<P extends { tools: Array<{ name: string; inputSchema?: unknown }> }>(
  page: P,
  { kept, rejected }: { kept: P['tools']; rejected: readonly RejectedTool[] },
  warn: (code: string, message: string) => void,
): P {
  if (rejected.length === 0) return page;
  for (const r of rejected) {
    warn('MCPWIRE_TOOL_REJECTED', `tool ${JSON.stringify(r.name)} left out: invalid x-mcp-header annotation(s): ${r.problems.map((p) => p.message).join('; ')}`);
  }
  return { ...page, tools: kept };
}

/** `err` is a broken response stream (the transport's MCPWIRE_STREAM_BROKEN): the request is sent again once; anything else is rethrown. */
export function reissueOnBrokenStream<T>(err: unknown, again: () => Promise<T>): Promise<T> {
  if ((err as { code?: unknown } | null)?.code !== 'MCPWIRE_STREAM_BROKEN') return Promise.reject(err);
  return again();
}
