/**
 * The legacy HTTP+SSE `endpoint` event, on its way through the HTTP tap (2024-11-05 transport:
 * the server's GET stream names, in its `endpoint` event, the URI the client POSTs to).
 *
 * A relative endpoint (`/messages?sessionId=…`) already leads back to the tap: the client resolves
 * it against the URL it opened, the tap's. An absolute one naming the upstream's own origin would
 * send the client's POSTs straight to the upstream, past the tap and its trace: it is rewritten
 * to the tap's origin (same path and query). One naming any other origin is withheld: the tap
 * connects only where it was told to, and a client must not be sent elsewhere through it.
 *
 * `EndpointRewriter` reads a GET stream's bytes event block by event block (an event is
 * dispatched at its blank line only, so holding a block back until then delays nothing) and
 * passes every block unchanged but an `endpoint` event's. Lines end with CRLF, LF or CR (the SSE
 * format); bytes pass as they came, never decoded and encoded again.
 */

/** What becomes of one `endpoint` event. */
export type EndpointVerdict = { kind: 'keep' } | { kind: 'rewrite'; data: string } | { kind: 'refuse'; origin: string };

/**
 * The verdict on an endpoint event's `data`: `upstream` is the URL of the GET the upstream
 * answered, `tap` the URL the client opened (the tap's origin, the same path and query).
 */
export function endpointVerdict(data: string, upstream: URL, tap: URL): EndpointVerdict {
  let viaUpstream: URL;
  let viaTap: URL;
  try {
    viaUpstream = new URL(data.trim(), upstream);
    viaTap = new URL(data.trim(), tap);
  } catch {
    // Not a URI: the client cannot follow it either.
    return { kind: 'keep' };
  }
  if (viaUpstream.origin !== upstream.origin) return { kind: 'refuse', origin: viaUpstream.origin };
  // Relative: the client resolves it against the tap's URL and stays on the tap.
  if (viaTap.origin === tap.origin) return { kind: 'keep' };
  return { kind: 'rewrite', data: `${tap.origin}${viaUpstream.pathname}${viaUpstream.search}` };
}

/** A block held back longer than this is passed on as it comes (an endpoint event is one short line). */
const MAX_HELD_BYTES = 64 * 1024;
/** Longer than any `event: endpoint` line (with its CRLF). */
const MAX_EVENT_LINE = 64;
const LF = 0x0a;
const CR = 0x0d;
const EMPTY = Buffer.alloc(0);

/** What is held past this chunk, copied (the stream may reuse its chunk). */
function copy(bytes: Buffer): Buffer {
  return bytes.length === 0 ? EMPTY : Buffer.from(bytes);
}

/** The field name and value of one SSE line (`field: value`, one leading space dropped); undefined for a comment. */
function field(line: Buffer): { name: string; value: string } | undefined {
  if (line.length === 0 || line[0] === 0x3a) return undefined;
  const colon = line.indexOf(0x3a);
  if (colon < 0) return { name: line.toString('utf8'), value: '' };
  const start = line[colon + 1] === 0x20 ? colon + 2 : colon + 1;
  return { name: line.subarray(0, colon).toString('utf8'), value: line.subarray(start).toString('utf8') };
}

export class EndpointRewriter {
  /** The current block's bytes not passed on yet (complete lines, then an unfinished one). */
  private held: Buffer = EMPTY;
  /** Where the unfinished line starts in `held`. */
  private lineStart = 0;
  /** The current block names event `endpoint`; its data lines so far. */
  private isEndpoint = false;
  private data: string[] = [];
  /** The current block grew past MAX_HELD_BYTES and passes as it comes. */
  private flowing = false;
  /** The unfinished line's start already passed (flowing). */
  private midLine = false;
  private refused = false;

  /**
   * `decide` judges an endpoint event's data (`endpointVerdict`); `onRefused` is told once, when
   * an endpoint event is withheld, after which nothing more passes.
   */
  constructor(
    private readonly decide: (data: string) => EndpointVerdict,
    private readonly onRefused: (origin: string) => void,
    private readonly onRewritten: () => void = () => {},
  ) {}

