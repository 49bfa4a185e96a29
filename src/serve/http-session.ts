/**
 * One MCP session of the gateway over Streamable HTTP (basic.transports, server side), as a
 * `Transport` its `Connection` drives. Each POST that carries requests gets its own SSE stream;
 * the responses to those requests go on it, and it ends once they are all answered
 * (basic.transports#26: after the response the server terminates the stream). A progress
 * notification goes on the stream of the request whose `progressToken` it names; anything else
 * the gateway sends on its own (list changes, log messages, sampling/elicitation/roots
 * requests) goes on the client's GET stream when one is open, else on the newest open POST
 * stream, else it is dropped (a notification has nobody to go to).
 */
import type http from 'node:http';
import type { JSONRPCMessage, RequestId } from '../jsonrpc/types.js';
import type { MessageExtra, SendOptions, Transport } from '../transport/types.js';

interface PostStream {
  res: http.ServerResponse;
  /** Requests of this POST not answered yet. */
  waiting: Set<RequestId>;
}

export class HttpSessionTransport implements Transport {
  readonly kind = 'streamable-http';
  onmessage?: (message: unknown, extra?: MessageExtra, text?: string) => void;
  onclose?: (error?: Error) => void;
  private readonly streams: PostStream[] = [];
  private readonly byRequest = new Map<RequestId, PostStream>();
  private readonly byToken = new Map<string | number, RequestId>();
  private getStream: http.ServerResponse | undefined;
  private closed = false;

  constructor(readonly sessionId: string) {}

  async start(): Promise<void> {}

  /** A POST with requests: opens its SSE stream and hands the messages to the connection. */
  acceptPost(messages: Record<string, unknown>[], res: http.ServerResponse, headers: http.OutgoingHttpHeaders): void {
    const requests = messages.filter((m) => typeof m.method === 'string' && m.id !== undefined && m.id !== null);
    if (requests.length === 0) {
      res.writeHead(202, headers).end();
    } else {
      res.writeHead(200, { ...headers, 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.flushHeaders();
      const stream: PostStream = { res, waiting: new Set(requests.map((m) => m.id as RequestId)) };
      this.streams.push(stream);
      for (const r of requests) {
        this.byRequest.set(r.id as RequestId, stream);
        const token = ((r.params as Record<string, unknown> | undefined)?._meta as Record<string, unknown> | undefined)?.progressToken;
        if (typeof token === 'string' || typeof token === 'number') this.byToken.set(token, r.id as RequestId);
      }
      // The client dropped the stream, which is no cancel (basic.transports#27): forget the stream only.
      res.on('close', () => this.drop(stream));
    }
    for (const m of messages) this.onmessage?.(m, undefined, undefined);
  }

  /** The client's GET: the stream for what the gateway sends on its own (one at a time). */
  acceptGet(res: http.ServerResponse, headers: http.OutgoingHttpHeaders): boolean {
    if (this.getStream !== undefined) return false;
    res.writeHead(200, { ...headers, 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders();
    this.getStream = res;
    res.on('close', () => {
      if (this.getStream === res) this.getStream = undefined;
    });
    return true;
  }

  async send(message: JSONRPCMessage, options?: SendOptions): Promise<void> {
    if (this.closed) return;
    const m = message as unknown as Record<string, unknown>;
    const text = options?.serialized ?? JSON.stringify(message);
    const isResponse = m.method === undefined;
    if (isResponse) {
      const id = m.id as RequestId;
      const stream = this.byRequest.get(id);
      if (stream === undefined) return; // the client closed that stream: nowhere to answer
      this.byRequest.delete(id);
      stream.waiting.delete(id);
      write(stream.res, text);
      for (const [token, rid] of this.byToken) if (rid === id) this.byToken.delete(token);
      if (stream.waiting.size === 0) {
        stream.res.end();
        this.drop(stream);
      }
      return;
    }
    const token = m.method === 'notifications/progress' ? (m.params as Record<string, unknown> | undefined)?.progressToken : undefined;
    const rid = typeof token === 'string' || typeof token === 'number' ? this.byToken.get(token) : undefined;
    const target = (rid !== undefined ? this.byRequest.get(rid)?.res : undefined) ?? this.getStream ?? this.streams.at(-1)?.res;
    if (target !== undefined) write(target, text);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const s of [...this.streams]) s.res.end();
    this.getStream?.end();
    this.onclose?.();
  }

  private drop(stream: PostStream): void {
    const i = this.streams.indexOf(stream);
    if (i >= 0) this.streams.splice(i, 1);
    for (const id of stream.waiting) this.byRequest.delete(id);
  }
}

function write(res: http.ServerResponse, text: string): void {
  if (!res.writableEnded) res.write(`event: message\ndata: ${text}\n\n`);
}
