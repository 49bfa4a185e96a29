/**
 * Shared pieces of the HTTP transports (Streamable HTTP and legacy HTTP+SSE): options, body
 * readers with byte caps, mapping HTTP failures to typed errors, abortable sleeps and backoff.
 * Nothing here knows an MCP method name.
 */
import { setMaxListeners } from 'node:events';
import { Pool, type Dispatcher } from 'undici';
import { AuthRequiredError, SessionExpiredError, TransportError, type Phase } from '../errors.js';
import { excerpt } from '../jsonrpc/types.js';

/** Supplies per-request headers (the OAuth layer plugs in here; values are never traced). */
export interface HttpAuthProvider {
  headers(): Promise<Record<string, string>> | Record<string, string>;
}

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
  /** An SSE stream with no bytes for this long is treated as dropped (default 300 000 ms; 0 = never). */
  idleStreamTimeoutMs?: number;
  /** Upper bound of the reconnect backoff when the server gave no `retry:` (default 30 000 ms). */
  maxReconnectDelayMs?: number;
  /** Consecutive failed reconnects before a stream is given up (default 5). */
  maxReconnectAttempts?: number;
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

/** An AbortController whose signal may carry many listeners (one per in-flight request). */
export function lifetimeController(): AbortController {
  const c = new AbortController();
  setMaxListeners(0, c.signal);
  return c;
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
  const text = await readExcerpt(body);
  const tail = text ? `: ${text}` : '';
  if (status === 401 || status === 403) {
    const challenge = header(headers, 'www-authenticate');
    return new AuthRequiredError(`${what} was refused with HTTP ${status}${tail}`, {
      ...where,
      phase: 'auth',
      ...(challenge !== undefined ? { wwwAuthenticate: challenge } : {}),
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

/** Resolves after `ms`, or at once (with `false`) when `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Bounded exponential backoff with ±20 % jitter: 1 s, 2 s, 4 s… capped at `max`. */
export function backoffMs(attempt: number, max: number): number {
  const base = Math.min(max, 1000 * 2 ** Math.min(attempt, 16));
  return Math.max(0, Math.round(base * (0.8 + Math.random() * 0.4)));
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
