/**
 * Newline-delimited JSON framer (basic/transports, stdio): messages are delimited by `\n` and
 * MUST NOT contain embedded newlines (basic.transports#3). Pure: no Node streams, only Buffers.
 *
 * - partial chunks and many messages per chunk; CRLF accepted;
 * - UTF-8 is decoded per whole line, so a character split across chunks is never mangled;
 * - linear time: each byte is scanned for newlines about once and copied at most twice (a line
 *   spanning chunks is concatenated once, when its newline arrives, then decoded); the complete
 *   lines of a chunk are decoded with one call when they are ASCII (the usual case);
 * - a line over `maxMessageBytes` is reported and skipped (bytes up to the next newline are
 *   dropped without being buffered); a malformed line is reported with a bounded excerpt and
 *   skipped. Neither stops the framer. The limit counts the line's bytes without its terminator
 *   (`\n` or `\r\n`), however the line is cut into chunks;
 * - when such a line is recognisably a response (its start reads `{"jsonrpc":"2.0","id":7,
 *   "result":…`), the diagnostic names the id (`responseToId`) so the request fails at once;
 * - a leading UTF-8 byte order mark on a line is dropped (it still counts toward the limit).
 */
import { isAscii } from 'node:buffer';
import { HEAD_BYTES, responseIdFromHead } from './head.js';
import { excerpt, type RequestId } from './types.js';

export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

export interface FramerDiagnostic {
  code: 'MCPWIRE_FRAME_MALFORMED' | 'MCPWIRE_FRAME_OVERSIZED';
  message: string;
  excerpt?: string;
  /** The line was recognisably the response to this request id (see `responseIdFromHead`). */
  responseToId?: RequestId;
}

export interface FramerOptions {
  maxMessageBytes?: number;
  /** `text`: the line the value was parsed from (without terminator or byte order mark). */
  onMessage: (value: unknown, text: string) => void;
  onDiagnostic: (d: FramerDiagnostic) => void;
}

/** Node's Buffer method behind `toString('latin1', from, to)` (not in its typings). */
type LatinSlicer = Buffer & { latin1Slice(from: number, to: number): string };

const NL = 0x0a;
const CR = 0x0d;

export class NdjsonFramer {
  private readonly max: number;
  private readonly onMessage: (value: unknown, text: string) => void;
  private readonly onDiagnostic: (d: FramerDiagnostic) => void;
  /** Pieces of the current, unfinished line. */
  private parts: Buffer[] = [];
  private partsBytes = 0;
  /** True while dropping an oversized line up to its newline. */
  private skipping = false;
  private skippedBytes = 0;
  /** Whether the last byte skipped was a CR (it is the terminator's if a newline follows). */
  private skippedCR = false;
  /** The id read from the start of the line being skipped, if it is a response. */
  private skippedId: RequestId | undefined;

  constructor(options: FramerOptions) {
    this.max = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.onMessage = options.onMessage;
    this.onDiagnostic = options.onDiagnostic;
  }

  /** Bytes held for an unfinished line. */
  get bufferedBytes(): number {
    return this.partsBytes;
  }

