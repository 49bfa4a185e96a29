/**
 * Reconnecting SSE streams with GET: the resumption of a POST stream that dropped before its
 * response, and the server-message GET stream (basic.transports#29–#37).
 *
 * - Resumability (#20–#23, #37): when a stream drops before its response, the transport waits
 *   the server's `retry:` and resumes with GET + `Last-Event-ID`; event ids already seen on that
 *   stream are dropped (sse-stream.ts), so nothing is delivered twice. Every reconnect (POST
 *   resumption or GET stream) waits at least 250 ms, doubling (with jitter) per consecutive
 *   attempt without progress, up to `maxReconnectDelayMs` (src/util/sleep `wait`: a `retry:`
 *   beyond 2^31−1 ms is clamped, never a 1 ms timer); progress is a connection that delivered a
 *   JSON-RPC message (or stayed open 10 s, a polling server) — a 200 that ends empty does not
 *   count. After `maxReconnectAttempts` attempts without progress the stream is given up with an
 *   `MCPWIRE_SSE_GAVE_UP` diagnostic.
 * - A 401/403 to any of these GETs goes to the auth provider (basic.authorization#18); when it
 *   re-authorized the GET is made again at once, at most MAX_AUTH_REPLAYS times in a row.
 * - The server-message GET stream opens lazily, right after the first message that follows a
 *   successful initialize has been accepted (in MCP that is the client's
 *   `notifications/initialized`); 405 means the server offers none (#30) and it is never asked
 *   for again in this session. Once given up (too many failed reconnects, 401/403, 404) it is
 *   reopened after the next successful POST exchange, but not before `maxReconnectDelayMs`.
 */
import type { Dispatcher } from 'undici';
import { AuthRequiredError, SessionExpiredError, TransportError, type Phase } from '../errors.js';
import { wait } from '../util/sleep.js';
import { GET_REQUEST, Refused } from './http-auth.js';
import { DEFAULT_MAX_RECONNECT_ATTEMPTS, DEFAULT_MAX_RECONNECT_DELAY_MS, discard, header, httpError, mediaType, reconnectDelayMs, tooLarge } from './http-common.js';
import type { HttpLink } from './http-link.js';
import type { HttpSession } from './http-session.js';
import type { SseStream } from './sse-stream.js';
import type { SseStreams } from './sse-streams.js';

/** A stream connection open this long counts as progress even without a message (polling servers). */
const STABLE_STREAM_MS = 10_000;

/** The reconnect bookkeeping of one `loop` run. */
interface Attempts {
  /** Consecutive attempts without progress. */
  failures: number;
  /** Re-authorizations since the last connection that got through. */
  auth: number;
}

/** What to do after one GET: finished, reconnect after the backoff, or reconnect at once. */
type Next = 'done' | 'unsupported' | 'backoff' | 'now';

export class SseResumer {
  private getStream: SseStream | undefined;
  /** The server answered 405 to GET: no server-message stream in this session (#30). */
  private getUnsupported = false;
  /** After the GET stream was given up: not reopened before this time (ms, performance.now()). */
  private getReopenAt = 0;
  private readonly maxAttempts: number;
  private readonly maxDelay: number;

  constructor(
    private readonly link: HttpLink,
    private readonly session: HttpSession,
    private readonly streams: SseStreams,
  ) {
    this.maxAttempts = link.opts.maxReconnectAttempts ?? DEFAULT_MAX_RECONNECT_ATTEMPTS;
    this.maxDelay = link.opts.maxReconnectDelayMs ?? DEFAULT_MAX_RECONNECT_DELAY_MS;
  }

  /** basic.transports#27 #37: a POST stream that dropped unanswered is resumed (after `retry:`). */
  async resume(st: SseStream, phase: Phase): Promise<void> {
    await this.loop(st, true, phase);
  }

