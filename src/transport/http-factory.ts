/**
 * Picks the HTTP transport for a server config: `transport: 'sse'` (as Claude/Cursor config
 * files spell the 2024-11-05 HTTP+SSE transport) forces legacy SSE; anything else gets
 * Streamable HTTP, which falls back to legacy SSE on its own when the server is an old one.
 */
import type { HttpTransportOptions } from './http-common.js';
import { LegacySseTransport } from './legacy-sse.js';
import { StreamableHttpTransport } from './streamable-http.js';
import type { Transport } from './types.js';

export type HttpTransportKind = 'http' | 'streamable-http' | 'sse' | 'legacy-sse';

export interface CreateHttpTransportOptions extends HttpTransportOptions {
  /** `sse` / `legacy-sse` force the legacy transport; default `http` (Streamable HTTP + fallback). */
  transport?: HttpTransportKind;
}

export function createHttpTransport(options: CreateHttpTransportOptions): Transport {
  const { transport = 'http', ...rest } = options;
  if (transport === 'sse' || transport === 'legacy-sse') return new LegacySseTransport(rest);
  return new StreamableHttpTransport(rest);
}

export { LegacySseTransport, StreamableHttpTransport };
export type { HttpTransportOptions } from './http-common.js';
