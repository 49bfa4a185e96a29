/**
 * `mcpwire tap --listen 127.0.0.1:PORT --upstream URL --trace t.jsonl`: a reverse proxy for
 * Streamable HTTP and legacy HTTP+SSE servers, on node:http. Every request (POST, GET streams,
 * DELETE) goes to the upstream — its host and port only: origin-form targets, the tap's own
 * `Host`/`Origin` (http-guard.ts) — with the same method, path, query, end-to-end headers
 * (http-headers.ts: hop-by-hop ones dropped, `Host` set to the upstream's, `Accept-Encoding`
 * dropped so bodies stay readable) and body; the answer comes back with the same status,
 * headers (session ids, SSE event ids, `Last-Event-ID` and all) and body, chunk by chunk as it
 * arrives (http-relay.ts). The trace reads copies: JSON bodies whole, `text/event-stream`
 * bodies event by event.
 *
 * Sessions: the `MCP-Session-Id` header (Streamable HTTP) or the `sessionId` query parameter
 * (legacy SSE endpoints) names a session; its lines carry the session's hash, never the id.
 * Exchanges: each HTTP request and its answer (or stream) is numbered, and every line it writes
 * carries the number (`exchange`), which is what tells sessionless 2026-07-28 clients apart.
 * Every line also carries the tap's random tag (`tap`): several taps may append to one file,
 * each numbering from 1, and readers key an exchange by tag and number. Each `http` line names
 * the client connection the request came on (`connection`, numbered per tap).
 * A legacy `endpoint` event naming the upstream's origin is rewritten to the tap's, one naming
 * another origin withheld (sse-endpoint.ts): the client's POSTs come through the tap.
 * User info in `--upstream` becomes Basic credentials sent upstream, never shown or traced.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpWireError } from '../errors.js';
import { createTracer, type TraceWarning } from '../trace/tracer.js';
import { ownHosts } from './http-guard.js';
import { takeUserInfo, type UpstreamCredentials } from './http-headers.js';
import { TapRelay } from './http-relay.js';
import { Recorder } from './recorder.js';

export interface HttpTapOptions {
  /** `host:port` (port 0: any free port). */
  listen: string;
  /** The server's MCP endpoint, e.g. `http://127.0.0.1:3001/mcp`. */
  upstream: string;
  trace: string;
  /** The `server` field of the trace lines. Default: the upstream's host. */
  name?: string;
  strict?: boolean;
  onWarning?: (w: TraceWarning) => void;
  /** Values to redact besides the credential headers that pass (which are always redacted). */
  secrets?: string[];
}

export interface HttpTap {
  /** The proxy's address for the upstream endpoint: `http://host:port` + the upstream's path and query. */
  url: string;
  port: number;
  /** The upstream endpoint as it may be shown: without user info. */
  upstream: string;
  /** Upstream requests in flight now. */
  inFlight(): number;
  close(): Promise<void>;
}

export function parseListen(listen: string): { host: string; port: number } {
  const m = /^(?:\[?([^\]]*?)\]?:)?(\d{1,5})$/.exec(listen.trim());
  if (!m || Number(m[2]) > 65535) throw new McpWireError('MCPWIRE_CONFIG', `--listen ${listen}: expected host:port, e.g. 127.0.0.1:3100`, { phase: 'config' });
  return { host: m[1] || '127.0.0.1', port: Number(m[2]) };
}

/** Listens on `listen`; resolves with the bound address as a URL host (`[::1]`, `127.0.0.1`) and port. */
export async function listenOn(server: http.Server, listen: string): Promise<{ host: string; port: number; hosts: Set<string> }> {
  const { host, port } = parseListen(listen);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => reject(new McpWireError('MCPWIRE_LISTEN', `cannot listen on ${listen}: ${err.message}`, { phase: 'connect', cause: err })));
    server.listen(port, host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const shown = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return { host: shown, port: addr.port, hosts: ownHosts(host, addr.port) };
}

function parseUpstream(upstream: string): { url: URL; credentials?: UpstreamCredentials } {
  let url: URL;
  try {
    url = new URL(upstream);
  } catch {
    throw new McpWireError('MCPWIRE_CONFIG', '--upstream: not a URL', { phase: 'config' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new McpWireError('MCPWIRE_CONFIG', `--upstream ${url.protocol}//…: expected an http(s) URL`, { phase: 'config' });
  }
  return { url, credentials: takeUserInfo(url) };
}

export async function startHttpTap(options: HttpTapOptions): Promise<HttpTap> {
  const { url: upstream, credentials } = parseUpstream(options.upstream);
  const tracer = await createTracer({
    file: options.trace,
    serverId: options.name ?? upstream.host,
    transport: 'http-tap',
    // Exchange numbers start at 1 in every tap: the tag tells the taps sharing a file apart.
    tap: randomBytes(4).toString('hex'),
    secrets: [...(options.secrets ?? []), ...(credentials?.secrets ?? [])],
    strict: options.strict,
    onWarning: options.onWarning,
  });
  const recorder = new Recorder(tracer);
  const relay = new TapRelay({ upstream, credentials, tracer, recorder });
  const server = http.createServer((req, res) => relay.handle(req, res));
  let bound;
  try {
    bound = await listenOn(server, options.listen);
  } catch (err) {
    relay.close();
    await tracer.close();
    throw err;
  }
  relay.hosts = bound.hosts;
  const shownUpstream = `${upstream.origin}${upstream.pathname}`;
  tracer.event({ type: 'transport', event: { type: 'listen', address: `${bound.host}:${bound.port}`, upstream: shownUpstream } });
  let closed = false;
  return {
    url: `http://${bound.host}:${bound.port}${upstream.pathname}${upstream.search}`,
    port: bound.port,
    upstream: shownUpstream,
    inFlight: () => relay.open.size,
    async close() {
      if (closed) return;
      closed = true;
      relay.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      // The closing line belongs to no exchange.
      recorder.setExchange(undefined);
      await tracer.close();
    },
  };
}
