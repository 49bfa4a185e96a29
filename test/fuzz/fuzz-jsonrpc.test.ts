/**
 * Property-based fuzzing of the JSON-RPC layer — the NDJSON framer, the head
 * reader (`responseIdFromHead`) and the message classifier — and of the protocol layer's
 * `receive` (what a peer's parsed message reaches).
 *
 * Properties: the framer agrees with a one-line reference model under arbitrary bytes and any
 * chunking (every valid message delivered exactly once and in order, every bad line reported
 * once, nothing thrown), holds at most `maxMessageBytes + 1` bytes, and a valid stream comes
 * through intact; the head reader never names an id other than the message's own, and none for a
 * request; `classify` agrees with a reference written from JSON-RPC 2.0 + MCP's id rules;
 * `Connection` never throws out of `receive` and answers exactly the messages that carry a
 * method and an id. Counts print as `[fuzz] …` lines; `MCPWIRE_FUZZ_SCALE` scales them.
 */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';

// Fuzz properties run many cases: generous per-test bounds for a loaded 2-core CI box (no timing is asserted).
vi.setConfig({ testTimeout: 180_000 });
import { NdjsonFramer, type FramerDiagnostic } from '../../src/jsonrpc/framer.js';
import { HEAD_BYTES, responseIdFromHead } from '../../src/jsonrpc/head.js';
import { classify, invalidReason, isRequestId, type MessageKind } from '../../src/jsonrpc/types.js';
import { Connection } from '../../src/protocol/connection.js';
import type { Transport } from '../../src/transport/types.js';
import { cutAt, fuzz } from '../support/fuzz.js';

// ---- generators ---------------------------------------------------------------------------

