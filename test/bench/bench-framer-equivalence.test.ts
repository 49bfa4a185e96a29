/**
 * The optimised NDJSON framer (one decode for all the ASCII lines of a chunk) against the
 * straightforward per-line framer it replaced (kept below verbatim as the reference): same
 * messages and the same diagnostics, in the same order, for random streams of ASCII and
 * multi-byte messages, CRLF endings, blank lines, garbage and oversized lines, cut into random
 * chunks (including one byte at a time and cuts inside multi-byte characters).
 */
import { describe, expect, it } from 'vitest';
import { NdjsonFramer, type FramerDiagnostic, type FramerOptions } from '../../src/jsonrpc/framer.js';
import { HEAD_BYTES, responseIdFromHead } from '../../src/jsonrpc/head.js';
import { excerpt } from '../../src/jsonrpc/types.js';

const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
const NL = 0x0a;
const CR = 0x0d;

// The framer as of commit e57769d (per-line decode), for comparison, with the semantics fixed
// since: the limit ignores a CRLF's CR however the line is cut (a CR one
// byte past the limit is held until the next byte tells), a leading BOM is dropped, and an
// oversized or malformed response names its id (read here from the line's first bytes, kept as
// they pass, rather than at the moment skipping starts).
class ReferenceFramer {
  /** The current line's first HEAD_BYTES bytes, and whether its last byte seen was a CR. */
  private head: Buffer[] = [];
  private headBytes = 0;
  private lastCR = false;
  private readonly max: number;
  private readonly onMessage: (value: unknown, text: string) => void;
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
        this.see(chunk, start, nl);
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

  private see(chunk: Buffer, from: number, to: number): void {
    if (to === from) return;
    if (this.headBytes < HEAD_BYTES) {
      const piece = chunk.subarray(from, Math.min(to, from + HEAD_BYTES - this.headBytes));
      this.head.push(piece);
      this.headBytes += piece.length;
    }
    this.lastCR = chunk[to - 1] === CR;
  }

  private hold(chunk: Buffer, from: number, to: number): void {
    const n = to - from;
    if (n === 0) return;
    this.see(chunk, from, to);
    if (this.skipping) {
      this.skippedBytes += n;
      return;
    }
    const limit = this.lastCR ? this.max + 1 : this.max;
    if (this.partsBytes + n > limit) {
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
    const total = this.skippedBytes + extra - (this.lastCR ? 1 : 0);
    const id = responseIdFromHead(Buffer.concat(this.head).toString('utf8'));
    this.skipping = false;
    this.skippedBytes = 0;
    this.forget();
    this.onDiagnostic({
      code: 'MCPWIRE_FRAME_OVERSIZED',
      message: `message of ${total} bytes exceeds the maximum of ${this.max} bytes; skipped`,
      ...(id !== undefined ? { responseToId: id } : {}),
    });
  }

  private forget(): void {
    this.head = [];
    this.headBytes = 0;
    this.lastCR = false;
  }

  private line(buf: Buffer, from: number, to: number): void {
    this.forget();
    let end = to;
    if (end > from && buf[end - 1] === CR) end--;
    if (end === from) return; // blank line: tolerated
    const id = () => responseIdFromHead(buf.toString('utf8', from, Math.min(end, from + HEAD_BYTES)));
    if (end - from > this.max) {
      const d: FramerDiagnostic = {
        code: 'MCPWIRE_FRAME_OVERSIZED',
        message: `message of ${end - from} bytes exceeds the maximum of ${this.max} bytes; skipped`,
      };
      if (id() !== undefined) d.responseToId = id();
      this.onDiagnostic(d);
      return;
    }
    const bom = buf[from] === 0xef && buf[from + 1] === 0xbb && buf[from + 2] === 0xbf;
    const text = buf.toString('utf8', bom ? from + 3 : from, end);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      const d: FramerDiagnostic = {
        code: 'MCPWIRE_FRAME_MALFORMED',
        message: `malformed JSON line skipped: ${(err as Error).message}`,
        excerpt: excerpt(text),
      };
      if (id() !== undefined) d.responseToId = id();
      this.onDiagnostic(d);
      return;
    }
    this.onMessage(value, text);
  }
}


/** Deterministic PRNG (mulberry32). */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TEXTS = ['hello', 'héllo — 日本語 🎉', 'x'.repeat(300), 'tab\there', 'ünïcödé'.repeat(40), ''];

