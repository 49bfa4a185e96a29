/**
 * One MCP session of the gateway over Streamable HTTP (basic.transports, server side), as a
 * `Transport` its `Connection` drives.
 *
 * Streams: each POST that carries a request gets its own SSE stream; the response goes on it,
 * and it ends once answered (basic.transports#26), or once the client cancelled what it carried
 * (basic.utilities.cancellation: no response comes, the stream and its entries are freed). A
 * progress notification goes on the stream of the request whose `progressToken` it names; what
 * the gateway sends on its own (list changes, log messages, sampling/elicitation/roots requests)
 * goes on the client's GET stream when one is connected, else on the newest connected POST
 * stream, else it waits in the GET stream's history for the client to resume it (or is dropped
 * when there never was one).
 *
 * Resumability: every stream starts with a priming event — an event id and empty data, plus a
 * `retry` (basic.transports#20) — and each event carries an id `<stream>-<seq>`, unique in the
 * session (basic.transports#35). A client that loses a stream sends GET with `Last-Event-ID`:
 * the events of that stream after that id are replayed, and only those (basic.transports#38),
 * then the stream continues on the new connection until its response is out (#24). Losing a
 * stream is no cancel (basic.transports#27).
 *
 * History, bounded: a stream whose response went out on a live connection stays resumable a
 * little while only — `DELIVERED_GRACE_MS`, and only the `MAX_DELIVERED` latest such streams: a
 * write to a connection whose client just vanished is not delivery, and that client resumes at
 * once — then keeps nothing; the others keep their events, at most `MAX_EVENTS` per stream and
 * `historyBytes` per session, and all sessions of a listener together share a `HistoryBudget`
 * (http-history.ts). Over a bound, finished streams go first (whole), then the oldest events of
 * the others; a resumption from before an event that was let go is refused (400), never served
 * with a gap. At most `MAX_STREAMS` streams are kept resumable: finished ones are let go first,
 * then the oldest unanswered ones (never the GET stream or the one being opened) — such a stream
 * still gets its response while its connection lives, and `close()` and the idle sweep
 * (`connectedStreams`) still see it.
 */
import type http from 'node:http';
import type { JSONRPCMessage, RequestId } from '../jsonrpc/types.js';
import type { MessageExtra, SendOptions, Transport } from '../transport/types.js';
import { HistoryBudget, SESSION_HISTORY_BYTES, type HistoryHolder } from './http-history.js';

/** Events kept per stream for a resumption, and streams kept resumable per session. */
const MAX_EVENTS = 1000;
const MAX_STREAMS = 64;
const RETRY_MS = 1000;
/** How long, and how many, streams answered on a live connection stay resumable. */
const DELIVERED_GRACE_MS = 30_000;
const MAX_DELIVERED = 16;

export interface HttpSessionLimits {
  /** History this session keeps, in bytes of JSON text (default 4 MiB). */
  historyBytes?: number;
  /** The budget shared by every session of the listener (default: one of this session's own). */
  budget?: HistoryBudget;
}

interface Stream {
  id: number;
  seq: number;
  events: { seq: number; text: string }[];
  /** The sum of `events`' text lengths. */
  bytes: number;
  /** The highest seq let go from the history (0: none): a resumption from before it is refused. */
  lost: number;
  /** An event went out while no connection was there (only the history has it). */
  missed: boolean;
  /** In `streams`, resumable (an evicted stream still runs, keeping no history). */
  kept: boolean;
  /** When its response went out on a live connection (ms since the epoch; 0: not so). */
  deliveredAt: number;
  /** The connection the stream is written to now (none while the client has lost it). */
  res: http.ServerResponse | undefined;
  /** Requests of a POST stream not answered yet; undefined for the GET stream. */
  waiting: Set<RequestId> | undefined;
  done: boolean;
}

const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };

