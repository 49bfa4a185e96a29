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
 *   no answer within the probe timeout means legacy: `initialize` — not keyed to one error code.
 *   A legacy server that exits on any request before `initialize` is started again from the
 *   same config (a stdio transport is not restartable: a fresh one comes from the transport
 *   factory; a transport the caller gave cannot be re-made, so that case fails).
 * - HTTP: the handshake era until the stateless HTTP mode (no session, `Mcp-Method` headers) is
 *   in the transport; a 2026-07-28 pin still opens with `server/discover`.
 * - basic.versioning#7: the verdict is kept for the life of the client (a session renewal, a
 *   reconnect of this client reuse it); an opening with the kept verdict that fails forgets it,
 *   so the next opening probes again.
 * - Belt and braces: an `initialize` refused with -32022 naming modern versions (a modern server
 *   slower than the probe timeout) switches to modern instead of failing.
 */
import { AbortError, JsonRpcError } from '../../errors.js';
import type { LoggingLevel } from '../types.js';
import { isModernVersion, MODERN_PROTOCOL_VERSIONS, newestMutual, SUPPORTED_PROTOCOL_VERSIONS } from '../versions.js';
import type { EraCodec, EraFeature, EraIo, InputRequired, Negotiated, OpenOptions } from './codec.js';
import type { HandshakeCodec } from './handshake.js';
import { supportedOf, UNSUPPORTED_PROTOCOL_VERSION } from './modern-errors.js';
import { NoMutualVersionError, type ModernCodec } from './modern.js';

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
}

export class EraSelector implements EraCodec {
  private current: EraCodec;
  private verdict: Era | undefined;
  private probingNow = false;
  private readonly pinned: Era | undefined;

  constructor(private readonly o: EraSelectorOptions) {
    this.pinned = o.pinnedVersion === undefined ? undefined : isModernVersion(o.pinnedVersion) ? 'modern' : 'handshake';
    this.verdict = this.pinned;
    this.current = this.pinned === 'modern' ? o.modern : o.handshake;
  }

  get era(): string {
    return this.current.era;
  }
  get sessions(): boolean {
    return this.current.sessions;
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
  requestParams(method: string, params: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
    return this.current.requestParams(method, params);
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
    if (era === 'modern') return this.o.modern.open(io, options);
    try {
      return await this.o.handshake.open(io, options);
    } catch (err) {
      if (this.pinned !== undefined || !modernRefusal(err)) throw err;
      // a modern-only server refused `initialize` naming its versions: it is modern
      this.current = this.o.modern;
      const n = await this.o.modern.open(io, options);
      this.verdict = 'modern';
      return n;
    }
  }

  private async probeThenOpen(io: EraIo, options: OpenOptions): Promise<Negotiated> {
    if (io.transportKind() !== 'stdio') {
      this.verdict = 'handshake';
      return this.openAs('handshake', io, options);
    }
    const bound = options.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
    const probeMs = Math.min(this.o.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS, bound);
    const startedAt = Date.now();
    this.current = this.o.modern;
    this.probingNow = true;
    let restarted = false;
    try {
      const n = await this.o.modern.open(io, { signal: options.signal, timeoutMs: probeMs });
      this.verdict = 'modern';
      return n;
    } catch (err) {
      if (!isLegacyEvidence(err, options.signal)) throw err;
      this.current = this.o.handshake;
      // a legacy server that exits on a request before `initialize`: start it again
      restarted = await restartIfGone(io, err);
    } finally {
      this.probingNow = false;
    }
    this.verdict = 'handshake';
    const left = Math.max(1, bound - (Date.now() - startedAt));
    return this.o.handshake.open(io, { signal: options.signal, timeoutMs: restarted ? bound : left });
  }
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

