/**
 * Which era a server speaks (basic/versioning "Backward Compatibility"), decided per server and
 * remembered: an EraCodec that opens with the era it chose and delegates everything to it.
 *
 * - Pinned (`protocolVersion` option; config `protocol_version`; CLI `--protocol-version`): a
 *   2026-07-28 pin opens with `server/discover` only, a handshake-era pin with `initialize`
 *   only — no probe.
 * - stdio (basic/transports/stdio "Backward Compatibility", server.discover#2): `server/discover`
 *   first. A DiscoverResult, or a modern error (-32022 naming versions), means modern — and
 *   never a fallback, even when no version is mutual. Any other error, a malformed answer, or
 *   no answer within the probe timeout means legacy: `initialize` — not keyed to one error code
 *   (basic.transports.stdio#15). The probe timeout is cut short by what the server shows: one
 *   that sends a notification, or logs on stderr and answers a `ping`, but not the probe is
 *   legacy at once (`SignsOfLife`); a silent one keeps the whole bound.
 *   A legacy server that exits on any request before `initialize` is started again from the
 *   same config (a stdio transport is not restartable: a fresh one comes from the transport
 *   factory; a transport the caller gave cannot be re-made, so that case fails).
 * - HTTP (basic/transports/streamable-http "Backward Compatibility"): `server/discover` first,
 *   the transport stateless; a modern answer or a modern error in a 400's body keeps the client
 *   modern; any other 4xx, a 2xx that is no answer (empty, not JSON, an error with id null) or
 *   silence falls back to `initialize` with sessions. A 401/403 is an auth challenge and a 5xx
 *   an error: neither is era evidence, the opening fails (and the next one probes again).
 * - basic.versioning#7: the verdict is kept for the life of the client (a session renewal, a
 *   reconnect of this client reuse it); an opening with the kept verdict that fails forgets it,
 *   so the next opening probes again. A verdict an earlier client reached on the same server
 *   configuration (`knownEra`, which the host passes on across reconnects and restarts: the
 *   clause's MAY) starts as the kept one, with the same forgetting.
 * - Belt and braces: an `initialize` refused with -32022 naming modern versions (a modern server
 *   slower than the probe timeout) switches to modern instead of failing.
 */
import { AbortError, AuthRequiredError, JsonRpcError, TimeoutError } from '../../errors.js';
import type { ClientCapabilities, Implementation, LoggingLevel } from '../types.js';
import { isModernVersion, LATEST_PROTOCOL_VERSION, MODERN_PROTOCOL_VERSIONS, newestMutual, SUPPORTED_PROTOCOL_VERSIONS, unsupportedRequestedVersion } from '../versions.js';
import type { EraCodec, EraFeature, EraIo, InputRequired, Negotiated, OpenOptions } from './codec.js';
import { HandshakeCodec, type HandshakeOptions } from './handshake.js';
import { HeaderMismatchError, MissingRequiredClientCapabilityError, supportedOf, UNSUPPORTED_PROTOCOL_VERSION, UnsupportedProtocolVersionError } from './modern-errors.js';
import { ModernCodec, NoMutualVersionError } from './modern.js';

export type Era = 'modern' | 'handshake';

/** How long the stdio probe waits for an answer before deciding "legacy" (ms). */
export const DEFAULT_PROBE_TIMEOUT_MS = 10_000;

export interface EraSelectorOptions {
  handshake: HandshakeCodec;
  modern: ModernCodec;
  /** The pinned version, if any: its era is the only one tried. */
  pinnedVersion?: string;
  /** Upper bound of the stdio probe (default DEFAULT_PROBE_TIMEOUT_MS, never beyond the opening's own bound). */
  probeTimeoutMs?: number;
  /** An earlier client's verdict on the same server configuration: kept until an opening with it fails. */
  known?: Era;
}

/** What the client knows at construction: both eras' codecs, the pin, the probe bound. */
export interface EraChoice {
  serverId: string;
  pinnedVersion?: string;
  probeTimeoutMs?: number;
  knownEra?: Era;
  capabilities: ClientCapabilities;
  clientInfo: Implementation;
  urlElicitations: HandshakeOptions['urlElicitations'];
}

