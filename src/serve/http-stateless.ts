/**
 * One 2026-07-28 request over Streamable HTTP, served statelessly (basic/transports/
 * streamable-http, server side): the POST's response is the whole exchange.
 *
 * - Before the body runs, the headers that mirror it are checked: `MCP-Protocol-Version` must
 *   equal `_meta["io.modelcontextprotocol/protocolVersion"]` (a version the gateway does not
 *   serve is -32022, a disagreement -32020), `Mcp-Method` the body's method, `Mcp-Name` its
 *   `name` (tools/call, prompts/get) or `uri` (resources/read), its Base64 sentinel form decoded
 *   first (basic.transports.streamable_http#48, #64): otherwise 400 with a JSON-RPC
 *   `HeaderMismatch` (-32020) error. The `Mcp-Param-*` headers of a `tools/call` are checked
 *   against the tool's schema when the call is served (param-headers.ts; the transport keeps the
 *   request's headers for that).
 * - An answer with nothing before it is one JSON body; its HTTP status follows the error:
 *   -32601 is 404, the request's own faults (-32600, -32602, -32020, -32021, -32022) are 400.
 * - Anything the server sends first (progress, a log message the request asked for, a
 *   subscription's notifications) opens an SSE stream instead, and the answer ends it.
 * - A closed stream ends the request's session (no resumption in 2026-07-28).
 *
 * Untraced, a request (not `subscriptions/listen`) is served by the listener's one
 * `StatelessRequests`: one gateway session for all of them, built once, each request under an
 * id of the transport's own (the clients' ids may be the same), answered on its own POST with
 * its own id; a POST closed before its answer cancels that request. A notification, a
 * `subscriptions/listen` and, with tracing on, every request get a `StatelessPostTransport`: a
 * session of their own for that one POST.
 */
import type http from 'node:http';
import { excerpt, type JSONRPCMessage } from '../jsonrpc/types.js';
import { HEADER_MISMATCH, UNSUPPORTED_PROTOCOL_VERSION } from '../mcp/eras/modern-errors.js';
import type { MessageExtra, SendOptions, Transport } from '../transport/types.js';
import { IdTable } from '../util/id-table.js';
import { MODERN_VERSION, modernVersionOf } from './modern.js';
import { decodeHeaderValue } from './param-headers.js';

const BAD_REQUEST: ReadonlySet<number> = new Set([-32600, -32602, HEADER_MISMATCH, -32021, UNSUPPORTED_PROTOCOL_VERSION]);

/** The HTTP status of a modern answer. */
function statusOf(message: Record<string, unknown>): number {
  const code = (message.error as { code?: unknown } | undefined)?.code;
  if (code === -32601) return 404;
  return typeof code === 'number' && BAD_REQUEST.has(code) ? 400 : 200;
}

const header = (h: http.IncomingHttpHeaders, name: string): string | undefined => {
  const v = h[name];
  return typeof v === 'string' ? v : undefined;
};

