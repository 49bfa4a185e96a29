/**
 * Shared pieces of the HTTP transports (Streamable HTTP and legacy HTTP+SSE): options, body
 * readers with byte caps, mapping HTTP failures to typed errors, and backoff (the signals that bound
 * an exchange: lifetime.ts).
 * Nothing here knows an MCP method name.
 */
import { Pool, type Dispatcher } from 'undici';
import { AuthRequiredError, SessionExpiredError, TransportError, type Phase } from '../errors.js';
import { excerpt } from '../jsonrpc/types.js';

/** Supplies per-request headers (the OAuth layer plugs in here; values are never traced). */
export interface HttpAuthProvider {
  /**
   * The headers for the next request. `refresh: false` asks for the credential held right now,
   * never a refresh or any other round trip (the session DELETE on close uses it: a close must
   * stay bounded). Providers that take no options ignore it.
   */
  headers(options?: { refresh?: boolean; signal?: AbortSignal; method?: string; url?: string }): Promise<Record<string, string>> | Record<string, string>;
  /**
   * Optional: a request was refused with 401/403. The provider (re)authorizes as the challenge
   * asks and resolves `true` when the request should be replayed; `attempt` counts the replays of
   * this request so far. The transport replays at most MAX_AUTH_REPLAYS times per request (a
   * GET stream: in a row, counted again once a GET got through); the session DELETE is never shown.
   * `sentAuthorization` is the Authorization header the refused request carried (absent when it
   * carried none), so the provider reacts to the token that was refused, not to whatever it holds
   * by the time the 401 arrives. `dpopNonce` is the refusal's DPoP-Nonce header (RFC 9449 §9).
   * `method`/`url` of `headers()` name the request (a DPoP proof signs them; default POST to the URL).
   */
  onUnauthorized?(info: { status: 401 | 403; wwwAuthenticate?: string; sentAuthorization?: string; dpopNonce?: string }, attempt: number): Promise<boolean>;
}

/** Hard cap on replays of one request after 401/403 (the provider decides below it). */
export const MAX_AUTH_REPLAYS = 3;

export interface HttpTransportOptions {
  /** The MCP endpoint (Streamable HTTP) or the SSE endpoint (legacy HTTP+SSE). */
  url: string;
  /** Static headers sent on every request (values never appear in events or errors). */
  headers?: Record<string, string>;
  serverId?: string;
  /**
   * TCP/TLS connect timeout (default 10 000 ms) of the transport's own pool; a supplied
   * `dispatcher` brings its own. Legacy SSE also uses it as the wait for the `endpoint` event.
   */
  connectTimeoutMs?: number;
  /**
   * An SSE stream with no bytes for this long is treated as dropped (default 300 000 ms; 0 = never).
   * Legacy HTTP+SSE closes the transport then (that revision cannot resume).
   */
  idleStreamTimeoutMs?: number;
  /**
   * Upper bound of the SSE reconnect backoff (default 30 000 ms); a larger server `retry:` is still
   * honoured. Every reconnect waits at least 250 ms. Also the least time before a given-up GET
   * stream is reopened (after the next successful POST).
   */
  maxReconnectDelayMs?: number;
  /**
   * Consecutive reconnects without progress (no message delivered) before a stream is given up
   * with an `MCPWIRE_SSE_GAVE_UP` diagnostic (default 5).
   */
  maxReconnectAttempts?: number;
  /**
   * How long the POST of a notification, or of our response to a server request, may wait for
   * the server's answer (default 10 000 ms; a server acknowledges these with 202 at once).
   * Requests are bounded by their own timeout instead. `close()` aborts these POSTs too.
   */
  notificationTimeoutMs?: number;
  /**
   * Streamable HTTP only: `false` starts the transport stateless (revision 2026-07-28; see
   * `Transport.setSessions`). Default true: sessions, the GET stream and resumption as in 2025-11-25.
   */
  sessions?: boolean;
  /** Streamable HTTP only: fall back to legacy HTTP+SSE when initialize gets 400/404/405 (default true). */
  fallbackToLegacySse?: boolean;
  /**
   * Largest single message accepted, default 16 MiB: bytes for a JSON body, characters for an
   * SSE event (the parser's buffer). Above it the send fails with MCPWIRE_MESSAGE_TOO_LARGE.
   */
  maxMessageBytes?: number;
  authProvider?: HttpAuthProvider;
  /** An undici dispatcher to use instead of the transport's own keep-alive Pool. */
  dispatcher?: Dispatcher;
}