  /** Opens the GET stream after a successful exchange, unless refused (405) or lately given up. */
  maybeOpenGetStream(): void {
    if (!this.session.enabled || !this.session.initialized || this.getStream !== undefined || this.getUnsupported || !this.link.open) return;
    if (this.getReopenAt !== 0 && performance.now() < this.getReopenAt) return;
    this.openGetStream();
  }

  /** The session is gone: its GET stream stops, and a new session may open one again. */
  resetGetStream(): void {
    if (this.getStream !== undefined) this.streams.stop(this.getStream);
    this.getStream = undefined;
    this.getUnsupported = false;
    this.getReopenAt = 0;
  }

  private openGetStream(): void {
    const st = this.streams.add('get', undefined, this.session.id);
    this.getStream = st;
    const ended = (): void => {
      this.streams.remove(st);
      if (this.getStream === st) this.getStream = undefined;
    };
    this.loop(st, false, 'transport').then(
      (outcome) => {
        ended();
        if (outcome === 'unsupported') this.getUnsupported = true;
      },
      (err: unknown) => {
        ended();
        if (!this.link.open || st.stopped) return;
        if (err instanceof SessionExpiredError) {
          this.session.lost(st.session, err);
          return;
        }
        // Given up: reopened after a later successful POST, not sooner than the longest backoff.
        this.getReopenAt = performance.now() + this.maxDelay;
        if (st.gaveUp) return;
        const e = err as { code?: string; message?: string };
        this.link.diag(e.code ?? 'MCPWIRE_GET_STREAM', `the server-message GET stream stopped: ${e.message ?? String(err)}`);
      },
    );
  }

  /**
   * GETs `st` (with Last-Event-ID once it has one) until it is finished: answered (POST-origin),
   * refused with 405 (GET-origin, resolves `unsupported`), stopped or closed. `delayFirst` waits
   * before the first GET (a resumption honours the server's `retry:`, basic.transports#23).
   */
  private async loop(st: SseStream, delayFirst: boolean, phase: Phase): Promise<'done' | 'unsupported'> {
    const attempts: Attempts = { failures: 0, auth: 0 };
    let delay = delayFirst;
    for (;;) {
      if (delay && !(await this.backoff(st, attempts.failures))) return this.streams.stoppedOrClosed(st, phase);
      delay = true;
      if (this.finished(st)) return this.streams.stoppedOrClosed(st, phase);
      const got = await this.connect(st, phase);
      if (got === undefined) return this.streams.stoppedOrClosed(st, phase);
      if (got instanceof Error) {
        if (++attempts.failures > this.maxAttempts) throw this.gaveUp(st, phase, attempts.failures, got);
        continue;
      }
      const next = await this.answered(st, got.res, got.headers, attempts, phase);
      if (next === 'done' || next === 'unsupported') return next;
      delay = next === 'backoff';
    }
  }

  /** Waits before reconnect number `failures + 1`; false when the stream was stopped meanwhile. */
  private backoff(st: SseStream, failures: number): Promise<boolean> {
    const delayMs = reconnectDelayMs(Math.max(0, failures - 1), st.retryMs, this.maxDelay);
    const cb = this.link.cb;
    if (cb.onevent !== undefined) cb.onevent({ type: 'sse-reconnect', lastEventId: st.lastEventId ?? null, delayMs, attempt: failures + 1 });
    return wait(delayMs, st.ctrl.signal);
  }

  private finished(st: SseStream): boolean {
    return !this.link.open || st.stopped || (st.origin === 'post' && st.answered);
  }