  push(chunk: Buffer): void {
    const len = chunk.length;
    let start = 0;
    if (this.partsBytes > 0 || this.skipping) {
      // The first newline ends the line held from earlier chunks.
      const nl = chunk.indexOf(NL);
      if (nl === -1) {
        this.hold(chunk, 0, len);
        return;
      }
      if (this.skipping) {
        if (nl > 0) this.skippedCR = chunk[nl - 1] === CR;
        this.endSkip(nl);
      } else {
        this.hold(chunk, 0, nl);
        if (!this.skipping) {
          const whole = this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts, this.partsBytes);
          this.parts = [];
          this.partsBytes = 0;
          this.line(whole, 0, whole.length);
        } else {
          this.endSkip(0);
        }
      }
      start = nl + 1;
      if (start >= len) return;
    }
    // Every complete line left in this chunk ends at or before its last newline (a chunk that
    // ends one, the usual case, needs no search).
    const last = chunk[len - 1] === NL ? len - 1 : chunk.lastIndexOf(NL);
    if (last < start) {
      this.hold(chunk, start, len);
      return;
    }
    this.lines(chunk, start, last);
    if (last + 1 < len) this.hold(chunk, last + 1, len);
  }

  /**
   * The complete lines in `buf[from, to)` (`buf[to]` is a newline). ASCII text (the usual case)
   * is decoded with one call for all of them and split as a string, so bytes and characters
   * coincide; anything else is decoded line by line, which keeps byte counts exact.
   */
  private lines(buf: Buffer, from: number, to: number): void {
    // (buf[to] is a newline: when the lines fill the chunk, check it whole, without a view)
    if (!isAscii(from === 0 && to === buf.length - 1 ? buf : buf.subarray(from, to))) {
      for (let s = from; s <= to; ) {
        let nl = buf.indexOf(NL, s);
        if (nl === -1 || nl > to) nl = to;
        this.line(buf, s, nl);
        s = nl + 1;
      }
      return;
    }
    // (latin1Slice: what toString('latin1', …) calls, without its argument checks and their bytecode)
    const text = (buf as LatinSlicer).latin1Slice(from, to);
    const n = text.length;
    for (let p = 0; p <= n; ) {
      let e = text.indexOf('\n', p);
      if (e === -1) e = n;
      let end = e;
      if (end > p && text.charCodeAt(end - 1) === CR) end--;
      if (end > p) {
        if (end - p > this.max) this.oversized(end - p, responseIdFromHead(text.slice(p, p + HEAD_BYTES)));
        else this.parse(p === 0 && end === n ? text : text.slice(p, end));
      }
      p = e + 1;
    }
  }

  /** End of input: a final line without a newline is still a message (lenient), if complete. */
  end(): void {
    if (this.skipping) {
      this.endSkip(0);
      return;
    }
    if (this.partsBytes > 0) {
      const whole = Buffer.concat(this.parts, this.partsBytes);
      this.parts = [];
      this.partsBytes = 0;
      this.line(whole, 0, whole.length);
    }
  }

  private hold(chunk: Buffer, from: number, to: number): void {
    const n = to - from;
    if (n === 0) return;
    if (this.skipping) {
      this.skippedBytes += n;
      this.skippedCR = chunk[to - 1] === CR;
      return;
    }
    if (this.partsBytes + n > this.max) {
      // A CR one byte past the limit may be half of the CRLF ending the line, which does not
      // count (as when the line arrives whole): hold it until the next byte tells.
      if (this.partsBytes + n === this.max + 1 && chunk[to - 1] === CR) {
        this.parts.push(chunk.subarray(from, to));
        this.partsBytes += n;
        return;
      }
      this.startSkip(chunk, from, to);
      return;
    }
    // subarray keeps a view; copy only when the view would pin a much larger chunk.
    this.parts.push(from === 0 && to === chunk.length ? chunk : chunk.subarray(from, to));
    this.partsBytes += n;
  }

  /** Starts dropping the current line; first reads its id from the bytes held and `chunk[from, to)`. */
  private startSkip(chunk: Buffer, from: number, to: number): void {
    const pieces: Buffer[] = [];
    let have = 0;
    for (let k = 0; k < this.parts.length && have < HEAD_BYTES; k++) {
      pieces.push(this.parts[k]);
      have += this.parts[k].length;
    }
    if (have < HEAD_BYTES) pieces.push(chunk.subarray(from, Math.min(to, from + HEAD_BYTES - have)));
    const head = pieces.length === 1 ? pieces[0] : Buffer.concat(pieces);
    this.skippedId = responseIdFromHead(head.toString('utf8', 0, Math.min(head.length, HEAD_BYTES)));
    this.skipping = true;
    this.skippedBytes = this.partsBytes + (to - from);
    this.skippedCR = chunk[to - 1] === CR;
    this.parts = [];
    this.partsBytes = 0;
  }

  private endSkip(extra: number): void {
    // (a CR right before the newline is the terminator's, as in `line`)
    const total = this.skippedBytes + extra - (this.skippedCR ? 1 : 0);
    const id = this.skippedId;
    this.skipping = false;
    this.skippedBytes = 0;
    this.skippedCR = false;
    this.skippedId = undefined;
    this.oversized(total, id);
  }

  private line(buf: Buffer, from: number, to: number): void {
    let end = to;
    if (end > from && buf[end - 1] === CR) end--;
    if (end === from) return; // blank line: tolerated
    if (end - from > this.max) {
      this.oversized(end - from, responseIdFromHead(buf.toString('utf8', from, Math.min(end, from + HEAD_BYTES))));
      return;
    }
    // A UTF-8 byte order mark (EF BB BF) is not part of the message (ASCII lines cannot have one).
    const start = buf[from] === 0xef && buf[from + 1] === 0xbb && buf[from + 2] === 0xbf ? from + 3 : from;
    this.parse(buf.toString('utf8', start, end));
  }

  private oversized(bytes: number, responseToId: RequestId | undefined): void {
    const d: FramerDiagnostic = {
      code: 'MCPWIRE_FRAME_OVERSIZED',
      message: `message of ${bytes} bytes exceeds the maximum of ${this.max} bytes; skipped`,
    };
    if (responseToId !== undefined) d.responseToId = responseToId;
    this.onDiagnostic(d);
  }

  // Kept small: it is inlined with the connection's receive path into the optimized `lines`
  // (V8 inlines at most 920 bytes of bytecode into one function; what does not fit is compiled
  // on its own, late: the sequential bench's measured window then pays for the compile).
  private parse(text: string): void {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      this.malformed(text, err);
      return;
    }
    this.onMessage(value, text);
  }

  /** A line that is not JSON: reported (a bounded excerpt, the request id its head names). */
  private malformed(text: string, err: unknown): void {
    const d: FramerDiagnostic = {
      code: 'MCPWIRE_FRAME_MALFORMED',
      message: `malformed JSON line skipped: ${(err as Error).message}`,
      excerpt: excerpt(text),
    };
    const id = responseIdFromHead(text.length > HEAD_BYTES ? text.slice(0, HEAD_BYTES) : text);
    if (id !== undefined) d.responseToId = id;
    this.onDiagnostic(d);
  }
}
