/**
 * What a tap sees, written as an mcpwire trace: each JSON-RPC message text that passes (either
 * direction) is parsed once, classified, paired with its request for `method`/`latency_ms`, and
 * handed to a tracer (which redacts it and, in strict mode, checks it against the schema).
 *
 * Directions are the trace's: `out` = host (client) → server, `in` = server → host.
 * The recorder never touches the bytes that are relayed; it only reads copies of them.
 *
 * The protocol era of each session is noted once it shows (`eraEvidence`: an `initialize` or
 * `server/discover` result, a request carrying the 2026-07-28 `_meta` protocolVersion) as an
 * `era` event line (`era`: `modern` | `handshake`, `version`), again only when it changes.
 *
 * The HTTP tap numbers its exchanges (`setExchange`): every line carries the number, and an answer
 * pairs with the request of its own exchange first (`Waiting`), so two sessionless 2026-07-28
 * clients using the same id at once keep their own answers.
 */
import { classify } from '../jsonrpc/types.js';
import { eraEvidence, Waiting, type EraName } from '../trace/read.js';
import type { Tracer } from '../trace/tracer.js';

type Dir = 'in' | 'out';

interface Pending {
  t: number;
  method: string;
  /** `server/discover` only: the request, whose `_meta` names the version asked for. */
  request?: unknown;
}

const MAX_PENDING = 10_000;
const MAX_SESSIONS = 1000;

export class Recorder {
  /** Requests each side sent that are not answered yet, by session and id (and exchange). */
  private readonly pending: Record<Dir, Waiting<Pending>> = { in: new Waiting(), out: new Waiting() };
  private session: string | undefined;
  private exchange: number | undefined;
  /** The era (and version) last noted, by session. */
  private readonly eras = new Map<string, string>();

  constructor(readonly tracer: Tracer) {}

  /**
   * Lines that follow belong to this session (`undefined`: none). The trace gets its hash (see
   * `sessionTag`), never the id; the id is redacted wherever it appears.
   */
  setSession(id: string | undefined): void {
    if (id === this.session) return;
    this.session = id;
    this.tracer.setSessionId(id);
  }

  /** Lines that follow belong to this HTTP exchange (`undefined`: none); written as `exchange`. */
  setExchange(id: number | undefined): void {
    if (id === this.exchange) return;
    this.exchange = id;
    this.tracer.setExchange?.(id);
  }

  /** One JSON-RPC message as text, e.g. one stdio line or one SSE `data`; returns it parsed (undefined: not JSON). */
  text(dir: Dir, text: string): unknown {
    const trimmed = text.trim();
    if (trimmed === '') return undefined;
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch {
      this.tracer.message(dir, trimmed, { kind: 'invalid' });
      return undefined;
    }
    // The text goes with the message: the tracer writes it as it is when nothing needs redacting.
    this.one(dir, value, trimmed);
    return value;
  }

  /**
   * An already parsed message. A JSON array (a JSON-RPC batch, which MCP 2025-11-25 no longer
   * has) is one `invalid` line holding the whole array, so a replay can answer it as recorded.
   */
  value(dir: Dir, value: unknown): void {
    this.one(dir, value);
  }

  private one(dir: Dir, msg: unknown, text?: string): void {
    const kind = classify(msg);
    if (kind === 'invalid') {
      this.tracer.message(dir, msg, { kind });
      return;
    }
    const m = msg as { id?: string | number | null; method?: string };
    const id = m.id;
    if (kind === 'request') {
      const waiting = this.pending[dir];
      if (waiting.size >= MAX_PENDING) waiting.dropOldest();
      waiting.add(this.key(id, this.session), this.exchange, { t: performance.now(), method: String(m.method), ...(m.method === 'server/discover' ? { request: msg } : {}) });
      this.tracer.message(dir, msg, { kind, method: m.method, id, text });
      this.noteEra(eraEvidence(dir, kind, m.method, msg));
    } else if (kind === 'notification') {
      this.tracer.message(dir, msg, { kind, method: m.method, text });
    } else {
      // An answer travels opposite to its request.
      const keys = [this.key(id, this.session)];
      // initialize was sent before the session existed
      if (this.session !== undefined) keys.push(this.key(id, undefined));
      const p = this.pending[dir === 'in' ? 'out' : 'in'].take(keys, this.exchange);
      this.tracer.message(dir, msg, {
        kind,
        id,
        ...(p ? { requestMethod: p.method } : {}),
        ...(p && dir === 'in' ? { latencyMs: performance.now() - p.t } : {}),
        text,
      });
      if (p) this.noteEra(eraEvidence(dir, kind, p.method, msg, p.request));
    }
  }

  /** An `era` event when this session's era or version is new. */
  private noteEra(ev: { era: EraName; version?: string } | undefined): void {
    if (!ev) return;
    const key = this.session ?? '';
    const text = `${ev.era} ${ev.version ?? ''}`;
    const prev = this.eras.get(key);
    if (prev === text || (prev?.startsWith(`${ev.era} `) && ev.version === undefined)) return;
    if (this.eras.size >= MAX_SESSIONS) this.eras.delete(this.eras.keys().next().value as string);
    this.eras.set(key, text);
    this.tracer.event({ type: 'era', era: ev.era, ...(ev.version !== undefined ? { version: ev.version } : {}) });
  }

  private key(id: unknown, session: string | undefined): string {
    return `${session ?? ''}\u0000${typeof id}:${String(id)}`;
  }
}

/**
 * Splits a byte stream into lines for the recorder without holding up the stream: chunks are
 * kept until a newline completes a line; only then is the line decoded.
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;

  constructor(private readonly onLine: (line: string) => void, private readonly maxLineBytes = 256 * 1024 * 1024) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      if (nl < 0) break;
      const piece = chunk.subarray(start, nl);
      let line: string;
      if (this.parts.length) {
        this.parts.push(piece);
        line = Buffer.concat(this.parts, this.size + piece.length).toString('utf8');
        this.parts = [];
        this.size = 0;
      } else {
        line = piece.toString('utf8');
      }
      this.onLine(line);
      start = nl + 1;
    }
    if (start < chunk.length) {
      if (this.size + chunk.length - start > this.maxLineBytes) {
        // A line this long is relayed but not traced whole.
        this.parts = [];
        this.size = 0;
        return;
      }
      // Copy: the stream may reuse its chunk.
      const rest = Buffer.from(chunk.subarray(start));
      this.parts.push(rest);
      this.size += rest.length;
    }
  }

  /** The unterminated tail, if any (at end of stream). */
  end(): void {
    if (this.parts.length) {
      const line = Buffer.concat(this.parts, this.size).toString('utf8');
      this.parts = [];
      this.size = 0;
      this.onLine(line);
    }
  }
}
