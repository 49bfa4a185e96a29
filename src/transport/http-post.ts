/**
 * The POST exchange of the Streamable HTTP transport: one client message, one POST
 * (basic.transports#12–#15), and its answer — a JSON body, an SSE stream (#19), or 202 for a
 * notification or a response.
 *
 * - `send()` for a request settles when its HTTP exchange is over: it resolves once the response
 *   was delivered to `onmessage` and rejects with a typed error when the POST failed, the server
 *   answered 202 with no body (a request needs a response, #18), the response is too large, or
 *   the stream could not be resumed — the protocol layer settles the request with that error.
 *   `SendOptions.onDispatched` is called once, right before the first POST is written to a socket
 *   (after the auth headers resolved, and after undici had a connection for it: one aborted while
 *   undici queued it was never issued; write-hook.ts), never when the signal was aborted by then.
 * - A request is bounded by its own signal (timeout, cancel). The POST of a notification or of a
 *   response has none of the protocol layer: it gets its own bound (`notificationTimeoutMs`,
 *   default 10 s; `MCPWIRE_POST_TIMEOUT`), and honours `SendOptions.signal` when one is given
 *   (AbortError). `close()` aborts every exchange.
 * - A 401/403 goes to the auth provider (http-auth.ts) and the POST is made again when it
 *   re-authorized (basic.authorization#18), at most MAX_AUTH_REPLAYS times.
 * - Session expiry (#45): a request's own 404 rejects its `send()` with SessionExpiredError; the
 *   404 to a notification or a reply is reported to the owner (http-session.ts) and that `send()`
 *   then RESOLVES when an owner listens to `onsessionexpired` (the message is lost with the
 *   session; the owner renews it), and rejects with SessionExpiredError only when nobody listens.
 * - A JSON body is the response itself: no `relatedRequestId`. A leading UTF-8 BOM is skipped.
 *   A 2xx whose body is empty, not JSON, or not the request's response (an error with `id: null`
 *   included) fails that request with `MCPWIRE_BAD_RESPONSE`, naming what came.
 * - A 4xx (not 401/403, not the 404 of an expired session) whose body is a JSON-RPC error response
 *   to the request is that request's answer: delivered to `onmessage` like a 200's (revision
 *   2026-07-28 answers -32022 UnsupportedProtocolVersion, -32020 HeaderMismatch… with 400,
 *   -32601 with 404; basic.transports.streamable_http#68: the client inspects the body). Such an
 *   answer to an initialize is no reason for the legacy fallback either. Any other body keeps
 *   the HTTP error with its excerpt.
 * - `SendOptions.headers` go on that message's POST only, after the transport's own headers and
 *   before the auth provider's; `SendOptions.longLived` lifts the idle and notification bounds.
 * - Stateless (revision 2026-07-28, sessions off): a response stream — SSE or a JSON body — that
 *   breaks before the response arrived is not resumed (the revision has no resumption): the
 *   request fails with `MCPWIRE_STREAM_BROKEN`, for the caller to re-issue it with a new id.
 */
import type { Dispatcher } from 'undici';
import { AbortError, AuthRequiredError, SessionExpiredError, TransportError, isMcpWireError, type Phase } from '../errors.js';
import { excerpt, type JSONRPCMessage, type RequestId } from '../jsonrpc/types.js';
import { Refused } from './http-auth.js';
import {
  DEFAULT_NOTIFICATION_TIMEOUT_MS,
  answers,
  discard,
  endpointText,
  header,
  httpError,
  httpErrorOf,
  isAborted,
  mediaType,
  postTimeout,
  readTextCapped,
  stripBom,
  tooLarge,
  type BodyReadable,
} from './http-common.js';
import type { HttpLink } from './http-link.js';
import { boundSignals, linkSignals } from './lifetime.js';
import { lowerCaseKeys, type HttpSession } from './http-session.js';
import type { SseResumer } from './sse-resume.js';
import type { SseStream } from './sse-stream.js';
import type { SseStreams } from './sse-streams.js';
import type { SendOptions } from './types.js';
import { ON_WRITE, type HookedRequestOptions } from './write-hook.js';

/** What every attempt of one POST shares. */
interface PostParams {
  isInit: boolean;
  requestId: RequestId | undefined;
  phase: Phase;
  /** The session the message goes out on (a 404 then means that session expired). */
  sentOn: string | undefined;
  /** The caller's signal (a request's: aborted when it is given up). */
  signal: AbortSignal | undefined;
  /** The response stream is meant to stay open: no idle or notification bound. */
  longLived: boolean;
  /** Sent without sessions (2026-07-28): a broken response stream is not resumed. */
  stateless: boolean;
}

