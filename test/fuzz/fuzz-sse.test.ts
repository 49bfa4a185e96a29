/**
 * Property-based fuzzing of the SSE reader (src/transport/http-sse.ts, the
 * bytes → events adapter over eventsource-parser) and of the per-event step
 * (src/transport/sse-stream.ts: resumption cursor, de-duplication, JSON decoding).
 *
 * - events with random fields (id, event, multi-line data, retry, comments, unknown fields), any
 *   line ending (LF, CRLF, CR), a leading BOM, cut into chunks at random bytes (inside UTF-8
 *   characters too): every event arrives once, in order, with its data, id and type intact;
 * - arbitrary bytes: `readSse` never throws and always resolves; an event over the cap ends the
 *   stream as `too-large` and no event larger than the cap is delivered;
 * - `decodeEvent`: a message is delivered exactly once per event id (redeliveries dropped), in
 *   order; the resumption cursor is the last id seen.
 */
import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';

// Fuzz properties run many cases: generous per-test bounds for a loaded 2-core CI box (no timing is asserted).
vi.setConfig({ testTimeout: 180_000 });
import type { BodyReadable } from '../../src/transport/http-common.js';
import { readSse, type EventSourceMessage, type SseEnd } from '../../src/transport/http-sse.js';
import { createSseStream, decodeEvent } from '../../src/transport/sse-stream.js';
import { cutAt, fuzzAsync, fuzz } from '../support/fuzz.js';

interface Ev {
  id?: string;
  event?: string;
  data: string[];
  retry?: number;
  comment?: string;
  unknown?: boolean;
}

/** Field values: no CR/LF (they end a line), no NUL in ids (ignored by the standard). */
const fieldText = fc.string({ unit: 'grapheme', maxLength: 12 }).map((s) => s.replace(/[\r\n\0]/g, '_'));
const evArb: fc.Arbitrary<Ev> = fc.record(
  {
    id: fieldText,
    event: fc.oneof(fc.constant('message'), fieldText.filter((s) => s.length > 0 && s.trim() === s)),
    data: fc.array(fieldText, { minLength: 1, maxLength: 3 }).filter((d) => d.join('\n').length > 0),
    retry: fc.nat(100_000),
    comment: fieldText,
    unknown: fc.boolean(),
  },
  { requiredKeys: ['data'] },
);

function serialise(evs: Ev[], eol: string, bom: boolean): string {
  let s = bom ? '\ufeff' : '';
  for (const e of evs) {
    if (e.comment !== undefined) s += `:${e.comment}${eol}`;
    if (e.unknown) s += `x-field: ignored${eol}`;
    if (e.event !== undefined) s += `event: ${e.event}${eol}`;
    if (e.id !== undefined) s += `id: ${e.id}${eol}`;
    if (e.retry !== undefined) s += `retry: ${e.retry}${eol}`;
    for (const d of e.data) s += `data: ${d}${eol}`;
    s += eol;
  }
  return s;
}

async function read(chunks: Buffer[], max: number): Promise<{ events: EventSourceMessage[]; retries: number[]; end: SseEnd }> {
  const body = new PassThrough();
  const events: EventSourceMessage[] = [];
  const retries: number[] = [];
  const done = readSse(body as unknown as BodyReadable, max, { onEvent: (e) => events.push(e), onRetry: (ms) => retries.push(ms), onProblem: () => {} });
  for (const c of chunks) body.write(c);
  body.end();
  return { events, retries, end: await done };
}