  /** One GET of `st`: its response and the headers it carried, a network failure, or undefined once stopped. */
  private async connect(st: SseStream, phase: Phase): Promise<{ res: Dispatcher.ResponseData; headers: Record<string, string> } | Error | undefined> {
    const link = this.link;
    try {
      const base = await link.auth.headers(this.session.getHeaders, GET_REQUEST);
      if (!link.open || st.stopped) return undefined;
      const headers = st.lastEventId !== undefined ? { ...base, 'last-event-id': st.lastEventId } : base;
      const res = await link.dispatcher.request({
        origin: link.target.origin,
        path: link.target.path,
        method: 'GET',
        headers,
        signal: st.ctrl.signal,
        headersTimeout: 0,
        bodyTimeout: link.idleMs,
      });
      return { res, headers };
    } catch (err) {
      if (!link.open || st.stopped) return undefined;
      return link.requestFailure('GET (SSE stream)', err, phase);
    }
  }

  /** What the answer to one GET means for the stream (see `Next`); throws when the stream is over. */
  private async answered(st: SseStream, res: Dispatcher.ResponseData, headers: Record<string, string>, attempts: Attempts, phase: Phase): Promise<Next> {
    const status = res.statusCode;
    const cb = this.link.cb;
    if (cb.onevent !== undefined) cb.onevent({ type: 'http', method: 'GET', status, resume: st.lastEventId !== undefined });
    if (status === 200 && mediaType(header(res.headers, 'content-type')) === 'text/event-stream') {
      attempts.auth = 0;
      return this.readConnection(st, res, attempts, phase);
    }
    if (status === 405) {
      discard(res.body);
      if (st.origin === 'get') {
        if (cb.onevent !== undefined) cb.onevent({ type: 'sse-unsupported', method: 'GET', status });
        return 'unsupported';
      }
    }
    const link = this.link;
    const error = await httpError('GET (SSE stream)', status, res.headers, res.body, { ...link.where, phase }, this.session.id !== undefined);
    if (error instanceof SessionExpiredError && st.origin === 'post') this.session.markExpired(st.session);
    // A refused GET goes to the auth provider like a refused POST; re-authorized, it is made again at once.
    if (error instanceof AuthRequiredError && (await link.auth.again(new Refused(error, status), attempts.auth++, headers, link.open && !st.stopped))) return 'now';
    if (status === 405 || status === 404 || status === 401 || status === 403) throw error;
    if (++attempts.failures > this.maxAttempts) throw this.gaveUp(st, phase, attempts.failures, error);
    return 'backoff';
  }

  /** Reads one 200 connection of `st`; counts it as progress when it delivered a message or lasted. */
  private async readConnection(st: SseStream, res: Dispatcher.ResponseData, attempts: Attempts, phase: Phase): Promise<Next> {
    const link = this.link;
    st.resumed = true;
    const before = st.delivered;
    const openedAt = performance.now();
    await this.streams.consume(st, res.body);
    if (st.tooLarge) throw tooLarge('an SSE event', link.maxBytes, { ...link.where, phase });
    if (st.origin === 'post' && st.answered) return 'done';
    if (!link.open || st.stopped) return this.streams.stoppedOrClosed(st, phase);
    // A 200 that ends without a message is no progress (a `retry: 0` + instant close storm).
    if (st.delivered > before || performance.now() - openedAt >= STABLE_STREAM_MS) attempts.failures = 0;
    else if (++attempts.failures > this.maxAttempts) {
      throw this.gaveUp(st, phase, attempts.failures, new TransportError('every reconnect ended without a message', { ...link.where, phase, code: 'MCPWIRE_SSE_GAVE_UP' }));
    }
    return 'backoff';
  }

  /** The reconnect cap was reached: one diagnostic, and the error (it keeps its HTTP status). */
  private gaveUp(st: SseStream, phase: Phase, attempts: number, error: Error): Error {
    const link = this.link;
    if (!link.open) return link.closedError(phase);
    st.gaveUp = true;
    const which = st.origin === 'get' ? 'the server-message GET stream' : `the resumption of request ${JSON.stringify(st.requestId)}`;
    link.diag('MCPWIRE_SSE_GAVE_UP', `${which} was given up after ${attempts} reconnects without progress: ${error.message}`);
    return error;
  }
}
