/**
 * Which era `mcpwire check` checks a server in, decided the way the client decides
 * (src/mcp/eras/select.ts): `server/discover` first, on a fresh connection — a DiscoverResult or
 * a modern error (-32022, -32020, -32021) means the stateless 2026-07-28 era; anything else (an
 * error, silence, an HTTP status without a modern error) means the handshake era. A pinned
 * version (`--protocol-version`) is checked in its own era without a probe; a server that
 * refuses it gets a report naming the versions it supports.
 */
import { isModernVersion, LATEST_PROTOCOL_VERSION, MODERN_PROTOCOL_VERSIONS, newestMutual, SUPPORTED_PROTOCOL_VERSIONS } from '../../mcp/versions.js';
import type { Era } from '../core/revisions.js';
import type { CheckContext } from '../core/context.js';
import { isObject } from '../core/values.js';
import { raw } from '../core/raw-http.js';
import { describeOutcome } from '../core/probe.js';
import { MODERN_ERROR_CODES, ModernWire, supportedOf, UNSUPPORTED_VERSION } from '../core/modern-wire.js';

export interface EraVerdict {
  era: Era;
  /** The version the run checks (undefined: the handshake era at whatever initialize answers). */
  version?: string;
  /** The versions the server claims (server/discover's list, a -32022's `supported`). */
  supported: string[];
  discover?: Record<string, unknown>;
  /** The server refused the version we asked for: nothing is checked. */
  refused?: { requested: string; supported: string[]; detail: string };
}

/** Decides the era (and the version) of a run; leaves no probe open. */
export async function chooseEra(ctx: CheckContext, pinned: string | undefined): Promise<EraVerdict> {
  let v: EraVerdict | undefined;
  try {
    v = pinned !== undefined && !isModernVersion(pinned) ? await handshakePin(ctx, pinned) : await discover(ctx, pinned);
    return v;
  } finally {
    await ctx.releaseProbes();
    // the handshake-era checks judge their own traffic: a probe's server/discover is not theirs
    if (v?.era === 'handshake') forgetTraffic(ctx);
  }
}

function forgetTraffic(ctx: CheckContext): void {
  ctx.traffic.records.splice(0);
  ctx.traffic.diagnostics.splice(0);
  ctx.traffic.events.splice(0);
}

/**
 * The version a server answers `initialize` with at our newest handshake version, on a fresh
 * connection (a dual server whose server/discover lists only modern versions still speaks the
 * handshake era); undefined when it refuses or does not answer.
 */
export async function handshakeAnswer(ctx: CheckContext): Promise<string | undefined> {
  try {
    if (ctx.isHttp) {
      const body = { jsonrpc: '2.0', id: 'mcpwire-check-era', method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'mcpwire-check', version: '0.1.0' } } };
      const res = await raw(ctx, 'POST', {}, body).catch(() => undefined);
      const v = isObject(res?.message?.result) ? res.message.result.protocolVersion : undefined;
      const sid = res?.headers['mcp-session-id'];
      if (typeof sid === 'string') await raw(ctx, 'DELETE', { 'mcp-session-id': sid }).catch(() => undefined);
      return typeof v === 'string' ? v : undefined;
    }
    const probe = await ctx.open();
    const o = await probe.initialize(LATEST_PROTOCOL_VERSION);
    return o.kind === 'result' && typeof o.result.protocolVersion === 'string' ? o.result.protocolVersion : undefined;
  } catch {
    return undefined;
  } finally {
    await ctx.releaseProbes();
  }
}