export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
export const DEFAULT_IDLE_STREAM_TIMEOUT_MS = 300_000;
export const DEFAULT_MAX_RECONNECT_DELAY_MS = 30_000;
export const DEFAULT_MAX_RECONNECT_ATTEMPTS = 5;
export const DEFAULT_NOTIFICATION_TIMEOUT_MS = 10_000;
/** How much of an error body we read for the excerpt. */
const ERROR_BODY_BYTES = 4096;

export type BodyReadable = Dispatcher.ResponseData['body'];

/** The parts of a URL a request needs, computed once. */
export interface Target {
  origin: string;
  path: string;
}

export function parseTarget(url: string | URL): Target {
  const u = typeof url === 'string' ? new URL(url) : url;
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new TransportError(`unsupported URL scheme "${u.protocol}" (http: or https: expected)`, { phase: 'config' });
  }
  return { origin: u.origin, path: `${u.pathname}${u.search}` };
}

/** A keep-alive pool for one origin, unless the caller brought a dispatcher. */
export function createPool(origin: string, o: HttpTransportOptions): Pool {
  return new Pool(origin, {
    connect: { timeout: o.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS },
    keepAliveTimeout: 30_000,
    pipelining: 1,
  });
}

/** Whether `signal` has aborted by now (a function: the compiler would keep an earlier check's narrowing). */
export function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

/** The error of a POST whose bound (`boundSignals`) passed before the server answered. */
export function postTimeout(what: string, ms: number, where: ErrWhere): TransportError {
  return new TransportError(`${what} got no answer within ${ms} ms (notificationTimeoutMs)`, { ...where, code: 'MCPWIRE_POST_TIMEOUT' });
}

/** First value of a response header (undici gives string | string[] | undefined). */
export function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Reads a whole body as UTF-8 text, failing (and destroying the body) above `cap` bytes. */
export function readTextCapped(body: BodyReadable, cap: number, what: string, where: ErrWhere): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    body.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > cap) {
        body.destroy();
        reject(tooLarge(what, cap, where));
        return;
      }
      chunks.push(chunk);
    });
    body.once('end', () => resolve(chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks, size).toString('utf8')));
    body.once('error', reject);
  });
}

export function tooLarge(what: string, cap: number, where: ErrWhere): TransportError {
  return new TransportError(`${what} exceeds the ${cap}-byte message limit`, { ...where, code: 'MCPWIRE_MESSAGE_TOO_LARGE' });
}

/** Reads at most a few KiB of an error body for an excerpt, then discards the rest. */
export async function readExcerpt(body: BodyReadable): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (): void => {
      body.removeAllListeners('data');
      resolve(excerpt(Buffer.concat(chunks, size).toString('utf8')));
    };
    body.on('data', (chunk: Buffer) => {
      if (size < ERROR_BODY_BYTES) {
        chunks.push(chunk);
        size += chunk.length;
      }
      if (size >= ERROR_BODY_BYTES) {
        body.destroy();
        done();
      }
    });
    body.once('end', done);
    body.once('error', done);
  });
}

/** Discards a body we do not need, keeping the connection reusable when the body is small. */
export function discard(body: BodyReadable): void {
  body.dump({ limit: 64 * 1024 }).catch(() => {});
}

export interface ErrWhere {
  serverId?: string;
  phase?: Phase;
}

/**
 * The typed error for a failed HTTP exchange: 401/403 → AuthRequiredError (with the challenge),
 * 404 on a request that carried a session id → SessionExpiredError, else TransportError(status).
 * The body excerpt is bounded and escaped; header values other than the challenge are not kept.
 */
