/**
 * The deprecated HTTP+SSE transport of protocol revision 2024-11-05, for older servers
 * (basic/transports, "Backwards Compatibility"): GET the SSE endpoint, wait for the `endpoint`
 * event (the URI to POST to), POST every message there; every server message, responses
 * included, arrives as a `message` event on the one SSE stream.
 *
 * That revision has no resumption: when the stream ends — or stays silent for
 * `idleStreamTimeoutMs` (default 300 000 ms, 0 = never) — the transport is closed
 * (`onclose(ConnectionClosedError)`), and a supervisor reconnects from scratch.
 * `SendOptions.onDispatched` is called right before a request's POST is written to a socket
 * (after the auth headers resolved and undici had a connection for it; write-hook.ts), never
 * when the signal was aborted by then. A leading UTF-8 BOM in an
 * event's data is skipped. A 401/403 on the stream's GET or on a POST is shown to the auth
 * provider (`onUnauthorized`), which may re-authorize; the GET or POST is then made again with
 * the new headers, at most MAX_AUTH_REPLAYS times, as the Streamable HTTP transport does (one
 * helper, http-auth.ts; the provider sees the refused request's Authorization). The POST of a
 * notification or a response is bounded by `notificationTimeoutMs` (default 10 s).
 */
import type { Dispatcher, Pool } from 'undici';
import { AbortError, AuthRequiredError, ConnectionClosedError, TransportError, isMcpWireError, type Phase } from '../errors.js';
import { excerpt, type JSONRPCMessage } from '../jsonrpc/types.js';
import {
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_IDLE_STREAM_TIMEOUT_MS,
  DEFAULT_MAX_MESSAGE_BYTES,
  DEFAULT_NOTIFICATION_TIMEOUT_MS,
  createPool,
  isAborted,
  discard,
  header,
  httpError,
  mediaType,
  networkError,
  parseTarget,
  postTimeout,
  stripBom,
  type ErrWhere,
  type HttpTransportOptions,
  type Target,
} from './http-common.js';
import { timerMs } from '../util/sleep.js';
import { GET_REQUEST, HttpAuth, Refused, type AuthRequest } from './http-auth.js';
import { readSse } from './http-sse.js';
import { boundSignals, Lifetime, linkSignals } from './lifetime.js';
import type { MessageExtra, SendOptions, Transport, TransportDiagnostic, TransportEvent } from './types.js';
import { ON_WRITE, writeHooked, type HookedRequestOptions } from './write-hook.js';

export type LegacySseTransportOptions = HttpTransportOptions;

export class LegacySseTransport implements Transport {
  readonly kind = 'legacy-sse';
  /** A request given up on aborts its POST (if not yet sent: never sent, never dispatched). */
  readonly wantsRequestSignal = true;
  onmessage?: (message: unknown, extra?: MessageExtra, text?: string) => void;
  onclose?: (error?: Error) => void;
  ondiagnostic?: (d: TransportDiagnostic) => void;
  onevent?: (e: TransportEvent) => void;

  private readonly opts: LegacySseTransportOptions;
  private readonly target: Target;
  private readonly dispatcher: Dispatcher;
  /** `dispatcher` for the POSTs: tells when one is written (write-hook.ts). */
  private readonly postDispatcher: Dispatcher;
  private readonly ownPool: Pool | undefined;
  private readonly lifetime = new Lifetime();
  private readonly where: ErrWhere;
  private readonly staticHeaders: Record<string, string>;
  private state: 'new' | 'starting' | 'open' | 'closing' | 'closed' = 'new';
  private endpoint: Target | undefined;
  /** The POSTs go to the endpoint event's URI, not the configured URL: the auth provider is told. */
  private postRequest: AuthRequest | undefined;
  private readonly auth: HttpAuth;
  /** The headers of the stream's GET and of every POST, before the auth provider's. */
  private readonly getBase: Record<string, string>;
  private postBase: Record<string, string>;
  private closing: Promise<void> | undefined;
  private closeFired = false;

  constructor(options: LegacySseTransportOptions) {
    this.opts = options;
    this.where = options.serverId !== undefined ? { serverId: options.serverId } : {};
    this.target = parseTarget(options.url);
    this.staticHeaders = {};
    for (const [k, v] of Object.entries(options.headers ?? {})) this.staticHeaders[k.toLowerCase()] = v;
    this.auth = new HttpAuth(options.authProvider);
    this.getBase = { ...this.staticHeaders, accept: 'text/event-stream' };
    this.postBase = { ...this.staticHeaders, 'content-type': 'application/json' };
    if (options.dispatcher !== undefined) {
      this.dispatcher = options.dispatcher;
    } else {
      this.ownPool = createPool(this.target.origin, options);
      this.dispatcher = this.ownPool;
    }
    this.postDispatcher = writeHooked(this.dispatcher);
  }

