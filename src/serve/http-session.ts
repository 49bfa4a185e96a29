/**
 * One MCP session of the gateway over Streamable HTTP (basic.transports, server side), as a
 * `Transport` its `Connection` drives.
 *
 * Streams: each POST that carries a request gets its own SSE stream; the response goes on it,
 * and it ends once answered (basic.transports#26). A progress notification goes on the stream
 * of the request whose `progressToken` it names; what the gateway sends on its own (list
 * changes, log messages, sampling/elicitation/roots requests) goes on the client's GET stream
 * when one is connected, else on the newest connected POST stream, else it waits in the GET
 * stream's history for the client to resume it (or is dropped when there never was one).
 *
 * Resumability: every stream starts with a priming event — an event id and empty data, plus a
 * `retry` (basic.transports#20) — and each event carries an id `<stream>-<seq>`, unique in the
 * session (basic.transports#35). A client that loses a stream sends GET with `Last-Event-ID`:
 * the events of that stream after that id are replayed, and only those (basic.transports#38),
 * then the stream continues on the new connection until its response is out (#24). Losing a
 * stream is no cancel (basic.transports#27). History is bounded per stream and per session.
 */
import type http from 'node:http';
import type { JSONRPCMessage, RequestId } from '../jsonrpc/types.js';
import type { MessageExtra, SendOptions, Transport } from '../transport/types.js';

/** Events kept per stream for a resumption, and streams kept per session. */
const MAX_EVENTS = 1000;
const MAX_STREAMS = 64;
const RETRY_MS = 1000;

interface Stream {
  id: number;
  seq: number;
  events: { seq: number; text: string }[];
  /** The connection the stream is written to now (none while the client has lost it). */
  res: http.ServerResponse | undefined;
  /** Requests of a POST stream not answered yet; undefined for the GET stream. */
  waiting: Set<RequestId> | undefined;
  done: boolean;
}

const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };

export class HttpSessionTransport implements Transport {
  readonly kind = 'streamable-http';
  onmessage?: (message: unknown, extra?: MessageExtra, text?: string) => void;
  onclose?: (error?: Error) => void;
  private readonly streams = new Map<number, Stream>();
  /** The stream of each unanswered request, with the progress token it named (if any). */
  private readonly byRequest = new Map<RequestId, { stream: Stream; token: string | number | undefined }>();
  private readonly byToken = new Map<string | number, RequestId>();
  private standalone: Stream | undefined;
  private nextStream = 0;
  private closed = false;
  /** When the client last sent something (ms since the epoch), for the idle sweep. */
  lastActive = Date.now();

  constructor(readonly sessionId: string) {}

  /** Streams a client is connected to now (an open GET stream keeps an idle session alive). */
  connectedStreams(): number {
    let n = 0;
    for (const s of this.streams.values()) if (s.res !== undefined) n++;
    return n;
  }

  async start(): Promise<void> {}

  /** A POST: a stream for its requests (202 when it carries none), then the messages to the connection. */
  acceptPost(messages: Record<string, unknown>[], res: http.ServerResponse, headers: http.OutgoingHttpHeaders): void {
    const requests = messages.filter((m) => typeof m.method === 'string' && m.id !== undefined && m.id !== null);
    if (requests.length === 0) {
      res.writeHead(202, headers).end();
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
   * A GET: with `Last-Event-ID`, that stream resumed (false: no such stream); without, the
   * session's GET stream (false when one is connected already).
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
    for (const s of this.streams.values()) if (s.waiting !== undefined && !s.done && s.res !== undefined) newest = s;
    return newest;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const s of this.streams.values()) s.res?.end();
    this.onclose?.();
  }

  private respond(id: RequestId, text: string): void {
    const entry = this.byRequest.get(id);
    if (entry === undefined) return;
    const { stream, token } = entry;
    this.byRequest.delete(id);
    if (token !== undefined && this.byToken.get(token) === id) this.byToken.delete(token);
    this.emit(stream, text);
    stream.waiting?.delete(id);
    if (stream.waiting?.size === 0) {
      stream.done = true;
      stream.res?.end();
      stream.res = undefined;
    }
  }

  private open(res: http.ServerResponse, headers: http.OutgoingHttpHeaders, waiting: Set<RequestId> | undefined): Stream {
    const stream: Stream = { id: ++this.nextStream, seq: 0, events: [], res: undefined, waiting, done: false };
    this.streams.set(stream.id, stream);
    // Old finished streams go first; a resumption of one of them then finds nothing (400).
    for (const [id, s] of this.streams) {
      if (this.streams.size <= MAX_STREAMS) break;
      if (s.done || s.waiting === undefined) continue;
      this.streams.delete(id);
    }
    for (const [id, s] of this.streams) {
      if (this.streams.size <= MAX_STREAMS) break;
      if (s.done) this.streams.delete(id);
    }
    this.attach(stream, res, headers);
    return stream;
  }

  private attach(stream: Stream, res: http.ServerResponse, headers: http.OutgoingHttpHeaders): void {
    if (stream.res !== undefined && stream.res !== res) stream.res.end();
    res.writeHead(200, { ...headers, ...SSE_HEADERS });
    // Priming: an id to resume from and how long to wait before reconnecting (basic.transports#20).
    res.write(`id: ${stream.id}-${stream.seq}\nretry: ${RETRY_MS}\ndata: \n\n`);
    stream.res = res;
    res.on('close', () => {
      if (stream.res === res) stream.res = undefined;
    });
  }

  private resume(res: http.ServerResponse, headers: http.OutgoingHttpHeaders, lastEventId: string): boolean {
    const m = /^(\d+)-(\d+)$/.exec(lastEventId);
    const stream = m ? this.streams.get(Number(m[1])) : undefined;
    if (stream === undefined || m === null) return false;
    const after = Number(m[2]);
    this.attach(stream, res, headers);
    for (const e of stream.events) if (e.seq > after) write(res, stream.id, e.seq, e.text);
    if (stream.done) {
      res.end();
      stream.res = undefined;
    }
    return true;
  }

  private emit(stream: Stream, text: string): void {
    stream.seq++;
    stream.events.push({ seq: stream.seq, text });
    if (stream.events.length > MAX_EVENTS) stream.events.shift();
    if (stream.res !== undefined) write(stream.res, stream.id, stream.seq, text);
  }
}

function write(res: http.ServerResponse, stream: number, seq: number, text: string): void {
  if (!res.writableEnded) res.write(`id: ${stream}-${seq}\nevent: message\ndata: ${text}\n\n`);
}
