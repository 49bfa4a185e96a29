/**
 * Newline-delimited JSON framer (basic/transports, stdio): messages are delimited by `\n` and
 * MUST NOT contain embedded newlines (basic.transports#3). Pure: no Node streams, only Buffers.
 *
 * - partial chunks and many messages per chunk; CRLF accepted;
 * - UTF-8 is decoded per whole line, so a character split across chunks is never mangled;
 * - linear time: each byte is scanned once and copied at most once (a line spanning chunks is
 *   concatenated once, when its newline arrives);
 * - a line over `maxMessageBytes` is reported and skipped (bytes up to the next newline are
 *   dropped without being buffered); a malformed line is reported with a bounded excerpt and
 *   skipped. Neither stops the framer.
 */
import { excerpt } from './types.js';

export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

export interface FramerDiagnostic {
  code: 'MCPWIRE_FRAME_MALFORMED' | 'MCPWIRE_FRAME_OVERSIZED';
  message: string;
  excerpt?: string;
}

export interface FramerOptions {
  maxMessageBytes?: number;
  onMessage: (value: unknown) => void;
  onDiagnostic: (d: FramerDiagnostic) => void;
}

const NL = 0x0a;
const CR = 0x0d;

export class NdjsonFramer {
  private readonly max: number;
  private readonly onMessage: (value: unknown) => void;
  private readonly onDiagnostic: (d: FramerDiagnostic) => void;
  /** Pieces of the current, unfinished line. */
  private parts: Buffer[] = [];
  private partsBytes = 0;
  /** True while dropping an oversized line up to its newline. */
  private skipping = false;
  private skippedBytes = 0;

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
    let start = 0;
    const len = chunk.length;
    while (start < len) {
      const nl = chunk.indexOf(NL, start);
      if (nl === -1) {
        this.hold(chunk, start, len);
        return;
      }
      if (this.skipping) {
        this.endSkip(nl - start);
      } else if (this.partsBytes === 0) {
        this.line(chunk, start, nl);
      } else {
        this.hold(chunk, start, nl);
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
      return;
    }
    if (this.partsBytes + n > this.max) {
      this.skipping = true;
      this.skippedBytes = this.partsBytes + n;
      this.parts = [];
      this.partsBytes = 0;
      return;
    }
    // subarray keeps a view; copy only when the view would pin a much larger chunk.
    this.parts.push(from === 0 && to === chunk.length ? chunk : chunk.subarray(from, to));
    this.partsBytes += n;
  }

  private endSkip(extra: number): void {
    const total = this.skippedBytes + extra;
    this.skipping = false;
    this.skippedBytes = 0;
    this.onDiagnostic({
      code: 'MCPWIRE_FRAME_OVERSIZED',
      message: `message of ${total} bytes exceeds the maximum of ${this.max} bytes; skipped`,
    });
  }

  private line(buf: Buffer, from: number, to: number): void {
    let end = to;
    if (end > from && buf[end - 1] === CR) end--;
    if (end === from) return; // blank line: tolerated
    if (end - from > this.max) {
      this.onDiagnostic({
        code: 'MCPWIRE_FRAME_OVERSIZED',
        message: `message of ${end - from} bytes exceeds the maximum of ${this.max} bytes; skipped`,
      });
      return;
    }
    const text = buf.toString('utf8', from, end);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      this.onDiagnostic({
        code: 'MCPWIRE_FRAME_MALFORMED',
        message: `malformed JSON line skipped: ${(err as Error).message}`,
        excerpt: excerpt(text),
      });
      return;
    }
    this.onMessage(value);
  }
}

/** Serializes one message as an NDJSON line. JSON.stringify never emits raw newlines. */
export function frame(message: unknown): string {
  return JSON.stringify(message) + '\n';
}
