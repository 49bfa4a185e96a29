/**
 * Regression: the NDJSON framer stays linear in the size of a message that spans many chunks.
 * A naive reader (`pending += chunk; pending.split('\n')`) rescans and recopies everything held
 * on every chunk: quadratic, minutes for 50 MiB in 64 KiB chunks.
 *
 * The proof is by counting, not by the clock (CI is a loaded 2-core machine): every byte the
 * framer copies goes through Buffer.concat or a string decode, so we count those bytes; and
 * every scan for a newline is a Buffer indexOf/lastIndexOf call, whose scanned ranges we sum. A linear
 * framer copies each byte at most a small constant number of times and scans it once. One
 * wall-clock sanity check (50 MiB vs 5 MiB) uses a factor so generous that only a change of
 * complexity class trips it.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { NdjsonFramer } from '../../src/jsonrpc/framer.js';

const CHUNK = 64 * 1024;
const MiB = 1024 * 1024;

function message(textBytes: number): Buffer {
  return Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'a'.repeat(textBytes) }] } }) + '\n');
}

/** Pushes `bytes` in 64 KiB chunks; returns what was copied/scanned and the decoded text length. */
function feed(bytes: Buffer) {
  let copied = 0;
  let scanned = 0;
  let concats = 0;
  const realConcat = Buffer.concat;
  const concatSpy = vi.spyOn(Buffer, 'concat').mockImplementation((list: readonly Uint8Array[], total?: number) => {
    concats++;
    const out = realConcat(list, total);
    copied += out.length;
    return out;
  });
  const proto = Buffer.prototype as unknown as { indexOf: (...a: unknown[]) => number; lastIndexOf: (...a: unknown[]) => number; toString: unknown };
  const realIndexOf = proto.indexOf;
  const indexOfSpy = vi.spyOn(proto, 'indexOf').mockImplementation(function (this: Buffer, value: unknown, from?: unknown) {
    const start = typeof from === 'number' ? from : 0;
    const hit = realIndexOf.call(this, value, from);
    scanned += (hit === -1 ? this.length : hit + 1) - start;
    return hit;
  });
  const realLastIndexOf = proto.lastIndexOf;
  const lastIndexOfSpy = vi.spyOn(proto, 'lastIndexOf').mockImplementation(function (this: Buffer, value: unknown, from?: unknown) {
    const start = typeof from === 'number' ? Math.min(from, this.length - 1) : this.length - 1;
    const hit = realLastIndexOf.call(this, value, ...(from === undefined ? [] : [from]));
    scanned += start - (hit === -1 ? -1 : hit);
    return hit;
  });
  const realToString = proto.toString as (this: Buffer, ...a: unknown[]) => string;
  const toStringSpy = vi.spyOn(Buffer.prototype, 'toString').mockImplementation(function (this: Buffer, enc?: unknown, start?: unknown, end?: unknown) {
    const s = typeof start === 'number' ? start : 0;
    const e = typeof end === 'number' ? Math.min(end, this.length) : this.length;
    copied += e - s;
    return realToString.call(this, enc, start, end);
  });
  // (the framer slices ASCII lines with latin1Slice, what toString('latin1', …) calls)
  const latin = Buffer.prototype as unknown as { latin1Slice: (this: Buffer, s: number, e: number) => string };
  const realLatin1Slice = latin.latin1Slice;
  const latin1Spy = vi.spyOn(latin, 'latin1Slice').mockImplementation(function (this: Buffer, s: number, e: number) {
    copied += e - s;
    return realLatin1Slice.call(this, s, e);
  });
  const got: unknown[] = [];
  try {
    const framer = new NdjsonFramer({ maxMessageBytes: 64 * MiB, onMessage: (m) => got.push(m), onDiagnostic: (d) => got.push(d) });
    for (let i = 0; i < bytes.length; i += CHUNK) framer.push(bytes.subarray(i, Math.min(bytes.length, i + CHUNK)));
    expect(framer.bufferedBytes).toBe(0);
  } finally {
    concatSpy.mockRestore();
    indexOfSpy.mockRestore();
    toStringSpy.mockRestore();
    latin1Spy.mockRestore();
    lastIndexOfSpy.mockRestore();
  }
  expect(got).toHaveLength(1);
  const text = (got[0] as { result: { content: { text: string }[] } }).result.content[0].text;
  return { copied, scanned, concats, textLength: text.length };
}

describe('NDJSON framer is linear in message size (regression: quadratic re-scan of held bytes)', () => {
  afterEach(() => vi.restoreAllMocks());

  it('copies and scans each byte of a 50 MiB message about once, in 64 KiB chunks', () => {
    const bytes = message(50 * MiB);
    const r = feed(bytes);
    expect(r.textLength).toBe(50 * MiB);
    // at most one concatenation of the held pieces; each byte copied at most twice in all
    // (once to join the pieces, once to decode UTF-8); a per-chunk re-copy would be ~400×
    expect(r.concats).toBeLessThanOrEqual(1);
    expect(r.copied).toBeLessThanOrEqual(2 * bytes.length);
    // each byte scanned for a newline once (a rescan of held bytes per chunk would be ~400×)
    expect(r.scanned).toBeLessThanOrEqual(bytes.length);
  });

  it('does the same work per byte for 5 MiB and 50 MiB (counted, not timed)', () => {
    const small = message(5 * MiB);
    const big = message(50 * MiB);
    const a = feed(small);
    const b = feed(big);
    expect(a.scanned / small.length).toBeCloseTo(b.scanned / big.length, 2);
    expect(a.copied / small.length).toBeCloseTo(b.copied / big.length, 2);
  });

  it('time per byte for 50 MiB stays within a generous factor of 5 MiB (complexity class, not speed)', () => {
    const small = message(5 * MiB);
    const big = message(50 * MiB);
    const perByte = (bytes: Buffer) => {
      let best = Infinity;
      for (let i = 0; i < 3; i++) {
        const t = performance.now();
        const framer = new NdjsonFramer({ maxMessageBytes: 64 * MiB, onMessage: () => {}, onDiagnostic: () => {} });
        for (let j = 0; j < bytes.length; j += CHUNK) framer.push(bytes.subarray(j, Math.min(bytes.length, j + CHUNK)));
        best = Math.min(best, (performance.now() - t) / bytes.length);
      }
      return best;
    };
    perByte(small); // warm-up
    const ratio = perByte(big) / perByte(small);
    // linear: ~1; quadratic over 800 chunks: ~10× and more. 4 leaves room for a loaded machine.
    expect(ratio).toBeLessThan(4);
  });
});
