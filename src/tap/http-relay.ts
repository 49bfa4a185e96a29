/**
 * One HTTP exchange through the tap: the host's request goes to the upstream (and only there),
 * the upstream's answer comes back chunk by chunk, and the trace reads copies of both bodies.
 *
 * Flow control both ways: `pipe` pauses the reading side while the writing side's `write()`
 * returns false and resumes it on `'drain'`, so a slow client (or upstream) makes the tap hold
 * a socket buffer, never a whole body. A client that goes away aborts its upstream request, and
 * every upstream request leaves `open` when it closes, however it ends.
 */
import http from 'node:http';
import https from 'node:https';
import { StringDecoder } from 'node:string_decoder';
import { createParser } from 'eventsource-parser';
import { redactHeaderCopies } from '../trace/header-copies.js';
import type { Tracer } from '../trace/tracer.js';
import { refusal } from './http-guard.js';
import { endToEnd, type UpstreamCredentials } from './http-headers.js';
import type { Recorder } from './recorder.js';
import { EndpointRewriter, endpointVerdict } from './sse-endpoint.js';

/** A JSON body bigger than this is relayed but not traced. */
const MAX_TRACED_BODY = 64 * 1024 * 1024;
// `dpop` carries a proof bound to one request (RFC 9449), `dpop-nonce` the server's nonce: neither
// belongs in a trace.
const CREDENTIAL_HEADERS = ['authorization', 'proxy-authorization', 'cookie', 'x-api-key', 'api-key', 'dpop', 'dpop-nonce'];
const MAX_KNOWN_SECRETS = 1000;

