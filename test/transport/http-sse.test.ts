/** The SSE reader (src/transport/http-sse.ts) fed byte by byte, with split multibyte characters. */
import { PassThrough } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { readSse, type EventSourceMessage } from '../../src/transport/http-sse.js';
import type { BodyReadable } from '../../src/transport/http-common.js';

function feed(bytes: Buffer, chunkSize: number, maxChars = 1 << 20) {
  const body = new PassThrough();
  const events: EventSourceMessage[] = [];
  const retries: number[] = [];
  const problems: string[] = [];
  const done = readSse(body as unknown as BodyReadable, maxChars, {
    onEvent: (e) => events.push(e),
    onRetry: (ms) => retries.push(ms),
    onProblem: (code) => problems.push(code),
  });
  for (let i = 0; i < bytes.length; i += chunkSize) body.write(bytes.subarray(i, i + chunkSize));
  body.end();
  return done.then((end) => ({ end, events, retries, problems }));
}

const STREAM = Buffer.from(
  'id: a_1\nretry: 1500\ndata: \n\n' +
    ': a comment\n' +
    'event: message\nid: a_2\ndata: {"jsonrpc":"2.0","method":"n","params":{"t":"héllo ✓ 𝄞"}}\n\n' +
    'id: a_3\r\ndata: {"jsonrpc":"2.0",\r\ndata: "id":1,"result":{}}\r\n\r\n',
  'utf8',
);

describe('SSE reader', () => {
  test.each([1, 2, 3, 7, STREAM.length])('chunks of %i bytes give the same events (multibyte characters split across chunks)', async (size) => {
    const { end, events, retries } = await feed(STREAM, size);
    expect(end).toEqual({ kind: 'end' });
    expect(retries).toEqual([1500]);
    expect(events.map((e) => e.id)).toEqual(['a_1', 'a_2', 'a_3']);
    expect(events[0].data).toBe('');
    expect(JSON.parse(events[1].data).params.t).toBe('héllo ✓ 𝄞');
    expect(JSON.parse(events[2].data)).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });

  test('an event above the cap ends the stream as too-large instead of buffering without bound', async () => {
    const big = Buffer.from(`data: ${'x'.repeat(10_000)}\n\n`);
    const { end, events } = await feed(big, 512, 4096);
    expect(end).toEqual({ kind: 'too-large', limit: 4096 });
    expect(events).toEqual([]);
  });

  test('a non-numeric retry is reported and ignored', async () => {
    const { retries, problems, events } = await feed(Buffer.from('retry: soon\ndata: {}\n\n'), 4);
    expect(retries).toEqual([]);
    expect(problems).toEqual(['MCPWIRE_SSE_BAD_RETRY']);
    expect(events).toHaveLength(1);
  });

  test('a stream that errors reports the error', async () => {
    const body = new PassThrough();
    const done = readSse(body as unknown as BodyReadable, 1024, { onEvent: () => {}, onRetry: () => {}, onProblem: () => {} });
    body.write('data: {}\n');
    body.destroy(new Error('reset'));
    const end = await done;
    expect(end.kind).toBe('error');
  });
});
