/**
 * `mcpwire tap --listen 127.0.0.1:PORT --upstream URL --trace t.jsonl`: a reverse proxy for
 * Streamable HTTP and legacy HTTP+SSE servers, on node:http. Every request (POST, GET streams,
 * DELETE) goes to the upstream origin with the same method, path, query, headers (hop-by-hop
 * headers dropped, `Host` set to the upstream's, `Accept-Encoding` dropped so bodies stay
 * readable) and body; the answer comes back with the same status, headers (session ids, SSE
 * event ids, `Last-Event-ID` and all) and body, chunk by chunk as it arrives. The trace reads
 * copies: JSON bodies whole, `text/event-stream` bodies event by event.
 *
 * Sessions: the `MCP-Session-Id` header (Streamable HTTP) or the `sessionId` query parameter
 * (legacy SSE endpoints) names a session; its lines carry the session's hash, never the id.
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { createParser } from 'eventsource-parser';
import { McpWireError } from '../errors.js';
import { createTracer, type Tracer, type TraceWarning } from '../trace/tracer.js';
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
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-authorization', 'proxy-authenticate', 'host', 'accept-encoding', 'content-length']);
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'x-api-key', 'api-key'];
/** A JSON body bigger than this is relayed but not traced. */
const MAX_TRACED_BODY = 64 * 1024 * 1024;

export function parseListen(listen: string): { host: string; port: number } {
  const m = /^(?:\[?([^\]]*?)\]?:)?(\d{1,5})$/.exec(listen.trim());
  if (!m || Number(m[2]) > 65535) throw new McpWireError('MCPWIRE_CONFIG', `--listen ${listen}: expected host:port, e.g. 127.0.0.1:3100`, { phase: 'config' });
  return { host: m[1] || '127.0.0.1', port: Number(m[2]) };
}