  /** The URL messages are POSTed to, once the `endpoint` event arrived. */
  get endpointUrl(): string | undefined {
    return this.endpoint !== undefined ? `${this.endpoint.origin}${this.endpoint.path}` : undefined;
  }

  setProtocolVersion(version: string): void {
    this.postBase = { ...this.staticHeaders, 'content-type': 'application/json', 'mcp-protocol-version': version };
  }

  /** Opens the SSE stream and resolves when the `endpoint` event arrived. */
  async start(): Promise<void> {
    if (this.state !== 'new') throw this.closedError('connect');
    this.state = 'starting';
    const timeoutMs = this.opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    const timer = setTimeout(() => this.lifetime.abort(new Error(`no endpoint event within ${timeoutMs} ms`)), timerMs(timeoutMs));
    try {
      await this.openStream();
    } catch (err) {
      this.state = 'closed';
      this.lifetime.abort();
      if (this.ownPool !== undefined) await this.ownPool.destroy().catch(() => {});
      if (isMcpWireError(err)) throw err;
      const reason = this.lifetime.signal.reason instanceof Error ? this.lifetime.signal.reason : err;
      throw networkError('GET (legacy SSE stream)', reason, { ...this.where, phase: 'connect' });
    } finally {
      clearTimeout(timer);
    }
  }

  private async openStream(): Promise<void> {
    const res = await this.auth.replaying(() => this.getBase, () => this.isOpen(), (headers) => this.getOnce(headers), GET_REQUEST);
    if (mediaType(header(res.headers, 'content-type')) !== 'text/event-stream') {
      discard(res.body);
      throw new TransportError('the legacy SSE endpoint did not answer with text/event-stream', {
        ...this.where,
        phase: 'connect',
        status: res.statusCode,
      });
    }
    await new Promise<void>((resolve, reject) => {
      const maxBytes = this.opts.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
      readSse(res.body, maxBytes, {
        onEvent: (ev) => {
          if (ev.event === 'endpoint') {
            if (this.endpoint === undefined) {
              try {
                this.endpoint = this.resolveEndpoint(ev.data);
                this.postRequest = { url: `${this.endpoint.origin}${this.endpoint.path}` };
                this.state = 'open';
                resolve();
              } catch (err) {
                reject(err);
                res.body.destroy();
              }
            }
            return;
          }
          if (ev.event !== undefined && ev.event !== 'message') return;
          if (/^\s*$/.test(ev.data)) return;
          let msg: unknown;
          try {
            msg = JSON.parse(stripBom(ev.data));
          } catch {
            this.ondiagnostic?.({ code: 'MCPWIRE_SSE_BAD_JSON', message: 'an SSE event is not valid JSON', excerpt: excerpt(ev.data) });
            return;
          }
          this.onmessage?.(msg, undefined, ev.data);
        },
        onRetry: () => {},
        onProblem: (code, message) => this.ondiagnostic?.({ code, message }),
      }).then((end) => {
        if (this.state === 'starting') {
          reject(end.kind === 'error' ? end.error : new TransportError('the legacy SSE stream ended before the endpoint event', { ...this.where, phase: 'connect' }));
          return;
        }
        if (this.state !== 'open') return;
        const why =
          end.kind === 'too-large'
            ? `an SSE event exceeded the ${end.limit}-byte message limit`
            : end.kind === 'error'
              ? `the SSE stream failed: ${end.error.message}`
              : 'the server ended the SSE stream';
        this.state = 'closed';
        this.lifetime.abort();
        void this.releasePool();
        this.fireClose(new ConnectionClosedError(why, { ...this.where, phase: 'transport' }));
      });
    });
  }

  /** One GET of the SSE endpoint: the 200 response, a 401/403 refusal (re-authorized by the caller), else an error. */
  private async getOnce(headers: Record<string, string>): Promise<Dispatcher.ResponseData | Refused> {
    const res = await this.dispatcher.request({
      origin: this.target.origin,
      path: this.target.path,
      method: 'GET',
      headers,
      signal: this.lifetime.signal,
      headersTimeout: 0,
      // A silent stream is dropped after the documented idle timeout (0 = never).
      bodyTimeout: this.opts.idleStreamTimeoutMs ?? DEFAULT_IDLE_STREAM_TIMEOUT_MS,
    });
    if (this.onevent !== undefined) this.onevent({ type: 'http', method: 'GET', status: res.statusCode });
    if (res.statusCode === 200) return res;
    const err = await httpError('GET (legacy SSE stream)', res.statusCode, res.headers, res.body, { ...this.where, phase: 'connect' }, false);
    if (err instanceof AuthRequiredError) return new Refused(err, res.statusCode);
    throw err;
  }

