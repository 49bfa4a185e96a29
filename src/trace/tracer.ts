/**
 * The trace writer: a `ProtocolObserver` that writes one JSON line per JSON-RPC message and per
 * event (format: `record.ts`, documented in `README.md`) to pino's file destination (SonicBoom).
 * pino is loaded only when a tracer is created, ajv only when strict mode is on; with tracing off
 * nothing here runs.
 *
 * Hot path per message (tracing cheap enough to leave on): the connection hands over
 * the message's JSON text with it (`MessageInfo.text`: the very string the transport writes, or
 * the text it read). `Redactor.isClean` walks the parsed message without building anything
 * (plain data, no credential key, nothing any redaction rule could match) and measures its
 * compact JSON; when the text is exactly that long (an incoming text holding more than the parsed
 * value, e.g. a repeated member, is longer: the walk of an incoming message refuses whatever a
 * text could write shorter, see `mayBeWrittenShorter`) and holds no configured secret, the text itself is
 * the line's `msg`. The line is then held (`held-lines.ts`: the clock read now, a few stores, no
 * allocation) and encoded with the lines held beside it straight into the file's batch buffer:
 * pre-encoded fields, numbers as digits, the text encoded once; no string is built. Anything else (no text, something to redact, a string id…) takes the string path:
 * the line is built by hand in the field order pino wrote it, `Redactor.redactJson` serializing
 * the message once. Batches of ~64 KiB go to SonicBoom in sync mode (pino's default): one write
 * call per batch, in the check phase of the turn that filled it (off the response's path), whose
 * buffer is filled again afterwards (`file-destination.ts`). No closures
 * are created. The time base is `clock.ts`.
 */
import { sessionTag } from './session-tag.js';
import { McpWireError } from '../errors.js';
import type { Direction, MessageInfo, ObservedEvent, ProtocolObserver } from '../protocol/observer.js';
import { lineHead, millis3 } from './clock.js';
import { append, drainAll, flushStream, openFile, releaseFile, type SharedDestination } from './file-destination.js';
import { holdMessageLine, type Segment } from './held-lines.js';
import { RESERVED_KEYS, TRACE_FORMAT_VERSION } from './record.js';
import { Redactor } from './redact.js';
import { redactHeaderCopies } from './header-copies.js';
import { IdTable } from '../util/id-table.js';
import type { StrictChecker, Violation } from './strict.js';

export { millis3 } from './clock.js';

export interface TracerOptions {
  /** Append the trace to this file (created with its directories, mode 0600; an existing file keeps its mode). */
  file?: string;
  /** Or write to this stream (not closed by `close()`). */
  destination?: NodeJS.WritableStream;
  serverId: string;
  /** Transport kind, e.g. `stdio`. */
  transport: string;
  /**
   * The writer's tag (`mcpwire tap` over HTTP: a random one per tap), written as `tap` on every
   * line: the exchange numbers of several taps sharing a file are told apart by it.
   */
  tap?: string;
  /** Values to redact wherever they appear: the config's credentials (`configSecrets`), tokens… */
  secrets?: string[];
  /** Check every message against the spec schema; violations become `schema` events and warnings. */
  strict?: boolean;
  onWarning?: (warning: TraceWarning) => void;
  /** Long strings are truncated in the trace. Default 64 KiB. */
  maxStringBytes?: number;
  /**
   * With `file`: past this many bytes the file moves to `<file>.1` (replacing an older one) and
   * the trace goes on in a new file, so at most about twice this is kept (whole lines in each).
   * Default: none, the file grows. Tracers sharing a file: the smallest bound asked for.
   */
  maxFileBytes?: number;
}

export type TraceWarning =
  | ({ type: 'schema'; server: string } & Violation)
  | { type: 'trace-io'; server: string; message: string };

export interface Tracer extends ProtocolObserver {
  /** Resolves once everything written so far has reached the destination. */
  flush(): Promise<void>;
  /** Flushes and releases the destination; idempotent. Later messages are ignored. */
  close(): Promise<void>;
  /**
   * Adds `session` to every later line: not the HTTP session id (a bearer credential) but
   * `sessionTag(id)`, a short hash that correlates the lines of one session. The id itself is
   * redacted from then on wherever it appears.
   */
  setSessionId(id: string | undefined): void;
  /** Redacts more values from now on (e.g. an access token obtained at run time). */
  addSecrets(values: string[]): void;
  /**
   * Adds `exchange` to every later line (`undefined`: none): the tap's number for the HTTP
   * exchange (one request and its answer or stream) the lines belong to, which tells apart two
   * clients of the sessionless 2026-07-28 era using the same request id at once.
   */
  setExchange?(id: number | undefined): void;
  /**
   * `headers` (lower-case names) as a trace may show them: each copy of a body value
   * (`Mcp-Param-*`, `Mcp-Name`) that the redaction of `body` hides is redacted, plain or
   * Base64 (header-copies.ts); `body` undefined (not seen): every copy is.
   */
  headerCopies?(headers: Record<string, string>, body: unknown): Record<string, string>;
}