function single(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** What one exchange knows as it goes. */
interface Exchange {
  /** The tap's number for it, on every line it writes (`exchange`). */
  id: number;
  /** The tap's number for the client connection it came on (`connection` on its `http` line). */
  connection: number;
  method: string;
  path: string;
  pathname: string;
  /** The tap's origin as the client named it (its `Host`, checked by http-guard.ts). */
  tapOrigin: string;
  session: string | undefined;
  /** The request's MCP headers (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`), as they passed. */
  mcp: Record<string, string> | undefined;
  /**
   * Whether `mcp` was judged against the request's body (`Tracer.headerCopies`): a copy of a
   * body value the body's redaction hides is redacted. Until then every copy is.
   */
  judged: boolean;
  started: number;
  /** The client went away before the answer was complete. */
  gone: boolean;
}

export interface RelayOptions {
  /** The upstream endpoint, without user info. */
  upstream: URL;
  credentials?: UpstreamCredentials;
  tracer: Tracer;
  recorder: Recorder;
}

export class TapRelay {
  /** Upstream requests in flight (destroyed on close: GET streams never end by themselves). */
  readonly open = new Set<http.ClientRequest>();
  /** `host:port` names of the tap's listener (set once it listens). */
  hosts = new Set<string>();
  private readonly lib: typeof http | typeof https;
  private readonly agent: http.Agent;
  /** Credential header values already registered with the redactor. */
  private readonly knownSecrets = new Set<string>();
  private closing = false;
  /** The last exchange number given. */
  private exchanges = 0;
  /**
   * Client connections by number, in order of their first request: all a tap sees of which
   * client sent a request when there is no session (2026-07-28).
   */
  private readonly connections = new WeakMap<object, number>();
  private lastConnection = 0;

  constructor(private readonly options: RelayOptions) {
    this.lib = options.upstream.protocol === 'https:' ? https : http;
    this.agent = new this.lib.Agent({ keepAlive: true });
  }

  handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const refused = refusal(req.url, req.headers, this.hosts);
    if (refused) return this.refuse(req, res, refused.status, refused.reason);
    const path = req.url!;
    const ex: Exchange = {
      id: ++this.exchanges,
      connection: this.connectionOf(req.socket),
      method: req.method ?? 'GET',
      path,
      pathname: path.split('?')[0],
      tapOrigin: `http://${req.headers.host}`,
      session: single(req.headers['mcp-session-id']) ?? new URLSearchParams(path.split('?')[1] ?? '').get('sessionId') ?? undefined,
      mcp: mcpHeaders(req.headers),
      judged: false,
      started: performance.now(),
      gone: false,
    };
    this.learnCredentials(req.headers);
    let upReq: http.ClientRequest;
    try {
      upReq = this.request(ex, this.requestHeaders(req.headers));
    } catch (err) {
      return this.refuse(req, res, 400, (err as Error).message);
    }
    this.open.add(upReq);
    upReq.on('close', () => this.open.delete(upReq));
    res.on('close', () => {
      if (res.writableEnded) return;
      ex.gone = true;
      upReq.destroy();
    });
    this.relayRequestBody(ex, req, upReq);
    upReq.on('response', (upRes) => this.relayResponse(ex, upRes, res));
    upReq.on('error', (err) => this.upstreamFailed(ex, err, res));
  }

  private connectionOf(socket: object): number {
    let n = this.connections.get(socket);
    if (n === undefined) this.connections.set(socket, (n = ++this.lastConnection));
    return n;
  }

  close(): void {
    this.closing = true;
    for (const r of this.open) r.destroy();
    this.agent.destroy();
  }

  /** Lines written by `fn` belong to this exchange (and its session). */
  private record(ex: { id: number; session: string | undefined }, fn: () => void): void {
    this.options.recorder.setSession(ex.session);
    this.options.recorder.setExchange(ex.id);
    fn();
  }

  private refuse(req: http.IncomingMessage, res: http.ServerResponse, status: number, reason: string): void {
    this.record({ id: ++this.exchanges, session: undefined }, () =>
      this.options.tracer.event({ type: 'diagnostic', code: 'MCPWIRE_TAP_REFUSED', message: `${req.method} refused (${status}): ${reason}` }),
    );
    req.resume();
    res.writeHead(status, { 'content-type': 'text/plain', connection: 'close' }).end(`mcpwire tap: ${reason}\n`);
  }

  /** The request to the upstream: its host and port always, the client's path and query. */
  private request(ex: Exchange, headers: http.OutgoingHttpHeaders): http.ClientRequest {
    const up = this.options.upstream;
    return this.lib.request({
      protocol: up.protocol,
      hostname: up.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: up.port || undefined,
      path: ex.path,
      method: ex.method,
      headers,
      agent: this.agent,
    });
  }

  private requestHeaders(incoming: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
    const headers = endToEnd(incoming);
    headers.host = this.options.upstream.host;
    // The upstream URL's user info, unless the host sent credentials of its own.
    if (this.options.credentials && incoming.authorization === undefined) headers.authorization = this.options.credentials.authorization;
    return headers;
  }

  /** The MCP headers as the trace may show them, copies of body values judged by the body (header-copies.ts). */
  private headerCopies(headers: Record<string, string>, body: unknown): Record<string, string> {
    const tracer = this.options.tracer;
    return tracer.headerCopies !== undefined ? tracer.headerCopies(headers, body) : redactHeaderCopies(headers, undefined, () => true);
  }

  private learnCredentials(headers: http.IncomingHttpHeaders): void {
    for (const h of CREDENTIAL_HEADERS) {
      const v = single(headers[h]);
      if (v && !this.knownSecrets.has(v) && this.knownSecrets.size < MAX_KNOWN_SECRETS) {
        this.knownSecrets.add(v);
        this.options.tracer.addSecrets([v]);
      }
    }
  }

  /** host → server: relay the body as it comes, trace a copy once complete. */
  private relayRequestBody(ex: Exchange, req: http.IncomingMessage, upReq: http.ClientRequest): void {
    const body = boundedCopy();
    req.on('data', (c: Buffer) => body.push(c));
    req.on('end', () => {
      const text = body.text();
      let parsed: unknown;
      if (text !== undefined) this.record(ex, () => (parsed = this.options.recorder.text('out', text)));
      if (ex.mcp !== undefined) {
        ex.mcp = this.headerCopies(ex.mcp, parsed);
        ex.judged = true;
      }
    });
    req.pipe(upReq);
  }

  private relayResponse(ex: Exchange, upRes: http.IncomingMessage, res: http.ServerResponse): void {
    const status = upRes.statusCode ?? 502;
    ex.session = single(upRes.headers['mcp-session-id']) ?? ex.session;
    res.writeHead(status, upRes.statusMessage, endToEnd(upRes.headers));
    res.flushHeaders();
    const contentType = String(upRes.headers['content-type'] ?? '').toLowerCase();
    const ms = Math.round((performance.now() - ex.started) * 1000) / 1000;
    this.record(ex, () =>
      this.options.tracer.event({ type: 'transport', event: { type: 'http', method: ex.method, path: ex.pathname, status, contentType: contentType.split(';')[0] || undefined, ms, headers: ex.mcp === undefined || ex.judged ? ex.mcp : this.headerCopies(ex.mcp, undefined), connection: ex.connection } }),
    );
    const observe = contentType.includes('text/event-stream') ? this.sseReader(ex) : contentType.includes('json') ? this.jsonReader(ex) : undefined;
    if (observe) {
      upRes.on('data', observe.data);
      upRes.on('end', observe.end);
    }
    upRes.on('error', () => res.destroy());
    // A GET event stream may be a legacy HTTP+SSE one, whose endpoint event must lead back here.
    if (ex.method === 'GET' && contentType.includes('text/event-stream')) this.relayEventStream(ex, upRes, res);
    else upRes.pipe(res);
  }

  /**
   * server → host, a GET event stream: as `pipe` (paused while the client is slow), but through
   * `EndpointRewriter`: an absolute `endpoint` on the upstream's origin is rewritten to the tap's,
   * one on another origin withheld (the stream then ends, flagged in the trace).
   */
  private relayEventStream(ex: Exchange, upRes: http.IncomingMessage, res: http.ServerResponse): void {
    const upstream = new URL(ex.path, this.options.upstream.origin);
    const tap = new URL(ex.path, ex.tapOrigin);
    const rewriter = new EndpointRewriter(
      (data) => endpointVerdict(data, upstream, tap),
      (origin) => {
        this.record(ex, () =>
          this.options.tracer.event({ type: 'diagnostic', code: 'MCPWIRE_TAP_ENDPOINT', message: `the upstream's endpoint event points at another origin (${origin}): withheld, stream closed` }),
        );
        ex.gone = true;
        upRes.destroy();
        res.end();
      },
      () => this.record(ex, () => this.options.tracer.event({ type: 'transport', event: { type: 'sse-endpoint-rewritten', from: upstream.origin, to: tap.origin } })),
    );
    const write = (parts: Buffer[]) => {
      let ok = true;
      for (const p of parts) ok = res.write(p) && ok;
      if (!ok) upRes.pause();
    };
    res.on('drain', () => upRes.resume());
    upRes.on('data', (c: Buffer) => write(rewriter.push(c)));
    upRes.on('end', () => {
      write(rewriter.end());
      res.end();
    });
  }

  /** server → host, JSON: one message (or batch) traced once the body is complete. */
  private jsonReader(ex: Exchange): { data: (c: Buffer) => void; end: () => void } {
    const body = boundedCopy();
    return {
      data: (c) => body.push(c),
      end: () => {
        const text = body.text();
        if (text !== undefined) this.record(ex, () => this.options.recorder.text('in', text));
      },
    };
  }

  /** server → host, SSE: each event's data traced as it completes. */
  private sseReader(ex: Exchange): { data: (c: Buffer) => void; end: () => void } {
    const parser = createParser({
      onEvent: (ev) => {
        if (ev.event === 'endpoint') {
          // Legacy SSE: the POST endpoint, whose `sessionId` names this stream's session.
          try {
            ex.session = new URL(ev.data.trim(), `http://tap${ex.path}`).searchParams.get('sessionId') ?? ex.session;
          } catch {
            // not a URL: nothing to learn
          }
          this.record(ex, () => this.options.tracer.event({ type: 'transport', event: { type: 'sse-endpoint' } }));
          return;
        }
        if (ev.data.trim() !== '') this.record(ex, () => this.options.recorder.text('in', ev.data));
      },
    });
    // A character split across chunks is decoded whole.
    const decoder = new StringDecoder('utf8');
    return { data: (c) => parser.feed(decoder.write(c)), end: () => parser.feed(decoder.end()) };
  }

  private upstreamFailed(ex: Exchange, err: Error, res: http.ServerResponse): void {
    // The tap aborted it (the client left, or the tap is closing): nothing failed upstream.
    if (ex.gone || this.closing) return;
    const origin = this.options.upstream.origin;
    this.record(ex, () => this.options.tracer.event({ type: 'diagnostic', code: 'MCPWIRE_UPSTREAM', message: `${ex.method} ${ex.pathname}: ${err.message}`, connection: ex.connection }));
    if (!res.headersSent) {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`mcpwire tap: upstream ${origin} unreachable: ${err.message}\n`);
    } else {
      res.destroy();
    }
  }
}

/**
 * The MCP headers of a request as they passed (names in lower case, values unchanged: a
 * `=?base64?…?=` value stays encoded), or undefined when it has none. The 2026-07-28 ones
 * (basic/transports/streamable-http: `Mcp-Method`, `Mcp-Name`, `Mcp-Param-{Name}`) say what the
 * body holds, for the trace reader comparing them; `MCP-Protocol-Version` is both eras'.
 */
export function mcpHeaders(headers: http.IncomingHttpHeaders): Record<string, string> | undefined {
  let out: Record<string, string> | undefined;
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || !(name === 'mcp-protocol-version' || name === 'mcp-method' || name === 'mcp-name' || name.startsWith('mcp-param-'))) continue;
    (out ??= {})[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** A copy of a body for the trace, dropped past MAX_TRACED_BODY. */
function boundedCopy(): { push: (c: Buffer) => void; text: () => string | undefined } {
  const chunks: Buffer[] = [];
  let size = 0;
  return {
    push: (c) => {
      if (size <= MAX_TRACED_BODY) chunks.push(c);
      size += c.length;
    },
    text: () => (size > 0 && size <= MAX_TRACED_BODY ? Buffer.concat(chunks).toString('utf8') : undefined),
  };
}
