/**
 * Framer regressions: the size limit ignores the line terminator however
 * the line is cut (9.7a), an unreadable line that is recognisably a response names its id
 * (16.8), and a leading UTF-8 byte order mark is dropped (16.8).
 */
import { describe, expect, it } from 'vitest';
import { NdjsonFramer, type FramerDiagnostic } from '../../src/jsonrpc/framer.js';
import { responseIdFromHead } from '../../src/jsonrpc/head.js';

function collect(max?: number) {
  const messages: unknown[] = [];
  const diags: FramerDiagnostic[] = [];
  const framer = new NdjsonFramer({ maxMessageBytes: max, onMessage: (m) => messages.push(m), onDiagnostic: (d) => diags.push(d) });
  return { framer, messages, diags };
}

/** Feeds `bytes` cut at `at`, then ends the input. */
function feed(max: number, bytes: Buffer, at: number[]) {
  const c = collect(max);
  let prev = 0;
  for (const cut of [...at, bytes.length]) {
    c.framer.push(bytes.subarray(prev, cut));
    prev = cut;
  }
  c.framer.end();
  return c;
}

/** A JSON line of exactly `n` bytes. */
function lineOf(n: number): string {
  const base = JSON.stringify({ jsonrpc: '2.0', method: 'm', params: { s: '' } });
  const s = JSON.stringify({ jsonrpc: '2.0', method: 'm', params: { s: 'x'.repeat(n - base.length) } });
  expect(s.length).toBe(n);
  return s;
}

describe('the size limit does not count the CRLF terminator, however the line is cut', () => {
  const MAX = 100;
  for (const [label, n, accepted] of [
    ['exactly the limit', MAX, true],
    ['one byte over the limit', MAX + 1, false],
  ] as const) {
    it(`a CRLF line of ${label} gets the same verdict at every cut (basic.transports#1)`, () => {
      const bytes = Buffer.from(`${lineOf(n)}\r\n{"jsonrpc":"2.0","method":"after"}\n`);
      const verdicts = new Set<string>();
      for (let cut = 0; cut <= bytes.length; cut++) {
        const { messages, diags } = feed(MAX, bytes, cut === 0 ? [] : [cut]);
        verdicts.add(JSON.stringify({ n: messages.length, diags: diags.map((d) => d.message) }));
        expect(messages.at(-1), `cut at ${cut}`).toEqual({ jsonrpc: '2.0', method: 'after' });
        expect(messages.length, `cut at ${cut}`).toBe(accepted ? 2 : 1);
      }
      expect(verdicts.size).toBe(1);
    });
  }

  it('the CR split from its LF (last byte of one chunk) is held, and a line that goes on is still refused', () => {
    const line = lineOf(MAX);
    const { messages, diags } = feed(MAX, Buffer.from(`${line}\r\n`), [MAX + 1]);
    expect(messages).toHaveLength(1);
    expect(diags).toEqual([]);
    // the same MAX+1 bytes, but the CR is not the terminator: more bytes follow
    const more = feed(MAX, Buffer.from(`${line}\r  \n`), [MAX + 1]);
    expect(more.messages).toEqual([]);
    expect(more.diags.map((d) => d.message)).toEqual([`message of ${MAX + 3} bytes exceeds the maximum of ${MAX} bytes; skipped`]);
  });

  it('the reported size excludes the CR whether the line arrived whole or was skipped in pieces', () => {
    const bytes = Buffer.from(`${lineOf(150)}\r\n`);
    const whole = feed(MAX, bytes, []);
    const pieces = feed(MAX, bytes, [10, 60, 120, 151]);
    const bytewise = feed(MAX, bytes, Array.from({ length: bytes.length - 1 }, (_, i) => i + 1));
    for (const r of [whole, pieces, bytewise]) {
      expect(r.diags.map((d) => d.message)).toEqual(['message of 150 bytes exceeds the maximum of 100 bytes; skipped']);
    }
  });
});

