/**
 * Streamable HTTP transport (basic/transports, "Streamable HTTP", revision 2025-11-25): the
 * Transport object, which puts its parts together and owns start, close and the legacy fallback.
 *
 * - Every message is one POST to the MCP endpoint (http-post.ts: the exchange, its JSON or SSE
 *   answer, its bound, auth replays, the expiry of the session it went out on).
 * - The SSE streams (sse-streams.ts: reading, `relatedRequestId`, POST streams closed once
 *   answered) and their reconnection with GET (sse-resume.ts: resumption with `Last-Event-ID`,
 *   backoff, the server-message GET stream).
 * - The session (http-session.ts: `MCP-Session-Id`, `MCP-Protocol-Version`, expiry reports,
 *   the DELETE on close); auth headers and replays (http-auth.ts, shared with legacy SSE).
 * - `start()` opens nothing: the transport is connectionless until the first POST; the GET
 *   stream opens after initialization.
 * - Backwards compatibility: if the initialize POST fails with 400/404/405, the transport
 *   switches to the 2024-11-05 HTTP+SSE transport against the same URL (`kind` becomes
 *   `legacy-sse`) and re-sends the initialize there.
 * - `close()` aborts every exchange, stream and wait (the lifetime signal), DELETEs the session
 *   (bounded), destroys its own pool and fires `onclose` once; it is idempotent.
 * - Stateless (revision 2026-07-28: `sessions: false` or `setSessions(false)`): no session id, no
 *   GET stream, no DELETE, no resumption (http-post.ts: a broken response stream fails its
 *   request with `MCPWIRE_STREAM_BROKEN`; a request's abort closes its stream, the cancellation).
 */
import { TransportError, type Phase } from '../errors.js';
import type { JSONRPCMessage } from '../jsonrpc/types.js';
import { endpointText, type HttpTransportOptions } from './http-common.js';
import { HttpLink } from './http-link.js';
import { PostExchange } from './http-post.js';
import { HttpSession } from './http-session.js';
import { LegacySseTransport } from './legacy-sse.js';
import { SseResumer } from './sse-resume.js';
import { SseStreams } from './sse-streams.js';
import type { MessageExtra, SendOptions, Transport, TransportDiagnostic, TransportEvent } from './types.js';

export type StreamableHttpTransportOptions = HttpTransportOptions;

export class StreamableHttpTransport implements Transport {
  /** Requests get an AbortSignal from the protocol layer: a request given up on aborts its POST. */
  readonly wantsRequestSignal = true;
  onmessage?: (message: unknown, extra?: MessageExtra, text?: string) => void;
  onclose?: (error?: Error) => void;
  ondiagnostic?: (d: TransportDiagnostic) => void;
  onevent?: (e: TransportEvent) => void;
  onsessionexpired?: (error: Error) => void;

  private readonly opts: StreamableHttpTransportOptions;
  private readonly link: HttpLink;
  private readonly session: HttpSession;
  private readonly streams: SseStreams;
  private readonly resumer: SseResumer;
  private readonly exchange: PostExchange;
  private legacy: LegacySseTransport | undefined;
  private closing: Promise<void> | undefined;
  private closeFired = false;

  constructor(options: StreamableHttpTransportOptions) {
    this.opts = options;
    this.link = new HttpLink(options, this);
    this.session = new HttpSession(this.link, options.headers, options.sessions !== false);
    this.streams = new SseStreams(this.link);
    this.resumer = new SseResumer(this.link, this.session, this.streams);
    this.exchange = new PostExchange(this.link, this.session, this.streams, this.resumer, (message, sendOptions, original, status) =>
      this.fallBack(message, sendOptions, original, status),
    );
  }

  get kind(): string {
    return this.legacy !== undefined ? 'legacy-sse' : 'streamable-http';
  }

  /** Stateless: a request's abort closes its response stream, which cancels it (see types.ts). */
  get cancelsByClosing(): boolean {
    return this.legacy === undefined && !this.session.enabled;
  }

  get sessionId(): string | undefined {
    return this.session.id;
  }