/** How much of a 4xx body is read to look for a JSON-RPC error response in it. */
const ERROR_ANSWER_BYTES = 1024 * 1024;

/** The initialize POST failed with `status`: the transport may fall back to legacy HTTP+SSE. */
export type FallBack = (message: JSONRPCMessage, options: SendOptions | undefined, original: Error, status: number) => Promise<void>;

export class PostExchange {
  // Made once, not per message: the replay helper asks for the headers and the state each time.
  private readonly initBase = (): Record<string, string> => this.session.initHeaders;
  private readonly postBase = (): Record<string, string> => this.session.postHeaders;
  private readonly isOpen = (): boolean => this.link.open;

  constructor(
    private readonly link: HttpLink,
    private readonly session: HttpSession,
    private readonly streams: SseStreams,
    private readonly resumer: SseResumer,
    private readonly fallBack: FallBack,
  ) {}

  /** An exchange was answered as MCP: from then on an HTML page or a 501 is that request's failure, not a wrong URL. */
  private heard = false;

  post(message: JSONRPCMessage, options: SendOptions | undefined): Promise<void> {
    const isInit = options?.isInitialize === true;
    const m = message as { id?: RequestId; method?: string };
    const requestId = m.method !== undefined && m.id !== undefined ? m.id : undefined;
    const phase: Phase = isInit ? 'initialize' : requestId !== undefined ? 'request' : 'transport';
    const p: PostParams = {
      isInit,
      requestId,
      phase,
      sentOn: isInit ? undefined : this.session.id,
      signal: options?.signal,
      longLived: options?.longLived === true,
      stateless: !this.session.enabled,
    };
    const own = isInit ? this.initBase : this.postBase;
    const extra = options?.headers;
    // The message's own headers (2026-07-28 request metadata) over the transport's; the auth
    // provider's go on last (http-auth.ts). Without any, the prepared set is used as is.
    const base = extra === undefined ? own : (): Record<string, string> => ({ ...own(), ...lowerCaseKeys(extra) });
    return this.link.auth.replaying(base, this.isOpen, (headers, attempt) => this.postOnce(message, options, headers, attempt, p));
  }

  /** One POST of `message` with `headers`: done, or Refused (401/403) for `post` to replay. */
  private async postOnce(message: JSONRPCMessage, options: SendOptions | undefined, headers: Record<string, string>, attempt: number, p: PostParams): Promise<void | Refused> {
    const link = this.link;
    const { phase, signal } = p;
    // basic.utilities.cancellation#1: a request aborted before its POST started never reached
    // the server: it is not dispatched (and the protocol layer sends no cancellation for it).
    if (signal?.aborted === true) throw new AbortError('the request was given up before its POST was sent', { ...link.where, phase });
    if (!link.open) throw link.closedError(phase);
    const boundMs = p.requestId === undefined && !p.isInit && !p.longLived ? (link.opts.notificationTimeoutMs ?? DEFAULT_NOTIFICATION_TIMEOUT_MS) : undefined;
    const linked = boundMs === undefined ? linkSignals(link.lifetime, signal) : boundSignals(link.lifetime, signal, boundMs);
    try {
      return await this.exchange(message, options, linked.signal, headers, p, attempt === 0 ? options?.onDispatched : undefined);
    } catch (err) {
      if (!link.open) throw link.closedError(phase);
      if (linked.timedOut === true) throw postTimeout('the POST of a notification or response', boundMs!, { ...link.where, phase });
      if (isAborted(signal) && !(err instanceof AbortError)) throw new AbortError('the message was given up; its POST was aborted', { ...link.where, phase, cause: err });
      throw err;
    } finally {
      linked.dispose();
    }
  }