/** What a trace writes for a session id (session-tag.ts). */
export { sessionTag };


/** pino's `stringify`: JSON.stringify, and a marker for what it cannot write. */
function stringify(v: unknown): string | undefined {
  try {
    return JSON.stringify(v);
  } catch {
    return '"[unable to serialize]"';
  }
}

/** `,"dir":"out","kind":"request"` and the like, built once (keyed without building a key). */
const DIR_KIND: Record<'in' | 'out', Record<string, string>> = { in: Object.create(null), out: Object.create(null) };
function dirKind(direction: Direction, kind: string): string {
  const byKind = direction === 'in' || direction === 'out' ? DIR_KIND[direction] : undefined;
  let s = byKind?.[kind];
  if (s === undefined) {
    s = (direction === undefined ? '' : `,"dir":${stringify(direction)}`) + (kind === undefined ? '' : `,"kind":${stringify(kind)}`);
    if (byKind !== undefined && typeof kind === 'string' && Object.keys(byKind).length < 16) byKind[kind] = s;
  }
  return s;
}

/** Message kinds with pre-encoded line segments (`TraceWriter.segment`): their index, or -1. */
function kindIndex(kind: string): number {
  switch (kind) {
    case 'request':
      return 0;
    case 'result':
      return 1;
    case 'notification':
      return 2;
    case 'error':
      return 3;
    case 'invalid':
      return 4;
    default:
      return -1;
  }
}
const KIND_COUNT = 5;
/** One slot per direction, kind and with-or-without id (`TraceWriter.segment`), packed (no holes). */
function emptySlots<T>(): (T | undefined)[] {
  return new Array<T | undefined>(4 * KIND_COUNT).fill(undefined);
}

/** `,"method":"tools/call"`, built once per method (boundedly). */
const METHOD_FIELD = new Map<string, string>();
function methodField(method: string): string {
  let s = METHOD_FIELD.get(method);
  if (s === undefined) {
    s = `,"method":${JSON.stringify(method)}`;
    if (METHOD_FIELD.size < 1024 && method.length <= 128) METHOD_FIELD.set(method, s);
  }
  return s;
}

// ---- the tracer ---------------------------------------------------------------------------

class TraceWriter implements Tracer {
  private closed = false;
  /** Ids of requests the server sent us, so our answers can name their method (a table, not a Map: see IdTable). */
  private readonly incoming = new IdTable<string | number, string>();
  /** `,"server":…,"transport":…[,"tap":…][,"session":…][,"exchange":…]`: the fields every line repeats after `ts`. */
  private bindings: string;
  /**
   * Pre-encoded `bindings` + `dir`/`kind` + `method` (+ `,"id":`) segments of message lines, by
   * `dirKind` text and method (`''` for none), boundedly; rebuilt when the bindings change.
   */
  private segments: Map<string, Segment>[] = [];
  private segmentCount = 0;
  /**
   * The method and segment each slot last gave (`segment`): a busy client traces the same few
   * methods over and over, and one string comparison is cheaper than the Map's lookup.
   */
  private lastMethod: (string | undefined)[] = emptySlots();
  private lastSegment: (Segment | undefined)[] = emptySlots();
  /** The session id being redacted (replaced, not accumulated, on renewal). */
  private sessionSecret: string | undefined;
  private readonly baseBindings: string;
  /** `,"session":…` and `,"exchange":…` of `bindings` ('' when unset). */
  private sessionField = '';
  private exchangeField = '';

  constructor(
    private readonly redactor: Redactor,
    private readonly options: TracerOptions,
    private readonly shared: SharedDestination | undefined,
    private readonly stream: NodeJS.WritableStream & { write(s: string): boolean },
    private readonly strict: StrictChecker | undefined,
  ) {
    this.baseBindings = `,"server":${stringify(options.serverId)},"transport":${stringify(options.transport)}${options.tap === undefined ? '' : `,"tap":${stringify(options.tap)}`}`;
    this.bindings = this.baseBindings;
    if (shared) shared.stream.on('error', this.onStreamError);
    this.event({ type: 'trace-start', format: TRACE_FORMAT_VERSION, pid: process.pid, strict: strict !== undefined });
  }