  /** Opens nothing: see the file comment (the GET stream opens after initialization). */
  start(): Promise<void> {
    if (!this.link.open) return Promise.reject(this.link.closedError('connect'));
    return Promise.resolve();
  }

  setProtocolVersion(version: string): void {
    this.session.setProtocolVersion(version);
    this.legacy?.setProtocolVersion(version);
  }

  setSessions(enabled: boolean): void {
    this.session.setEnabled(enabled);
    this.resumer.resetGetStream();
  }

  resetSession(): void {
    this.session.reset();
    this.resumer.resetGetStream();
  }

  async terminateSession(): Promise<void> {
    if (this.link.open && this.legacy === undefined && this.session.id !== undefined) await this.session.delete();
    this.resetSession();
  }

  send(message: JSONRPCMessage, options?: SendOptions): Promise<void> {
    if (!this.link.open) return Promise.reject(this.link.closedError('transport'));
    if (this.legacy !== undefined) return this.legacy.send(message, options);
    return this.exchange.post(message, options);
  }

  close(): Promise<void> {
    if (this.closing === undefined) this.closing = this.shutdown();
    return this.closing;
  }

  // ---- legacy fallback ------------------------------------------------------------------

  private async fallBack(message: JSONRPCMessage, options: SendOptions | undefined, original: Error, status: number): Promise<void> {
    const legacy = new LegacySseTransport({ ...this.opts, dispatcher: this.link.dispatcher });
    legacy.onmessage = (m, _extra, text) => this.onmessage?.(m, undefined, text);
    legacy.ondiagnostic = (d) => this.ondiagnostic?.(d);
    legacy.onevent = (e) => this.onevent?.(e);
    legacy.onclose = (err) => {
      if (this.link.open) {
        this.link.state = 'closed';
        this.link.lifetime.abort();
        this.fireClose(err);
      }
    };
    try {
      await legacy.start();
    } catch (err) {
      // The failed fallback must not close this transport first: the request then fails with
      // the HTTP status below, not a bare "connection closed".
      legacy.onclose = undefined;
      await legacy.close().catch(() => {});
      throw this.fallbackFailed(original, status, err);
    }
    if (!this.link.open) {
      await legacy.close();
      throw this.link.closedError('initialize');
    }
    this.legacy = legacy;
    if (this.session.protocolVersion !== undefined) legacy.setProtocolVersion(this.session.protocolVersion);
    if (this.onevent !== undefined) this.onevent({ type: 'fallback', to: 'legacy-sse', status });
    // The POST that met the fallback was the dispatch: the legacy re-send does not report again.
    const { onDispatched: _dispatched, ...rest } = options ?? {};
    return legacy.send(message, rest);
  }

  /** The initialize failed with `status` and the legacy transport could not start either. */
  private fallbackFailed(original: Error, status: number, err: unknown): TransportError {
    const legacyStatus = (err as { status?: unknown }).status;
    const text =
      status === 404 || status === 405
        ? `no MCP endpoint at ${endpointText(this.opts.url)} (HTTP ${status}) — is the path right? (e.g. /mcp); the legacy HTTP+SSE fallback failed too${typeof legacyStatus === 'number' ? ` (HTTP ${legacyStatus})` : `: ${(err as Error).message}`}`
        : `${original.message}; the legacy HTTP+SSE fallback failed too: ${(err as Error).message}`;
    const phase: Phase = 'initialize';
    return new TransportError(text, { ...this.link.where, phase, status, cause: err });
  }

  // ---- close ----------------------------------------------------------------------------

  private async shutdown(): Promise<void> {
    const link = this.link;
    if (link.state === 'open') link.state = 'closing';
    link.lifetime.abort();
    this.streams.abortAll();
    if (this.legacy !== undefined) {
      this.legacy.onclose = undefined;
      await this.legacy.close().catch(() => {});
    } else if (this.session.id !== undefined) {
      await this.session.delete();
    }
    if (link.ownPool !== undefined) await link.ownPool.destroy().catch(() => {});
    link.state = 'closed';
    this.fireClose(undefined);
  }

  private fireClose(err: Error | undefined): void {
    if (this.closeFired) return;
    this.closeFired = true;
    this.onclose?.(err);
  }
}