export class HttpSessionTransport implements Transport, HistoryHolder {
  readonly kind = 'streamable-http';
  onmessage?: (message: unknown, extra?: MessageExtra, text?: string) => void;
  onclose?: (error?: Error) => void;
  /** The resumable streams, oldest first. */
  private readonly streams = new Map<number, Stream>();
  /** The streams written to a connection now, least recently attached first. */
  private readonly connected = new Set<Stream>();
  /** The stream of each unanswered request, with the progress token it named (if any). */
  private readonly byRequest = new Map<RequestId, { stream: Stream; token: string | number | undefined }>();
  private readonly byToken = new Map<string | number, RequestId>();
  /** Streams answered on a live connection, still resumable for a while, oldest first. */
  private delivered: Stream[] = [];
  private standalone: Stream | undefined;
  private nextStream = 0;
  private closed = false;
  private historyBytes = 0;
  private readonly maxHistory: number;
  private readonly budget: HistoryBudget;
  /** When the client last sent something (ms since the epoch), for the idle sweep. */
  lastActive = Date.now();

  constructor(
    readonly sessionId: string,
    limits: HttpSessionLimits = {},
  ) {
    this.maxHistory = limits.historyBytes ?? SESSION_HISTORY_BYTES;
    this.budget = limits.budget ?? new HistoryBudget();
    this.budget.join(this);
  }

  /** Streams a client is connected to now (an open stream keeps an idle session alive). */
  connectedStreams(): number {
    return this.connected.size;
  }

  /** History bytes this session holds now. */
  get heldBytes(): number {
    return this.historyBytes;
  }

  /** Streams kept resumable now. */
  get resumableStreams(): number {
    return this.streams.size;
  }

  async start(): Promise<void> {}

  /** A POST: a stream for its requests (202 when it carries none), then the messages to the connection. */
  acceptPost(messages: Record<string, unknown>[], res: http.ServerResponse, headers: http.OutgoingHttpHeaders): void {
    const requests = messages.filter((m) => typeof m.method === 'string' && m.id !== undefined && m.id !== null);
    if (requests.length === 0) {
      res.writeHead(202, headers).end();
      for (const m of messages) if (m.method === 'notifications/cancelled') this.cancelled(m.params as Record<string, unknown> | undefined);
    } else {
      const stream = this.open(res, headers, new Set(requests.map((m) => m.id as RequestId)));
      for (const r of requests) {
        const named = ((r.params as Record<string, unknown> | undefined)?._meta as Record<string, unknown> | undefined)?.progressToken;
        const token = typeof named === 'string' || typeof named === 'number' ? named : undefined;
        this.byRequest.set(r.id as RequestId, { stream, token });
        if (token !== undefined) this.byToken.set(token, r.id as RequestId);
      }
    }
    for (const m of messages) this.onmessage?.(m, undefined, undefined);
  }

  /**
   * A GET: with `Last-Event-ID`, that stream resumed (false: no such stream, or its history from
   * there is gone); without, the session's GET stream (false when one is connected already).
   */
  acceptGet(res: http.ServerResponse, headers: http.OutgoingHttpHeaders, lastEventId: string | undefined): boolean {
    this.lastActive = Date.now();
    if (lastEventId !== undefined) return this.resume(res, headers, lastEventId);
    if (this.standalone?.res !== undefined) return false;
    if (this.standalone !== undefined) {
      // A GET stream the client lost and did not resume: what it held is kept for a resumption only.
      this.attach(this.standalone, res, headers);
      return true;
    }
    this.standalone = this.open(res, headers, undefined);
    return true;
  }

  async send(message: JSONRPCMessage, options?: SendOptions): Promise<void> {
    if (this.closed) return;
    const m = message as unknown as Record<string, unknown>;
    const text = options?.serialized ?? JSON.stringify(message);
    if (m.method === undefined) return this.respond(m.id as RequestId, text);
    const token = m.method === 'notifications/progress' ? (m.params as Record<string, unknown> | undefined)?.progressToken : undefined;
    const rid = typeof token === 'string' || typeof token === 'number' ? this.byToken.get(token) : undefined;
    const own = rid !== undefined ? this.byRequest.get(rid)?.stream : undefined;
    const target = own ?? (this.standalone?.res !== undefined ? this.standalone : undefined) ?? this.newestConnectedPost() ?? this.standalone;
    if (target !== undefined) this.emit(target, text);
  }

