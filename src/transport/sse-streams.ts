/**
 * The SSE streams of one Streamable HTTP transport — each POST's response stream and the
 * server-message GET stream — and the reading of one connection of a stream: events decoded,
 * redeliveries dropped (sse-stream.ts), messages handed to the owner's `onmessage`.
 *
 * - Every message read from a POST's stream (or its resumption) goes to `onmessage` with
 *   `{ relatedRequestId }` of that POST's request (basic.transports#25); the GET stream's carry
 *   nothing.
 * - A POST's stream belongs to its request: when the request is given up (its signal aborts:
 *   timeout, cancel, close) the stream and any resumption stop at once; once the response
 *   arrived (on any stream) the POST stream is closed by us if the server has not ended it
 *   within a short linger (#26 says it should), so sockets do not pile up.
 */
import { AbortError, TransportError, type Phase } from '../errors.js';
import { excerpt, type RequestId } from '../jsonrpc/types.js';
import { answers, type BodyReadable } from './http-common.js';
import type { HttpLink } from './http-link.js';
import { IdTable } from '../util/id-table.js';
import { readSse, type SseEnd } from './http-sse.js';
import { createSseStream, decodeEvent, type SseStream } from './sse-stream.js';
import type { MessageExtra } from './types.js';

/** How long a POST stream may stay open after its response before we close it (#26: servers should). */
const POST_STREAM_LINGER_MS = 10;

export class SseStreams {
  // (tables, not a Set and a Map: a stream comes and goes with each request, and a churning Map
  // keeps what it held reachable, see IdTable)
  /** Every stream open or waiting to reconnect (close aborts them all), by `key`. */
  private readonly all = new IdTable<number, SseStream>();
  private nextKey = 0;
  /** POST streams by the id of the request they carry (to close one answered elsewhere). */
  private readonly byRequest = new IdTable<RequestId, SseStream>();

  constructor(private readonly link: HttpLink) {}

  /** A new stream on `session`; a POST stream of a request is findable by its id until `remove`. */
  add(origin: 'post' | 'get', requestId: RequestId | undefined, session: string | undefined): SseStream {
    const st = createSseStream(origin, requestId, session, this.nextKey++);
    this.all.set(st.key, st);
    if (origin === 'post' && requestId !== undefined) this.byRequest.set(requestId, st);
    return st;
  }

  remove(st: SseStream): void {
    if (st.requestId !== undefined && this.byRequest.get(st.requestId) === st) this.byRequest.delete(st.requestId);
    clearTimeout(st.linger);
    if (this.all.get(st.key) === st) this.all.delete(st.key);
  }

  /** Stops `st` on purpose (answered, its request given up, the session reset). */
  stop(st: SseStream): void {
    st.stopped = true;
    st.ctrl.abort();
  }

  /** close(): aborts every stream's connection and wait. */
  abortAll(): void {
    for (const [, st] of this.all.entries()) st.ctrl.abort();
  }

  /** The POST stream's request is answered: close the stream unless the server ends it soon. */
  markAnswered(st: SseStream): void {
    if (st.answered) return;
    st.answered = true;
    if (st.stopped || st.linger !== undefined) return;
    st.linger = setTimeout(() => this.stop(st), POST_STREAM_LINGER_MS);
    st.linger.unref?.();
  }

  /** Reads one connection of `st` to its end; never rejects (the caller decides what the end means). */
  consume(st: SseStream, body: BodyReadable): Promise<SseEnd> {
    const link = this.link;
    const onAbort = (): void => {
      body.destroy();
    };
    // basic.transports#25: what a POST stream (or its resumption) carries relates to its request;
    // one object per connection, none for the GET stream.
    const extra: MessageExtra | undefined = st.origin === 'post' && st.requestId !== undefined ? { relatedRequestId: st.requestId } : undefined;
    st.ctrl.signal.addEventListener('abort', onAbort, { once: true });
    return readSse(body, link.maxBytes, {
      onEvent: (ev) => {
        const d = decodeEvent(st, ev);
        if (d.kind === 'duplicate') link.diag('MCPWIRE_SSE_DUPLICATE', `dropped a redelivered SSE event (id ${excerpt(d.id, 80)})`);
        else if (d.kind === 'bad-json') link.diag('MCPWIRE_SSE_BAD_JSON', 'an SSE event is not valid JSON', d.data);
        if (d.kind !== 'message') return;
        const msg = d.message;
        st.delivered++;
        link.cb.onmessage?.(msg, extra, ev.data);
        if (st.requestId !== undefined && !st.answered && answers(msg, st.requestId)) this.markAnswered(st);
        else if (this.byRequest.size > 0) this.answeredElsewhere(msg, st);
        if ((msg as { id?: unknown } | null)?.id === null && st.requestId !== undefined) noteUnaddressed(st, msg);
      },
      onRetry: (ms) => {
        st.retryMs = ms;
      },
      onProblem: (code, message) => link.diag(code, message),
    }).then((end) => {
      st.ctrl.signal.removeEventListener('abort', onAbort);
      if (end.kind === 'too-large') st.tooLarge = true;
      return end;
    });
  }

  /**
   * `st` was stopped or the transport closed: a POST stream without its response fails (AbortError
   * when its request was given up); anything else is simply done.
   */
  stoppedOrClosed(st: SseStream, phase: Phase): 'done' {
    const link = this.link;
    if (!link.open) throw link.closedError(phase);
    if (st.origin === 'post' && !st.answered) {
      if (st.requestSignal?.aborted === true) {
        throw new AbortError('the request was given up; its SSE stream and any resumption were stopped', { ...link.where, phase });
      }
      throw new TransportError('the SSE stream was stopped before the response arrived', { ...link.where, phase, code: 'MCPWIRE_STREAM_ENDED' });
    }
    return 'done';
  }

  /** A response that arrived on another stream than its POST's settles that POST stream too. */
  private answeredElsewhere(msg: unknown, from: SseStream): void {
    for (const one of Array.isArray(msg) ? msg : [msg]) {
      const r = one as { id?: unknown; method?: unknown } | null;
      if (r === null || typeof r !== 'object' || r.method !== undefined) continue;
      if (typeof r.id !== 'string' && typeof r.id !== 'number') continue;
      const st = this.byRequest.get(r.id);
      // Its POST stream (or a resumption waiting to reconnect) has nothing left to fetch.
      if (st !== undefined && st !== from && answers(one, r.id)) this.markAnswered(st);
    }
  }
}

/** Keeps the code and message of an `id: null` error that came on a request's stream (see SseStream.unaddressed). */
function noteUnaddressed(st: SseStream, msg: unknown): void {
  const error = (msg as { error?: { code?: unknown; message?: unknown } }).error;
  if (error === null || typeof error !== 'object') return;
  st.unaddressed = excerpt(`${String(error.code)} ${String(error.message)}`);
}