function single(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

export async function startHttpTap(options: HttpTapOptions): Promise<HttpTap> {
  let upstream: URL;
  try {
    upstream = new URL(options.upstream);
  } catch {
    throw new McpWireError('MCPWIRE_CONFIG', `--upstream ${options.upstream}: not a URL`, { phase: 'config' });
  }
  if (upstream.protocol !== 'http:' && upstream.protocol !== 'https:') {
    throw new McpWireError('MCPWIRE_CONFIG', `--upstream ${options.upstream}: expected an http(s) URL`, { phase: 'config' });
  }
  const { host, port } = parseListen(options.listen);
  const secrets = [...(options.secrets ?? [])];
  if (upstream.password) secrets.push(decodeURIComponent(upstream.password));
  const tracer: Tracer = await createTracer({
    file: options.trace,
    serverId: options.name ?? upstream.host,
    transport: 'http-tap',
    secrets,
    strict: options.strict,
    onWarning: options.onWarning,
  });
  const recorder = new Recorder(tracer);
  const lib = upstream.protocol === 'https:' ? https : http;
  const agent = new lib.Agent({ keepAlive: true });
  /** Upstream requests in flight (destroyed on close: GET streams never end by themselves). */
  const open = new Set<http.ClientRequest>();
  /** Credential header values already registered with the redactor. */
  const knownSecrets = new Set<string>();

  const record = (session: string | undefined, fn: () => void) => {
    recorder.setSession(session);
    fn();
  };

  const onRequest = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const target = new URL(req.url ?? '/', upstream.origin);
    const headers: http.OutgoingHttpHeaders = {};
    for (const [k, v] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(k) && v !== undefined) headers[k] = v;
    // The body is relayed unchanged, so its length stays true.
    if (req.headers['content-length'] !== undefined) headers['content-length'] = req.headers['content-length'];
    headers.host = upstream.host;
    for (const h of CREDENTIAL_HEADERS) {
      const v = single(req.headers[h]);
      if (v && !knownSecrets.has(v) && knownSecrets.size < 1000) {
        knownSecrets.add(v);
        tracer.addSecrets([v]);
      }
    }
    let session = single(req.headers['mcp-session-id']) ?? target.searchParams.get('sessionId') ?? undefined;
    const method = req.method ?? 'GET';
    const upReq = lib.request(target, { method, headers, agent });
    open.add(upReq);
    const started = performance.now();

    // host → server: relay the body as it comes, trace a copy once complete.
    const body: Buffer[] = [];
    let bodySize = 0;
    req.on('data', (c: Buffer) => {
      if (bodySize <= MAX_TRACED_BODY) body.push(c);
      bodySize += c.length;
    });
    req.pipe(upReq);
    req.on('end', () => {
      if (bodySize > 0 && bodySize <= MAX_TRACED_BODY) {
        const text = Buffer.concat(body).toString('utf8');
        record(session, () => recorder.text('out', text));
      }
    });
    const abort = () => {
      if (!res.writableEnded) upReq.destroy();
    };
    res.on('close', abort);

    upReq.on('response', (upRes) => {
      const status = upRes.statusCode ?? 502;
      const sid = single(upRes.headers['mcp-session-id']);
      if (sid) session = sid;
      const out: http.OutgoingHttpHeaders = {};
      for (const [k, v] of Object.entries(upRes.headers)) if (!HOP_BY_HOP.has(k) && v !== undefined) out[k] = v;
      if (upRes.headers['content-length'] !== undefined) out['content-length'] = upRes.headers['content-length'];
      res.writeHead(status, upRes.statusMessage, out);
      res.flushHeaders();
      const contentType = String(upRes.headers['content-type'] ?? '').toLowerCase();
      record(session, () =>
        tracer.event({ type: 'transport', event: { type: 'http', method, path: target.pathname, status, contentType: contentType.split(';')[0] || undefined, ms: Math.round((performance.now() - started) * 1000) / 1000 } }),
      );
      if (contentType.includes('text/event-stream')) {
        const parser = createParser({
          onEvent: (ev) => {
            if (ev.event === 'endpoint') {
              // Legacy SSE: the POST endpoint, whose `sessionId` names this stream's session.
              try {
                const sidParam = new URL(ev.data.trim(), target).searchParams.get('sessionId');
                if (sidParam) session = sidParam;
              } catch {
                // not a URL: nothing to learn
              }
              record(session, () => tracer.event({ type: 'transport', event: { type: 'sse-endpoint' } }));
              return;
            }
            if (ev.data.trim() === '') return;
            record(session, () => recorder.text('in', ev.data));
          },
        });
        upRes.on('data', (c: Buffer) => {
          res.write(c);
          parser.feed(c.toString('utf8'));
        });
      } else {
        const traced = contentType.includes('json');
        const chunks: Buffer[] = [];
        let size = 0;
        upRes.on('data', (c: Buffer) => {
          res.write(c);
          if (traced && size <= MAX_TRACED_BODY) chunks.push(c);
          size += c.length;
        });
        upRes.on('end', () => {
          if (traced && size > 0 && size <= MAX_TRACED_BODY) {
            const text = Buffer.concat(chunks).toString('utf8');
            record(session, () => recorder.text('in', text));
          }
        });
      }
      upRes.on('end', () => {
        open.delete(upReq);
        res.end();
      });
      upRes.on('error', () => res.destroy());
    });
    upReq.on('error', (err) => {
      open.delete(upReq);
      record(session, () => tracer.event({ type: 'diagnostic', code: 'MCPWIRE_UPSTREAM', message: `${method} ${target.pathname}: ${err.message}` }));
      if (!res.headersSent) {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`mcpwire tap: upstream ${upstream.origin} unreachable: ${err.message}\n`);
      } else {
        res.destroy();
      }
    });
  };

  const server = http.createServer(onRequest);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => reject(new McpWireError('MCPWIRE_LISTEN', `cannot listen on ${options.listen}: ${err.message}`, { phase: 'connect', cause: err })));
    server.listen(port, host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const shownHost = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  tracer.event({ type: 'transport', event: { type: 'listen', address: `${shownHost}:${addr.port}`, upstream: `${upstream.origin}${upstream.pathname}` } });
  let closed = false;
  return {
    url: `http://${shownHost}:${addr.port}${upstream.pathname}${upstream.search}`,
    port: addr.port,
    async close() {
      if (closed) return;
      closed = true;
      for (const r of open) r.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
      await tracer.close();
    },
  };
}
