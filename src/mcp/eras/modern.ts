/**
 * The modern era (2026-07-28, basic/versioning, server/discover): no handshake. `open` is
 * `server/discover` and picks the newest version both sides support (a -32022 answer names the
 * server's versions: one retry with a mutual one, basic.versioning#2); every request carries
 * the negotiation in `_meta` (basic#44, basic#47); every result's `resultType` is read
 * (basic#10, basic#11); an `input_required` result is an interim one (basic/patterns/mrtr) the
 * client fulfils and retries (mrtr.ts); the era's error codes become typed errors.
 */
import { ProtocolError } from '../../errors.js';
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../../protocol/options.js';
import { excerpt } from '../../jsonrpc/types.js';
import { hasExtension, TASKS_EXTENSION } from '../capabilities.js';
import { checkResult, type ShapeTable } from '../result-shapes.js';
import type { ClientCapabilities, Implementation, LoggingLevel, ServerCapabilities } from '../types.js';
import { MODERN_PROTOCOL_VERSIONS, newestMutual, resultShapes, SUPPORTED_PROTOCOL_VERSIONS } from '../versions.js';
import type { EraCodec, EraFeature, EraIo, InputRequired, Negotiated, OpenOptions } from './codec.js';
import { supportedOf, typedModernError, UnsupportedProtocolVersionError } from './modern-errors.js';

export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
export const META_LOG_LEVEL = 'io.modelcontextprotocol/logLevel';
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

/**
 * The requests a server may answer with `input_required` (basic/patterns/mrtr "Supported
 * Requests"). Asked on every request: three comparisons, not a Set's hash lookup.
 */
function roundTripping(method: string): boolean {
  return method === 'tools/call' || method === 'prompts/get' || method === 'resources/read';
}

/**
 * A bare `server/discover` request at the newest stateless revision, with the headers its
 * Streamable HTTP binding names: what a client's first contact looks like, for a caller that
 * probes a server without a client (the host asking whether a server demands OAuth).
 */
export function discoverProbe(id: string): { headers: Record<string, string>; body: Record<string, unknown> } {
  const version = MODERN_PROTOCOL_VERSIONS[0]!;
  return {
    headers: { 'mcp-protocol-version': version, 'mcp-method': 'server/discover' },
    body: { jsonrpc: '2.0', id, method: 'server/discover', params: { _meta: { [META_PROTOCOL_VERSION]: version, [META_CLIENT_CAPABILITIES]: {} } } },
  };
}

export interface ModernOptions {
  serverId: string;
  /** The version asked for first (default: the newest mcpwire speaks). */
  protocolVersion?: string;
  capabilities: ClientCapabilities;
  clientInfo: Implementation;
}

/** What discovery established, plus every version the server listed. */
export interface Discovered extends Negotiated {
  supportedVersions: string[];
}

/**
 * Why a modern opening failed in a way that still proves the server modern (a DiscoverResult
 * or a -32022 naming versions, but none in common): the era selection must not fall back.
 */
export class NoMutualVersionError extends ProtocolError {
  constructor(
    message: string,
    readonly serverVersions: string[],
    options: { serverId: string; cause?: unknown },
  ) {
    super(message, { ...options, phase: 'initialize', code: 'MCPWIRE_UNSUPPORTED_VERSION' });
  }
}

export class ModernCodec implements EraCodec {
  readonly era = 'modern';
  readonly sessions = false;
  // `ping` is gone in 2026-07-28; discovery is the cheapest request every server must answer
  readonly liveness = 'server/discover';
  private discovered: Discovered | undefined;
  /** The constant `_meta` of every request, built once per negotiated version and log level. */
  private meta: Readonly<Record<string, unknown>>;
  /** `params` of a request that has none: `{ _meta }`, shared (read only). */
  private bare: Readonly<Record<string, unknown>>;
  /** `"_meta":<meta as JSON>}}`: the end of every request's text (`requestText`). */
  private metaTail!: string;
  /** The method `requestText` wrote last and its part of the text (`,"method":…,"params":`). */
  private textMethod = '';
  private textMethodPart = '';
  /**
   * The params `requestParams` made last (a copy with `_meta`, or fresh params given `_meta` in
   * place) and the caller's params they copy, or the text of the fresh ones before `_meta`.
   */
  private lastOut: Record<string, unknown> | undefined;
  private lastIn: Record<string, unknown> | undefined;
  private lastText: string | undefined;
  private logLevel: LoggingLevel | undefined;
  private readonly shapes: ShapeTable = resultShapes(undefined);
  /** The client declares the tasks extension (its capabilities name it). */
  private readonly declaresTasks: boolean;

