/**
 * One MCP session of a `serve --http` replica whose state is shared in Redis (`--store`): the
 * same streams as http-session.ts, with their history in the store instead of this process
 * (src/store/redis-history.ts), so a client may resume any stream on any replica.
 *
 * - Stream keys are `<replica>.<n>`, event ids `<replica>.<n>-<seq>`: unique across replicas.
 * - A stream is written by the replica that opened it (its owner): each event goes to the live
 *   connection, if any, and to the store (one script: bounded append + publish), in order.
 * - A resumption (`Last-Event-ID`) of a stream this replica owns: the store's events after that
 *   id, then live. Of a stream another replica owns: this replica subscribes to the stream's
 *   channel first (events heard meanwhile are queued), replays the store, then relays what it
 *   hears until the response. While relaying it checks that the owner is alive; once the owner
 *   is gone (killed, its heartbeat expired) it takes the stream over (an atomic claim): each
 *   request the stream answers is run again here when that is safe (`rerun`: reads and lists,
 *   tools whose trusted annotations say read-only or idempotent), else answered with an error
 *   telling the client to send it again — the client never waits on a stream no one writes.
 * - A resource update for the session (`notifications/resources/updated`) heard by a replica
 *   that does not hold the session's GET stream is published on the session's channel; the
 *   replica holding the GET stream emits it there.
 * - Redis away: the session goes on with its live connections; events it could not store are
 *   not resumable (a resumption from before them is refused, never served with a gap).
 */
import type http from 'node:http';
import type { JSONRPCMessage, RequestId } from '../jsonrpc/types.js';
import type { MessageExtra, SendOptions, Transport } from '../transport/types.js';
import type { RedisServeState } from '../store/redis-sessions.js';

const RETRY_MS = 1000;
const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };
const EVENT_ID = /^([0-9a-f]+\.\d+)-(\d+)$/;

interface Stream {
  key: string;
  seq: number;
  res: http.ServerResponse | undefined;
  /** While a resumption replays the store: the live events held back. */
  queue: { seq: number; text: string }[] | undefined;
  waiting: Set<RequestId> | undefined;
  done: boolean;
  /** The store's write of this stream failed once: later events are not resumable. */
  broken: boolean;
}

export interface SharedSessionOptions {
  /** Whether a request of a stream taken over from a dead replica may be run again. */
  rerun(message: Record<string, unknown>): boolean;
  log(line: string): void;
}

export class SharedSessionTransport implements Transport {
  readonly kind = 'streamable-http';
  onmessage?: (message: unknown, extra?: MessageExtra, text?: string) => void;
  onclose?: (error?: Error) => void;
  lastActive = Date.now();
  private readonly streams = new Map<string, Stream>();
  private readonly byRequest = new Map<RequestId, { stream: Stream; token: string | number | undefined }>();
  private readonly byToken = new Map<string | number, RequestId>();
  /** Connections relaying another replica's stream: closed with the session. */
  private readonly relays = new Set<http.ServerResponse>();
  /** Responses that wait for something first (the session record before `initialize`'s answer), or are swallowed (a re-created session's `initialize`). */
  private readonly gates = new Map<RequestId, Promise<unknown> | 'swallow'>();
  private swallowed: ((v: unknown) => void) | undefined;
  private standalone: Stream | undefined;
  /** Listening for the notifications other replicas hand to this session's GET stream (held here). */
  private notes: Promise<(() => void) | undefined> | undefined;
  private next = 0;
  /** The ids of our requests to the client, as they went out (`<replica>:<id>`) → as the connection knows them. */
  private readonly asked = new Map<string, RequestId>();
  private unhear: (() => void) | undefined;
  private closed = false;
  /** A stream's history was lost and logged; quiet until the store takes an event again. */
  private quiet = false;

  constructor(
    readonly sessionId: string,
    private readonly state: RedisServeState,
    private readonly options: SharedSessionOptions,
  ) {}

  async start(): Promise<void> {}

  connectedStreams(): number {
    let n = this.relays.size;
    for (const s of this.streams.values()) if (s.res !== undefined) n++;
    return n;
  }