/** Why the headers disagree with the body, as a JSON-RPC error object; undefined when they agree. */
export function headerProblem(headers: http.IncomingHttpHeaders, message: Record<string, unknown>): { code: number; message: string; data?: unknown } | undefined {
  const params = message.params as Record<string, unknown> | undefined;
  const version = modernVersionOf(params);
  const given = header(headers, 'mcp-protocol-version');
  // the standard headers are required (basic.transports.streamable_http#22/#28): one missing is a validation failure
  const missing = given === undefined ? 'MCP-Protocol-Version' : header(headers, 'mcp-method') === undefined ? 'Mcp-Method' : undefined;
  if (missing !== undefined) return { code: HEADER_MISMATCH, message: `Header mismatch: the required ${missing} header is missing` };
  // a header and a body that disagree are refused as such (basic.transports.streamable_http#24),
  // before the version they name is judged: both naming one the gateway does not serve is -32022
  if (given !== version) return { code: HEADER_MISMATCH, message: `Header mismatch: MCP-Protocol-Version ${excerpt(String(given), 40)} but _meta names ${excerpt(String(version), 40)}` };
  if (version !== undefined && version !== MODERN_VERSION) {
    return { code: UNSUPPORTED_PROTOCOL_VERSION, message: `Unsupported protocol version ${version}`, data: { supported: [MODERN_VERSION], requested: version } };
  }
  const method = header(headers, 'mcp-method');
  if (method !== message.method) return { code: HEADER_MISMATCH, message: `Header mismatch: Mcp-Method ${method} but the body's method is ${String(message.method)}` };
  const raw = header(headers, 'mcp-name');
  const target = message.method === 'resources/read' ? params?.uri : message.method === 'tools/call' || message.method === 'prompts/get' ? params?.name : undefined;
  if (target === undefined) return undefined;
  if (raw === undefined) return { code: HEADER_MISMATCH, message: `Header mismatch: the required Mcp-Name header is missing (the body names ${excerpt(String(target), 200)})` };
  const name = decodeHeaderValue('Mcp-Name', raw);
  if (typeof name === 'object') return name;
  if (name !== target) return { code: HEADER_MISMATCH, message: `Header mismatch: Mcp-Name ${name} but the body names ${String(target)}` };
  return undefined;
}

/** Writes a refusal of a modern request: 400 and the JSON-RPC error. */
export function refuseModern(res: http.ServerResponse, id: unknown, error: { code: number; message: string; data?: unknown }): void {
  res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: id ?? null, error }));
}

/** The transport of one stateless request (see the module comment). */
export class StatelessPostTransport implements Transport {
  readonly kind = 'streamable-http';
  onmessage?: (message: unknown, extra?: MessageExtra, text?: string) => void;
  onclose?: (error?: Error) => void;
  private streaming = false;
  private closed = false;

  constructor(
    private readonly res: http.ServerResponse,
    /** The POST's headers, for the checks that need the request's tool (param-headers.ts). */
    readonly requestHeaders?: http.IncomingHttpHeaders,
  ) {
    res.on('close', () => void this.close());
  }

  async start(): Promise<void> {}

  /** Hands the POST's message to the connection; a notification alone is 202. */
  accept(message: Record<string, unknown>): void {
    if (message.id === undefined || message.id === null) this.res.writeHead(202).end();
    this.onmessage?.(message, undefined, undefined);
  }

  async send(message: JSONRPCMessage, options?: SendOptions): Promise<void> {
    if (this.closed || this.res.writableEnded) return;
    const m = message as unknown as Record<string, unknown>;
    const text = options?.serialized ?? JSON.stringify(message);
    const answer = m.method === undefined;
    if (answer && !this.streaming) {
      this.res.writeHead(statusOf(m), { 'content-type': 'application/json' }).end(text);
      return;
    }
    if (!this.streaming) {
      this.streaming = true;
      this.res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    }
    this.res.write(`event: message\ndata: ${text}\n\n`);
    if (answer) this.res.end();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (!this.res.writableEnded) this.res.end();
    this.onclose?.();
  }
}

/** One request served through `StatelessRequests`: its POST and the id its client gave it. */
interface Pending {
  res: http.ServerResponse;
  headers: http.IncomingHttpHeaders;
  clientId: unknown;
  /** An SSE stream is open (something went out before the answer). */
  streaming: boolean;
}

/** The transport's id of a request and the transport, kept on its response for the `close` listener. */
const REQUEST = Symbol('mcpwire.statelessRequest');
const OWNER = Symbol('mcpwire.statelessRequests');
type Tagged = http.ServerResponse & { [REQUEST]?: number; [OWNER]?: StatelessRequests };

/** The `close` listener of every such POST: one function, its transport found on the response. */
function closeListener(this: http.ServerResponse): void {
  (this as Tagged)[OWNER]?.gone(this as Tagged);
}