export async function httpError(
  what: string,
  status: number,
  headers: Record<string, string | string[] | undefined>,
  body: BodyReadable,
  where: ErrWhere,
  hadSession: boolean,
): Promise<Error> {
  return httpErrorOf(what, status, headers, await readExcerpt(body), where, hadSession);
}

/** `httpError` for a body already read (`text`: its bounded, escaped excerpt). */
export function httpErrorOf(
  what: string,
  status: number,
  headers: Record<string, string | string[] | undefined>,
  text: string,
  where: ErrWhere,
  hadSession: boolean,
): Error {
  const tail = text ? `: ${text}` : '';
  if (status === 401 || status === 403) {
    const challenge = header(headers, 'www-authenticate');
    const dpopNonce = header(headers, 'dpop-nonce');
    return new AuthRequiredError(`${what} was refused with HTTP ${status}${tail}`, {
      ...where,
      phase: 'auth',
      ...(challenge !== undefined ? { wwwAuthenticate: challenge } : {}),
      ...(dpopNonce !== undefined ? { dpopNonce } : {}),
    });
  }
  if (status === 404 && hadSession) {
    return new SessionExpiredError(`${what} got HTTP 404: the server no longer knows the session${tail}`, where);
  }
  const err = new TransportError(`${what} failed with HTTP ${status}${tail}`, { ...where, status });
  return err;
}

/** Wraps a network-level failure (refused, reset, timeout…) with where it happened. */
export function networkError(what: string, err: unknown, where: ErrWhere): TransportError {
  const e = err as { code?: string; message?: string };
  const code = e?.code === 'UND_ERR_CONNECT_TIMEOUT' ? 'MCPWIRE_CONNECT_TIMEOUT' : 'MCPWIRE_TRANSPORT';
  return new TransportError(`${what} failed: ${e?.message ?? String(err)}${e?.code ? ` (${e.code})` : ''}`, {
    ...where,
    code,
    cause: err,
  });
}

/** The shortest wait before any SSE reconnect, whatever `retry:` the server sent (a `retry: 0` storm). */
export const MIN_RECONNECT_DELAY_MS = 250;

/**
 * Delay before SSE reconnect number `attempt` (0 = the first after a drop): the server's `retry:`
 * (basic.transports#23; 1 s when it sent none) raised to the 250 ms floor, doubled per consecutive
 * failed attempt up to `max` (a larger server `retry:` is still honoured), plus up to 25 % jitter
 * that never goes below the base nor above the cap.
 */
export function reconnectDelayMs(attempt: number, retryMs: number | undefined, max: number): number {
  const base = Math.max(MIN_RECONNECT_DELAY_MS, retryMs ?? 1000);
  const cap = Math.max(base, max);
  const grown = Math.min(cap, base * 2 ** Math.min(attempt, 20));
  return Math.round(Math.min(cap, grown * (1 + Math.random() * 0.25)));
}

/** Drops one leading UTF-8 byte order mark (U+FEFF), as the stdio framer does. */
export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** MCP-Session-Id must be visible ASCII only (basic.transports#40). */
export function isValidSessionId(id: string): boolean {
  if (id.length === 0 || id.length > 1024) return false;
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    if (c < 0x21 || c > 0x7e) return false;
  }
  return true;
}

/** True when a parsed value is, or (for a batch) contains, a response to `id`. */
export function answers(msg: unknown, id: string | number): boolean {
  if (Array.isArray(msg)) return msg.some((m) => answers(m, id));
  if (msg === null || typeof msg !== 'object') return false;
  const m = msg as Record<string, unknown>;
  return m.method === undefined && m.id === id && ('result' in m || 'error' in m);
}

export function mediaType(contentType: string | undefined): string {
  if (contentType === undefined) return '';
  const semi = contentType.indexOf(';');
  return (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
}

/** The URL without user info, query or fragment (they may hold credentials), for an error text. */
export function endpointText(url: string | URL): string {
  try {
    const u = new URL(url.toString());
    return `${u.origin}${u.pathname}`;
  } catch {
    return '<invalid URL>';
  }
}