  /** `initialize`'s answer goes out once `ready` settles (the session record stored). */
  gate(id: RequestId, ready: Promise<unknown>): void {
    this.gates.set(id, ready);
  }

  /** Re-creates the session on this replica from its record: its `initialize` replayed, the answer kept here. */
  async restore(record: Record<string, unknown>): Promise<void> {
    const id = `mcpwire-restore-${this.sessionId}`;
    this.gates.set(id, 'swallow');
    const answered = new Promise((resolve) => (this.swallowed = resolve));
    this.onmessage?.({ jsonrpc: '2.0', id, method: 'initialize', params: record });
    await answered;
    this.onmessage?.({ jsonrpc: '2.0', method: 'notifications/initialized' });
  }

  acceptPost(messages: Record<string, unknown>[], res: http.ServerResponse, headers: http.OutgoingHttpHeaders): void {
    this.lastActive = Date.now();
    const requests = messages.filter((m) => typeof m.method === 'string' && m.id !== undefined && m.id !== null);
    if (requests.length === 0) {
      res.writeHead(202, headers).end();
      for (const m of messages) if (m.method === 'notifications/cancelled') this.cancelled(m.params as Record<string, unknown> | undefined);
    } else {
      const stream = this.open(res, headers, new Set(requests.map((m) => m.id as RequestId)), JSON.stringify(requests));
      for (const r of requests) this.track(r, stream);
    }
    for (const m of messages) {
      if (m.method === undefined && typeof m.id === 'string' && this.answerTo(m)) continue;
      this.onmessage?.(m, undefined, undefined);
    }
  }

  /**
   * The client's answer to a request of ours (sampling, elicitation, roots during a call): its id
   * names the replica that asked (`<replica>:<id>`). Ours: handed to the connection under the id
   * it knows; another replica's: published to it (`deliverAnswer` there). True when handled.
   */
  private answerTo(m: Record<string, unknown>): boolean {
    const id = m.id as string;
    const colon = id.indexOf(':');
    if (colon <= 0) return false;
    const replica = id.slice(0, colon);
    if (replica !== this.state.replica) {
      this.state.publishAnswer(replica, this.sessionId, JSON.stringify(m)).catch(() => undefined);
      return true;
    }
    this.deliverAnswer(m);
    return true;
  }

  /** An answer of the client to a request this replica sent (it may have come through another replica). */
  deliverAnswer(m: Record<string, unknown>): void {
    const theirs = this.asked.get(m.id as string);
    if (theirs === undefined) return;
    this.asked.delete(m.id as string);
    this.onmessage?.({ ...m, id: theirs }, undefined, undefined);
  }

  /** A GET: with `Last-Event-ID` that stream resumed (false: unknown here and in the store, or its history from there is gone); without, the session's GET stream on this replica. */
  async acceptGet(res: http.ServerResponse, headers: http.OutgoingHttpHeaders, lastEventId: string | undefined): Promise<boolean> {
    this.lastActive = Date.now();
    if (lastEventId !== undefined) return this.resume(res, headers, lastEventId);
    if (this.standalone?.res !== undefined) return false;
    this.standalone ??= this.open(res, headers, undefined, '[]');
    if (this.standalone.res !== res) this.attach(this.standalone, res, headers);
    // notifications other replicas' copies have for the client (a subscribed resource's update) come here
    this.notes ??= this.state.onSessionNote(this.sessionId, (text) => {
      if (!this.closed && this.standalone?.res !== undefined) this.emit(this.standalone, text);
    }).catch(() => undefined);
    return true;
  }