describe('fuzz: SSE reader', () => {
  it('random events, fields and line endings, cut at random bytes: each event once, in order, intact; retry fields reported', async () => {
    await fuzzAsync('sse reader: events under random splits', 4_000, fc.tuple(fc.array(evArb, { maxLength: 6 }), fc.constantFrom('\n', '\r\n', '\r'), fc.boolean(), fc.array(fc.nat(), { maxLength: 12 })), async ([evs, eol, bom, cuts]) => {
      const bytes = Buffer.from(serialise(evs, eol, bom));
      const { events, retries, end } = await read(cutAt(bytes, cuts), 1 << 20);
      expect(end).toEqual({ kind: 'end' });
      expect(events.map((e) => ({ id: e.id, event: e.event, data: e.data }))).toEqual(
        evs.map((e) => ({ id: e.id, event: e.event, data: e.data.join('\n') })),
      );
      expect(retries).toEqual(evs.filter((e) => e.retry !== undefined).map((e) => e.retry));
    });
  });

  it('regression: a stream with CR line endings ending right after its last event delivers that event (the parser held the final CR)', async () => {
    const { events } = await read([Buffer.from('data: {"jsonrpc":"2.0","id":1,"result":{}}\r\r')], 1 << 20);
    expect(events.map((e) => e.data)).toEqual(['{"jsonrpc":"2.0","id":1,"result":{}}']);
  });

  it('regression: an event over the cap is refused even when it arrives whole in one chunk', async () => {
    const { events, end } = await read([Buffer.from('data: {"jsonrpc":"2.0"}\n\n')], 4);
    expect(events).toEqual([]);
    expect(end).toEqual({ kind: 'too-large', limit: 4 });
  });

  it('arbitrary bytes (invalid UTF-8, NULs, stray CRs): readSse never throws and always resolves; with a small cap, no event over the cap gets through', async () => {
    const soup = fc.array(
      fc.oneof(
        fc.uint8Array({ maxLength: 30 }).map((a) => Buffer.from(a)),
        fc.constantFrom('data: x\n\n', 'data:\r\n\r\n', 'id:\0\n', 'retry: x\n', 'retry: 99999999999999999999\n', ':\n', '\n', '\r', 'event:\n', 'data: {"jsonrpc":"2.0"}\n\n').map((s) => Buffer.from(s)),
      ),
      { maxLength: 10 },
    );
    await fuzzAsync('sse reader: arbitrary bytes', 3_000, fc.tuple(soup.map((b) => Buffer.concat(b)), fc.array(fc.nat(), { maxLength: 8 }), fc.integer({ min: 4, max: 64 })), async ([bytes, cuts, max]) => {
      const { events, end } = await read(cutAt(bytes, cuts), max);
      expect(['end', 'too-large']).toContain(end.kind);
      for (const e of events) expect(e.data.length).toBeLessThanOrEqual(max);
    });
  });

  it('decodeEvent: a message per event id at most once (redeliveries dropped), in order; the cursor is the last id', () => {
    const ev = fc.record({ id: fc.option(fc.constantFrom('a', 'b', 'c', 'd', '1', ''), { nil: undefined }), n: fc.nat(1000), kind: fc.constantFrom('json', 'blank', 'bad', 'other') });
    fuzz('sse stream: decodeEvent de-duplication', 8_000, fc.array(ev, { maxLength: 20 }), (evs) => {
      const st = createSseStream('post', 1, undefined);
      const seen = new Set<string>();
      let cursor: string | undefined;
      const expected: number[] = [];
      const got: number[] = [];
      for (const e of evs) {
        const data = e.kind === 'json' ? JSON.stringify({ jsonrpc: '2.0', method: 'n', params: { n: e.n } }) : e.kind === 'blank' ? '  ' : e.kind === 'bad' ? '{nope' : 'x';
        const msg: EventSourceMessage = { id: e.id, event: e.kind === 'other' ? 'ping' : undefined, data };
        const dup = e.id !== undefined && e.id !== '' && seen.has(e.id);
        if (!dup && e.id !== undefined) {
          cursor = e.id === '' ? undefined : e.id;
          if (e.id !== '') seen.add(e.id);
        }
        if (!dup && e.kind === 'json') expected.push(e.n);
        const d = decodeEvent(st, msg);
        if (d.kind === 'message') got.push((d.message as { params: { n: number } }).params.n);
        expect(d.kind).toBe(dup ? 'duplicate' : e.kind === 'json' ? 'message' : e.kind === 'bad' ? 'bad-json' : 'none');
        expect(st.lastEventId).toBe(cursor);
      }
      expect(got).toEqual(expected);
    });
  });
});