  private write(line: string): void {
    if (this.shared) append(this.shared, line);
    else this.stream.write(line);
  }

  message(direction: Direction, message: unknown, info: MessageInfo): void {
    if (this.closed) return;
    const kind = info.kind;
    let method = info.method ?? info.requestMethod;
    const id = info.id;
    if (id !== undefined && id !== null) {
      if (kind === 'request' && direction === 'in' && method !== undefined) {
        if (this.incoming.size < 10_000) this.incoming.set(id, method);
      } else if (direction === 'out' && (kind === 'result' || kind === 'error') && method === undefined) {
        method = this.incoming.get(id);
        this.incoming.delete(id);
      }
    }
    // The message's own JSON text (what the transport writes or read) is written as it is when the
    // redaction would change nothing and it holds nothing the parsed message does not (as long
    // as the compact JSON of what was checked; no configured secret anywhere in it); otherwise
    // the message is walked, redacted and serialized.
    const redactor = this.redactor;
    const text = info.text;
    const reuse =
      text !== undefined && redactor.isClean(message, direction === 'in') && text.length === redactor.lastChars && !(redactor.hasSecrets && redactor.textHasSecret(text));
    if (reuse && this.shared !== undefined && (method === undefined || (typeof method === 'string' && method !== ''))) {
      const seg = this.segment(direction, kind, method ?? '', id !== undefined);
      if (seg !== undefined && holdMessageLine(this.shared, seg, info.at, id, redactor.lastBytes, info.latencyMs, text)) {
        if (this.strict) this.checkStrict(direction, message, info, method);
        return;
      }
    }
    const msg = reuse ? text : redactor.redactJson(message);
    // Field order and spelling as in record.ts / README.md; undefined fields are left out.
    let head = lineHead() + this.bindings + dirKind(direction, kind);
    if (method !== undefined) head += typeof method === 'string' ? methodField(method) : `,"method":${stringify(method)}`;
    if (id !== undefined) head += typeof id === 'number' && Number.isFinite(id) ? ',"id":' + id : `,"id":${stringify(id)}`;
    head += ',"bytes":' + redactor.lastBytes;
    const latency = info.latencyMs;
    if (latency !== undefined) head += ',"latency_ms":' + millis3(latency);
    this.write(msg === undefined ? head + '}\n' : `${head},"msg":${msg}}\n`);
    if (this.strict) this.checkStrict(direction, message, info, method);
  }

  /**
   * The encoded fields of a message line from `server` to `method`, and `,"id":` when `hasId`
   * (by direction, kind and method; boundedly). Undefined for a direction or kind the table does
   * not know (the string path writes those).
   */
  private segment(direction: Direction, kind: string, method: string, hasId: boolean): Segment | undefined {
    const k = kindIndex(kind);
    if (k < 0 || (direction !== 'in' && direction !== 'out')) return undefined;
    const slot = (direction === 'in' ? 0 : 2 * KIND_COUNT) + 2 * k + (hasId ? 1 : 0);
    if (this.lastMethod[slot] === method) return this.lastSegment[slot];
    let byMethod = this.segments[slot];
    if (byMethod === undefined) this.segments[slot] = byMethod = new Map();
    let seg = byMethod.get(method);
    if (seg === undefined) {
      const fields = Buffer.from(`${this.bindings}${dirKind(direction, kind)}${method === '' ? '' : methodField(method)}${hasId ? ',"id":' : ''}`, 'utf8');
      seg = { fields };
      if (this.segmentCount < 1024 && method.length <= 128) {
        byMethod.set(method, seg);
        this.segmentCount++;
      }
    }
    this.lastMethod[slot] = method;
    this.lastSegment[slot] = seg;
    return seg;
  }

  event(event: ObservedEvent): void {
    if (this.closed) return;
    const rec: Record<string, unknown> = { event: event.type };
    let fields: Record<string, unknown> = event;
    if (event.type === 'transport' && event.event !== null && typeof event.event === 'object') {
      // Flatten `{type:'transport', event:{type:'spawn', …}}` to `event:'transport', type:'spawn', …`.
      fields = event.event as Record<string, unknown>;
      if (fields.type === 'session' && 'sessionId' in fields) {
        // Not even a head of the session id (a credential): the lines that follow carry its hash.
        fields = { ...fields };
        delete fields.sessionId;
      }
    } else {
      fields = { ...event };
      delete fields.type;
    }
    for (const key of Object.keys(fields)) rec[RESERVED_KEYS.has(key) ? `${key}_` : key] = fields[key];
    const json = this.redactor.redactJson(rec);
    // `{"event":…}` → `,"event":…}`: the record's own fields follow the common ones.
    const own = json !== undefined && json.length > 2 ? `,${json.slice(1)}` : '}';
    this.write(`${lineHead()}${this.bindings}${own}\n`);
  }