async function discover(ctx: CheckContext, pinned: string | undefined): Promise<EraVerdict> {
  const asked = pinned ?? MODERN_PROTOCOL_VERSIONS[0]!;
  const wire = new ModernWire(ctx, asked);
  const timeoutMs = pinned !== undefined ? ctx.timeoutMs : Math.min(ctx.timeoutMs, 10_000);
  const a = await wire.send('server/discover', {}, { timeoutMs }).catch((err: unknown) => ({ outcome: { kind: 'closed' as const, reason: (err as Error).message } }));
  const o = a.outcome;
  if (o.kind === 'result') {
    const supported = Array.isArray(o.result.supportedVersions) ? o.result.supportedVersions.filter((v): v is string => typeof v === 'string') : [];
    // a DiscoverResult without a list is still modern (modern.discover reports the list missing)
    const version = pinned ?? (supported.length === 0 ? asked : newestMutual(MODERN_PROTOCOL_VERSIONS, supported));
    if (version !== undefined) {
      // the first check's stateless wire goes on on this connection, as the client goes on after
      // a DiscoverResult (one start of a stdio server fewer)
      const probe = wire.openProbe;
      if (probe !== undefined && version === asked) ctx.keepForSession(probe);
      return { era: 'modern', version, supported, discover: o.result };
    }
    return notMutual(asked, supported, pinned !== undefined, 'server/discover');
  }
  if (o.kind === 'error' && MODERN_ERROR_CODES.has(o.error.code)) {
    const supported = supportedOf(o.error) ?? [];
    if (o.error.code === UNSUPPORTED_VERSION || pinned !== undefined) return notMutual(asked, supported, pinned !== undefined, 'server/discover', o.error.message);
    return { era: 'modern', version: asked, supported };
  }
  if (pinned !== undefined) {
    return { era: 'modern', version: pinned, supported: [], refused: { requested: pinned, supported: [], detail: `server/discover got ${describeOutcome(o)}: the server does not speak the 2026-07-28 era` } };
  }
  // A handshake-era stdio server that refused `server/discover` with an error: the shared session
  // initializes on this connection, as the client goes on after the refusal (one start of the
  // server fewer). Not after a timeout (a late answer would land in the session) nor on a
  // connection the server ended (the session starts the server again).
  const probe = wire.openProbe;
  if (probe !== undefined && o.kind === 'error') ctx.keepForSession(probe);
  return { era: 'handshake', supported: [] };
}

/** A modern server with no modern version in common: the handshake era if it also speaks one of ours. */
function notMutual(asked: string, supported: string[], pinned: boolean, what: string, message?: string): EraVerdict {
  const legacy = newestMutual(SUPPORTED_PROTOCOL_VERSIONS, supported);
  if (legacy !== undefined && !pinned) return { era: 'handshake', version: legacy, supported };
  const detail = `${what} refused protocol version ${asked}${message ? ` (${JSON.stringify(message.slice(0, 120))})` : ''}; the server supports ${supported.length ? supported.join(', ') : 'no version it named'}`;
  return { era: 'modern', version: asked, supported, refused: { requested: asked, supported, detail } };
}

/**
 * A pinned handshake-era version: over HTTP a raw `initialize` first (the client transport
 * would take a 400 for a legacy-SSE server), so a -32022 naming other versions is reported as
 * a refusal; over stdio the shared session's own `initialize` tells (see runner.ts).
 */
async function handshakePin(ctx: CheckContext, pinned: string): Promise<EraVerdict> {
  if (!ctx.isHttp) return { era: 'handshake', version: pinned, supported: [] };
  const body = { jsonrpc: '2.0', id: 'mcpwire-check-era', method: 'initialize', params: { protocolVersion: pinned, capabilities: {}, clientInfo: { name: 'mcpwire-check', version: '0.1.0' } } };
  const res = await raw(ctx, 'POST', {}, body).catch(() => undefined);
  const err = isObject(res?.message?.error) ? (res.message.error as { code: number; message: string; data?: unknown }) : undefined;
  const supported = supportedOf(err);
  if (err !== undefined && supported !== undefined && !supported.includes(pinned)) {
    return { era: 'handshake', version: pinned, supported, refused: { requested: pinned, supported, detail: `initialize refused protocol version ${pinned} (error ${err.code}, HTTP ${res?.status}); the server supports ${supported.join(', ') || 'no version it named'}` } };
  }
  return { era: 'handshake', version: pinned, supported: [] };
}

/** The refusal a stdio session's `initialize` carried (a -32022 naming other versions). */
export function initializeRefusal(ctx: CheckContext, pinned: string): EraVerdict['refused'] {
  const init = ctx.firstSession?.init;
  if (init?.kind !== 'error') return undefined;
  const supported = supportedOf(init.error);
  if (supported === undefined || supported.includes(pinned)) return undefined;
  return { requested: pinned, supported, detail: `initialize refused protocol version ${pinned} (error ${init.error.code}); the server supports ${supported.join(', ') || 'no version it named'}` };
}