  /** The POST itself and its answer (`postOnce` links and unlinks the abort signals around it). */
  private async exchange(
    message: JSONRPCMessage,
    options: SendOptions | undefined,
    both: AbortSignal,
    headers: Record<string, string>,
    p: PostParams,
    written: (() => void) | undefined,
  ): Promise<void | Refused> {
    const link = this.link;
    const { isInit, requestId, phase, sentOn } = p;
    const request: HookedRequestOptions = {
      origin: link.target.origin,
      path: link.target.path,
      method: 'POST',
      headers,
      body: options?.serialized ?? JSON.stringify(message),
      signal: both,
      headersTimeout: 0,
      bodyTimeout: p.longLived ? 0 : link.idleMs,
      [ON_WRITE]: written,
    };
    let res: Dispatcher.ResponseData;
    try {
      res = await link.postDispatcher.request(request);
    } catch (err) {
      throw link.requestFailure('POST', err, phase);
    }
    const status = res.statusCode;
    if (link.cb.onevent !== undefined) link.cb.onevent({ type: 'http', method: 'POST', status });
    const media = mediaType(header(res.headers, 'content-type'));
    if (!this.heard && notAnEndpoint(status, media)) {
      discard(res.body);
      throw new TransportError(`no MCP endpoint at ${endpointText(link.opts.url)} (HTTP ${status}${media ? `, ${media}` : ''}) — is the path right? (e.g. /mcp)`, {
        ...link.where,
        phase: 'initialize',
        status,
      });
    }
    if (status < 200 || status >= 300) return this.refused(message, options, res, p);
    if (isInit) this.session.accept(res.headers, res.body);
    if (media === 'text/event-stream') await this.readPostStream(res.body, p);
    else await this.readJsonBody(res, p);
    this.heard = true;
    if (isInit) this.session.initialized = true;
    else this.resumer.maybeOpenGetStream();
  }

  /**
   * A POST answered with a status outside 2xx: the request's JSON-RPC error answer (4xx, see the
   * file comment), the legacy fallback (initialize), a re-authorization (401/403, replayed by
   * `post`), an expired session, or a typed HTTP error.
   */
  private async refused(message: JSONRPCMessage, options: SendOptions | undefined, res: Dispatcher.ResponseData, p: PostParams): Promise<void | Refused> {
    const link = this.link;
    const { isInit, requestId, phase, sentOn } = p;
    const status = res.statusCode;
    const where = Object.assign({}, link.where, { phase }); // (not a spread then a property: slow on Node 20, see host/outcome.ts)
    const fallBack = isInit && (status === 400 || status === 404 || status === 405) && link.opts.fallbackToLegacySse !== false;
    const what = fallBack ? 'POST initialize' : `POST ${requestId !== undefined ? 'request' : 'message'}`;
    const mayAnswer = status >= 400 && status < 500 && status !== 401 && status !== 403 && !(status === 404 && sentOn !== undefined);
    let error: Error;
    if (mayAnswer) {
      const text = await readTextCapped(res.body, ERROR_ANSWER_BYTES, 'the error body', where).catch(() => '');
      const answer = requestId !== undefined ? errorAnswer(text, requestId) : undefined;
      if (answer !== undefined) {
        link.cb.onmessage?.(answer.message, undefined, answer.json);
        return;
      }
      error = httpErrorOf(what, status, res.headers, excerpt(text), where, false);
    } else {
      error = await httpError(what, status, res.headers, res.body, where, sentOn !== undefined);
    }
    if (fallBack) return this.fallBack(message, options, error, status);
    if (error instanceof AuthRequiredError) return new Refused(error, status);
    if (error instanceof SessionExpiredError) {
      // A request's own 404 goes to its caller; anything else is reported to the owner.
      if (requestId !== undefined) this.session.markExpired(sentOn);
      else if (this.session.lost(sentOn, error)) return;
    }
    throw error;
  }