  async send(message: JSONRPCMessage, options?: SendOptions): Promise<void> {
    if (this.closed) return;
    const m = message as unknown as Record<string, unknown>;
    let text = options?.serialized ?? JSON.stringify(message);
    if (m.method === undefined) {
      const gate = this.gates.get(m.id as RequestId);
      if (gate === 'swallow') {
        this.gates.delete(m.id as RequestId);
        return this.swallowed?.(m);
      }
      if (gate !== undefined) {
        this.gates.delete(m.id as RequestId);
        await gate.catch(() => undefined);
      }
      return this.respond(m.id as RequestId, text);
    }
    if (m.id !== undefined && m.id !== null) {
      // Our request to the client: its id names this replica, for the answer to find its way back.
      const routed = `${this.state.replica}:${String(m.id)}`;
      this.asked.set(routed, m.id as RequestId);
      if (this.asked.size > 1024) this.asked.delete(this.asked.keys().next().value!);
      text = JSON.stringify({ ...m, id: routed });
    }
    const token = m.method === 'notifications/progress' ? (m.params as Record<string, unknown> | undefined)?.progressToken : undefined;
    const rid = typeof token === 'string' || typeof token === 'number' ? this.byToken.get(token) : undefined;
    const own = rid !== undefined ? this.byRequest.get(rid)?.stream : undefined;
    if (own === undefined && this.standalone?.res === undefined && m.method === 'notifications/resources/updated') {
      // the client's GET stream is on another replica (or nowhere): the update goes there
      const sent = await this.state.publishToSession(this.sessionId, text).then(() => true, () => false);
      if (sent) return;
    }
    const target = own ?? (this.standalone?.res !== undefined ? this.standalone : undefined) ?? this.newestConnectedPost() ?? this.standalone;
    if (target !== undefined) this.emit(target, text);
  }