  /** The endpoint must stay on the SSE endpoint's origin: a server cannot redirect our messages. */
  private resolveEndpoint(data: string): Target {
    let url: URL;
    try {
      url = new URL(data.trim(), `${this.target.origin}${this.target.path}`);
    } catch {
      throw new TransportError(`the endpoint event is not a URI: ${excerpt(data)}`, { ...this.where, phase: 'connect' });
    }
    if (url.origin !== this.target.origin) {
      throw new TransportError(`the endpoint event points to another origin (${excerpt(url.origin)})`, {
        ...this.where,
        phase: 'connect',
        code: 'MCPWIRE_ENDPOINT_ORIGIN',
      });
    }
    if (this.onevent !== undefined) this.onevent({ type: 'endpoint', path: url.pathname });
    return { origin: url.origin, path: `${url.pathname}${url.search}` };
  }

  async send(message: JSONRPCMessage, options?: SendOptions): Promise<void> {
    if (this.state !== 'open' || this.endpoint === undefined) throw this.closedError('transport');
    const m = message as { id?: unknown; method?: string };
    const isRequest = m.method !== undefined && m.id !== undefined;
    const phase: Phase = options?.isInitialize ? 'initialize' : isRequest ? 'request' : 'transport';
    const body = options?.serialized ?? JSON.stringify(message);
    // A notification or a response has no signal of the protocol layer: its POST gets a bound.
    const boundMs = isRequest ? undefined : (this.opts.notificationTimeoutMs ?? DEFAULT_NOTIFICATION_TIMEOUT_MS);
    await this.auth.replaying(() => this.postBase, () => this.isOpen(), (headers, attempt) => this.post(body, headers, phase, options, attempt === 0, boundMs), this.postRequest);
  }

  /** One POST of `body`: undefined when accepted, Refused on 401/403, else it throws. */
  private async post(
    body: string,
    headers: Record<string, string>,
    phase: Phase,
    options: SendOptions | undefined,
    first: boolean,
    boundMs: number | undefined,
  ): Promise<Refused | undefined> {
    const signal = options?.signal;
    // basic.utilities.cancellation#1: not dispatched when given up before the POST started.
    if (signal?.aborted === true) throw new AbortError('the request was given up before its POST was sent', { ...this.where, phase });
    if (this.state !== 'open' || this.endpoint === undefined) throw this.closedError(phase);
    const endpoint = this.endpoint;
    const linked = boundMs === undefined ? linkSignals(this.lifetime, signal) : boundSignals(this.lifetime, signal, boundMs);
    try {
      let res: Dispatcher.ResponseData;
      try {
        const request: HookedRequestOptions = { origin: endpoint.origin, path: endpoint.path, method: 'POST', headers, body, signal: linked.signal, [ON_WRITE]: first ? options?.onDispatched : undefined };
        res = await this.postDispatcher.request(request);
      } catch (err) {
        if (this.state !== 'open') throw this.closedError(phase);
        if (linked.timedOut) throw postTimeout('the POST (legacy endpoint)', boundMs!, { ...this.where, phase });
        if (isAborted(signal)) throw new AbortError('the message was given up; its POST was aborted', { ...this.where, phase, cause: err });
        throw networkError('POST (legacy endpoint)', err, { ...this.where, phase });
      }
      if (this.onevent !== undefined) this.onevent({ type: 'http', method: 'POST', status: res.statusCode });
      if (res.statusCode < 200 || res.statusCode >= 300) {
        const error = await httpError('POST (legacy endpoint)', res.statusCode, res.headers, res.body, { ...this.where, phase }, false);
        if (error instanceof AuthRequiredError) return new Refused(error, res.statusCode);
        throw error;
      }
      discard(res.body);
      return undefined;
    } finally {
      linked.dispose();
    }
  }

  private isOpen(): boolean {
    return this.state !== 'closing' && this.state !== 'closed';
  }

  close(): Promise<void> {
    if (this.closing === undefined) this.closing = this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    this.state = 'closing';
    this.lifetime.abort();
    await this.releasePool();
    this.state = 'closed';
    this.fireClose(undefined);
  }

  private async releasePool(): Promise<void> {
    if (this.ownPool !== undefined) await this.ownPool.destroy().catch(() => {});
  }

  private fireClose(err: Error | undefined): void {
    if (this.closeFired) return;
    this.closeFired = true;
    this.onclose?.(err);
  }

  private closedError(phase: Phase): ConnectionClosedError {
    return new ConnectionClosedError('the legacy SSE transport is closed', { ...this.where, phase });
  }
}