/** The selector of a client: each era at its newest version unless a pin names one. */
export function eraSelector(o: EraChoice): EraSelector {
  const pinned = o.pinnedVersion;
  const modernPin = isModernVersion(pinned) ? pinned : undefined;
  return new EraSelector({
    handshake: new HandshakeCodec({
      serverId: o.serverId,
      protocolVersion: pinned !== undefined && modernPin === undefined ? pinned : LATEST_PROTOCOL_VERSION,
      capabilities: o.capabilities,
      clientInfo: o.clientInfo,
      urlElicitations: o.urlElicitations,
    }),
    modern: new ModernCodec({ serverId: o.serverId, protocolVersion: modernPin, capabilities: o.capabilities, clientInfo: o.clientInfo }),
    pinnedVersion: pinned,
    probeTimeoutMs: o.probeTimeoutMs,
    known: o.knownEra,
  });
}

export class EraSelector implements EraCodec {
  private current: EraCodec;
  private verdict: Era | undefined;
  private probingNow = false;
  private readonly pinned: Era | undefined;

  constructor(private readonly o: EraSelectorOptions) {
    this.pinned = o.pinnedVersion === undefined ? undefined : isModernVersion(o.pinnedVersion) ? 'modern' : 'handshake';
    // a JavaScript caller's `knownEra` is not type-checked: anything but an era is no verdict
    this.verdict = this.pinned ?? (o.known === 'modern' || o.known === 'handshake' ? o.known : undefined);
    this.current = this.verdict === 'modern' ? o.modern : o.handshake;
  }

  get era(): string {
    return this.current.era;
  }
  get sessions(): boolean {
    return this.current.sessions;
  }
  /** `ping` until an era is negotiated (while initializing, the one request the lifecycle allows). */
  get liveness(): string {
    return this.current.negotiated === undefined ? 'ping' : this.current.liveness;
  }
  get negotiated(): Negotiated | undefined {
    return this.current.negotiated;
  }
  get probing(): boolean {
    return this.probingNow;
  }
  /** The era decided for this server, if decided. */
  get decided(): Era | undefined {
    return this.verdict;
  }
  /** Why the pinned version cannot be requested (basic.lifecycle#7), or undefined when it can (or none is pinned). */
  get unrequestable(): string | undefined {
    return unsupportedRequestedVersion(this.o.pinnedVersion);
  }

  async open(io: EraIo, options: OpenOptions): Promise<Negotiated> {
    const kept = this.verdict;
    try {
      if (kept !== undefined) return await this.openAs(kept, io, options);
      return await this.probeThenOpen(io, options);
    } catch (err) {
      // basic.versioning#7: re-probe if the cached assumption later fails
      if (this.pinned === undefined) this.verdict = undefined;
      throw err;
    }
  }

  forget(): void {
    this.current.forget();
  }
  requestParams(method: string, params: Record<string, unknown> | undefined, capabilities?: ClientCapabilities, fresh?: boolean): Record<string, unknown> | undefined {
    return this.current.requestParams(method, params, capabilities, fresh);
  }
  requestText(message: { jsonrpc: '2.0'; id: number | string; method: string; params?: Record<string, unknown> }): string | undefined {
    return this.current.requestText?.(message);
  }
  /**
   * The chosen era's `requestText`, for the connection to call on every request without this
   * selector in between; undefined when the era has none (the handshake). Asked again after
   * every opening (the era may change with it).
   */
  textHook(): ((message: { jsonrpc: '2.0'; id: number | string; method: string; params?: Record<string, unknown> }) => string | undefined) | undefined {
    const codec = this.current;
    return codec.requestText === undefined ? undefined : (message) => codec.requestText!(message);
  }
  result<T>(method: string, raw: unknown): T {
    return this.current.result<T>(method, raw);
  }
  interim(method: string, raw: unknown): InputRequired | undefined {
    return this.current.interim(method, raw);
  }
  roundTrips(method: string): boolean {
    return this.current.roundTrips(method);
  }
  error(err: unknown): unknown {
    return this.current.error(err);
  }
  has(feature: EraFeature): boolean {
    return this.current.has(feature);
  }
  setLogLevel(level: LoggingLevel): boolean {
    return this.current.setLogLevel(level);
  }