  /** Ends this replica's copy of the session (the shared record stays: DELETE drops that). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const s of this.streams.values()) s.res?.end();
    for (const r of this.relays) r.end();
    this.relays.clear();
    void this.notes?.then((off) => off?.());
    this.streams.clear();
    this.byRequest.clear();
    this.byToken.clear();
    this.onclose?.();
  }

  private track(r: Record<string, unknown>, stream: Stream): void {
    const named = ((r.params as Record<string, unknown> | undefined)?._meta as Record<string, unknown> | undefined)?.progressToken;
    const token = typeof named === 'string' || typeof named === 'number' ? named : undefined;
    this.byRequest.set(r.id as RequestId, { stream, token });
    if (token !== undefined) this.byToken.set(token, r.id as RequestId);
  }

  private newestConnectedPost(): Stream | undefined {
    let newest: Stream | undefined;
    for (const s of this.streams.values()) if (s.res !== undefined && s.waiting !== undefined && !s.done) newest = s;
    return newest;
  }

  private open(res: http.ServerResponse | undefined, headers: http.OutgoingHttpHeaders, waiting: Set<RequestId> | undefined, requests: string): Stream {
    const stream: Stream = { key: `${this.state.replica}.${++this.next}`, seq: 0, res: undefined, queue: undefined, waiting, done: false, broken: false };
    this.streams.set(stream.key, stream);
    this.state.history.open(this.sessionId, stream.key, this.state.replica, waiting === undefined ? 'get' : 'post', requests).catch((err: unknown) => this.lose(stream, err));
    if (res !== undefined) this.attach(stream, res, headers);
    return stream;
  }

  private attach(stream: Stream, res: http.ServerResponse, headers: http.OutgoingHttpHeaders, primeSeq = stream.seq): void {
    if (stream.res !== undefined && stream.res !== res) stream.res.end();
    if (!res.headersSent) res.writeHead(200, { ...headers, ...SSE_HEADERS });
    // Priming (basic.transports#20): the id to resume from, and how long to wait before reconnecting.
    res.write(`id: ${stream.key}-${primeSeq}\nretry: ${RETRY_MS}\ndata: \n\n`);
    stream.res = res;
    res.on('close', () => {
      if (stream.res === res) stream.res = undefined;
    });
  }

  private respond(id: RequestId, text: string): void {
    const entry = this.byRequest.get(id);
    if (entry === undefined) return;
    this.forget(id, entry.token);
    entry.stream.waiting?.delete(id);
    const last = entry.stream.waiting?.size === 0;
    this.emit(entry.stream, text, last);
    if (last) this.finish(entry.stream);
  }

  private cancelled(params: Record<string, unknown> | undefined): void {
    const id = params?.requestId;
    const entry = typeof id === 'string' || typeof id === 'number' ? this.byRequest.get(id) : undefined;
    if (entry === undefined) return;
    this.forget(id as RequestId, entry.token);
    entry.stream.waiting?.delete(id as RequestId);
    if (entry.stream.waiting?.size !== 0) return;
    this.finish(entry.stream);
    this.state.history.forget(this.sessionId, entry.stream.key).catch(() => undefined);
  }

  private forget(id: RequestId, token: string | number | undefined): void {
    this.byRequest.delete(id);
    if (token !== undefined && this.byToken.get(token) === id) this.byToken.delete(token);
  }

  private finish(stream: Stream): void {
    stream.done = true;
    stream.res?.end();
    stream.res = undefined;
    this.streams.delete(stream.key);
  }

  private emit(stream: Stream, text: string, done = false): void {
    const seq = ++stream.seq;
    if (stream.queue !== undefined) stream.queue.push({ seq, text });
    else if (stream.res !== undefined) write(stream.res, stream.key, seq, text);
    if (stream.broken) return;
    this.state.history.append(this.sessionId, stream.key, seq, text, done).then(
      (kept) => {
        if (!kept) stream.broken = true;
        else this.quiet = false;
      },
      (err: unknown) => this.lose(stream, err),
    );
  }

  private lose(stream: Stream, err: unknown): void {
    if (stream.broken) return;
    stream.broken = true;
    // Once per session while the store is away (a line per stream would flood the log).
    if (this.quiet) return;
    this.quiet = true;
    this.options.log(`session ${this.sessionId.slice(0, 8)}: stream ${stream.key} (and others while the store is away) not resumable: ${(err as Error)?.message ?? String(err)}`);
  }

  private async resume(res: http.ServerResponse, headers: http.OutgoingHttpHeaders, lastEventId: string): Promise<boolean> {
    const m = EVENT_ID.exec(lastEventId);
    if (m === null) return false;
    const key = m[1]!;
    const after = Number(m[2]);
    const local = this.streams.get(key);
    if (local !== undefined) return this.resumeLocal(local, res, headers, after);
    return this.relay(key, res, headers, after);
  }

  /** A stream this replica writes: the store's events after `after`, then live. */
  private async resumeLocal(stream: Stream, res: http.ServerResponse, headers: http.OutgoingHttpHeaders, after: number): Promise<boolean> {
    stream.queue = [];
    let stored;
    try {
      stored = await this.state.history.read(this.sessionId, stream.key);
    } catch {
      stored = undefined;
    }
    const queued = stream.queue;
    stream.queue = undefined;
    if (stored === undefined || stream.broken || after < stored.lost) {
      for (const e of queued) if (stream.res !== undefined) write(stream.res, stream.key, e.seq, e.text);
      return false;
    }
    this.attach(stream, res, headers, after);
    let last = after;
    for (const e of [...stored.events, ...queued]) {
      if (e.seq <= last) continue;
      write(res, stream.key, e.seq, e.text);
      last = e.seq;
    }
    if (stream.done) {
      res.end();
      stream.res = undefined;
    }
    return true;
  }

