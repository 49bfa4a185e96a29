/**
 * `mcpwire serve --http`: the gateway over Streamable HTTP (basic.transports, server side) at
 * `http://<listen>/mcp`. Local by default (127.0.0.1); the listener takes requests for its own
 * address only — a foreign `Host`, or an `Origin` that is not its own, is 403 (basic.transports#8/#9,
 * against DNS rebinding; the tap's guard, http-guard.ts). Listening beyond loopback needs a
 * bearer token (`token`, basic.transports#10/#11): every request must then carry `Authorization: Bearer <token>`, else 401
 * (the scheme in any case, RFC 9110 §11.1; the credentials compared in constant time).
 *
 * Sessions: `initialize` without `MCP-Session-Id` opens one (a random UUID in the response's
 * header, basic.transports#39); any other request without it is 400 (basic.transports#43), with
 * an unknown one 404 (basic.transports#44); DELETE ends it. A body must be one JSON-RPC message
 * (basic.transports#15): a batch is 400. An unsupported `MCP-Protocol-Version` is 400
 * (basic.transports#50); every handshake revision with Streamable HTTP (2025-03-26 on) is
 * accepted in a session, as the revision negotiated is what shapes its messages.
 *
 * Bounds: at most `maxSessions` sessions; an `initialize` beyond that ends the session idle the
 * longest (no request and no connected stream), or gets 503 when every session has a stream
 * open. The sessions' resumption history is bounded per session and for all of them together
 * (http-history.ts).
 *
 * 2026-07-28 (no sessions): a POST without `MCP-Session-Id` whose request names a version in its
 * `_meta` is served statelessly (modern.ts), its answer on that POST's stream; no session id is
 * handed out. One session serves all such requests, built once (http-stateless.ts).
 */
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import { ConfigError } from '../errors.js';
import type { ConfigLoadResult, ResolvedServer } from '../host/index.js';
import { excerpt } from '../jsonrpc/types.js';
import { STREAMABLE_HTTP_REVISIONS } from '../mcp/eras/handshake.js';
import { refusal } from '../tap/http-guard.js';
import { listenOn, parseListen } from '../tap/http.js';
import { Gateway, STATELESS, type GatewayOptions } from './gateway.js';
import { HistoryBudget } from './http-history.js';
import { HttpSessionTransport } from './http-session.js';
import { SharedSessions, storeAway } from './http-shared.js';
import { SharedSessionTransport } from './http-shared-session.js';
import { RedisServeState } from '../store/redis-sessions.js';
import { HeldForwarder } from './held-forward.js';
import { GATEWAY_PROTOCOL_VERSION } from './session.js';
import { MODERN_VERSION, modernVersionOf } from './modern.js';
import { headerProblem, refuseModern, StatelessPostTransport, StatelessRequests } from './http-stateless.js';
import { traceFile } from './trace.js';

export interface ServeHttpOptions extends GatewayOptions {
  /** `host:port` (default 127.0.0.1:0, a free port). */
  listen?: string;
  /** The bearer token every request must carry; required when `listen` is not a loopback address. */
  token?: string;
  /** Largest request body accepted (default 16 MiB). */
  maxBodyBytes?: number;
  /**
   * A session with no request and no connected stream for this long is ended (default 30 min):
   * a client that went away without DELETE does not hold its session forever; a later request
   * of it gets 404 and it starts a new session (basic.transports#45).
   */
  sessionIdleMs?: number;
  /**
   * Sessions at once (default 256). An `initialize` beyond that ends the session idle the
   * longest — no connected stream, least recently active — or, when every session has a stream
   * open, is refused with 503.
   */
  maxSessions?: number;
  /** Resumption history kept, in bytes: per session (default 4 MiB) and for every session together (default 64 MiB). */
  historyBytes?: { perSession?: number; total?: number };
  /**
   * Shared state for replicas (`redis://…`, docs/scale.md): sessions, stream histories and
   * held-call routing in Redis, so any replica serves any request. Absent, `file` or `memory`:
   * this process only (today's behaviour).
   */
  store?: string;
  /**
   * The secret every replica shares (with `store`): the key of the 2026-07-28 request state is
   * derived from it (so a retry verifies on any replica), and it authenticates the hop that
   * forwards a retry to the replica holding its call. Never logged or shown.
   */
  secret?: string;
  /**
   * More `host:port` values accepted as `Host` (and in `Origin`): the address clients reach the
   * gateway at when it is not the listener's own (a load balancer in front of replicas).
   */
  publicHosts?: string[];
  /** This replica's address as the other replicas reach it (`host:port`; default: the address it listens on). */
  advertise?: string;
}

