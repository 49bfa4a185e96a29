/**
 * The trace writer: a `ProtocolObserver` that writes one JSON line per JSON-RPC message and per
 * event (format: `record.ts`, documented in `README.md`) through pino. pino is loaded only when a
 * tracer is created, ajv only when strict mode is on; with tracing off nothing here runs.
 *
 * Hot path per message: one redaction walk (which also measures the message's JSON size), one
 * pino call (whose only JSON.stringify is the redacted message). No closures are created.
 */
import { resolve as resolvePath } from 'node:path';
import type { Logger } from 'pino';
import { McpWireError } from '../errors.js';
import type { Direction, MessageInfo, ObservedEvent, ProtocolObserver } from '../protocol/observer.js';
import { RESERVED_KEYS, TRACE_FORMAT_VERSION } from './record.js';
import { Redactor } from './redact.js';
import type { StrictChecker, Violation } from './strict.js';

export interface TracerOptions {
  /** Append the trace to this file (created with its directories). */
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
  /** Adds `session` to every later line (HTTP session id). */
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

// ---- time base: one per process, so traces of several servers share it -------------------
let traceStart: number | undefined;
let isoMs = -1;
let isoText = '';

/** pino `timestamp` hook: the `t` and `ts` fields (the wall-clock text is reused within a millisecond). */
function nowFields(): string {
  const now = performance.now();
  traceStart ??= now;
  const ms = Date.now();
  if (ms !== isoMs) {
    isoMs = ms;
    isoText = new Date(ms).toISOString();
  }
  return `,"t":${(now - traceStart).toFixed(3)},"ts":"${isoText}"`;
}

// ---- shared file destinations: several tracers may append to one file --------------------
interface SharedDestination {
  stream: SonicBoomLike;
  refs: number;
  dirty: boolean;
  timer: NodeJS.Timeout;
  onExit: () => void;
}

interface SonicBoomLike extends NodeJS.EventEmitter {
  fd: number;
  flush(cb?: (err?: Error | null) => void): void;
  flushSync(): void;
  end(): void;
  write(s: string): boolean;
}

const files = new Map<string, SharedDestination>();
const FLUSH_EVERY_MS = 250;

async function openFile(pino: typeof import('pino').default, file: string): Promise<SharedDestination> {
  const key = resolvePath(file);
  const existing = files.get(key);
  if (existing) {
    existing.refs++;
    return existing;
  }
  const stream = pino.destination({ dest: key, sync: false, mkdir: true, minLength: 4096 }) as unknown as SonicBoomLike;
  await new Promise<void>((resolve, reject) => {
    stream.once('ready', resolve);
    stream.once('error', (err: Error) => reject(new McpWireError('MCPWIRE_TRACE_OPEN', `cannot open trace file ${file}: ${err.message}`, { cause: err })));
  });
  const shared: SharedDestination = {
    stream,
    refs: 1,
    dirty: false,
    timer: setInterval(() => {
      if (shared.dirty) {
        shared.dirty = false;
        stream.flush();
      }
    }, FLUSH_EVERY_MS).unref(),
    onExit: () => {
      try {
        stream.flushSync();
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
  await flushStream(shared.stream);
  if (--shared.refs > 0) return;
  files.delete(resolvePath(file));
  clearInterval(shared.timer);
  process.off('exit', shared.onExit);
  await new Promise<void>((resolve) => {
    shared.stream.once('close', resolve);
    shared.stream.once('error', () => resolve());
    shared.stream.end();
  });
}

// ---- the tracer ---------------------------------------------------------------------------

class TraceWriter implements Tracer {
  private log: Logger;
  private closed = false;
  /** Ids of requests the server sent us, so our answers can name their method. */
  private readonly incoming = new Map<string | number, string>();
  private readonly line: Record<string, unknown> = {};

  constructor(
    private readonly root: Logger,
    private readonly redactor: Redactor,
    private readonly options: TracerOptions,
    private readonly shared: SharedDestination | undefined,
    private readonly strict: StrictChecker | undefined,
  ) {
    this.log = root;
    if (shared) shared.stream.on('error', this.onStreamError);
    this.event({ type: 'trace-start', format: TRACE_FORMAT_VERSION, pid: process.pid, strict: strict !== undefined });
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
    const msg = this.redactor.redact(message);
    const rec = this.line;
    rec.dir = direction;
    rec.kind = kind;
    rec.method = method;
    rec.id = id;
    rec.bytes = this.redactor.lastBytes;
    rec.latency_ms = info.latencyMs !== undefined ? Math.round(info.latencyMs * 1000) / 1000 : undefined;
    rec.msg = msg;
    this.log.info(rec);
    rec.msg = undefined;
    if (this.shared) this.shared.dirty = true;
    if (this.strict) this.checkStrict(direction, message, info, method);
  }

  event(event: ObservedEvent): void {
    if (this.closed) return;
    const rec: Record<string, unknown> = { event: event.type };
    let fields: Record<string, unknown> = event;
    if (event.type === 'transport' && event.event !== null && typeof event.event === 'object') {
      // Flatten `{type:'transport', event:{type:'spawn', …}}` to `event:'transport', type:'spawn', …`.
      fields = event.event as Record<string, unknown>;
    } else {
      fields = { ...event };
      delete fields.type;
    }
    for (const key of Object.keys(fields)) rec[RESERVED_KEYS.has(key) ? `${key}_` : key] = fields[key];
    this.log.info(this.redactor.redact(rec) as Record<string, unknown>);
    if (this.shared) this.shared.dirty = true;
  }

  setSessionId(id: string | undefined): void {
    this.log = id === undefined ? this.root : this.root.child({ session: this.redactor.redactString(id) });
  }

  addSecrets(values: string[]): void {
    this.redactor.addSecrets(values);
  }

  async flush(): Promise<void> {
    if (this.shared) {
      this.shared.dirty = false;
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
  const stream = shared ? shared.stream : options.destination!;
  const root = pino(
    {
      level: 'info',
      base: { server: options.serverId, transport: options.transport },
      timestamp: nowFields,
      messageKey: '__mcpwire_unused_msg',
      errorKey: '__mcpwire_unused_err',
      formatters: { level: () => ({ v: TRACE_FORMAT_VERSION }) },
    },
    stream as NodeJS.WritableStream & { write(s: string): boolean },
  );
  const redactor = new Redactor({ secrets: options.secrets, maxStringBytes: options.maxStringBytes });
  const writer = new TraceWriter(root, redactor, options, shared, strict);
  return writer;
}