  setSessionId(id: string | undefined): void {
    // A renewed session replaces the old one: its id is dead and stops being a secret to scan for
    // (kept, every renewal would slow every later line of a long-lived client).
    if (this.sessionSecret !== undefined && this.sessionSecret !== id) this.redactor.removeSecrets([this.sessionSecret]);
    this.sessionSecret = id !== undefined && id !== '' ? id : undefined;
    if (id !== undefined && id !== '') this.redactor.addSecrets([id]);
    this.sessionField = id === undefined ? '' : `,"session":${stringify(sessionTag(id))}`;
    this.rebind();
  }

  setExchange(id: number | undefined): void {
    const field = id === undefined || !Number.isSafeInteger(id) ? '' : `,"exchange":${id}`;
    if (field === this.exchangeField) return;
    this.exchangeField = field;
    this.rebind();
  }

  private rebind(): void {
    this.bindings = this.baseBindings + this.sessionField + this.exchangeField;
    this.segments = [];
    this.segmentCount = 0;
    this.lastMethod = emptySlots();
    this.lastSegment = emptySlots();
  }

  addSecrets(values: string[]): void {
    this.redactor.addSecrets(values);
  }

  headerCopies(headers: Record<string, string>, body: unknown): Record<string, string> {
    return redactHeaderCopies(headers, body, (s) => this.redactor.redactString(s) !== s);
  }

  async flush(): Promise<void> {
    if (this.shared) {
      drainAll(this.shared);
      await flushStream(this.shared.stream);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.event({ type: 'trace-end' });
    this.closed = true;
    if (this.shared && this.options.file) {
      await releaseFile(this.options.file, this.shared);
      this.shared.stream.off('error', this.onStreamError);
    }
  }

  private checkStrict(direction: Direction, message: unknown, info: MessageInfo, method: string | undefined): void {
    const violations = this.strict!.check(direction, message, method !== undefined && info.requestMethod === undefined && info.method === undefined ? { ...info, requestMethod: method } : info);
    for (const v of violations) {
      const { dir, kind, method: vm, id, schemaType, instancePath, schemaPath, keyword, message: text, params } = v;
      this.event({ type: 'schema', dir, kind, method: vm, id, schemaType, instancePath, schemaPath, keyword, message: text, params });
      this.warn({ type: 'schema', server: this.options.serverId, ...v });
    }
  }

  private readonly onStreamError = (err: Error): void => {
    this.warn({ type: 'trace-io', server: this.options.serverId, message: err.message });
  };

  warn(w: TraceWarning): void {
    try {
      this.options.onWarning?.(w);
    } catch {
      // a warning callback must not break tracing
    }
  }
}

/**
 * Creates a tracer for one server connection. Pass it as the client's `observer`.
 * Several tracers may share one file (lines never interleave mid-line).
 */
export async function createTracer(options: TracerOptions): Promise<Tracer> {
  if (!options.file && !options.destination) throw new McpWireError('MCPWIRE_TRACE_OPEN', 'createTracer needs a file or a destination');
  const { default: pino } = await import('pino');
  let strict: StrictChecker | undefined;
  if (options.strict) {
    const mod = await import('./strict.js');
    mod.warmUp();
    strict = new mod.StrictChecker();
  }
  const maxFileBytes = options.maxFileBytes;
  if (maxFileBytes !== undefined && !(Number.isSafeInteger(maxFileBytes) && maxFileBytes > 0)) {
    throw new McpWireError('MCPWIRE_TRACE_OPEN', `maxFileBytes must be a positive whole number of bytes, not ${String(maxFileBytes)}`);
  }
  const shared = options.file ? await openFile(pino, options.file, maxFileBytes) : undefined;
  const stream = (shared ? shared.stream : options.destination!) as NodeJS.WritableStream & { write(s: string): boolean };
  const redactor = new Redactor({ secrets: options.secrets, maxStringBytes: options.maxStringBytes });
  return new TraceWriter(redactor, options, shared, stream, strict);
}