/** A session's transport: this process's history, or the store's. */
type SessionTransport = HttpSessionTransport | SharedSessionTransport;

export interface HttpGateway {
  url: string;
  port: number;
  gateway: Gateway;
  close(): Promise<void>;
}

const MCP_PATH = '/mcp';
/** `MCP-Protocol-Version` values accepted: the handshake revisions that have Streamable HTTP, and 2026-07-28. */
const SUPPORTED_VERSIONS = new Set([GATEWAY_PROTOCOL_VERSION, MODERN_VERSION, ...STREAMABLE_HTTP_REVISIONS]);
const DEFAULT_MAX_SESSIONS = 256;

function isLoopback(host: string): boolean {
  return host === 'localhost' || host.startsWith('127.') || host === '::1' || host === '[::1]';
}

export async function serveHttp(config: ConfigLoadResult | readonly ResolvedServer[], options: ServeHttpOptions = {}): Promise<HttpGateway> {
  const listen = options.listen ?? '127.0.0.1:0';
  if (!isLoopback(parseListen(listen).host) && !options.token) {
    throw new ConfigError(`listening on ${listen} (beyond loopback) needs a bearer token: give --token-env <NAME>`, { phase: 'config' });
  }
  const state = options.store !== undefined && /^rediss?:/.test(options.store) ? new RedisServeState(options.store, { history: { ...(options.historyBytes?.perSession !== undefined ? { maxBytes: options.historyBytes.perSession } : {}), ...(options.sessionIdleMs !== undefined ? { ttlMs: options.sessionIdleMs } : {}) } }) : undefined;
  if (state !== undefined && !options.secret) throw new ConfigError('serve --store redis://… needs the secret the replicas share (MCPWIRE_SERVE_SECRET or --secret-env): the request-state key and the replicas\' forwarding hop come from it', { phase: 'config' });
  const secrets = [...(options.secrets ?? []), ...(options.token ? [options.token] : []), ...(options.secret ? [options.secret] : [])];
  const holder = state === undefined ? {} : { holder: { hold: (id: string, ttlMs: number) => state.holdCall(id, ttlMs), release: (id: string) => state.releaseCall(id) } };
  const inputRounds = { ...options.inputRounds, ...(options.secret ? { secret: options.secret } : {}), ...holder };
  const gateway = new Gateway(config, { ...options, secrets, inputRounds, ...(state ? { storeHealth: () => state.health() } : {}) });
  const forwarder = state === undefined ? undefined : new HeldForwarder(state, options.secret!, (id) => gateway.inputRounds.holds(id));
  const router = new Router(gateway, options, state, forwarder);
  const server = http.createServer((req, res) => router.handle(req, res));
  const bound = await listenOn(server, listen);
  router.hosts = new Set([...bound.hosts, ...(options.publicHosts ?? []).map((h) => h.toLowerCase())]);
  let stopCtl: (() => void) | undefined;
  if (state !== undefined) {
    await state.start(options.advertise ?? `${bound.host.includes(':') ? `[${bound.host}]` : bound.host}:${bound.port}`, () => router.shared?.recovered());
    const ctl = await state.onSessionEnded((sid) => router.shared?.ended(sid)).catch(() => undefined);
    const answers = await state.onAnswer((sid, m) => router.shared?.answer(sid, m)).catch(() => undefined);
    const levels = await state.onSessionLevel((sid, level) => router.shared?.levelElsewhere(sid, level)).catch(() => undefined);
    const subs = await state.onSessionSubscription((sid, uri) => router.shared?.subscriptionElsewhere(sid, uri)).catch(() => undefined);
    stopCtl = () => {
      ctl?.();
      answers?.();
      levels?.();
      subs?.();
    };
  }
  const idleMs = options.sessionIdleMs ?? 30 * 60_000;
  const sweep = setInterval(() => router.endIdle(idleMs), Math.max(10, Math.min(60_000, Math.floor(idleMs / 4))));
  sweep.unref();
  return {
    url: `http://${bound.host}:${bound.port}${MCP_PATH}`,
    port: bound.port,
    gateway,
    async close() {
      clearInterval(sweep);
      await router.closeAll();
      await gateway.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      stopCtl?.();
      await state?.close();
    },
  };
}

