/**
 * The Streamable HTTP session: the `MCP-Session-Id` the initialize response assigned and the
 * negotiated `MCP-Protocol-Version`, kept as three ready header sets (built when either changes,
 * never per message); the report of its expiry; and its DELETE on close.
 *
 * - `MCP-Session-Id` goes on every request after initialize (basic.transports#42), must be
 *   visible ASCII (#40), and is a bearer secret (#41): events carry a short prefix only.
 *   `MCP-Protocol-Version` goes on every request after `setProtocolVersion()` (#47). An
 *   `initialize` carries neither, so a re-initialize after a 404 starts fresh (#45).
 * - Expiry (#45): a 404 to a message that carried our session id means the session is gone. A
 *   request's own POST rejects with SessionExpiredError; anything else (the GET stream, a
 *   notification, a reply) calls the owner's `onsessionexpired` — once per session, whichever 404
 *   comes first (a request's 404 counts too).
 * - DELETE (#46) carries the credential held now (`headers({ refresh: false })`: a close never
 *   waits for a token refresh), has one 2 s bound, auth headers included, and tolerates 405 or
 *   any failure; its 401 is not shown to the auth provider.
 * - Stateless (revision 2026-07-28, `enabled` false): no session exists — an `MCP-Session-Id`
 *   the server sends is ignored (it should mint none), none is sent, and there is nothing to DELETE.
 */
import { TransportError, type SessionExpiredError } from '../errors.js';
import { excerpt } from '../jsonrpc/types.js';
import { discard, header, isValidSessionId, type BodyReadable } from './http-common.js';
import type { HttpLink } from './http-link.js';

const ACCEPT_BOTH = 'application/json, text/event-stream';
const DELETE_TIMEOUT_MS = 2000;

export class HttpSession {
  id: string | undefined;
  /** initialize succeeded on this session (the GET stream may open). */
  initialized = false;
  /** Sessions are used (false: the stateless 2026-07-28 transport). */
  enabled: boolean;
  /** The negotiated revision, once `setProtocolVersion` was called. */
  protocolVersion: string | undefined;
  /** The session whose expiry was reported (once per session). */
  private expiredReported: string | undefined;
  private readonly staticHeaders: Record<string, string>;
  /** Headers of every POST after initialize, of the initialize POST, and of GET/DELETE. */
  postHeaders!: Record<string, string>;
  initHeaders!: Record<string, string>;
  getHeaders!: Record<string, string>;

  constructor(
    private readonly link: HttpLink,
    headers: Record<string, string> | undefined,
    enabled: boolean,
  ) {
    this.enabled = enabled;
    this.staticHeaders = lowerCaseKeys(headers);
    this.rebuildHeaders();
  }

  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
    this.rebuildHeaders();
  }

  /** Forgets the session (the next initialize starts a new one). */
  reset(): void {
    this.id = undefined;
    this.initialized = false;
    this.rebuildHeaders();
  }

  /** Turns sessions on or off; either way the current session is forgotten. */
  setEnabled(enabled: boolean): void {
    this.enabled = enabled;
    this.reset();
  }

  /** Takes the session id of an initialize response (visible ASCII only, else the initialize fails). */
  accept(headers: Record<string, string | string[] | undefined>, body: BodyReadable): void {
    const id = header(headers, 'mcp-session-id');
    if (id === undefined || !this.enabled) return;
    if (!isValidSessionId(id)) {
      discard(body);
      throw new TransportError(`the server sent an invalid MCP-Session-Id (${excerpt(id, 60)}): visible ASCII only`, {
        ...this.link.where,
        phase: 'initialize',
        code: 'MCPWIRE_BAD_SESSION_ID',
      });
    }
    if (id !== this.id) {
      this.id = id;
      this.rebuildHeaders();
      const cb = this.link.cb;
      if (cb.onevent !== undefined) cb.onevent({ type: 'session', sessionId: `${id.slice(0, 8)}…` });
    }
  }

  /**
   * A 404 outside a request: reports the expiry of `sentOn` once to the owner. True when an owner
   * listens (the failed send then resolves: the owner renews the session).
   */
  lost(sentOn: string | undefined, error: SessionExpiredError): boolean {
    const cb = this.link.cb;
    if (cb.onsessionexpired === undefined) return false;
    if (sentOn !== undefined && sentOn === this.id && this.expiredReported !== sentOn && this.link.open) {
      this.expiredReported = sentOn;
      cb.onsessionexpired(error);
    }
    return true;
  }

  /** A request's own 404 told its caller: later 404s on that session are not reported again. */
  markExpired(sentOn: string | undefined): void {
    if (sentOn !== undefined && sentOn === this.id) this.expiredReported = sentOn;
  }

  /** DELETEs the session (see the file comment); never throws, a failure is a diagnostic. */
  async delete(): Promise<void> {
    const link = this.link;
    const signal = AbortSignal.timeout(DELETE_TIMEOUT_MS);
    try {
      const headers = await untilAborted(link.auth.headers(this.getHeaders, { refresh: false, signal, method: 'DELETE' }), signal);
      const res = await link.dispatcher.request({
        origin: link.target.origin,
        path: link.target.path,
        method: 'DELETE',
        headers,
        signal,
        headersTimeout: DELETE_TIMEOUT_MS,
        bodyTimeout: DELETE_TIMEOUT_MS,
      });
      discard(res.body);
      if (link.cb.onevent !== undefined) link.cb.onevent({ type: 'http', method: 'DELETE', status: res.statusCode });
    } catch (err) {
      link.diag('MCPWIRE_DELETE_FAILED', `DELETE of the session failed: ${(err as Error).message}`);
    }
  }

  private rebuildHeaders(): void {
    const common: Record<string, string> = { ...this.staticHeaders };
    this.initHeaders = { ...common, accept: ACCEPT_BOTH, 'content-type': 'application/json' };
    if (this.id !== undefined) common['mcp-session-id'] = this.id;
    if (this.protocolVersion !== undefined) common['mcp-protocol-version'] = this.protocolVersion;
    this.postHeaders = { ...common, accept: ACCEPT_BOTH, 'content-type': 'application/json' };
    this.getHeaders = { ...common, accept: 'text/event-stream' };
  }
}

export function lowerCaseKeys(h: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (h === undefined) return out;
  for (const k of Object.keys(h)) out[k.toLowerCase()] = h[k];
  return out;
}

/** `p`, or a rejection as soon as `signal` aborts (a provider that never answers cannot hold a close). */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new Error('the auth provider gave no headers in time'));
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