  private async openAs(era: Era, io: EraIo, options: OpenOptions): Promise<Negotiated> {
    this.current = era === 'modern' ? this.o.modern : this.o.handshake;
    io.stateless(era === 'modern');
    if (era === 'modern') return this.o.modern.open(io, options);
    try {
      return await this.o.handshake.open(io, options);
    } catch (err) {
      if (this.pinned !== undefined || !modernRefusal(err)) throw err;
      // a modern-only server refused `initialize` naming its versions: it is modern
      this.current = this.o.modern;
      io.stateless(true);
      const n = await this.o.modern.open(io, options);
      this.verdict = 'modern';
      return n;
    }
  }

  private async probeThenOpen(io: EraIo, options: OpenOptions): Promise<Negotiated> {
    if (io.transportKind() !== 'stdio') return this.httpProbeThenOpen(io, options);
    const bound = options.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
    const probeMs = probeBound(this.o.probeTimeoutMs, bound);
    const startedAt = Date.now();
    this.current = this.o.modern;
    this.probingNow = true;
    let restarted = false;
    const life = new SignsOfLife(io, options.signal, probeMs);
    try {
      const n = await this.o.modern.open(io, { signal: life.signal, timeoutMs: probeMs });
      this.verdict = 'modern';
      return n;
    } catch (err) {
      // cut short by the grace after a sign of life, or any other legacy evidence
      const cut = life.cutShort && !options.signal?.aborted;
      if (!cut && !isLegacyEvidence(err, options.signal)) throw err;
      this.current = this.o.handshake;
      // a legacy server that exits on a request before `initialize`: start it again
      restarted = await restartIfGone(io, err);
    } finally {
      life.end();
      this.probingNow = false;
    }
    this.verdict = 'handshake';
    const left = Math.max(1, bound - (Date.now() - startedAt));
    return wholeBound(this.o.handshake.open(io, { signal: options.signal, timeoutMs: restarted ? bound : left }), bound);
  }

  /**
   * basic/transports/streamable-http "Backward Compatibility": a modern request first (the
   * transport stateless); a recognized modern answer or error keeps the era, a 4xx without one
   * (or a 2xx that is no answer) falls back to `initialize` with sessions.
   */
  private async httpProbeThenOpen(io: EraIo, options: OpenOptions): Promise<Negotiated> {
    if (!io.stateless(true)) {
      this.verdict = 'handshake';
      return this.openAs('handshake', io, options);
    }
    const bound = options.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
    const startedAt = Date.now();
    this.current = this.o.modern;
    try {
      const n = await this.o.modern.open(io, { signal: options.signal, timeoutMs: probeBound(this.o.probeTimeoutMs, bound) });
      this.verdict = 'modern';
      return n;
    } catch (err) {
      if (!isHttpLegacyEvidence(err, options.signal)) {
        io.stateless(false);
        throw err;
      }
    }
    io.stateless(false);
    this.current = this.o.handshake;
    this.verdict = 'handshake';
    return wholeBound(this.o.handshake.open(io, { signal: options.signal, timeoutMs: Math.max(1, bound - (Date.now() - startedAt)) }), bound);
  }
}

/** How long the stdio probe still waits after a sign of life before it ends (ms): a server that handles requests concurrently may answer out of order. */
export const PROBE_GRACE_MS = 100;

/**
 * The stdio probe bounded by what the server shows (basic/transports/stdio "Backward
 * Compatibility": silence means legacy after "a reasonable timeout"; basic.transports.stdio#15).
 * - A notification (a log, say) while `server/discover` goes unanswered: the server reads and
 *   writes, it is not modern — the probe ends PROBE_GRACE_MS later.
 * - Output on stderr (a legacy SDK logs the request it drops before `initialize`): the server
 *   runs. If the probe is still unanswered PROBE_GRACE_MS later, one `ping` (the request the
 *   handshake era allows before `initialize`; basic.transports.stdio#14: the probe went first).
 *   A result means the server answers a handshake-era request and not the probe: it is legacy,
 *   the probe ends at once. An error (a modern server has no `ping`: -32601) proves nothing.
 * - Nothing at all: the server is probably still starting — the probe keeps its whole bound.
 * No `ping` otherwise: a server that answers the probe never sees one.
 */
class SignsOfLife {
  private readonly cut = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private pinger: ReturnType<typeof setTimeout> | undefined;
  private ended = false;
  readonly signal: AbortSignal;

  constructor(
    private readonly io: EraIo,
    caller: AbortSignal | undefined,
    private readonly probeMs: number,
  ) {
    this.signal = caller === undefined ? this.cut.signal : AbortSignal.any([caller, this.cut.signal]);
    io.onActivity?.(this.shown);
  }

