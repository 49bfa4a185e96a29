/**
 * An in-memory transport with HTTP-like sessions, for client-side session tests that must not
 * depend on the timing of real streams: `initialize` opens a session (`F1`, `F2`…), a request on
 * an expired session rejects its `send()` with SessionExpiredError (a 404 on the request's own
 * POST), and `expireOutsideRequest()` plays a 404 on the GET stream or a notification POST: the
 * session is gone and the transport calls `onsessionexpired` (basic.transports#45).
 */
import { SessionExpiredError, TransportError } from '../../src/errors.js';
import type { JSONRPCMessage } from '../../src/jsonrpc/types.js';
import type { SendOptions, Transport, TransportDiagnostic, TransportEvent } from '../../src/transport/types.js';

export type Msg = { id?: number | string; method?: string; params?: Record<string, unknown> };

export class FakeSessionTransport implements Transport {
  readonly kind = 'fake-http';
  onmessage?: (message: unknown) => void;
  onclose?: (error?: Error) => void;
  ondiagnostic?: (d: TransportDiagnostic) => void;
  onevent?: (e: TransportEvent) => void;
  onsessionexpired?: (error: Error) => void;
  /** Every message sent, with the session it was sent on. */
  readonly sent: { session: string | undefined; method?: string; params?: Record<string, unknown> }[] = [];
  /** When set, the next `initialize` is answered with this HTTP-level failure (once). */
  failNextInitialize: Error | undefined;
  /** Answers a request instead of the built-in answers when it returns something. */
  override: ((m: Msg, session: string | undefined) => unknown) | undefined;
  private session: string | undefined;
  private expired = new Set<string>();
  private seq = 0;
  private closed = false;

  get sessionId(): string | undefined {
    return this.session;
  }

  async start(): Promise<void> {}

  resetSession(): void {
    this.session = undefined;
  }

  send(message: JSONRPCMessage, options?: SendOptions): Promise<void> {
    if (this.closed) return Promise.reject(new TransportError('closed'));
    const m = message as Msg;
    this.sent.push({ session: this.session, method: m.method, params: m.params });
    if (options?.isInitialize === true) {
      const failure = this.failNextInitialize;
      this.failNextInitialize = undefined;
      if (failure !== undefined) return Promise.reject(failure);
      this.session = `F${++this.seq}`;
    } else if (this.session === undefined || this.expired.has(this.session)) {
      if (m.method !== undefined && m.id !== undefined) {
        return Promise.reject(new SessionExpiredError(`POST request got HTTP 404 (session ${this.session})`));
      }
      return Promise.resolve();
    }
    if (m.method !== undefined && m.id !== undefined) {
      const reply = { jsonrpc: '2.0', id: m.id, result: this.answer(m) };
      setImmediate(() => {
        if (!this.closed) this.onmessage?.(reply);
      });
    }
    return Promise.resolve();
  }

  /** The server forgets the session and a GET stream / notification POST gets the 404. */
  expireOutsideRequest(session = this.session): void {
    if (session !== undefined) this.expired.add(session);
    this.onsessionexpired?.(new SessionExpiredError(`GET (SSE stream) got HTTP 404 (session ${session})`));
  }

  /** The server forgets the session; nothing is told until the next request. */
  expireSilently(): void {
    if (this.session !== undefined) this.expired.add(this.session);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }

  private answer(m: Msg): unknown {
    const given = this.override?.(m, this.session);
    if (given !== undefined) return given;
    switch (m.method) {
      case 'initialize':
        return {
          protocolVersion: '2025-11-25',
          capabilities: { tools: {}, logging: {}, resources: { subscribe: true } },
          serverInfo: { name: 'fake-session', version: '1.0.0' },
        };
      case 'tools/call':
        return { content: [{ type: 'text', text: String((m.params?.arguments as { text?: unknown } | undefined)?.text ?? '') }] };
      case 'tools/list':
        return { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] };
      default:
        return {};
    }
  }
}