  /** The bytes to pass on for `chunk` (possibly none yet). */
  push(chunk: Buffer): Buffer[] {
    if (this.refused) return [];
    const out: Buffer[] = [];
    const buf = this.held.length ? Buffer.concat([this.held, chunk]) : chunk;
    let pos = this.lineStart;
    let blockStart = 0;
    for (;;) {
      let end = pos;
      while (end < buf.length && buf[end] !== LF && buf[end] !== CR) end++;
      // A CR last in the chunk may be the first half of a CRLF: wait for the next byte.
      if (end >= buf.length || (buf[end] === CR && end + 1 >= buf.length)) break;
      const next = buf[end] === CR && buf[end + 1] === LF ? end + 2 : end + 1;
      if (this.midLine) {
        // The end of a line whose start already passed (too long to be an event line).
        this.midLine = false;
      } else if (end === pos) {
        // A blank line: the block is complete.
        this.emitBlock(buf.subarray(blockStart, next), out);
        if (this.refused) return out;
        blockStart = next;
      } else {
        this.line(buf.subarray(pos, end));
        if (this.refused) return out;
      }
      pos = next;
    }
    if (!this.flowing && buf.length - blockStart > MAX_HELD_BYTES) {
      // Too long to hold back; an endpoint event is never this long.
      if (this.isEndpoint) {
        this.refuse('(an endpoint event too long to check)');
        return out;
      }
      this.flowing = true;
    }
    if (!this.flowing) {
      this.held = copy(buf.subarray(blockStart));
      this.lineStart = pos - blockStart;
      return out;
    }
    // Flowing: complete lines pass at once; an unfinished line too once it is longer than any event line.
    const tail = pos < buf.length && buf.length - pos > MAX_EVENT_LINE ? buf.length : pos;
    if (tail > blockStart) out.push(buf.subarray(blockStart, tail));
    if (tail > pos) this.midLine = true;
    this.held = copy(buf.subarray(tail));
    this.lineStart = 0;
    return out;
  }

  /** At the end of the stream: what is still held (an unfinished block is passed on as it is). */
  end(): Buffer[] {
    if (this.refused || this.held.length === 0) return [];
    if (this.isEndpoint) {
      // An endpoint event without its blank line is never dispatched; nothing to judge.
      this.held = EMPTY;
      return [];
    }
    const rest = this.held;
    this.held = EMPTY;
    return [rest];
  }

  private line(line: Buffer): void {
    const f = field(line);
    if (f?.name === 'event') {
      this.isEndpoint = f.value === 'endpoint';
      // Too late to hold this block back: an endpoint event the tap cannot judge whole is withheld.
      if (this.isEndpoint && this.flowing) this.refuse('(an endpoint event too long to check)');
    } else if (f?.name === 'data') this.data.push(f.value);
  }

  private emitBlock(block: Buffer, out: Buffer[]): void {
    const wasEndpoint = this.isEndpoint && !this.flowing;
    const data = this.data.join('\n');
    this.isEndpoint = false;
    this.data = [];
    this.lineStart = 0;
    if (this.flowing) {
      this.flowing = false;
      out.push(block);
      return;
    }
    if (!wasEndpoint) return void out.push(block);
    const verdict = this.decide(data);
    if (verdict.kind === 'refuse') return this.refuse(verdict.origin);
    if (verdict.kind === 'keep') return void out.push(block);
    this.onRewritten();
    out.push(rewriteData(block, verdict.data));
  }

  private refuse(origin: string): void {
    this.refused = true;
    this.held = EMPTY;
    this.onRefused(origin);
  }
}

/** The block with its `data` lines replaced by one carrying `data`, every other line kept. */
function rewriteData(block: Buffer, data: string): Buffer {
  const lines = block.toString('utf8').split(/\r\n|\r|\n/);
  const kept: string[] = [];
  let placed = false;
  for (const line of lines.slice(0, -2)) {
    if (field(Buffer.from(line, 'utf8'))?.name !== 'data') kept.push(line);
    else if (!placed) {
      kept.push(`data: ${data}`);
      placed = true;
    }
  }
  return Buffer.from(`${kept.join('\n')}\n\n`, 'utf8');
}