  private newestConnectedPost(): Stream | undefined {
    let newest: Stream | undefined;
    for (const s of this.connected) if (s.waiting !== undefined && !s.done) newest = s;
    return newest;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const s of this.connected) s.res?.end();
    this.connected.clear();
    this.budget.release(this.historyBytes);
    this.budget.leave(this);
    this.historyBytes = 0;
    this.streams.clear();
    this.delivered = [];
    this.byRequest.clear();
    this.byToken.clear();
    this.onclose?.();
  }

  /** Lets go of the streams answered on a live connection longer ago than the grace period (the idle sweep calls it too). */
  expireDelivered(now = Date.now()): void {
    let n = 0;
    while (n < this.delivered.length && (this.delivered.length - n > MAX_DELIVERED || this.delivered[n]!.deliveredAt <= now - DELIVERED_GRACE_MS)) this.unkeep(this.delivered[n++]!);
    if (n > 0) this.delivered = this.delivered.slice(n);
  }

  /** Frees history, oldest first: finished streams whole, then the oldest events of the others. */
  shed(bytes: number): void {
    const target = this.historyBytes - bytes;
    for (const s of this.streams.values()) {
      if (this.historyBytes <= target) return;
      if (s.done) this.unkeep(s);
    }
    for (const s of this.streams.values()) {
      while (s.events.length > 0 && this.historyBytes > target) this.dropOldest(s);
      if (this.historyBytes <= target) return;
    }
  }

  private respond(id: RequestId, text: string): void {
    const entry = this.byRequest.get(id);
    if (entry === undefined) return;
    this.forget(id, entry.token);
    this.emit(entry.stream, text);
    entry.stream.waiting?.delete(id);
    if (entry.stream.waiting?.size === 0) this.finish(entry.stream);
  }

  /** `notifications/cancelled` for a request of this session: no response comes; its stream ends when nothing is left on it. */
  private cancelled(params: Record<string, unknown> | undefined): void {
    const id = params?.requestId;
    const entry = typeof id === 'string' || typeof id === 'number' ? this.byRequest.get(id) : undefined;
    if (entry === undefined) return;
    this.forget(id as RequestId, entry.token);
    entry.stream.waiting?.delete(id as RequestId);
    if (entry.stream.waiting?.size === 0) this.finish(entry.stream, false);
  }

  private forget(id: RequestId, token: string | number | undefined): void {
    this.byRequest.delete(id);
    if (token !== undefined && this.byToken.get(token) === id) this.byToken.delete(token);
  }

  /**
   * A POST stream with nothing left to answer: ended. Not `resumable` (cancelled), its history is
   * let go; answered on a live connection, it stays resumable for the grace period; else it keeps
   * what the client missed.
   */
  private finish(stream: Stream, resumable = true): void {
    stream.done = true;
    this.detach(stream);
    if (!resumable) return this.unkeep(stream);
    if (!stream.missed) this.markDelivered(stream);
  }

  /** A finished stream written out whole to a connection: resumable for the grace period only. */
  private markDelivered(stream: Stream): void {
    if (!stream.kept || stream.deliveredAt !== 0) return;
    stream.deliveredAt = Date.now();
    this.delivered.push(stream);
    this.expireDelivered(stream.deliveredAt);
  }

  private open(res: http.ServerResponse, headers: http.OutgoingHttpHeaders, waiting: Set<RequestId> | undefined): Stream {
    const stream: Stream = { id: ++this.nextStream, seq: 0, events: [], bytes: 0, lost: 0, missed: false, kept: true, deliveredAt: 0, res: undefined, waiting, done: false };
    if (this.delivered.length > 0) this.expireDelivered();
    this.streams.set(stream.id, stream);
    if (this.streams.size > MAX_STREAMS) this.evict(stream);
    this.attach(stream, res, headers);
    return stream;
  }

  /** Back to `MAX_STREAMS` resumable streams: finished ones first, then the oldest others but `opened` and the GET stream. */
  private evict(opened: Stream): void {
    for (const s of this.streams.values()) {
      if (this.streams.size <= MAX_STREAMS) return;
      if (s.done) this.unkeep(s);
    }
    for (const s of this.streams.values()) {
      if (this.streams.size <= MAX_STREAMS) return;
      if (s !== opened && s !== this.standalone) this.unkeep(s);
    }
  }

  /** No longer resumable: out of `streams`, its history freed. */
  private unkeep(stream: Stream): void {
    if (!stream.kept) return;
    stream.kept = false;
    this.streams.delete(stream.id);
    this.release(stream.bytes);
    stream.events = [];
    stream.bytes = 0;
  }

  /** `stream` on connection `res`, primed with the id to resume from: its latest event, or for a resumption the client's own `primeSeq`. */
  private attach(stream: Stream, res: http.ServerResponse, headers: http.OutgoingHttpHeaders, primeSeq = stream.seq): void {
    if (stream.res !== undefined && stream.res !== res) stream.res.end();
    res.writeHead(200, { ...headers, ...SSE_HEADERS });
    // Priming: an id to resume from and how long to wait before reconnecting (basic.transports#20).
    // A resumption primes with the client's Last-Event-ID: losing this connection before the
    // replay arrives must not make the client resume past events it never got.
    res.write(`id: ${stream.id}-${primeSeq}\nretry: ${RETRY_MS}\ndata: \n\n`);
    stream.res = res;
    this.connected.delete(stream);
    this.connected.add(stream);
    res.on('close', () => {
      if (stream.res !== res) return;
      stream.res = undefined;
      this.connected.delete(stream);
    });
  }

  private detach(stream: Stream): void {
    stream.res?.end();
    stream.res = undefined;
    this.connected.delete(stream);
  }

  private resume(res: http.ServerResponse, headers: http.OutgoingHttpHeaders, lastEventId: string): boolean {
    const m = /^(\d+)-(\d+)$/.exec(lastEventId);
    const stream = m ? this.streams.get(Number(m[1])) : undefined;
    if (stream === undefined || m === null) return false;
    const after = Number(m[2]);
    if (after < stream.lost || after > stream.seq) return false;
    this.attach(stream, res, headers, after);
    for (const e of stream.events) if (e.seq > after) write(res, stream.id, e.seq, e.text);
    stream.missed = false;
    if (stream.done) {
      this.detach(stream);
      this.markDelivered(stream);
    }
    return true;
  }

  private emit(stream: Stream, text: string): void {
    stream.seq++;
    if (stream.res !== undefined) write(stream.res, stream.id, stream.seq, text);
    else stream.missed = true;
    if (stream.kept) this.keep(stream, text);
  }

  /** The event `stream.seq` into the stream's history, within the bounds. */
  private keep(stream: Stream, text: string): void {
    const n = text.length;
    if (n > this.maxHistory) {
      stream.lost = stream.seq;
      return;
    }
    stream.events.push({ seq: stream.seq, text });
    stream.bytes += n;
    this.historyBytes += n;
    if (stream.events.length > MAX_EVENTS) this.dropOldest(stream);
    if (this.historyBytes > this.maxHistory) this.shed(this.historyBytes - this.maxHistory);
    this.budget.charge(n, this);
  }

  private dropOldest(stream: Stream): void {
    const e = stream.events.shift();
    if (e === undefined) return;
    stream.bytes -= e.text.length;
    stream.lost = e.seq;
    this.release(e.text.length);
  }

  private release(bytes: number): void {
    this.historyBytes -= bytes;
    this.budget.release(bytes);
  }
}

function write(res: http.ServerResponse, stream: number, seq: number, text: string): void {
  if (!res.writableEnded) res.write(`id: ${stream}-${seq}\nevent: message\ndata: ${text}\n\n`);
}