/** The path of a request target (the endpoint's own, as clients send it, without parsing a URL). */
const pathOf = (target: string | undefined): string => (target === MCP_PATH ? target : new URL(target ?? '/', 'http://x').pathname);

const rpcError = (code: number, message: string) => JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } });
const sha256 = (s: string): Buffer => createHash('sha256').update(s).digest();

class Router {
  hosts = new Set<string>();
  private readonly sessions = new Map<string, SessionTransport>();
  /** With a shared store: the sessions every replica serves. */
  readonly shared: SharedSessions | undefined;
  /** The SHA-256 of the token: digests of equal length compare in constant time whatever was sent. */
  private readonly token: Buffer | undefined;
  private readonly budget: HistoryBudget;
  private readonly maxSessions: number;
  /** With tracing on, each stateless POST gets a session of its own (its trace lines are its own). */
  private readonly traced: boolean;
  /** The transport of the session serving the stateless requests, once started. */
  private requests: StatelessRequests | undefined;
  private requestsStarting: Promise<StatelessRequests> | undefined;

  constructor(
    private readonly gateway: Gateway,
    private readonly options: ServeHttpOptions,
    state?: RedisServeState,
    private readonly forwarder?: HeldForwarder,
  ) {
    this.shared = state === undefined ? undefined : new SharedSessions(state, gateway, this.sessions);
    this.token = options.token ? sha256(options.token) : undefined;
    this.budget = new HistoryBudget(options.historyBytes?.total);
    this.maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
    this.traced = traceFile(options.trace, options.host?.clientOptions) !== undefined;
  }

  /** The session of the stateless requests, attached on first use. */
  private statelessRequests(): Promise<StatelessRequests> {
    return (this.requestsStarting ??= (async () => {
      const t = new StatelessRequests();
      await this.gateway.attach(t);
      this.requests = t;
      return t;
    })());
  }

  handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const refused = refusal(req.url, req.headers, this.hosts);
    if (refused) return this.reply(req, res, refused.status, `mcpwire serve: ${refused.reason}`);
    if (!this.authorized(req.headers.authorization)) {
      req.resume();
      res.writeHead(401, { 'www-authenticate': 'Bearer', 'content-type': 'text/plain' }).end('mcpwire serve: a bearer token is required\n');
      return;
    }
    if (pathOf(req.url) !== MCP_PATH) return this.reply(req, res, 404, `mcpwire serve: the MCP endpoint is ${MCP_PATH}`);
    const sid = req.headers['mcp-session-id'];
    const sessionId = typeof sid === 'string' ? sid : undefined;
    // A POST without a session may be a 2026-07-28 request: its body decides (deliver).
    if (!(req.method === 'POST' && sessionId === undefined) && this.unsupportedVersion(req.headers)) {
      return this.reply(req, res, 400, `mcpwire serve: unsupported MCP-Protocol-Version ${excerpt(String(req.headers['mcp-protocol-version']), 40)}`);
    }
    if (req.method === 'POST') return this.post(req, res, sessionId);
    if (this.shared !== undefined && (req.method === 'GET' || req.method === 'DELETE')) return void this.sharedGetOrDelete(req, res, sessionId);
    const transport = sessionId === undefined ? undefined : this.sessions.get(sessionId);
    if (req.method === 'GET') {
      if (sessionId === undefined) return this.reply(req, res, 400, 'mcpwire serve: GET needs an MCP-Session-Id');
      if (transport === undefined) return this.reply(req, res, 404, 'mcpwire serve: unknown session');
      const last = req.headers['last-event-id'];
      const lastEventId = typeof last === 'string' && last !== '' ? last : undefined;
      if (!(transport as HttpSessionTransport).acceptGet(res, {}, lastEventId)) {
        if (lastEventId !== undefined) this.reply(req, res, 400, 'mcpwire serve: no stream of this session to resume from that Last-Event-ID');
        else this.reply(req, res, 409, 'mcpwire serve: this session has a GET stream open already');
      }
      return;
    }
    if (req.method === 'DELETE') {
      if (transport === undefined) return this.reply(req, res, sessionId === undefined ? 400 : 404, 'mcpwire serve: unknown session');
      this.sessions.delete(sessionId!);
      void transport.close();
      res.writeHead(200).end();
      return;
    }
    res.writeHead(405, { allow: 'GET, POST, DELETE' }).end();
  }

  /** GET and DELETE of a session shared in the store (http-shared.ts). */
  private async sharedGetOrDelete(req: http.IncomingMessage, res: http.ServerResponse, sessionId: string | undefined): Promise<void> {
    const shared = this.shared!;
    if (sessionId === undefined) return this.reply(req, res, 400, `mcpwire serve: ${req.method} needs an MCP-Session-Id`);
    try {
      if (req.method === 'DELETE') {
        if (!(await shared.delete(sessionId))) return this.reply(req, res, 404, 'mcpwire serve: unknown session');
        res.writeHead(200).end();
        return;
      }
      const transport = this.sessions.get(sessionId) ?? (await shared.restore(sessionId));
      if (!(transport instanceof SharedSessionTransport)) return this.reply(req, res, 404, 'mcpwire serve: unknown session');
      shared.touch(sessionId);
      const last = req.headers['last-event-id'];
      const lastEventId = typeof last === 'string' && last !== '' ? last : undefined;
      if (!(await transport.acceptGet(res, {}, lastEventId))) {
        if (lastEventId !== undefined) this.reply(req, res, 400, 'mcpwire serve: no stream of this session to resume from that Last-Event-ID');
        else this.reply(req, res, 409, 'mcpwire serve: this session has a GET stream open already on this replica');
      }
    } catch {
      req.resume();
      if (!res.headersSent) storeAway(res, false);
    }
  }

  /** Ends the sessions idle for `idleMs` (see `sessionIdleMs`); lets go of the others' streams answered a while ago. */
  endIdle(idleMs: number, now = Date.now()): void {
    for (const [id, t] of this.sessions) {
      if (t instanceof HttpSessionTransport) t.expireDelivered(now);
      if (t.connectedStreams() > 0 || now - t.lastActive < idleMs) continue;
      this.sessions.delete(id);
      void t.close();
    }
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((t) => t.close()));
    this.sessions.clear();
  }

  private unsupportedVersion(headers: http.IncomingHttpHeaders): boolean {
    const version = headers['mcp-protocol-version'];
    return typeof version === 'string' && !SUPPORTED_VERSIONS.has(version);
  }

  /** `Authorization: Bearer <token>`, the scheme in any case (RFC 9110 §11.1), the credentials compared in constant time. */
  private authorized(header: string | undefined): boolean {
    if (this.token === undefined) return true;
    const space = header?.indexOf(' ') ?? -1;
    if (header === undefined || space === -1 || header.slice(0, space).toLowerCase() !== 'bearer') return false;
    return timingSafeEqual(sha256(header.slice(space + 1).replace(/^ +/, '')), this.token);
  }

  /** Room for one more session: the one idle the longest ended if need be (see `maxSessions`); false when there is none to end. */
  private roomForSession(): boolean {
    if (this.sessions.size < this.maxSessions) return true;
    let idlest: [string, SessionTransport] | undefined;
    for (const entry of this.sessions) {
      if (entry[1].connectedStreams() === 0 && (idlest === undefined || entry[1].lastActive < idlest[1].lastActive)) idlest = entry;
    }
    if (idlest === undefined) return false;
    this.sessions.delete(idlest[0]);
    void idlest[1].close();
    return true;
  }

  private reply(req: http.IncomingMessage, res: http.ServerResponse, status: number, text: string): void {
    req.resume();
    res.writeHead(status, { 'content-type': 'text/plain' }).end(`${text}\n`);
  }

  private post(req: http.IncomingMessage, res: http.ServerResponse, sessionId: string | undefined): void {
    const max = this.options.maxBodyBytes ?? 16 * 1024 * 1024;
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= max) chunks.push(c);
    });
    req.on('end', () => {
      if (size > max) return void res.writeHead(413, { 'content-type': 'application/json' }).end(rpcError(-32600, 'request body too large'));
      let body: unknown;
      try {
        body = JSON.parse((chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8'));
      } catch {
        return void res.writeHead(400, { 'content-type': 'application/json' }).end(rpcError(-32700, 'Parse error'));
      }
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        return void res.writeHead(400, { 'content-type': 'application/json' }).end(rpcError(-32600, 'Invalid Request: one JSON-RPC message per POST (no batches in 2025-11-25)'));
      }
      this.deliver(body as Record<string, unknown>, req.headers, res, sessionId);
    });
  }

  /**
   * Serves one POSTed message. A 2026-07-28 request to the session of the stateless requests,
   * once that runs and with no replicas to ask, is handed over at once (no promise per request);
   * anything else goes through `deliverModern` or `deliverInSession`.
   */
  private deliver(message: Record<string, unknown>, reqHeaders: http.IncomingHttpHeaders, res: http.ServerResponse, sessionId: string | undefined): void {
    if (sessionId !== undefined || modernVersionOf(message.params as Record<string, unknown> | undefined) === undefined) return void this.deliverInSession(message, reqHeaders, res, sessionId);
    const problem = headerProblem(reqHeaders, message);
    if (problem !== undefined) return refuseModern(res, message.id, problem);
    if (this.requests !== undefined && this.forwarder === undefined && this.servedTogether(message)) return this.requests.accept(message, res, reqHeaders);
    void this.deliverModern(message, reqHeaders, res);
  }

  /**
   * Stateless: a request goes to the one session of the stateless requests, under an id of its
   * own (the clients' ids may be the same); a lost stream loses the request (2026-07-28).
   * Traced, each request gets a session of its own (its trace lines are its own).
   */
  private servedTogether(message: Record<string, unknown>): boolean {
    return !this.traced && typeof message.method === 'string' && message.method !== 'subscriptions/listen' && message.id !== undefined && message.id !== null;
  }

  /** A 2026-07-28 message whose headers agree with it (see `deliver`). */
  private async deliverModern(message: Record<string, unknown>, reqHeaders: http.IncomingHttpHeaders, res: http.ServerResponse): Promise<void> {
    if (this.forwarder !== undefined) {
      // A retry of a call another replica holds goes there (held-forward.ts).
      if (this.forwarder.forwarded(reqHeaders) && !this.forwarder.check(reqHeaders)) return void res.writeHead(403, { 'content-type': 'text/plain' }).end('mcpwire serve: a forwarded request without the replicas\' proof\n');
      if (await this.forwarder.route(message, Buffer.from(JSON.stringify(message)), reqHeaders, res)) return;
    }
    if (this.servedTogether(message)) return (this.requests ?? (await this.statelessRequests())).accept(message, res, reqHeaders);
    // A notification, a subscription (its stream is its own) and, traced, any request: a
    // session of its own for this one POST, ended with its stream.
    const t = new StatelessPostTransport(res, reqHeaders);
    await this.gateway.attach(t);
    return t.accept(message);
  }

  /** A message of a session (`initialize` opens one), or a sessionless one that is not 2026-07-28's. */
  private async deliverInSession(message: Record<string, unknown>, reqHeaders: http.IncomingHttpHeaders, res: http.ServerResponse, sessionId: string | undefined): Promise<void> {
    let transport = sessionId === undefined ? undefined : this.sessions.get(sessionId);
    const headers: http.OutgoingHttpHeaders = {};
    if (sessionId === undefined && missingModernVersion(reqHeaders, message)) {
      // The header says 2026-07-28 but the request's _meta does not name it: a request missing a
      // required field is malformed, -32602 with 400 (basic#45, #46), not a session-era refusal.
      return refuseModern(res, message.id, { code: -32602, message: `Invalid params: a ${MODERN_VERSION} request carries io.modelcontextprotocol/protocolVersion (and its other required fields) in _meta` });
    }
    if (sessionId === undefined && this.unsupportedVersion(reqHeaders)) {
      return void res.writeHead(400, { 'content-type': 'text/plain' }).end(`mcpwire serve: unsupported MCP-Protocol-Version ${excerpt(String(reqHeaders['mcp-protocol-version']), 40)}\n`);
    }
    if (sessionId === undefined) {
      if (message.method !== 'initialize') {
        return void res.writeHead(400, { 'content-type': 'application/json' }).end(rpcError(-32600, 'Bad Request: no MCP-Session-Id (send initialize first)'));
      }
      if (!this.roomForSession()) {
        return void res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '5' }).end(rpcError(-32000, `Service Unavailable: the gateway serves ${this.maxSessions} sessions already, each with a stream open`));
      }
      const id = randomUUID();
      if (this.shared !== undefined) {
        transport = await this.shared.create(id, message);
        headers['mcp-session-id'] = id;
        transport.acceptPost([message], res, headers);
        return;
      }
      transport = new HttpSessionTransport(id, { budget: this.budget, historyBytes: this.options.historyBytes?.perSession });
      this.sessions.set(id, transport);
      const t = transport;
      await this.gateway.attach(t);
      // The connection's close handler is set now; a DELETE or gateway close ends the session.
      const theirs = t.onclose;
      t.onclose = (err) => {
        this.sessions.delete(id);
        theirs?.(err);
      };
      headers['mcp-session-id'] = id;
    } else if (transport === undefined && this.shared !== undefined) {
      try {
        transport = await this.shared.restore(sessionId);
      } catch {
        return storeAway(res, true);
      }
      if (transport !== undefined) this.shared.touch(sessionId);
    } else if (this.shared !== undefined) this.shared.touch(sessionId);
    if (transport === undefined) {
      return void res.writeHead(404, { 'content-type': 'application/json' }).end(rpcError(-32001, 'Session not found'));
    }
    transport.lastActive = Date.now();
    transport.acceptPost([message], res, headers);
  }
}

/** A sessionless request (not `initialize`) whose header names 2026-07-28 while its `_meta` names no version. */
function missingModernVersion(headers: http.IncomingHttpHeaders, message: Record<string, unknown>): boolean {
  if (headers['mcp-protocol-version'] !== MODERN_VERSION) return false;
  if (typeof message.method !== 'string' || message.method === 'initialize' || !('id' in message)) return false;
  return modernVersionOf(message.params as Record<string, unknown> | undefined) === undefined;
}