  /** A POST answered with an SSE stream: read it (and resume it) until its response arrived. */
  private async readPostStream(body: BodyReadable, p: PostParams): Promise<void> {
    const { requestId, signal } = p;
    const st = this.streams.add('post', requestId, this.session.id);
    st.requestSignal = signal;
    // The stream belongs to its request: a request given up on stops it (and its resumption).
    const onAbort = (): void => this.streams.stop(st);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await this.consumePostStream(st, body, p);
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.streams.remove(st);
    }
  }

  /** Reads a POST's SSE stream; resumes it with GET + Last-Event-ID if it drops unanswered. */
  private async consumePostStream(st: SseStream, body: BodyReadable, p: PostParams): Promise<void> {
    const phase = p.phase;
    const link = this.link;
    const end = await this.streams.consume(st, body);
    if (!link.open) throw link.closedError(phase);
    if (st.tooLarge || end.kind === 'too-large') throw tooLarge('an SSE event', link.maxBytes, { ...link.where, phase });
    if (st.requestId === undefined || st.answered) return;
    if (st.stopped) {
      this.streams.stoppedOrClosed(st, phase);
      return;
    }
    if (st.unaddressed !== undefined) {
      // The server refused the request without naming it: a clear failure, not one to resume or re-issue.
      throw new TransportError(`the SSE stream ended without the response, after a JSON-RPC error without a request id (id null): ${st.unaddressed}`, {
        ...link.where,
        phase,
        code: 'MCPWIRE_BAD_RESPONSE',
      });
    }
    if (p.stateless) throw streamBroken('SSE stream', end.kind === 'error' ? end.error : undefined, { ...link.where, phase });
    if (st.lastEventId === undefined) {
      const why = end.kind === 'error' ? `: ${end.error.message}` : '';
      throw new TransportError(`the SSE stream ended before the response arrived and cannot be resumed (no event id)${why}`, {
        ...link.where,
        phase,
        code: 'MCPWIRE_STREAM_ENDED',
      });
    }
    // basic.transports#27: a disconnection is not a cancellation; resume (basic.transports#37).
    await this.resumer.resume(st, phase);
  }

  /** A POST answered with a JSON body (or none: fine for a notification, a failure for a request). */
  private async readJsonBody(res: Dispatcher.ResponseData, p: PostParams): Promise<void> {
    const { requestId, phase } = p;
    const link = this.link;
    const where = Object.assign({}, link.where, { phase }); // (not a spread then a property: slow on Node 20, see host/outcome.ts)
    const length = Number(header(res.headers, 'content-length'));
    if (length > link.maxBytes) {
      discard(res.body);
      throw tooLarge('the JSON response body', link.maxBytes, where);
    }
    let text: string;
    try {
      text = await readTextCapped(res.body, link.maxBytes, 'the JSON response body', where);
    } catch (err) {
      if (isMcpWireError(err)) throw err;
      if (p.stateless && requestId !== undefined && link.open) throw streamBroken('JSON body', err, where);
      throw link.requestFailure('reading the POST response', err, phase);
    }
    if (text.length === 0 || /^\s*$/.test(text)) {
      if (requestId === undefined) return;
      const why =
        res.statusCode === 202 ? '202 Accepted with no body for a request: no response can follow (basic.transports#18)' : `HTTP ${res.statusCode} with no JSON-RPC response`;
      throw new TransportError(`the server answered request id ${JSON.stringify(requestId)} with ${why}`, { ...where, status: res.statusCode, code: 'MCPWIRE_BAD_RESPONSE' });
    }
    let parsed: unknown;
    const json = stripBom(text);
    try {
      parsed = JSON.parse(json);
    } catch {
      throw new TransportError(`the response body is not valid JSON: ${excerpt(text)}`, { ...where, status: res.statusCode, code: 'MCPWIRE_BAD_RESPONSE' });
    }
    link.cb.onmessage?.(parsed, undefined, json);
    if (requestId !== undefined && !answers(parsed, requestId)) {
      throw new TransportError(`the JSON response body does not answer request id ${JSON.stringify(requestId)}${unaddressed(parsed)}`, {
        ...where,
        status: res.statusCode,
        code: 'MCPWIRE_BAD_RESPONSE',
      });
    }
  }
}

/**
 * `text` parsed, when it is a JSON-RPC error response to `id` (the 4xx answers of revision
 * 2026-07-28); undefined for anything else (not JSON, another id, `id: null`, a result).
 */
function errorAnswer(text: string, id: RequestId): { message: unknown; json: string } | undefined {
  const json = stripBom(text);
  let message: unknown;
  try {
    message = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (message === null || typeof message !== 'object' || Array.isArray(message) || !('error' in message)) return undefined;
  return answers(message, id) ? { message, json } : undefined;
}

/** What a body that does not answer the request is instead, when that helps (an error without id). */
function unaddressed(parsed: unknown): string {
  const m = parsed as { id?: unknown; error?: { code?: unknown; message?: unknown } } | null;
  if (m === null || typeof m !== 'object' || Array.isArray(m) || m.id !== null || typeof m.error !== 'object' || m.error === null) return '';
  return `: it is a JSON-RPC error without a request id (id null): ${excerpt(`${String(m.error.code)} ${String(m.error.message)}`)}`;
}

/** A stateless response stream that broke before its response: the request is lost, to be re-issued. */
function streamBroken(what: string, cause: unknown, where: { serverId?: string; phase: Phase }): TransportError {
  const why = cause instanceof Error ? `: ${cause.message}` : '';
  return new TransportError(`the response ${what} ended before the response arrived; without sessions it cannot be resumed (the request is lost)${why}`, {
    ...where,
    code: 'MCPWIRE_STREAM_BROKEN',
    ...(cause !== undefined ? { cause } : {}),
  });
}

/**
 * The first answer says the URL is no MCP endpoint: a web page (`text/html`), or 501 Not
 * Implemented. A 401/403 is an auth challenge and a 400/404/405 goes to the legacy fallback or
 * its own error (whatever their body), so those are left to `refused`.
 */
function notAnEndpoint(status: number, media: string | undefined): boolean {
  if ([400, 401, 403, 404, 405].includes(status)) return false;
  return status === 501 || media === 'text/html';
}
