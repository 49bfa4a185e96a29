/**
 * The gateway's own leg in a trace. With tracing on — `GatewayOptions.trace`, else the trace
 * file of the host's client options (what `mcpwire serve --trace` / `MCPWIRE_TRACE` set for the
 * downstream connections) — each upstream client's messages are traced into the same file under
 * the server id `upstream` (an HTTP session's lines carry its session tag), and each `tools/call`
 * sent downstream carries `_meta["mcpwire.dev/upstream"]`: `{ request, session? }`, the id of the
 * caller's request (and its session tag). A trace of one call through the gateway thus holds both
 * legs, tied: the `upstream` request whose `id` is `request` is the one the downstream request
 * served. Every server's configured secrets, and the gateway's bearer token, are redacted.
 */
import type { ResolvedServer } from '../host/index.js';
import type { ClientOptions } from '../mcp/client-options.js';
import { configuredSecrets } from '../trace/configured-secrets.js';
import type { Tracer } from '../trace/tracer.js';

/** The `_meta` key naming the upstream request a downstream call serves. */
const UPSTREAM_META = 'mcpwire.dev/upstream';
/** The server id of the upstream leg's lines. */
export const UPSTREAM_TRACE_ID = 'upstream';

/** The trace file of the gateway's options: its own, else the host client options' one. */
export function traceFile(own: string | undefined, clientOptions: unknown): string | undefined {
  if (own !== undefined && own !== '') return own;
  if (typeof clientOptions !== 'object' || clientOptions === null) return undefined;
  const t = (clientOptions as ClientOptions).trace;
  if (typeof t === 'string' && t !== '') return t;
  return typeof t === 'object' && t !== null && t.file !== '' ? t.file : undefined;
}

/** A tracer of one upstream client's connection. */
export async function upstreamTracer(file: string, transport: string, servers: readonly ResolvedServer[], extraSecrets: readonly string[], onWarning: (message: string) => void): Promise<Tracer> {
  const secrets = new Set<string>(extraSecrets);
  for (const s of servers) {
    for (const v of configuredSecrets(s.config)) secrets.add(v);
    if (s.config.oauth?.clientSecret) secrets.add(s.config.oauth.clientSecret);
  }
  const { createTracer } = await import('../trace/tracer.js');
  return createTracer({ file, serverId: UPSTREAM_TRACE_ID, transport, secrets: [...secrets], onWarning: (w) => onWarning(String((w as { message?: unknown }).message ?? 'trace warning')) });
}

/** The correlation `_meta` of a downstream call serving upstream request `id`. */
export function correlation(id: string | number, session: string | undefined): Record<string, unknown> {
  return { [UPSTREAM_META]: session === undefined ? { request: id } : { request: id, session } };
}
