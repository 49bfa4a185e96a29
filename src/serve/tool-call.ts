/**
 * `tools/call` at the gateway: the host runs it (argument check, permissions, `max_parallel`,
 * retries, timeouts, bounded and redacted results; docs/host.md) and the gateway passes through
 * what the caller asked for:
 * - progress: the caller's `_meta.progressToken` gets the downstream server's progress as
 *   `notifications/progress` with that token; a value not above the last one sent (a retry
 *   starting over) is held back, since progress must increase (basic.utilities.progress#3),
 *   and nothing is sent once the call has settled (basic.utilities.progress#11);
 * - cancellation: the handler's signal aborts when the caller sends `notifications/cancelled`,
 *   and the host cancels the downstream request;
 * - the server's log messages during the call go up as `notifications/message`;
 * - `structuredContent`, `isError` and `_meta` of the result are kept.
 * An unknown tool is a -32602 protocol error (server.tools: "Unknown tools"); every other
 * failure is a tool error result whose text says what happened.
 */
import type { HostCallResult, McpHost } from '../host/index.js';
import type { Connection } from '../protocol/connection.js';
import { invalidParams } from './downstream.js';

export interface CallDeps {
  host: McpHost;
  conn: Connection;
  signal: AbortSignal;
  /** Sends a downstream log message up if the caller's level lets it through. */
  log(server: string | undefined, params: Record<string, unknown>): void;
}

export async function gatewayToolCall(deps: CallDeps, params: Record<string, unknown> | undefined): Promise<Record<string, unknown>> {
  const name = params?.name;
  if (typeof name !== 'string') throw invalidParams('tools/call: "name" must be a string');
  const args = params?.arguments ?? {};
  const token = (params?._meta as Record<string, unknown> | undefined)?.progressToken;
  let last = -Infinity;
  let done = false;
  const server = deps.host.catalog.byName.get(name)?.server;
  const result = await deps.host.callTool(name, args, {
    signal: deps.signal,
    ...(typeof token === 'string' || typeof token === 'number'
      ? {
          onProgress: (p) => {
            if (done || !(p.progress > last)) return;
            last = p.progress;
            const out: Record<string, unknown> = { progressToken: token, progress: p.progress };
            if (p.total !== undefined) out.total = p.total;
            if (p.message !== undefined) out.message = p.message;
            deps.conn.notify('notifications/progress', out).catch(() => {});
          },
          progressIntervalMs: 0,
        }
      : {}),
    onLog: (p) => deps.log(server, p),
  });
  done = true;
  if (result.outcome === 'unknown_tool') throw invalidParams(text(result) || `unknown tool "${name}"`);
  return toCallToolResult(result);
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