function stream(rand: () => number, max: number): Buffer {
  const parts: string[] = [];
  const n = 1 + Math.floor(rand() * 40);
  for (let i = 0; i < n; i++) {
    const r = rand();
    const eol = rand() < 0.2 ? '\r\n' : '\n';
    if (r < 0.6) parts.push(JSON.stringify({ jsonrpc: '2.0', id: i, result: { text: TEXTS[Math.floor(rand() * TEXTS.length)] } }) + eol);
    else if (r < 0.7) parts.push(eol); // blank line
    else if (r < 0.8) parts.push('{"jsonrpc":"2.0", garbage' + (rand() < 0.5 ? ' é' : '') + eol);
    else if (r < 0.85) parts.push(JSON.stringify({ big: (rand() < 0.5 ? 'a' : 'é').repeat(max + Math.floor(rand() * 50) - 25) }) + eol);
    // responses around the limit (ids readable from the start, or not), malformed responses,
    // BOM-prefixed lines, and lines of exactly the limit ± 1 byte
    else if (r < 0.88) parts.push(JSON.stringify({ jsonrpc: '2.0', id: rand() < 0.5 ? i : `s${i}`, result: { t: 'r'.repeat(max + Math.floor(rand() * 50) - 40) } }) + eol);
    else if (r < 0.89) parts.push(`{"jsonrpc":"2.0","id":${i},"result":{"t": oops}` + eol);
    else if (r < 0.9) parts.push('\ufeff' + JSON.stringify({ jsonrpc: '2.0', id: i, result: { t: 'é' } }) + eol);
    else if (r < 0.93) parts.push(JSON.stringify({ jsonrpc: '2.0', method: 'm', params: { s: 'x'.repeat(max - 49 + Math.floor(rand() * 3)) } }) + eol);
    else parts.push(JSON.stringify([1, 2, { a: 'ü' }]) + eol);
  }
  if (rand() < 0.3) parts.push('{"tail":1}'); // unterminated final line
  return Buffer.from(parts.join(''), 'utf8');
}

function cuts(rand: () => number, len: number): number[] {
  const mode = rand();
  const out: number[] = [];
  if (mode < 0.1) {
    for (let i = 1; i < len; i++) out.push(i);
  } else {
    const avg = mode < 0.5 ? 7 : mode < 0.8 ? 64 : 4096;
    for (let i = Math.ceil(rand() * avg); i < len; i += 1 + Math.floor(rand() * avg * 2)) out.push(i);
  }
  return out;
}

function run(make: (o: FramerOptions) => { push(b: Buffer): void; end(): void; bufferedBytes: number }, bytes: Buffer, at: number[], max: number) {
  const events: unknown[] = [];
  const f = make({ maxMessageBytes: max, onMessage: (m, text) => events.push(['m', m, text]), onDiagnostic: (d: FramerDiagnostic) => events.push(['d', d]) });
  let prev = 0;
  for (const c of [...at, bytes.length]) {
    f.push(bytes.subarray(prev, c));
    prev = c;
  }
  const held = f.bufferedBytes;
  f.end();
  return { events, held };
}

describe('optimised framer ≡ per-line reference framer', () => {
  it('same messages and diagnostics for 600 random streams and chunkings', () => {
    const rand = rng(20251125);
    for (let k = 0; k < 600; k++) {
      const max = rand() < 0.5 ? 256 : 4096;
      const bytes = stream(rand, max);
      const at = cuts(rand, bytes.length);
      const got = run((o) => new NdjsonFramer(o), bytes, at, max);
      const want = run((o) => new ReferenceFramer(o), bytes, at, max);
      expect(got, `case ${k}`).toEqual(want);
    }
  });

  it('many small messages in one chunk, ASCII and not, with CRLF and blank lines', () => {
    const lines = ['{"a":1}', '', '{"b":"é"}\r', '{"c":2}\r', 'nope', '{"d":[1,2]}'];
    const bytes = Buffer.from(lines.join('\n') + '\n');
    expect(run((o) => new NdjsonFramer(o), bytes, [], 1024)).toEqual(run((o) => new ReferenceFramer(o), bytes, [], 1024));
  });

  it('streams with stray bytes that are not UTF-8 (each replaced alone, or with the bytes it starts)', () => {
    const rand = rng(20261126);
    const STRAY = [[0x80], [0xff], [0xc3], [0xe2, 0x82], [0xf0, 0x9f, 0x8e], [0xef, 0xbb], [0xef, 0xbb, 0xbf]];
    for (let k = 0; k < 300; k++) {
      const max = rand() < 0.5 ? 64 : 4096;
      const out: number[] = [];
      for (const b of stream(rand, max)) {
        if (b !== NL && b !== CR && rand() < 0.03) out.push(...STRAY[Math.floor(rand() * STRAY.length)]);
        out.push(b);
      }
      const bytes = Buffer.from(out);
      const at = cuts(rand, bytes.length);
      expect(run((o) => new NdjsonFramer(o), bytes, at, max), `case ${k}`).toEqual(run((o) => new ReferenceFramer(o), bytes, at, max));
    }
  });
});