/**
 * The transport of the one session that serves the untraced stateless requests (see the module
 * comment): each request is given an id of this transport's (an integer counter, so the
 * connection's table of requests in flight never grows a Map), its POST found again by that id
 * when its answer or a notification of it goes out.
 */
export class StatelessRequests implements Transport {
  readonly kind = 'streamable-http';
  onmessage?: (message: unknown, extra?: MessageExtra, text?: string) => void;
  onclose?: (error?: Error) => void;
  private readonly pending = new IdTable<number, Pending>();
  private next = 0;
  private closed = false;

  async start(): Promise<void> {}

  /** Serves `message` (a request) on `res`. */
  accept(message: Record<string, unknown>, res: http.ServerResponse, headers: http.IncomingHttpHeaders): void {
    if (this.closed) return void res.writeHead(503, { 'content-type': 'text/plain' }).end('mcpwire serve: closing\n');
    const id = this.next;
    this.next = (this.next + 1) & 0x7fffffff;
    this.pending.set(id, { res, headers, clientId: message.id, streaming: false });
    (res as Tagged)[REQUEST] = id;
    (res as Tagged)[OWNER] = this;
    res.on('close', closeListener);
    message.id = id;
    this.onmessage?.(message, undefined, undefined);
  }

  /** The POST headers of the request with this transport id (param-headers.ts checks a tool's `Mcp-Param-*`). */
  headersOf(id: unknown): http.IncomingHttpHeaders | undefined {
    return typeof id === 'number' ? this.pending.get(id)?.headers : undefined;
  }

  /** A notification of the request with this transport id, on its POST's stream (opened as SSE first). */
  notifyFor(id: unknown, method: string, params?: Record<string, unknown>): Promise<void> {
    const p = typeof id === 'number' ? this.pending.get(id) : undefined;
    if (p === undefined || p.res.writableEnded) return Promise.resolve();
    const text = JSON.stringify(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
    this.event(p, text);
    return Promise.resolve();
  }

  /** An answer goes out on its request's POST with the client's id; anything else has no stream here. */
  async send(message: JSONRPCMessage, _options?: SendOptions): Promise<void> {
    const m = message as unknown as Record<string, unknown>;
    if (m.method !== undefined || typeof m.id !== 'number') return;
    const p = this.pending.get(m.id);
    if (p === undefined) return;
    this.pending.delete(m.id);
    if (p.res.writableEnded) return;
    m.id = p.clientId;
    // The entry is gone from here on: an answer that cannot be serialized (a BigInt, a cycle)
    // still ends its POST, as an internal error, instead of leaving the client waiting.
    let text: string;
    try {
      text = JSON.stringify(m);
    } catch (err) {
      const error = { code: -32603, message: `mcpwire serve: the answer could not be serialized: ${excerpt((err as Error).message, 200)}` };
      text = JSON.stringify({ jsonrpc: '2.0', id: p.clientId, error });
    }
    if (!p.streaming) {
      p.res.writeHead(statusOf(m), { 'content-type': 'application/json' }).end(text);
      return;
    }
    this.event(p, text);
    p.res.end();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const [id, p] of this.pending.entries()) {
      this.pending.delete(id);
      if (!p.res.writableEnded) p.res.end();
    }
    this.onclose?.();
  }

  private event(p: Pending, text: string): void {
    if (!p.streaming) {
      p.streaming = true;
      p.res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    }
    p.res.write(`event: message\ndata: ${text}\n\n`);
  }

  /** A POST closed: unanswered, its request is cancelled (a lost stream loses the request, 2026-07-28). */
  gone(res: Tagged): void {
    const id = res[REQUEST];
    if (id === undefined || this.pending.get(id)?.res !== res) return;
    this.pending.delete(id);
    this.onmessage?.({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'the client closed the stream' } }, undefined, undefined);
  }
}