  /** Another replica's stream (see the module comment). */
  private async relay(key: string, res: http.ServerResponse, headers: http.OutgoingHttpHeaders, after: number): Promise<boolean> {
    let queue: { seq: number; done: boolean; text: string }[] | undefined = [];
    let last = after;
    let ended = false;
    const out = (seq: number, done: boolean, text: string): void => {
      if (ended || seq <= last) return;
      write(res, key, seq, text);
      last = seq;
      if (done) end();
    };
    let unsubscribe: (() => void) | undefined;
    let watch: NodeJS.Timeout | undefined;
    /** Stops relaying (the stream was taken over here: the connection stays). */
    const detach = (): void => {
      ended = true;
      unsubscribe?.();
      if (watch !== undefined) clearInterval(watch);
      this.relays.delete(res);
    };
    const end = (): void => {
      if (ended) return;
      detach();
      if (!res.writableEnded) res.end();
    };
    try {
      unsubscribe = await this.state.sub.subscribe(this.state.history.channel(this.sessionId, key), (msg) => {
        const e = publishedEvent(msg);
        if (queue !== undefined) queue.push(e);
        else out(e.seq, e.done, e.text);
      });
    } catch {
      /* Redis away: the replay below fails too */
    }
    let stored;
    try {
      stored = await this.state.history.read(this.sessionId, key);
    } catch {
      stored = undefined;
    }
    if (stored === undefined || after < stored.lost) {
      unsubscribe?.();
      return false;
    }
    res.writeHead(200, { ...headers, ...SSE_HEADERS });
    res.write(`id: ${key}-${after}\nretry: ${RETRY_MS}\ndata: \n\n`);
    this.relays.add(res);
    res.on('close', end);
    for (const e of stored.events) out(e.seq, false, e.text);
    if (stored.done) {
      end();
      return true;
    }
    const held = queue;
    queue = undefined;
    for (const e of held) out(e.seq, e.done, e.text);
    let owner = stored.owner;
    let checking = false;
    watch = setInterval(() => {
      if (checking || ended) return;
      checking = true;
      void this.ownerGone(owner, key)
        .then(async (gone) => {
          if (!gone || ended) return;
          const claimed = await this.state.history.claim(this.sessionId, key, owner, this.state.replica);
          if (claimed === undefined) {
            const now = await this.state.history.read(this.sessionId, key);
            if (now === undefined || now.done) return end();
            owner = now.owner;
            return;
          }
          detach();
          this.takeOver(key, claimed, res, last);
        })
        .catch(() => undefined)
        .finally(() => (checking = false));
    }, this.state.heartbeatMs);
    watch.unref();
    return true;
  }

  private async ownerGone(owner: string, key: string): Promise<boolean> {
    if (owner === this.state.replica) return !this.streams.has(key);
    return (await this.state.replicaAddress(owner)) === undefined;
  }

  /**
   * The stream's owner is gone and this replica claimed it: its requests run again here when safe,
   * else each gets an error saying to send it again. The relay's connection becomes the stream's.
   */
  private takeOver(key: string, claimed: { seq: number; requests: string }, res: http.ServerResponse, written: number): void {
    let requests: Record<string, unknown>[];
    try {
      requests = JSON.parse(claimed.requests) as Record<string, unknown>[];
    } catch {
      requests = [];
    }
    const stream: Stream = { key, seq: Math.max(claimed.seq, written), res: undefined, queue: undefined, waiting: new Set(requests.map((r) => r.id as RequestId)), done: false, broken: false };
    this.streams.set(key, stream);
    stream.res = res.writableEnded ? undefined : res;
    res.on('close', () => {
      if (stream.res === res) stream.res = undefined;
    });
    this.options.log(`session ${this.sessionId.slice(0, 8)}: took stream ${key} over from a replica that is gone (${requests.length} request(s))`);
    for (const r of requests) {
      this.track(r, stream);
      if (this.options.rerun(r)) this.onmessage?.(r, undefined, undefined);
      else {
        const error = { code: -32603, message: `the gateway replica serving ${String(r.method)} went away before it answered; it was not run again (it may have side effects): send the request again` };
        void this.send({ jsonrpc: '2.0', id: r.id as RequestId, error } as JSONRPCMessage);
      }
    }
    if (stream.waiting!.size === 0) this.finish(stream);
  }
}

/** An event as the append script publishes it: `<seq>\n<done>\n<text>`. */
function publishedEvent(msg: string): { seq: number; done: boolean; text: string } {
  const a = msg.indexOf('\n');
  const b = msg.indexOf('\n', a + 1);
  return { seq: Number(msg.slice(0, a)), done: msg.slice(a + 1, b) === '1', text: msg.slice(b + 1) };
}

function write(res: http.ServerResponse, key: string, seq: number, text: string): void {
  if (!res.writableEnded) res.write(`id: ${key}-${seq}\nevent: message\ndata: ${text}\n\n`);
}