describe('an unreadable line that is a response names the request it answers', () => {
  const big = (id: unknown, pad = 5000) => `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"${'y'.repeat(pad)}"}]}}`;

  it('an oversized response line reports responseToId, whole or cut anywhere', () => {
    for (const id of [7, 'req-7']) {
      const bytes = Buffer.from(`${big(id)}\n`);
      for (const at of [[], [1], [20], [30], [600], [1024], [4000], Array.from({ length: 80 }, (_, i) => i + 1)]) {
        const { diags } = feed(1024, bytes, at);
        expect(diags, `id ${id} cut ${at.slice(0, 3)}`).toHaveLength(1);
        expect(diags[0].code).toBe('MCPWIRE_FRAME_OVERSIZED');
        expect(diags[0].responseToId).toBe(id);
      }
    }
  });

  it('a non-ASCII oversized response and an error response also name their id', () => {
    const { diags } = feed(256, Buffer.from(`{"id":3,"jsonrpc":"2.0","result":{"t":"${'é'.repeat(300)}"}}\n`), []);
    expect(diags[0].responseToId).toBe(3);
    const err = feed(256, Buffer.from(`{"jsonrpc":"2.0","id":4,"error":{"code":-1,"message":"${'z'.repeat(300)}"}}\n`), [100]);
    expect(err.diags[0].responseToId).toBe(4);
  });

  it('a malformed response line with a readable id names it too', () => {
    const { diags } = feed(1024, Buffer.from('{"jsonrpc":"2.0","id":12,"result":{"oops": }\n'), []);
    expect(diags[0].code).toBe('MCPWIRE_FRAME_MALFORMED');
    expect(diags[0].responseToId).toBe(12);
  });

  it('requests, notifications, ids after the result and unreadable ids name nothing', () => {
    const lines = [
      `{"jsonrpc":"2.0","id":5,"method":"sampling/createMessage","params":{"x":"${'p'.repeat(3000)}"}}`,
      `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"${'n'.repeat(3000)}"}}`,
      `{"jsonrpc":"2.0","result":{"t":"${'r'.repeat(3000)}"},"id":6}`,
      `{"jsonrpc":"2.0","id":1.5,"result":{"t":"${'r'.repeat(3000)}"}}`,
      `{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"${'e'.repeat(3000)}"}}`,
      `{"jsonrpc":"2.0","id":{"a":1},"result":{"t":"${'r'.repeat(3000)}"}}`,
      `{"jsonrpc":"2.0","id":"${'i'.repeat(3000)}","result":{}}`,
    ];
    const { diags } = feed(1024, Buffer.from(lines.join('\n') + '\n'), [2000]);
    expect(diags).toHaveLength(lines.length);
    expect(diags.map((d) => d.responseToId)).toEqual(lines.map(() => undefined));
    expect(diags.every((d) => !('responseToId' in d))).toBe(true);
  });

  it('the head scan is bounded and tolerant of whitespace and escapes', () => {
    expect(responseIdFromHead(' { "jsonrpc" : "2.0" , "id" : "a\\"b" , "result" : {')).toBe('a"b');
    expect(responseIdFromHead('\ufeff{"id":-3,"result":')).toBe(-3);
    expect(responseIdFromHead('{"id":7')).toBeUndefined(); // cut off: 7 may go on (70, 7e3…)
    expect(responseIdFromHead('{"id":7,"res')).toBeUndefined();
    expect(responseIdFromHead('[{"id":7,"result":{}}]')).toBeUndefined();
    expect(responseIdFromHead('')).toBeUndefined();
  });
});

describe('a leading UTF-8 BOM on a line is dropped', () => {
  it('a BOM-prefixed line parses, whole, cut inside the BOM, or byte by byte', () => {
    const msg = { jsonrpc: '2.0', id: 1, result: { ok: 'é' } };
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`${JSON.stringify(msg)}\r\n`), Buffer.from('{"jsonrpc":"2.0","method":"a"}\n')]);
    for (const at of [[], [1], [2], [3], Array.from({ length: bytes.length - 1 }, (_, i) => i + 1)]) {
      const { messages, diags } = feed(1024, bytes, at);
      expect(diags, `cut ${at.slice(0, 3)}`).toEqual([]);
      expect(messages).toEqual([msg, { jsonrpc: '2.0', method: 'a' }]);
    }
  });

  it('an ASCII BOM-prefixed line among ASCII lines in one chunk parses', () => {
    const bytes = Buffer.concat([Buffer.from('{"jsonrpc":"2.0","method":"a"}\n'), Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"jsonrpc":"2.0","method":"b"}\n')]);
    const { messages, diags } = feed(1024, bytes, []);
    expect(diags).toEqual([]);
    expect(messages).toEqual([{ jsonrpc: '2.0', method: 'a' }, { jsonrpc: '2.0', method: 'b' }]);
  });
});
