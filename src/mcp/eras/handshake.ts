/**
 * The handshake era (2024-11-05 … 2025-11-25): `initialize` → `notifications/initialized`
 * (basic/lifecycle) opens a session; requests carry nothing of the negotiation; results are
 * checked against the negotiated revision's shapes (versions.ts); a -32042 error is a URL
 * elicitation the client must offer (client/elicitation).
 */
import { AbortError, ProtocolError, TimeoutError } from '../../errors.js';
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../../protocol/options.js';
import { timerMs } from '../../util/sleep.js';
import { checkResult, type ShapeTable } from '../result-shapes.js';
import type { ClientCapabilities, Implementation, InitializeResult } from '../types.js';
import { features, isSupportedVersion, resultShapes, SUPPORTED_PROTOCOL_VERSIONS, type RevisionFeatures } from '../versions.js';
import type { EraCodec, EraFeature, EraIo, OpenOptions } from './codec.js';

/** The handshake revisions that have Streamable HTTP (2025-03-26 on): the `MCP-Protocol-Version` values a server can take in a session. */
export const STREAMABLE_HTTP_REVISIONS: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS.filter((v) => features(v)?.streamableHttp === true);

export interface HandshakeOptions {
  serverId: string;
  /** The version to request (basic.lifecycle#8). */
  protocolVersion: string;
  capabilities: ClientCapabilities;
  clientInfo: Implementation;
  /** Turns a -32042 JsonRpcError into a UrlElicitationRequiredError (elicitation.ts). */
  urlElicitations: { fromError(err: unknown): unknown };
}

export class HandshakeCodec implements EraCodec {
  readonly era = 'handshake';
  readonly sessions = true;
  readonly liveness = 'ping';
  private init: InitializeResult | undefined;
  private revision: RevisionFeatures | undefined;
  /** Before negotiation (a `ping` while initializing): the latest revision's shapes. */
  private shapes: ShapeTable = resultShapes(undefined);

  constructor(private readonly o: HandshakeOptions) {}

  get negotiated(): InitializeResult | undefined {
    return this.init;
  }

  /** basic.lifecycle#1–#4: initialize, check the answer, then notifications/initialized. */
  async open(io: EraIo, options: OpenOptions): Promise<InitializeResult> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    // as the request registry reads a timeout: 0 or not finite is none
    const endsAt = timeoutMs > 0 && Number.isFinite(timeoutMs) ? Date.now() + timeoutMs : Infinity;
    const params = { protocolVersion: this.o.protocolVersion, capabilities: this.o.capabilities, clientInfo: this.o.clientInfo };
    const result = await io.request<InitializeResult>('initialize', params, {
      // basic.utilities.cancellation#2: initialize MUST NOT be cancelled.
      cancellable: false,
      isInitialize: true,
      timeoutMs,
      signal: options.signal,
    });
    this.check(result, io);
    this.init = result;
    this.revision = features(result.protocolVersion);
    this.shapes = resultShapes(result.protocolVersion);
    io.negotiated(result);
    // The notification's send may never complete (an HTTP server that does not answer its
    // POST): opening still ends within its deadline and signal.
    await within(io.notify('notifications/initialized'), endsAt - Date.now(), options.signal, () => new TimeoutError('notifications/initialized', timeoutMs, this.where()), (reason) =>
      new AbortError(`sending "notifications/initialized" aborted: ${reason instanceof Error ? reason.message : String(reason ?? 'aborted')}`, { ...this.where(), cause: reason }),
    );
    return result;
  }

  forget(): void {
    this.init = undefined;
    this.revision = undefined;
  }

  requestParams(_method: string, params: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
    return params;
  }

  result<T>(method: string, raw: unknown): T {
    return checkResult<T>(this.shapes, method, raw, this.o.serverId);
  }

  interim(): undefined {
    return undefined;
  }

  roundTrips(): boolean {
    return false;
  }

  error(err: unknown): unknown {
    return this.o.urlElicitations.fromError(err);
  }

  /** `logging/setLevel` is a request in this era. */
  setLogLevel(): boolean {
    return false;
  }

  has(feature: EraFeature): boolean {
    return this.revision?.[feature] === true;
  }

  private check(result: InitializeResult, io: EraIo): void {
    const where = this.where();
    if (result === null || typeof result !== 'object') {
      throw new ProtocolError('initialize result is not an object', { ...where, code: 'MCPWIRE_BAD_INITIALIZE' });
    }
    // basic.lifecycle#12: a version the client does not support → disconnect.
    if (!isSupportedVersion(result.protocolVersion)) {
      throw new ProtocolError(
        `server answered with unsupported protocol version ${JSON.stringify(result.protocolVersion)}; ` +
          `mcpwire supports ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}`,
        { ...where, code: 'MCPWIRE_UNSUPPORTED_VERSION' },
      );
    }
    if (result.capabilities === null || typeof result.capabilities !== 'object') {
      throw new ProtocolError('initialize result has no "capabilities" object', { ...where, code: 'MCPWIRE_BAD_INITIALIZE' });
    }
    const info = result.serverInfo as Partial<Implementation> | undefined;
    if (!info || typeof info.name !== 'string' || typeof info.version !== 'string') {
      io.diagnostic('MCPWIRE_BAD_SERVER_INFO', 'initialize result lacks serverInfo {name, version}');
    }
  }

  private where(): { serverId: string; phase: 'initialize' } {
    return { serverId: this.o.serverId, phase: 'initialize' };
  }
}

/**
 * `p`, or the error of `onTimeout` once `ms` have passed (never when `ms` is not finite), or of
 * `onAbort` once `signal` aborts — whichever comes first; the timer and the listener are gone
 * once it settles.
 */
function within<T>(p: Promise<T>, ms: number, signal: AbortSignal | undefined, onTimeout: () => Error, onAbort: (reason: unknown) => Error): Promise<T> {
  if (signal?.aborted) return Promise.reject(onAbort(signal.reason));
  return new Promise<T>((resolve, reject) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', aborted);
    };
    const aborted = (): void => {
      done();
      reject(onAbort(signal!.reason));
    };
    const timer = Number.isFinite(ms)
      ? setTimeout(() => {
          done();
          reject(onTimeout());
        }, timerMs(ms))
      : undefined;
    signal?.addEventListener('abort', aborted, { once: true });
    p.then(
      (v) => {
        done();
        resolve(v);
      },
      (err: unknown) => {
        done();
        reject(err);
      },
    );
  });
}