  /** The probe was ended by a sign of life, not by the caller. */
  get cutShort(): boolean {
    return this.cut.signal.aborted;
  }

  private readonly shown = (what: 'notification' | 'stderr'): void => {
    if (this.ended) return;
    if (what === 'notification') return this.endIn(PROBE_GRACE_MS);
    if (this.pinger !== undefined) return;
    this.pinger = setTimeout(() => {
      if (this.ended) return;
      this.io.request('ping', undefined, { timeoutMs: this.probeMs, cancellable: false }).then(
        () => this.endIn(0),
        () => {},
      );
    }, PROBE_GRACE_MS);
  };

  private endIn(ms: number): void {
    if (this.ended || this.timer !== undefined) return;
    if (ms === 0) this.cut.abort();
    else this.timer = setTimeout(() => this.cut.abort(), ms);
  }

  end(): void {
    this.ended = true;
    if (this.pinger !== undefined) clearTimeout(this.pinger);
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.io.onActivity?.(undefined);
  }
}

/**
 * The probe's share of the opening's bound: at most half of it, so that a legacy server that
 * stays silent to the probe still has the other half to answer `initialize`.
 */
function probeBound(probeTimeoutMs: number | undefined, bound: number): number {
  return Math.max(1, Math.min(probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS, Math.floor(bound / 2)));
}

/** A timeout of the fallback's `initialize` is the opening's: it names the whole bound the caller set. */
function wholeBound<T>(opening: Promise<T>, bound: number): Promise<T> {
  return opening.catch((err: unknown) => {
    if (!(err instanceof TimeoutError) || err.timeoutMs >= bound) throw err;
    throw new TimeoutError(err.method, bound, { serverId: err.serverId, phase: err.phase, cause: err });
  });
}

/**
 * The probe's failure on HTTP means "legacy" only for a 4xx without a modern error (a 400's
 * JSON-RPC body is read by the transport and is a JsonRpcError here), a 2xx that is not the
 * answer, or silence; a 401/403 is an auth challenge and a 5xx an error — neither is era evidence.
 */
function isHttpLegacyEvidence(err: unknown, signal: AbortSignal | undefined): boolean {
  if (!isLegacyEvidence(err, signal)) return false;
  // an auth challenge, or the authorization flow it started failing (src/auth errors: MCPWIRE_AUTH_*)
  if (err instanceof AuthRequiredError || isAuthFailure(err)) return false;
  if (err instanceof UnsupportedProtocolVersionError || err instanceof HeaderMismatchError || err instanceof MissingRequiredClientCapabilityError) return false;
  const status = (err as { status?: unknown } | null)?.status;
  if (typeof status === 'number' && (status === 401 || status === 403 || status >= 500)) return false;
  return true;
}

function isAuthFailure(err: unknown): boolean {
  const e = err as { code?: unknown; phase?: unknown } | null;
  return e?.phase === 'auth' || (typeof e?.code === 'string' && e.code.startsWith('MCPWIRE_AUTH'));
}

/** The probe's failure means "legacy": anything but a modern answer, the caller's abort, a local fault. */
function isLegacyEvidence(err: unknown, signal: AbortSignal | undefined): boolean {
  if (signal?.aborted || err instanceof AbortError) return false;
  if (err instanceof NoMutualVersionError) {
    // a DiscoverResult or -32022 proves the server modern: never a fallback…
    // …unless it names handshake versions too (a dual server whose modern versions we lack)
    return err.serverVersions.some((v) => SUPPORTED_PROTOCOL_VERSIONS.includes(v));
  }
  return true;
}

/** A -32022 answer to `initialize` naming a modern version we speak. */
function modernRefusal(err: unknown): boolean {
  if (!(err instanceof JsonRpcError) || err.rpcCode !== UNSUPPORTED_PROTOCOL_VERSION) return false;
  return newestMutual(MODERN_PROTOCOL_VERSIONS, supportedOf(err.data) ?? []) !== undefined;
}

/** The probe ended the server (its process exited): a fresh transport, if the client can make one. */
async function restartIfGone(io: EraIo, err: unknown): Promise<boolean> {
  const code = (err as { code?: unknown } | null)?.code;
  if (code !== 'MCPWIRE_CONNECTION_CLOSED') return false;
  if (await io.restart()) return true;
  throw err;
}

