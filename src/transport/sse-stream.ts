/**
 * One logical SSE stream of the Streamable HTTP transport — a POST's response stream (possibly
 * resumed by GETs) or the server-message GET stream — and the pure per-event step: event-id
 * bookkeeping for resumption (basic.transports#37) and de-duplication of redelivered events
 * (#35), then decoding one event's data into a JSON-RPC message. No I/O here.
 */
import type { RequestId } from '../jsonrpc/types.js';
import { stripBom } from './http-common.js';
import type { EventSourceMessage } from './http-sse.js';

/** Event ids remembered per stream for de-duplication (oldest forgotten first). */
const SEEN_IDS_CAP = 4096;

export interface SseStream {
  /** Its number among its transport's streams (`SseStreams`). */
  key: number;
  origin: 'post' | 'get';
  /** The POST request this stream answers (origin `post` and a request only). */
  requestId: RequestId | undefined;
  lastEventId: string | undefined;
  retryMs: number | undefined;
  seen: Set<string>;
  answered: boolean;
  /** Aborts this stream's GETs and waits (close, reset, request given up, answered). */
  ctrl: AbortController;
  /** Set when the stream was stopped on purpose (answered, request given up, session reset). */
  stopped: boolean;
  tooLarge: boolean;
  /** A GET (re)connected this stream. */
  resumed: boolean;
  /** JSON-RPC messages delivered from this stream (reconnect progress). */
  delivered: number;
  /** The request's own signal (origin `post`): aborted when the request is given up. */
  requestSignal: AbortSignal | undefined;
  /** The session the stream was opened on (a 404 reports that session's expiry). */
  session: string | undefined;
  /** Closes a POST stream the server leaves open after its response. */
  linger: ReturnType<typeof setTimeout> | undefined;
  /** The give-up diagnostic was reported already. */
  gaveUp: boolean;
  /**
   * A JSON-RPC error without an id (`id: null`) came on this POST stream before its response:
   * its code and message, for the error of a stream that then ends unanswered.
   */
  unaddressed: string | undefined;
}

export function createSseStream(origin: 'post' | 'get', requestId: RequestId | undefined, session: string | undefined, key = 0): SseStream {
  return {
    key,
    origin,
    requestId,
    lastEventId: undefined,
    retryMs: undefined,
    seen: new Set(),
    answered: false,
    ctrl: new AbortController(),
    stopped: false,
    tooLarge: false,
    resumed: false,
    delivered: 0,
    requestSignal: undefined,
    session,
    linger: undefined,
    gaveUp: false,
    unaddressed: undefined,
  };
}

/** What one SSE event amounts to. */
export type DecodedEvent =
  | { kind: 'message'; message: unknown }
  /** Redelivered with an id already seen on this stream: dropped (basic.transports#35). */
  | { kind: 'duplicate'; id: string }
  /** Not JSON: reported, the stream goes on. */
  | { kind: 'bad-json'; data: string }
  /** Nothing to deliver: a priming event (#20), another event type, empty data. */
  | { kind: 'none' };

/** Records the event's id on `st` (the resumption cursor) and decodes its data. */
export function decodeEvent(st: SseStream, ev: EventSourceMessage): DecodedEvent {
  if (ev.id !== undefined) {
    if (ev.id !== '' && st.seen.has(ev.id)) return { kind: 'duplicate', id: ev.id };
    rememberEventId(st, ev.id);
  }
  if (ev.event !== undefined && ev.event !== 'message') return { kind: 'none' };
  if (ev.data.length === 0 || /^\s*$/.test(ev.data)) return { kind: 'none' }; // \s covers U+FEFF too
  try {
    return { kind: 'message', message: JSON.parse(stripBom(ev.data)) };
  } catch {
    return { kind: 'bad-json', data: ev.data };
  }
}

function rememberEventId(st: SseStream, id: string): void {
  // An empty id resets the last event id (WHATWG SSE): nothing to resume from.
  st.lastEventId = id === '' ? undefined : id;
  if (id === '') return;
  st.seen.add(id);
  if (st.seen.size > SEEN_IDS_CAP) st.seen.delete(st.seen.values().next().value as string);
}