  constructor(private readonly o: ModernOptions) {
    this.meta = this.buildMeta(o.protocolVersion ?? MODERN_PROTOCOL_VERSIONS[0]!);
    this.bare = Object.freeze({ _meta: this.meta });
    this.metaTail = metaTail(this.meta);
    this.declaresTasks = hasExtension(o.capabilities, TASKS_EXTENSION);
  }

  get negotiated(): Discovered | undefined {
    return this.discovered;
  }

  /** `server/discover`; on -32022 one retry with the newest mutual version (basic.versioning#2). */
  async open(io: EraIo, options: OpenOptions): Promise<Discovered> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    const endsAt = Date.now() + timeoutMs;
    let version = this.o.protocolVersion ?? MODERN_PROTOCOL_VERSIONS[0]!;
    for (let retried = false; ; retried = true) {
      let raw: unknown;
      try {
        raw = await io.request<unknown>('server/discover', { _meta: this.buildMeta(version) }, {
          timeoutMs: Math.max(1, endsAt - Date.now()),
          signal: options.signal,
          // a probe of a server that may be legacy: nothing to cancel before its initialize
          cancellable: false,
        });
      } catch (err) {
        const typed = typedModernError(err, this.o.serverId);
        if (!(typed instanceof UnsupportedProtocolVersionError) || typed.supported.length === 0) throw typed;
        // The newest version both name, even the one just refused: a server that lists it as
        // supported has said it will take it, so one retry (never more) is what it asked for.
        const ours = this.o.protocolVersion !== undefined ? [this.o.protocolVersion] : MODERN_PROTOCOL_VERSIONS;
        const mutual = newestMutual(ours, typed.supported);
        if (retried || mutual === undefined) throw this.noMutual(typed.supported, typed);
        version = mutual;
        continue;
      }
      const found = this.check(raw);
      this.discovered = found;
      this.meta = this.buildMeta(found.protocolVersion);
      this.bare = Object.freeze({ _meta: this.meta });
      this.metaTail = metaTail(this.meta);
      io.negotiated(found);
      return found;
    }
  }

  forget(): void {
    this.discovered = undefined;
  }

  /** basic#44/#47: the required fields (and clientInfo, the log level) on every request. */
  requestParams(_method: string, params: Record<string, unknown> | undefined, capabilities?: ClientCapabilities, fresh?: boolean): Record<string, unknown> | undefined {
    if (capabilities !== undefined) {
      // a caller standing for another client declares that client's capabilities (basic#44)
      const meta = { ...this.meta, [META_CLIENT_CAPABILITIES]: capabilities };
      if (params === undefined) return { _meta: meta };
      const given = params._meta as Record<string, unknown> | undefined;
      return { ...params, _meta: given === undefined ? meta : { ...given, ...meta } };
    }
    if (params === undefined) return this.bare;
    const own = params._meta as Record<string, unknown> | undefined;
    // (Object.assign, not `{ ...params, _meta }`: a spread followed by properties is built in
    // the runtime on Node 20's V8, ~1 µs a request)
    if (own !== undefined) return Object.assign({}, params, { _meta: Object.assign({}, own, this.meta) });
    if (fresh === true) {
      // params made for this request alone (callTool's): `_meta` is added to them, no copy (the
      // copy was ~550 instructions a call); their text is taken first, without it, for `requestText`
      let text: string | undefined;
      try {
        text = JSON.stringify(params);
      } catch {
        text = undefined; // (not JSON: the copy below, and the transport's serialization throws it where it is caught)
      }
      if (text !== undefined) {
        params._meta = this.meta;
        this.lastOut = params;
        this.lastText = text;
        return params;
      }
    }
    const out: Record<string, unknown> = Object.assign({}, params);
    out._meta = this.meta;
    this.lastOut = out;
    this.lastIn = params;
    this.lastText = undefined;
    return out;
  }

  /**
   * The request's text with the constant `_meta` spliced in as text, for params `requestParams`
   * made (the last ones, or the shared bare ones): a JSON walk of `_meta` (capabilities, client
   * info) on every request was most of what a modern request cost more than a handshake one.
   * Anything else (params changed since, e.g. a progress token added): undefined.
   * Hot path: one JSON walk (the caller's params) and four string joins; an integer id is
   * written as it is and the method's part is kept from the request before (a JSON.stringify
   * call costs its set-up whatever it writes: two of them were a tenth of a request's text).
   */
  requestText(message: { jsonrpc: '2.0'; id: number | string; method: string; params?: Record<string, unknown> }): string | undefined {
    const p = message.params;
    let inner: string;
    if (p === this.bare) inner = '{';
    else if (p !== undefined && p === this.lastOut) {
      const text = this.lastText ?? JSON.stringify(this.lastIn);
      inner = text.length === 2 ? '{' : text.slice(0, -1) + ',';
    } else return undefined;
    const id = message.id;
    const method = message.method;
    if (method !== this.textMethod) {
      this.textMethodPart = `,"method":${JSON.stringify(method)},"params":`;
      this.textMethod = method;
    }
    // (an int32 is its own JSON text; any other id, JSON.stringify's)
    return '{"jsonrpc":"2.0","id":' + (typeof id === 'number' && (id | 0) === id ? id : JSON.stringify(id)) + this.textMethodPart + inner + this.metaTail;
  }

  /** basic#10, basic#11: an absent `resultType` is complete; one the client does not know is invalid. */
  result<T>(method: string, raw: unknown): T {
    if (raw !== null && typeof raw === 'object') {
      const type = (raw as { resultType?: unknown }).resultType;
      if (type !== undefined && type !== 'complete') throw this.badResultType(method, type);
    }
    return checkResult<T>(this.shapes, method, raw, this.o.serverId);
  }

  interim(method: string, raw: unknown): InputRequired | undefined {
    if (raw === null || typeof raw !== 'object' || (raw as { resultType?: unknown }).resultType !== 'input_required') return undefined;
    // basic.patterns.mrtr "Supported Requests": on any other request it is not a result we know
    if (!roundTripping(method)) throw this.badResultType(method, 'input_required');
    const r = raw as { inputRequests?: unknown; requestState?: unknown };
    const inputRequests = r.inputRequests;
    if (inputRequests !== undefined && (inputRequests === null || typeof inputRequests !== 'object' || Array.isArray(inputRequests))) {
      throw new ProtocolError(`${method}: "inputRequests" of an input_required result is not an object`, { serverId: this.o.serverId, phase: 'request', code: 'MCPWIRE_BAD_RESULT' });
    }
    if (r.requestState !== undefined && typeof r.requestState !== 'string') {
      throw new ProtocolError(`${method}: "requestState" of an input_required result is not a string`, { serverId: this.o.serverId, phase: 'request', code: 'MCPWIRE_BAD_RESULT' });
    }
    return { inputRequests: inputRequests as InputRequired['inputRequests'], requestState: r.requestState as string | undefined };
  }

  roundTrips(method: string): boolean {
    return roundTripping(method);
  }

  error(err: unknown): unknown {
    return typedModernError(err, this.o.serverId);
  }

  /**
   * Batches are gone. Tasks are the `io.modelcontextprotocol/tasks` extension (changelog: SEP-2663):
   * declared by the client in its per-request capabilities (the host enables it with
   * `capabilities.extensions`), it makes every task handle a server returns one the client
   * follows (`taskHandles`); `tasks` also needs the server's `server/discover` to declare it.
   */
  has(feature: EraFeature): boolean {
    if (feature === 'taskHandles') return this.declaresTasks;
    if (feature === 'tasks') return this.declaresTasks && hasExtension(this.discovered?.capabilities, TASKS_EXTENSION);
    return false;
  }

  /** The log level travels on every request (`io.modelcontextprotocol/logLevel`); nothing is sent. */
  setLogLevel(level: LoggingLevel): boolean {
    this.logLevel = level;
    this.meta = this.buildMeta(this.discovered?.protocolVersion ?? this.o.protocolVersion ?? MODERN_PROTOCOL_VERSIONS[0]!);
    this.bare = Object.freeze({ _meta: this.meta });
    this.metaTail = metaTail(this.meta);
    return true;
  }

  private buildMeta(version: string): Readonly<Record<string, unknown>> {
    const meta: Record<string, unknown> = {
      [META_PROTOCOL_VERSION]: version,
      [META_CLIENT_CAPABILITIES]: this.o.capabilities,
      [META_CLIENT_INFO]: this.o.clientInfo,
    };
    if (this.logLevel !== undefined) meta[META_LOG_LEVEL] = this.logLevel;
    return Object.freeze(meta);
  }

  /** A DiscoverResult: versions, capabilities; the newest version both support. */
  private check(raw: unknown): Discovered {
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw this.badDiscover('the result is not an object', raw);
    const r = raw as Record<string, unknown>;
    if (r.resultType !== undefined && r.resultType !== 'complete') throw this.badResultType('server/discover', r.resultType);
    const versions = supportedOf({ supported: r.supportedVersions });
    if (versions === undefined) throw this.badDiscover('"supportedVersions" is not a list of strings', raw);
    if (r.capabilities === null || typeof r.capabilities !== 'object' || Array.isArray(r.capabilities)) throw this.badDiscover('"capabilities" is not an object', raw);
    const pinned = this.o.protocolVersion;
    const version = pinned !== undefined ? (versions.includes(pinned) ? pinned : undefined) : newestMutual(MODERN_PROTOCOL_VERSIONS, versions);
    if (version === undefined) throw this.noMutual(versions, undefined);
    const meta = r._meta as Record<string, unknown> | undefined;
    const info = meta?.[META_SERVER_INFO] as Implementation | undefined;
    const found: Discovered = { protocolVersion: version, capabilities: r.capabilities as ServerCapabilities, supportedVersions: versions };
    if (info !== null && typeof info === 'object') found.serverInfo = info;
    if (typeof r.instructions === 'string') found.instructions = r.instructions;
    return found;
  }

  private noMutual(theirs: string[], cause: unknown): NoMutualVersionError {
    const ours = this.o.protocolVersion !== undefined ? [this.o.protocolVersion] : MODERN_PROTOCOL_VERSIONS;
    const legacy = theirs.filter((v) => SUPPORTED_PROTOCOL_VERSIONS.includes(v));
    return new NoMutualVersionError(
      `the server supports protocol versions ${theirs.join(', ') || '(none named)'}; mcpwire asked for ${ours.join(', ')}` +
        (legacy.length > 0 ? ' (it also speaks the initialize handshake: pin one of its versions)' : ''),
      theirs,
      { serverId: this.o.serverId, cause },
    );
  }

  private badDiscover(problem: string, raw: unknown): ProtocolError {
    let text: string;
    try {
      text = JSON.stringify(raw) ?? String(raw);
    } catch {
      text = String(raw);
    }
    return new ProtocolError(`server/discover returned a malformed result: ${problem} (got ${excerpt(text, 200)})`, {
      serverId: this.o.serverId,
      phase: 'initialize',
      code: 'MCPWIRE_BAD_DISCOVER',
    });
  }

  private badResultType(method: string, type: unknown): ProtocolError {
    return new ProtocolError(`${method} returned a result of unknown resultType ${excerpt(JSON.stringify(type) ?? String(type), 80)} (basic#10: it is invalid)`, {
      serverId: this.o.serverId,
      phase: 'request',
      code: 'MCPWIRE_BAD_RESULT_TYPE',
    });
  }
}

/** The end of a 2026-07-28 request's text: its `_meta` member and the closing braces of params and message. */
function metaTail(meta: Readonly<Record<string, unknown>>): string {
  return `"_meta":${JSON.stringify(meta)}}}`;
}