/** Keys that trip naive object handling, and the protocol's own. */
const nastyKey = fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', 'jsonrpc', 'id', 'method', 'result', 'error', 'params', '_meta', '');
const key = fc.oneof({ weight: 1, arbitrary: nastyKey }, { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 8 }) });
/** Number literals JSON.parse accepts, huge and tiny ones included. */
const numberText = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)),
  fc.constantFrom('1e400', '-1e400', '1E-400', '-0', '0.0', '123456789012345678901234567890', '9007199254740993', '1e21', '2.5e-7'),
  fc.integer().map(String),
);
const leafText = fc.oneof(
  numberText,
  fc.string({ unit: 'binary', maxLength: 12 }).map((s) => JSON.stringify(s)),
  fc.constantFrom('true', 'false', 'null'),
);
/** JSON text (not values: own `__proto__` members survive only as text → JSON.parse). */
const { jsonText } = fc.letrec<{ jsonText: string; obj: string; arr: string }>((tie) => ({
  jsonText: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leafText, tie('obj'), tie('arr')),
  obj: fc.array(fc.tuple(key, tie('jsonText')), { maxLength: 3 }).map((m) => `{${m.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
  arr: fc.array(tie('jsonText'), { maxLength: 3 }).map((a) => `[${a.join(',')}]`),
}));
const nest = (n: number, arr: boolean): string => (arr ? '['.repeat(n) + ']'.repeat(n) : '{"a":'.repeat(n) + '1' + '}'.repeat(n));
/** Moderate nesting (cheap to run many times). */
const nestedText = fc.tuple(fc.integer({ min: 1, max: 300 }), fc.boolean()).map(([n, arr]) => nest(n, arr));
/** Mostly moderate nesting, now and then past what JSON.stringify can recurse. */
const deepText = fc.tuple(fc.oneof({ weight: 30, arbitrary: fc.integer({ min: 1, max: 300 }) }, { weight: 1, arbitrary: fc.integer({ min: 20_000, max: 60_000 }) }), fc.boolean()).map(([n, arr]) => (arr ? '['.repeat(n) + ']'.repeat(n) : '{"a":'.repeat(n) + '1' + '}'.repeat(n)));

const idText = fc.oneof(fc.integer({ min: -1e6, max: 1e9 }).map(String), fc.string({ unit: 'binary', maxLength: 6 }).map((s) => JSON.stringify(s)), fc.constantFrom('1e400', '1.5', 'null', '[]', '{}', '"1"', '12345678901234567890'));
/** A JSON-RPC-shaped object's text: members picked from good and bad values, in any order. */
const messageText = fc
  .record(
    {
      jsonrpc: fc.constantFrom('"2.0"', '"2.0"', '"2.0"', '"1.0"', '2', 'null'),
      id: idText,
      method: fc.oneof(fc.constantFrom('"tools/call"', '"notifications/progress"', '"constructor"', '"__proto__"', '1', 'null'), fc.string({ maxLength: 6 }).map((s) => JSON.stringify(s))),
      params: fc.oneof(jsonText, fc.constantFrom('{}', 'null', '5', '[]')),
      result: jsonText,
      error: fc.oneof(fc.constantFrom('{"code":-32601,"message":"x"}', '{"code":"1","message":"x"}', '{"code":1}', 'null', '{"code":1,"message":"m","data":{"__proto__":1}}'), jsonText),
      extra: fc.tuple(nastyKey, jsonText),
    },
    { requiredKeys: [] },
  )
  .chain((r) => fc.shuffledSubarray(Object.entries(r), { minLength: Object.keys(r).length, maxLength: Object.keys(r).length }))
  .map((members) => `{${members.map(([k, v]) => (k === 'extra' ? `${JSON.stringify((v as [string, string])[0])}:${(v as [string, string])[1]}` : `"${k}":${v as string}`)).join(',')}}`);

// ---- the framer's reference model ----------------------------------------------------------

type Outcome = { kind: 'message'; json: string } | { kind: 'diag'; code: FramerDiagnostic['code']; responseToId?: string | number };

/** What the framer must report for `input` as one buffer: line by line, no chunking concerns. */
function reference(input: Buffer, max: number): Outcome[] {
  const out: Outcome[] = [];
  let start = 0;
  while (start < input.length) {
    let nl = input.indexOf(0x0a, start);
    if (nl === -1) nl = input.length;
    let end = nl;
    if (end > start && input[end - 1] === 0x0d) end--;
    if (end > start) {
      const line = input.subarray(start, end);
      if (line.length > max) {
        const d: Outcome = { kind: 'diag', code: 'MCPWIRE_FRAME_OVERSIZED' };
        const id = responseIdFromHead(line.toString('utf8', 0, Math.min(line.length, HEAD_BYTES)));
        if (id !== undefined) d.responseToId = id;
        out.push(d);
      } else {
        const bom = line[0] === 0xef && line[1] === 0xbb && line[2] === 0xbf ? 3 : 0;
        const text = line.toString('utf8', bom);
        try {
          out.push({ kind: 'message', json: stableJson(JSON.parse(text)) });
        } catch {
          const d: Outcome = { kind: 'diag', code: 'MCPWIRE_FRAME_MALFORMED' };
          const id = responseIdFromHead(text.slice(0, HEAD_BYTES));
          if (id !== undefined) d.responseToId = id;
          out.push(d);
        }
      }
    }
    start = nl + 1;
  }
  return out;
}

/** JSON of a parsed value, or a marker for one too deep to stringify (compared by shape only). */
function stableJson(v: unknown): string {
  try {
    return JSON.stringify(v);
  } catch {
    return '<too deep>';
  }
}

/** Feeds `chunks` to a framer; returns what it reported and the most it ever held. */
function runFramer(chunks: Buffer[], max: number): { outcomes: Outcome[]; maxHeld: number } {
  const outcomes: Outcome[] = [];
  const framer = new NdjsonFramer({
    maxMessageBytes: max,
    onMessage: (v) => outcomes.push({ kind: 'message', json: stableJson(v) }),
    onDiagnostic: (d) => {
      const o: Outcome = { kind: 'diag', code: d.code };
      if (d.responseToId !== undefined) o.responseToId = d.responseToId;
      outcomes.push(o);
    },
  });
  let maxHeld = 0;
  for (const c of chunks) {
    framer.push(c);
    maxHeld = Math.max(maxHeld, framer.bufferedBytes);
  }
  framer.end();
  expect(framer.bufferedBytes).toBe(0);
  return { outcomes, maxHeld };
}

/** Byte soup that is mostly line-shaped: JSON lines, garbage, invalid UTF-8, BOMs, CRs, blank lines. */
const segment = fc.oneof(
  { weight: 4, arbitrary: messageText.map((t) => Buffer.from(t)) },
  { weight: 2, arbitrary: jsonText.map((t) => Buffer.from(t)) },
  { weight: 2, arbitrary: fc.uint8Array({ maxLength: 40 }).map((a) => Buffer.from(a)) },
  { weight: 1, arbitrary: fc.constantFrom(Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from([0xff, 0xfe]), Buffer.from([0xc0, 0x80]), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0xe2, 0x82]), Buffer.from('\r'), Buffer.from('')) },
  { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 0, max: 300 }), idText).map(([n, id]) => Buffer.from(`{"jsonrpc":"2.0","id":${id},"result":{"pad":"${'x'.repeat(n)}"}}`)) },
);
const terminator = fc.constantFrom('\n', '\r\n', '\n', '\n\n', '');
const byteStream = fc.array(fc.tuple(fc.boolean(), segment, terminator), { maxLength: 12 }).map((parts) =>
  Buffer.concat(parts.map(([bom, seg, t]) => Buffer.concat([bom ? Buffer.from([0xef, 0xbb, 0xbf]) : Buffer.alloc(0), seg, Buffer.from(t)]))),
);
const cuts = fc.array(fc.nat(), { maxLength: 16 });
const maxBytes = fc.oneof(fc.integer({ min: 1, max: 80 }), fc.integer({ min: 80, max: 2000 }), fc.constant(16 * 1024 * 1024));

/**
 * The framer's outcomes equal the reference's. One allowance: with a limit under `HEAD_BYTES`
 * the limit can be crossed before the id has arrived, so an oversized line may go without its
 * `responseToId` (a real limit is ≥ 512 bytes); when it names one, it is the right one.
 */
function expectSameOutcomes(actual: Outcome[], expected: Outcome[], max: number): void {
  if (max >= HEAD_BYTES) {
    expect(actual).toEqual(expected);
    return;
  }
  expect(actual.length).toBe(expected.length);
  actual.forEach((a, i) => {
    const e = expected[i];
    if (a.kind === 'diag' && e.kind === 'diag' && a.code === 'MCPWIRE_FRAME_OVERSIZED' && e.code === a.code && a.responseToId === undefined) return;
    expect(a).toEqual(e);
  });
}

describe('fuzz: NDJSON framer', () => {
  it('arbitrary bytes, any chunking: agrees with the line-by-line reference (each valid message once, in order; each bad line one diagnostic); holds ≤ max + 1 bytes; never throws', () => {
    fuzz('framer vs reference, arbitrary bytes and chunking', 12_000, fc.tuple(byteStream, cuts, maxBytes), ([input, cutList, max]) => {
      const expected = reference(input, max);
      const { outcomes, maxHeld } = runFramer(cutAt(input, cutList), max);
      expectSameOutcomes(outcomes, expected, max);
      expect(maxHeld).toBeLessThanOrEqual(max + 1);
      // byte at a time, the worst chunking, on a sample
      if (input.length < 200 && cutList.length % 4 === 0) {
        const one = runFramer([...input].map((b) => Buffer.from([b])), max);
        expectSameOutcomes(one.outcomes, expected, max);
      }
    });
  });

  it('a stream of valid messages (nasty keys, huge numbers, deep nesting, CRLF, BOM) comes through whole, exactly once each and in order, with no diagnostic', () => {
    const message = fc.oneof({ weight: 6, arbitrary: messageText }, { weight: 1, arbitrary: nestedText });
    fuzz('framer valid stream delivered exactly once in order', 6_000, fc.tuple(fc.array(fc.tuple(message, fc.constantFrom('\n', '\r\n'), fc.boolean()), { minLength: 1, maxLength: 10 }), cuts), ([msgs, cutList]) => {
      const input = Buffer.concat(msgs.map(([t, nl, bom]) => Buffer.concat([bom ? Buffer.from([0xef, 0xbb, 0xbf]) : Buffer.alloc(0), Buffer.from(t + nl)])));
      const { outcomes } = runFramer(cutAt(input, cutList), 16 * 1024 * 1024);
      expect(outcomes).toEqual(msgs.map(([t]) => ({ kind: 'message', json: stableJson(JSON.parse(t)) })));
    });
  });
});

// ---- the head reader -------------------------------------------------------------------------

describe('fuzz: responseIdFromHead', () => {
  it('never throws; names only the id JSON.parse reads, and only for responses; never for requests and notifications', () => {
    const ws = fc.constantFrom('', ' ', '\t', '\r\n ');
    const member = (k: string, v: string, w: string): string => `${w}${JSON.stringify(k)}${w}:${w}${v}${w}`;
    const escapedKey = fc.constantFrom('"i\\u0064"', '"\\u0069d"', '"id"');
    const shaped = fc
      .tuple(fc.constantFrom('result', 'error', 'method'), idText, fc.array(fc.tuple(fc.string({ maxLength: 5 }), leafText), { maxLength: 3 }), ws, jsonText, escapedKey, idText, fc.boolean())
      .map(([kind, id, others, w, body, esc, id2, dup]) => {
        const members = [...others.map(([k, v]) => member(k === 'id' || k === 'method' || k === 'result' || k === 'error' ? `x${k}` : k, v, w)), member('jsonrpc', '"2.0"', w), member('id', id, w)];
        if (dup) members.push(`${w}${esc}${w}:${w}${id2}${w}`);
        members.push(kind === 'error' ? member('error', '{"code":1,"message":"m"}', w) : member(kind, body, w));
        return `${w}{${members.join(',')}}`;
      });
    // regression: `"i\u0064"` is `id` to JSON.parse; the head reader named the first id instead
    expect(responseIdFromHead('{"jsonrpc":"2.0","id":0,"i\\u0064":1,"result":0}')).toBeUndefined();
    expect(responseIdFromHead('{"jsonrpc":"2.0","id":7,"result":{"x":1')).toBe(7);
    fuzz('head reader vs JSON.parse', 20_000, fc.tuple(fc.oneof(shaped, messageText, fc.string({ unit: 'binary', maxLength: 60 })), fc.nat()), ([text, cut]) => {
      for (const head of [text, text.slice(0, HEAD_BYTES), text.slice(0, cut % (text.length + 1))]) {
        const id = responseIdFromHead(head);
        if (id === undefined) continue;
        let parsed: Record<string, unknown> | undefined;
        try {
          parsed = JSON.parse(text) as Record<string, unknown>;
        } catch {
          continue; // unreadable anyway: the id comes from the part before the damage
        }
        expect(isRequestId(id)).toBe(true);
        // Not judged: a message with both `result` and `method` (no valid JSON-RPC message), and
        // one with a second `id` member after `result` (JSON.parse keeps the last; the head reader
        // stops at `result` by design).
        const ids = text.match(/"id"\s*:/g)?.length ?? 0;
        if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) && !Object.prototype.hasOwnProperty.call(parsed, 'method') && ids <= 1) {
          expect(parsed.id).toEqual(id);
        }
      }
    });
  });
});

// ---- the classifier --------------------------------------------------------------------------

/** JSON-RPC 2.0 + MCP (ids: string or integer, never null in requests), written apart from `classify`. */
function referenceKind(v: unknown): MessageKind {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return 'invalid';
  const has = (k: string): boolean => Object.prototype.hasOwnProperty.call(v, k);
  const m = v as Record<string, unknown>;
  const goodId = (id: unknown): boolean => typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id));
  if (m.jsonrpc !== '2.0') return 'invalid';
  if (has('method')) {
    if (typeof m.method !== 'string') return 'invalid';
    if (has('params') && (typeof m.params !== 'object' || m.params === null)) return 'invalid';
    if (!has('id')) return 'notification';
    return goodId(m.id) ? 'request' : 'invalid';
  }
  if (has('result') && has('error')) return 'invalid';
  if (has('result')) return goodId(m.id) ? 'result' : 'invalid';
  if (has('error')) {
    const e = m.error as Record<string, unknown> | null;
    if (typeof e !== 'object' || e === null || typeof e.code !== 'number' || typeof e.message !== 'string') return 'invalid';
    return m.id === null || goodId(m.id) ? 'error' : 'invalid';
  }
  return 'invalid';
}

describe('fuzz: message classifier', () => {
  it('classify agrees with the reference on arbitrary JSON-RPC-shaped objects (nasty keys, huge numbers); invalidReason never throws', () => {
    fuzz('classify vs reference', 16_000, fc.oneof({ weight: 5, arbitrary: messageText }, { weight: 1, arbitrary: jsonText }, { weight: 1, arbitrary: deepText }), (text) => {
      const v: unknown = JSON.parse(text);
      const kind = classify(v);
      expect(kind).toBe(referenceKind(v));
      if (kind === 'invalid') expect(typeof invalidReason(v)).toBe('string');
    });
  });
});

// ---- what reaches the protocol layer ---------------------------------------------------------

function fakeTransport(): Transport & { sent: unknown[] } {
  const sent: unknown[] = [];
  return {
    kind: 'fake',
    sent,
    start: async () => {},
    send: (m: unknown) => {
      sent.push(m);
      return Promise.resolve();
    },
    close: async () => {},
  } as Transport & { sent: unknown[] };
}

describe('fuzz: Connection.receive', () => {
  it('regression: a message nested deeper than JSON.stringify can recurse (a batch, an invalid message, an unknown response) is reported, not thrown out of the transport callback', () => {
    const t = fakeTransport();
    const diagnostics: string[] = [];
    new Connection(t, { serverId: 'deep', onDiagnostic: (d) => diagnostics.push(d.code) });
    const n = 100_000; // 200 kB of text: far under the 16 MiB line limit
    const deepArr: unknown = JSON.parse('['.repeat(n) + ']'.repeat(n));
    const deepObj: unknown = JSON.parse('{"a":'.repeat(n) + '1' + '}'.repeat(n));
    for (const v of [deepArr, { jsonrpc: '2.0', x: deepObj }, { jsonrpc: '2.0', id: 99, result: { a: deepObj } }, { jsonrpc: deepObj }, { jsonrpc: '2.0', method: 'x', id: 1, params: 5, a: deepObj }]) {
      expect(() => t.onmessage!(v)).not.toThrow();
    }
    expect(diagnostics).toEqual(['MCPWIRE_BATCH_REJECTED', 'MCPWIRE_INVALID_MESSAGE', 'MCPWIRE_UNKNOWN_RESPONSE', 'MCPWIRE_INVALID_MESSAGE', 'MCPWIRE_INVALID_MESSAGE']);
    // the malformed request (method + id) still gets its -32600 answer
    expect(t.sent).toEqual([{ jsonrpc: '2.0', id: 1, error: { code: -32600, message: expect.stringContaining('Invalid Request') } }]);
  });

  it('never throws out of receive; answers exactly the messages with a method and an id (-32601 / -32600), nothing else', () => {
    fuzz('Connection.receive arbitrary messages', 3_000, fc.array(fc.oneof({ weight: 6, arbitrary: messageText }, { weight: 1, arbitrary: jsonText }, { weight: 1, arbitrary: deepText }), { maxLength: 6 }), (texts) => {
      const t = fakeTransport();
      const conn = new Connection(t, { serverId: 'fuzz', onDiagnostic: () => {} });
      let expectReplies = 0;
      for (const text of texts) {
        const v: unknown = JSON.parse(text);
        if (v !== null && typeof v === 'object' && !Array.isArray(v) && 'method' in v && 'id' in v) expectReplies++;
        t.onmessage!(v);
      }
      expect(t.sent.length).toBe(expectReplies);
      expect(conn.pendingCount).toBe(0);
    });
  });
});
