/**
 * The trace writer: a `ProtocolObserver` that writes one JSON line per JSON-RPC message and per
 * event (format: `record.ts`, documented in `README.md`) to pino's file destination (SonicBoom).
 * pino is loaded only when a tracer is created, ajv only when strict mode is on; with tracing off
 * nothing here runs.
 *
 * Hot path per message: the line is built by hand, in the field order pino wrote it: cached
 * `{"v":1,"t":…,"ts":…` head, cached `server`/`transport`/`session` bindings, cached `dir`/`kind`
 * and `method` fields, then `JSON.stringify` of the message once: `Redactor.redactJson` checks the
 * message (plain data, no credential key, nothing in its text any rule could match) and only
 * walks and copies it when something may have to change. Lines are appended to a per-file batch
 * that goes to SonicBoom in ~64 KiB writes. No closures are created. */
import { sessionTag } from './session-tag.js';
import { writeSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { McpWireError } from '../errors.js';
import type { Direction, MessageInfo, ObservedEvent, ProtocolObserver } from '../protocol/observer.js';
import { RESERVED_KEYS, TRACE_FORMAT_VERSION } from './record.js';
import { Redactor } from './redact.js';
import type { StrictChecker, Violation } from './strict.js';

export interface TracerOptions {
  /** Append the trace to this file (created with its directories, mode 0600; an existing file keeps its mode). */
  file?: string;
  /** Or write to this stream (not closed by `close()`). */
  destination?: NodeJS.WritableStream;
  serverId: string;
  /** Transport kind, e.g. `stdio`. */
  transport: string;
  /** Values to redact wherever they appear: every env and header value from config, tokens… */
  secrets?: string[];
  /** Check every message against the spec schema; violations become `schema` events and warnings. */
  strict?: boolean;
  onWarning?: (warning: TraceWarning) => void;
  /** Long strings are truncated in the trace. Default 64 KiB. */
  maxStringBytes?: number;
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
}

/** `--trace <file>` wins over `MCPWIRE_TRACE=<file>`; empty means off. */
export function traceTarget(env: Record<string, string | undefined>, cliFlag?: string): string | undefined {
  if (cliFlag !== undefined && cliFlag !== '') return cliFlag;
  const v = env.MCPWIRE_TRACE;
  return v !== undefined && v !== '' ? v : undefined;
}

/** What a trace writes for a session id (session-tag.ts). */
export { sessionTag };

// ---- time base: one per process, so traces of several servers share it -------------------
let traceStart: number | undefined;
/** Wall-clock ms minus monotonic ms, as of the last time the wall-clock text changed. */
let wallOffset = 0;
let isoMs = -1;
let isoText = '';

/**
 * `{"v":1,"t":…,"ts":"…"`: the head of every line. `t` is `performance.now()` since the first
 * tracer started, 3 decimals; `ts` is the wall clock to the millisecond: its text is rebuilt (from
 * `Date.now()`) only when the millisecond derived from the monotonic clock changes, so most lines
 * read one clock and format one number.
 */
function lineHead(): string {
  const now = performance.now();
  traceStart ??= now;
  if (Math.floor(now + wallOffset) !== isoMs) {
    const wall = Date.now();
    wallOffset = wall - now;
    isoMs = wall;
    isoText = `,"ts":"${new Date(wall).toISOString()}"`;
  }
  return `{"v":${TRACE_FORMAT_VERSION},"t":${fixed3(now - traceStart)}${isoText}`;
}

/** `x.toFixed(3)` for the non-negative `t`, by integer arithmetic (toFixed is several times slower). */
function fixed3(x: number): string {
  const q = Math.round(x * 1000);
  if (!(q < 1e15)) return x.toFixed(3);
  const whole = Math.floor(q / 1000);
  const frac = q - whole * 1000;
  return `${whole}${frac < 10 ? '.00' : frac < 100 ? '.0' : '.'}${frac}`;
}

// ---- shared file destinations: several tracers may append to one file --------------------
// Each line is built whole by its tracer and UTF-8-encoded at once into the file's one pending
// batch buffer (while the line is still hot in the cache), which goes to pino's destination
// (SonicBoom, in buffer mode: no further string conversion) in one write once it holds
// BATCH_BYTES, on the periodic flush, on flush()/close() and at process exit. A line is encoded
// in one piece, so lines of tracers sharing a file never interleave.
interface SharedDestination {
  stream: SonicBoomLike;
  refs: number;
  buf: Buffer;
  used: number;
  timer: NodeJS.Timeout;
  onExit: () => void;
}

interface SonicBoomLike extends NodeJS.EventEmitter {
  fd: number;
  flush(cb?: (err?: Error | null) => void): void;
  flushSync(): void;
  end(): void;
  write(data: Buffer): boolean;
}

const files = new Map<string, SharedDestination>();
const FLUSH_EVERY_MS = 250;
/** A batch this full is written: few big writes cost far less CPU than many small ones (SonicBoom passes writes above its 16 KiB maxWrite as they are). */
const BATCH_BYTES = 64 * 1024;
/** The batch buffer: room for a full batch plus the longest line that is still encoded into it. */
const BUF_BYTES = 2 * BATCH_BYTES;

function append(shared: SharedDestination, line: string): void {
  // UTF-8 takes at most 3 bytes per UTF-16 unit: check room without measuring the line.
  if (shared.used + line.length * 3 > BUF_BYTES) {
    drain(shared);
    if (line.length * 3 > BUF_BYTES) {
      shared.stream.write(Buffer.from(line, 'utf8'));
      return;
    }
  }
  shared.used += shared.buf.write(line, shared.used);
  if (shared.used >= BATCH_BYTES) drain(shared);
}

/** Hands the pending batch to the destination (which owns it from then on). */
function drain(shared: SharedDestination): void {
  if (shared.used > 0) {
    const batch = shared.buf.subarray(0, shared.used);
    shared.buf = Buffer.allocUnsafe(BUF_BYTES);
    shared.used = 0;
    shared.stream.write(batch);
  }
}

async function openFile(pino: typeof import('pino').default, file: string): Promise<SharedDestination> {
  const key = resolvePath(file);
  const existing = files.get(key);
  if (existing) {
    existing.refs++;
    return existing;
  }
  // minLength 1: every batch is written at once (the batching is ours), and flush(cb) still waits for the writes.
  // mode 0600 applies when the file is created (a trace holds the session's data); an existing
  // file keeps its mode.
  const stream = pino.destination({ dest: key, sync: false, mkdir: true, minLength: 1, contentMode: 'buffer', mode: 0o600 }) as unknown as SonicBoomLike;
  await new Promise<void>((resolve, reject) => {
    stream.once('ready', resolve);
    stream.once('error', (err: Error) => reject(new McpWireError('MCPWIRE_TRACE_OPEN', `cannot open trace file ${file}: ${err.message}`, { cause: err })));
  });
  const shared: SharedDestination = {
    stream,
    refs: 1,
    buf: Buffer.allocUnsafe(BUF_BYTES),
    used: 0,
    timer: setInterval(() => drain(shared), FLUSH_EVERY_MS).unref(),
    onExit: () => {
      // Synchronously, in order: what SonicBoom holds, then our pending batch (handing it to
      // SonicBoom now would start an async write that the exiting process never finishes).
      try {
        stream.flushSync();
        for (let off = 0; off < shared.used; ) off += writeSync(stream.fd, shared.buf, off, shared.used - off);
        shared.used = 0;
      } catch {
        // nothing left to do at exit
      }
    },
  };
  process.on('exit', shared.onExit);
  files.set(key, shared);
  return shared;
}

function flushStream(stream: SonicBoomLike): Promise<void> {
  return new Promise((resolve) => stream.flush(() => resolve()));
}

async function releaseFile(file: string, shared: SharedDestination): Promise<void> {
  drain(shared);
  await flushStream(shared.stream);
  if (--shared.refs > 0) return;
  files.delete(resolvePath(file));
  clearInterval(shared.timer);
  drain(shared);
  process.off('exit', shared.onExit);
  await new Promise<void>((resolve) => {
    shared.stream.once('close', resolve);
    shared.stream.once('error', () => resolve());
    shared.stream.end();
  });
}

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
  /** Ids of requests the server sent us, so our answers can name their method. */
  private readonly incoming = new Map<string | number, string>();
  /** `,"server":…,"transport":…[,"session":…]`: the fields every line repeats after `ts`. */
  private bindings: string;
  /** The session id being redacted (replaced, not accumulated, on renewal). */
  private sessionSecret: string | undefined;
  private readonly baseBindings: string;

  constructor(
    private readonly redactor: Redactor,
    private readonly options: TracerOptions,
    private readonly shared: SharedDestination | undefined,
    private readonly stream: NodeJS.WritableStream & { write(s: string): boolean },
    private readonly strict: StrictChecker | undefined,
  ) {
    this.baseBindings = `,"server":${stringify(options.serverId)},"transport":${stringify(options.transport)}`;
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
    const msg = this.redactor.redactJson(message);
    // Field order and spelling as in record.ts / README.md; undefined fields are left out.
    let line = lineHead() + this.bindings + dirKind(direction, kind);
    if (method !== undefined) line += typeof method === 'string' ? methodField(method) : `,"method":${stringify(method)}`;
    if (id !== undefined) line += typeof id === 'number' && Number.isFinite(id) ? ',"id":' + id : `,"id":${stringify(id)}`;
    line += `,"bytes":${this.redactor.lastBytes}`;
    const latency = info.latencyMs;
    if (latency !== undefined) line += ',"latency_ms":' + (Number.isFinite(latency) ? Math.round(latency * 1000) / 1000 : 'null');
    line += msg === undefined ? '}\n' : `,"msg":${msg}}\n`;
    this.write(line);
    if (this.strict) this.checkStrict(direction, message, info, method);
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
    // (kept, every renewal would slow every later line; see the soak, issue 13.4).
    if (this.sessionSecret !== undefined && this.sessionSecret !== id) this.redactor.removeSecrets([this.sessionSecret]);
    this.sessionSecret = id !== undefined && id !== '' ? id : undefined;
    if (id !== undefined && id !== '') this.redactor.addSecrets([id]);
    this.bindings = id === undefined ? this.baseBindings : `${this.baseBindings},"session":${stringify(sessionTag(id))}`;
  }

  addSecrets(values: string[]): void {
    this.redactor.addSecrets(values);
  }

  async flush(): Promise<void> {
    if (this.shared) {
      drain(this.shared);
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
  const shared = options.file ? await openFile(pino, options.file) : undefined;
  const stream = (shared ? shared.stream : options.destination!) as NodeJS.WritableStream & { write(s: string): boolean };
  const redactor = new Redactor({ secrets: options.secrets, maxStringBytes: options.maxStringBytes });
  return new TraceWriter(redactor, options, shared, stream, strict);
}
